"""linbandits.streams: every number of a trial is a function of (seed, trial[, purpose]) alone, and each
such key is a stream of its own: another seed, trial or purpose draws other numbers, whichever order the
generators are made in; key64 is a 64-bit word of the same seed sequence. Planted bugs: a key that sums
seed and trial, a key that drops the purpose."""
import numpy as np
from plain_source import plain

from linbandits import streams

KEYS = [(1, 2, None), (2, 1, None), (0, 3, None), (3, 0, None), (1, 2, 1), (1, 2, 2), (1, 3, 1), (12, 0, None)]


def first_draws(generator, keys=KEYS):
    return {key: tuple(generator(*key).random(3)) for key in keys}


def test_each_seed_trial_and_purpose_is_a_stream_of_its_own():
    draws = first_draws(streams.generator)
    assert len(set(draws.values())) == len(KEYS)
    assert first_draws(streams.generator, KEYS[::-1]) == draws             # made in any order: the same numbers
    assert first_draws(lambda s, t, p: streams.generator(np.int64(s), np.int32(t), p)) == draws
    summed = plain(streams._key, "key = [int(seed), int(trial)]", "key = [int(seed) + int(trial)]")
    dropped = plain(streams._key, "return key if purpose is None else key + [int(purpose)]", "return key")
    for planted in (summed, dropped):
        generator = plain(streams.generator, namespace={"_key": planted})
        assert len(set(first_draws(generator).values())) < len(KEYS)


def test_key64_is_a_64_bit_word_of_the_same_seed_sequence():
    keys = [streams.key64(*key) for key in KEYS]
    assert len(set(keys)) == len(KEYS) and all(0 <= k < 2**64 and isinstance(k, int) for k in keys)
    assert keys[4] == int(np.random.SeedSequence([1, 2, 1]).generate_state(1, np.uint64)[0])
    dropped = plain(streams._key, "return key if purpose is None else key + [int(purpose)]", "return key")
    assert plain(streams.key64, namespace={"_key": dropped})(1, 2, 1) != keys[4]
