"""linbandits.npzfile: arrays written and read back as they were, the same arrays the same bytes whenever they
are written, never an array of Python objects; a file that is missing or not an .npz is one UserError naming
it, what it should be and how to get a good one. Planted bugs: members written by name alone (zipfile stamps
them with the time), a writer allowing pickles, np.load (its own exceptions)."""
import time

import numpy as np
import pytest
from plain_source import plain

from linbandits import npzfile
from linbandits.errors import UserError

ARRAYS = {"X": np.arange(6.0).reshape(2, 3), "counts": np.array([3, 1], np.int32), "kind": np.array("linear")}


def test_arrays_come_back_as_they_were_written(tmp_path):
    npzfile.write_npz(tmp_path / "a.npz", ARRAYS)
    back = npzfile.read_npz(tmp_path / "a.npz")
    assert list(back) == list(ARRAYS)
    for name, array in ARRAYS.items():
        assert back[name].dtype == array.dtype and np.array_equal(back[name], array)


def test_the_same_arrays_are_the_same_bytes_a_day_later(tmp_path, monkeypatch):
    real_time, days = time.time, iter(range(0, 10 * 86400, 86400))
    monkeypatch.setattr(time, "time", lambda: real_time() + next(days))

    def written_twice(write):
        files = []
        for _ in range(2):
            write(tmp_path / "a.npz", ARRAYS)
            files.append((tmp_path / "a.npz").read_bytes())
        return files[0] == files[1]

    assert written_twice(npzfile.write_npz)
    assert not written_twice(plain(npzfile.write_npz, 'zipfile.ZipInfo(f"{name}.npy", date_time=FIXED_DATE)',
                                   'f"{name}.npy"'))


def refusal(read, path):
    try:
        read(path)
    except UserError as exc:
        return str(exc)
    except Exception as exc:
        return f"not a UserError: {type(exc).__name__}"
    return "read"


def test_a_missing_or_foreign_file_is_one_line_with_the_remedy(tmp_path):
    (tmp_path / "table.npz").write_text("trial,regret\n0,1.5\n")
    read = npzfile.read_npz
    assert refusal(read, tmp_path / "nope.npz") == f"file {tmp_path / 'nope.npz'} does not exist"
    assert refusal(read, tmp_path / "table.npz") == (
        f"{tmp_path / 'table.npz'} is not a valid file: it is not an .npz (zip) archive, perhaps truncated or "
        "overwritten; delete it and rerun the command or Snakemake rule that writes it")
    assert refusal(lambda p: read(p, "runs file", "rerun `linbandits runs`"), tmp_path / "table.npz").endswith(
        "is not a valid runs file: it is not an .npz (zip) archive, perhaps truncated or overwritten; "
        "rerun `linbandits runs`")
    assert refusal(np.load, tmp_path / "table.npz").startswith("not a UserError")      # planted: np.load


def test_an_array_of_python_objects_is_never_written(tmp_path):
    """What read_npz's refusal of such a file says (tests/test_bad_input_refused_early.py): no file this package
    writes holds one. Planted: the writer allowing pickles."""
    objects = {"X": np.array([{"a": 1}], dtype=object)}
    with pytest.raises(ValueError):
        npzfile.write_npz(tmp_path / "mine.npz", objects)
    assert list(tmp_path.iterdir()) == []
    plain(npzfile.write_npz, "allow_pickle=False", "allow_pickle=True")(tmp_path / "mine.npz", objects)
    assert "holds Python objects" in refusal(npzfile.read_npz, tmp_path / "mine.npz")
