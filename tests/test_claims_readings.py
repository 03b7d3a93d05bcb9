"""How a verdict reads: the paper's words judged first and a post-hoc reading second (never counted, never
judged on the data it was fitted to), causes that name what was not examined, flip points that say when
any margin would do, exact values with the p-values of their side, one estimate in several claims'
families, and claims read on a stand-in kept out of the "depend on a choice" count. Each rule is checked
on hand-made evidence, and a planted bug (applied here) must be caught by the same check."""
import inspect
import textwrap

import pytest
from scipy import stats

from linbandits.claims import audit, engine, estimates as est, judge, render
from linbandits.claims.engine import FAILS_TO_HOLD, HOLDS, INCONCLUSIVE, NO_EVIDENCE, Missing
from linbandits.claims.load import load_claims
from linbandits.errors import UserError


class Numbers:
    """Evidence whose every part reads a normal estimate: quantity 'v' looks up spec['mean'] (se 0.01)."""

    extras: dict = {}

    def settings(self, exp):
        if exp == "missing":
            raise Missing("experiment missing not in this run")
        return ["single"]

    def setting_label(self, exp, s):
        return ""

    def summary(self, exp, s):
        return {}

    def experiment(self, exp):
        return type("E", (), {"sweep": "x"})()


def normal(mean, se=0.01):
    return est.Estimate(mean, mean - 1.96 * se, mean + 1.96 * se, 100, "normal",
                        lambda t: float(stats.norm.sf((mean - t) / se)), lambda t: float(stats.norm.cdf((mean - t) / se)),
                        interval_at=lambda a: (mean - stats.norm.isf(a) * se, mean + stats.norm.isf(a) * se))


QUANTITIES = {"v": lambda ev, spec, a, c: (normal(spec["mean"], spec.get("se", 0.01)), f"v = {spec['mean']}")}


def part(mean, **relation):
    return {"quantity": "v", "experiment": "e", "mean": mean, **relation}


def revised_claim(**more):
    """The paper's words fail (mean 0.3 against 'below 0.1'); a revision chosen after seeing the data holds."""
    return {"id": "c", "quote": "q", "parts": [part(0.3, less=0.1)],
            "post_hoc": {"seen": ["published", "reproduction"], "prompted_by": "the published data failed it",
                         "reason": "it reads the paper's purpose", "parts": [part(0.3, less=0.5)]}, **more}


# ------------------------------------------------------------------ the paper's words first

def primary_first_problems(results, claims, evidence) -> list[str]:
    """Every record's verdict is its claim's primary reading judged alone, its counts are the primary verdicts,
    and a post-hoc reading is marked as one, with what was seen, what prompted it and why."""
    found = []
    for claim, r in zip(claims, results):
        primary = engine.judge({k: v for k, v in claim.items() if k != "post_hoc"}, evidence, QUANTITIES)["verdict"]
        if r["verdict"] != primary:
            found.append(f"{r['id']}: prints {r['verdict']}, its primary reading gives {primary}")
        post = r.get("post_hoc")
        if claim.get("post_hoc") and not (post and post["seen"] and post["prompted_by"] and post["reason"]):
            found.append(f"{r['id']}: its revised reading is not marked post hoc with what prompted it")
    if render.counts(results) != {v: sum(engine.judge({k: x for k, x in c.items() if k != "post_hoc"}, evidence,
                                                      QUANTITIES)["verdict"] == v for c in claims)
                                  for v in engine.VERDICTS}:
        found.append("the counts are not the primary verdicts'")
    return found


def test_the_primary_reading_is_judged_printed_and_counted_first():
    claims = [revised_claim()]
    results = judge.judge_claims(claims, Numbers(), QUANTITIES)
    assert results[0]["verdict"] == FAILS_TO_HOLD and results[0]["post_hoc"]["verdict"] == HOLDS
    assert primary_first_problems(results, claims, Numbers()) == []
    md = render.render_markdown(results, "T")
    row = [line for line in md.splitlines() if line.startswith("| `c`")][0]
    assert row.index("**does not hold**") < row.index("post hoc (chosen after seeing the paper's published data")
    assert "1 post-hoc reading(s) shown beside their claims' verdicts, not counted" in md
    section = md[md.index("## `c`"):]
    assert section.index("Test:") < section.index("### Post-hoc reading: holds (not counted)")
    assert "Prompted by: the published data failed it" in section


def test_planted_revision_printed_as_the_primary_verdict_is_caught(monkeypatch):
    """The defect issue 49 found: the revised reading's verdict printed and counted as the claim's."""
    original = judge.judge_claims

    def revision_wins(claims, *args, **kw):
        out = original(claims, *args, **kw)
        for r in out:
            if r.get("post_hoc"):
                r["verdict"] = r["post_hoc"]["verdict"]
        return out

    monkeypatch.setattr(judge, "judge_claims", revision_wins)
    claims = [revised_claim()]
    assert primary_first_problems(judge.judge_claims(claims, Numbers(), QUANTITIES), claims, Numbers())


class Witness(Numbers):
    """The paper's published data: the revised reading was fitted to them."""


def test_a_reading_fitted_to_the_published_data_is_not_judged_on_them():
    results = judge.judge_claims([revised_claim()], Numbers(), QUANTITIES, witness=Witness())
    post = results[0]["post_hoc"]
    assert post["published"]["circular"] and "parts" not in post["published"]
    assert audit.post_hoc_problems(results) == []
    assert "not judged on the published data" in render.render_markdown(results, "T")
    # a revision prompted by the reproduction alone is judged on the published data
    claim = revised_claim()
    claim["post_hoc"]["seen"] = ["reproduction"]
    assert judge.judge_claims([claim], Numbers(), QUANTITIES, witness=Witness())[0]["post_hoc"]["published"]["verdict"] == HOLDS


def test_planted_post_hoc_verdict_on_the_data_it_was_fitted_to_is_caught(monkeypatch):
    original = judge._post_hoc

    def judged_anyway(claim, evidence, quantities, switches, level, labels, opt_in, witness):
        seen_nothing = {**claim, "post_hoc": {**claim["post_hoc"], "seen": ["reproduction"]}}
        out = original(seen_nothing, evidence, quantities, switches, level, labels, opt_in, witness)
        return {**out, "seen": claim["post_hoc"]["seen"]}

    monkeypatch.setattr(judge, "_post_hoc", judged_anyway)
    assert audit.post_hoc_problems(judge.judge_claims([revised_claim()], Numbers(), QUANTITIES, witness=Witness()))


def test_a_post_hoc_reading_must_say_what_was_seen_and_why(tmp_path):
    for broken, match in [({"seen": ["published"], "parts": [part(0, less=1)], "reason": "r"}, "prompted_by"),
                          ({"seen": ["the figure"], "prompted_by": "p", "reason": "r", "parts": [part(0, less=1)]},
                           "seen"),
                          ({"seen": ["published"], "prompted_by": "p", "reason": "r", "parts": [], "why": 1},
                           "parts")]:
        path = tmp_path / "claims.yaml"
        path.write_text(__import__("yaml").safe_dump([{"id": "c", "quote": "q", "parts": [part(0, less=1)],
                                                       "post_hoc": broken}]))
        with pytest.raises(UserError, match=match) as error:
            load_claims(path)
        assert "\n" not in str(error.value)


# ------------------------------------------------------------------ causes name what was not examined

def failing_claim(**more):
    return {"id": "c", "quote": "q", "parts": [part(0.3, less=0.1)], **more}


@pytest.mark.parametrize("claim,rob,expected", [
    (failing_claim(), {"choices": [], "runs": []}, "the paper leaves no protocol choice open for it"),
    (failing_claim(choices=["noise"]), {"choices": ["noise"], "runs": [], "untested": [], "opt_in": []},
     "no protocol choice explains it: every open choice was run (noise)"),
    (failing_claim(choices=["noise", "width"]), {"choices": ["noise", "width"], "runs": [], "untested": [],
                                                 "opt_in": ["width"]},
     "no protocol choice that was run explains it (noise); not examined: width (switch runs made only by the "
     "opt-in target"),
    (failing_claim(unexamined=["the Delta grid"]), {"choices": [], "runs": []},
     "no protocol choice was run on it; not examined: the Delta grid"),
])
def test_a_cause_says_what_was_not_examined(claim, rob, expected):
    text = judge.cause_text(claim, FAILS_TO_HOLD, rob, "")
    assert expected in text
    if "not examined" in expected:
        assert "every open choice was run" not in text


def test_planted_cause_that_claims_every_choice_was_examined_is_caught(monkeypatch):
    monkeypatch.setattr(judge, "_unexplained",
                        lambda claim, rob: "the reproduced runs: no error of the paper and no protocol choice explains it")
    text = judge.cause_text(failing_claim(choices=["width"]), FAILS_TO_HOLD,
                            {"choices": ["width"], "runs": [], "untested": [], "opt_in": ["width"]}, "")
    assert "not examined" not in text       # the check above would fail on it


# ------------------------------------------------------------------ flip points

def smallest_margin_text_ok(mean, base=0.0, margin=0.05) -> bool:
    """A "holds" of 'not above base by more than margin' states the smallest margin that holds: 0 when the
    interval already lies at or below the base."""
    j = engine.judge({"id": "c", "quote": "q", "parts": [part(mean, not_greater=base, margin=margin)]}, Numbers(),
                     QUANTITIES)
    high = j["tree"].children[0].estimate.high
    text = j["flip"]["text"]
    if high <= base:
        return text.startswith("holds for any margin >= 0")
    return text == f"holds for any margin of at least {engine.fmt(high - base)}"


@pytest.mark.parametrize("mean", [-0.1, -0.0196, 0.01])
def test_the_flip_of_a_margin_is_the_smallest_margin_that_holds(mean):
    assert smallest_margin_text_ok(mean)


def test_planted_flip_text_past_the_base_is_caught(monkeypatch):
    """The old text: 'holds for any margin of at least 0.0804' for an interval lying wholly below 0."""
    source = textwrap.dedent(inspect.getsource(engine.flip_of))
    planted = source.replace('if kind == "margin" and leaf.verdict == HOLDS and', "if False and")
    assert planted != source
    namespace = dict(vars(engine))
    exec(compile(planted, engine.__file__, "exec"), namespace)
    monkeypatch.setattr(engine, "flip_of", namespace["flip_of"])
    assert not smallest_margin_text_ok(-0.1)


# ------------------------------------------------------------------ exact values

def exact_record(value, **relation):
    claim = {"id": "c", "quote": "q", "parts": [{"quantity": "x", "experiment": "e", **relation}]}
    return judge.judge_claims([claim], Numbers(), {"x": lambda *_: (est.exact(value), "x")})[0]


def p_holds(record) -> float:
    return max(t["p_adjusted"] for name, t in record["parts"][0]["tests"].items() if name.startswith("holds"))


def test_an_exact_value_on_its_claimed_side_has_p_holds_0():
    equal = exact_record(2742457.0, between=[2742457, 2742457])
    assert equal["verdict"] == HOLDS and p_holds(equal) == 0.0
    assert "0 \\| 1" in render.render_markdown([equal], "T")
    below = exact_record(1.41, not_greater=1.42, margin=0)
    assert below["verdict"] == HOLDS and p_holds(below) == 0.0
    beyond = exact_record(4.24, not_greater=1.4142, margin=0)
    assert beyond["verdict"] == FAILS_TO_HOLD and p_holds(beyond) == 1.0


def test_planted_strict_test_at_a_closed_edge_is_caught(monkeypatch):
    """The old p-values: "holds" beside p(holds) = 1 for an exact value on the edge of its closed region."""
    monkeypatch.setattr(engine, "exact_p", lambda value, t: float(est.exact(value).p_above(t.threshold)
                                                                    if t.side == "above" else
                                                                    est.exact(value).p_below(t.threshold)))
    assert p_holds(exact_record(2742457.0, between=[2742457, 2742457])) == 1.0     # the check above would fail


# ------------------------------------------------------------------ one estimate in two families

def shared_claims():
    one = {"id": "one", "quote": "q", "parts": [part(-0.05, se=0.022, less=0)]}
    two = {"id": "two", "quote": "q", "parts": [part(-0.05, se=0.022, less=0), part(-1.0, less=0),
                                                part(-1.0, less=0, se=0.02), part(-2.0, less=0)]}
    return judge.judge_claims([one, two], Numbers(), QUANTITIES)


def test_one_comparison_in_two_claims_names_the_other_family():
    one, two = shared_claims()
    assert one["verdict"] == HOLDS and two["verdict"] == INCONCLUSIVE      # each claim its own family
    (s,) = one["shared"]
    assert s["claim"] == "two" and s["parts"] == 4 and s["verdict"] == INCONCLUSIVE
    assert two["shared"][0]["claim"] == "one" and two["shared"][0]["verdict"] == HOLDS
    md = render.render_markdown([one, two], "T")
    assert "Family: this claim's intervals are simultaneous over its own parts only" in md
    assert "`two` (4 part(s), each interval at 98.75%)" in md


def test_planted_estimate_key_with_the_relation_is_caught(monkeypatch):
    monkeypatch.setattr(judge, "estimate_key", lambda spec: repr(sorted(spec.items())) + repr(id(spec)))
    one, _ = shared_claims()
    assert "shared" not in one       # the check above would fail


# ------------------------------------------------------------------ the stand-in's robustness is not the paper's

def test_a_claim_read_on_a_stand_in_does_not_depend_on_a_choice():
    stand_in = {"id": "s", "verdict": NO_EVIDENCE, "stand_in_verdict": HOLDS, "robustness": {"status": "depends"}}
    judged = {"id": "j", "verdict": HOLDS, "robustness": {"status": "depends"}}
    assert [render.depends_on_a_choice(r) for r in (stand_in, judged)] == [False, True]
    assert "1 depend on a protocol choice" in render.summary_line([stand_in, judged])


def test_the_audit_finds_a_post_hoc_reading_without_its_marks():
    record = judge.judge_claims([revised_claim()], Numbers(), QUANTITIES)[0]
    del record["post_hoc"]["prompted_by"]
    assert audit.post_hoc_problems([record])
