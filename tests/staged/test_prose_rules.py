"""The offline judge's rules for prose and tables: the answer's paraphrase budget, names spelled
one letter off, adjectives of a people, and documents inside items typed as signals."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import Evidence, EvidenceSet
from gsar_otel.core.model import EvidenceType
from gsar_otel.judges.staged import StagedJudge
from gsar_otel.judges.staged.alignment import build_index
from gsar_otel.judges.staged.claims import slots_of
from gsar_otel.judges.staged.judge import OfflineSettings, judge_claims

ROWS = [f"host=web-{n} cpu_pct={10 + n}.5 conn_count={100 + n}" for n in range(8)]
"""Eight rows; claim n restates row n exactly."""
EXTRA = ("quietly", "rebalanced", "shards", "nightly", "quorum", "vacuum", "replica", "drift")
"""Content words no row holds."""


def _claim(n: int, extra: int) -> str:
    added = " ".join(EXTRA[:extra])
    return f"On web-{n}, CPU was {10 + n}.5%{' ' + added if added else ''}."


@settings(max_examples=60, deadline=None)
@given(extras=st.lists(st.integers(0, 2), min_size=1, max_size=8),
       budget=st.one_of(st.none(), st.integers(0, 8)))
def test_the_budget_grounds_exactly_the_claims_that_fit_it(extras: list[int],
                                                           budget: int | None) -> None:
    answer = " ".join(_claim(n, extra) for n, extra in enumerate(extras))
    index = build_index(EvidenceSet.coerce(ROWS))
    verdicts = judge_claims(answer, index, 0.0, budget)
    grounded = [v for v in verdicts if v.bucket == "grounded"]
    held = sum(len(v.missing) for v in grounded)
    # every claim is grounded without a budget; with one, the grounded ones fit it, and each
    # held-back claim adds at least as many words as any grounded one
    assert [v.bucket for v in judge_claims(answer, index, 0.0, None)] == ["grounded"] * len(
        extras)
    if budget is None or sum(extras) <= budget:
        assert len(grounded) == len(extras)
    else:
        assert held <= budget
        cut = [v for v in verdicts if v.rule == "budget"]
        assert cut and all(v.bucket == "ungrounded" for v in cut)
        assert min(len(v.missing) for v in cut) >= max((len(v.missing) for v in grounded),
                                                       default=0)
    # unrelated items, added or reordered, change nothing
    more = build_index(EvidenceSet.coerce([*reversed(ROWS), "ALERT DiskFull on db-9 fired"]))
    assert [v.bucket for v in judge_claims(answer, more, 0.0, budget)] == [
        v.bucket for v in verdicts]


def test_a_restated_answer_spends_no_budget() -> None:
    answer = " ".join(_claim(n, 0) for n in range(8))
    judge = StagedJudge(OfflineSettings(budget=0))
    assert {v.bucket for v in judge.explain(synthesis=answer,
                                            evidence=EvidenceSet.coerce(ROWS))} == {"grounded"}


@pytest.mark.parametrize("budget", [-1, 1.5, True, "4"])
def test_a_bad_budget_is_a_clear_error(budget: object) -> None:
    with pytest.raises(ValueError, match="budget must be an integer >= 0 or None"):
        OfflineSettings(budget=budget)  # type: ignore[arg-type]


TABLE = ["title: Karen Gillan\nBorn: 28 November 1987, Inverness, Scotland\n"
         "Occupation: Actress; director"]


def test_a_name_one_letter_off_is_found_and_another_name_is_not() -> None:
    judge = StagedJudge()
    evidence = EvidenceSet.coerce(TABLE)
    for spelled in ("Gilan", "Gillan", "Gillian"):
        verdicts = judge.explain(synthesis=f"Karen {spelled} is an actress.", evidence=evidence)
        assert [v.rule for v in verdicts] == ["grounded"], spelled
    for other in ("Gallagher", "Gill"):
        verdicts = judge.explain(synthesis=f"Karen {other} is an actress.", evidence=evidence)
        assert [v.bucket for v in verdicts] == ["ungrounded"], other


def test_an_adjective_of_a_people_is_a_word_not_a_name() -> None:
    for word in ("American", "Hungarian", "European", "Spanish", "Catholic"):
        slots = slots_of(f"She is a {word} singer.")
        assert word.lower() not in slots.names
        assert word.lower()[:4] in " ".join(slots.stems)
    assert "gillan" in slots_of("She met Karen Gillan.").names


ARTICLE = (
    "The officer was fired on Wednesday after the video was released. " * 5
    + "He had not been charged before the shooting, the city said, and the mayor did not "
      "comment on the case when asked by reporters outside the court on Thursday morning."
)


def test_a_document_in_an_item_typed_as_a_signal_is_read_as_sentences() -> None:
    item = Evidence(id="E1", content=ARTICLE, type=EvidenceType.SIGNAL_MATCH)
    index = build_index(EvidenceSet(items=(item,)))
    assert {f.kind for f in index.facts} == {"prose"}
    assert len(index.facts) == 6
    verdicts = StagedJudge().explain(synthesis="The officer was fired after the video.",
                                     evidence=EvidenceSet(items=(item,)))
    assert [v.bucket for v in verdicts] == ["grounded"]
    short = Evidence(id="E2", content="ALERT DiskFull fired on db-9. Disk at 97%.",
                     type=EvidenceType.SIGNAL_MATCH)
    assert [f.kind for f in build_index(EvidenceSet(items=(short,))).facts] == ["signal"]


def test_a_long_line_is_a_log_line_only_with_a_log_head() -> None:
    story = ("Residents of the old town told the council at 10:02:11 of a Warning on the bridge. "
             * 6)
    logged = "2026-03-20T02:31:51Z WARN gw-1 nginx: " + "upstream timed out while reading. " * 12
    kinds = {text: {f.kind for f in build_index(EvidenceSet.coerce([text])).facts}
             for text in (story, logged)}
    assert kinds == {story: {"prose"}, logged: {"log"}}


def test_a_camel_case_event_reason_states_its_category_and_names_its_tail() -> None:
    event = ("LAST SEEN  TYPE     REASON        OBJECT                           MESSAGE\n"
             "2m         Warning  NodeNotReady  node/ip-10-1-3-248.ec2.internal  Node is not ready")
    evidence = EvidenceSet.coerce([event.replace("Node is not ready", "Node status changed")])
    judge = StagedJudge()
    said = judge.explain(synthesis="Node ip-10-1-3-248.ec2.internal went NotReady.",
                         evidence=evidence)
    assert [v.bucket for v in said] == ["grounded"]
    ready = judge.explain(synthesis="Node ip-10-1-3-248.ec2.internal was ready.",
                          evidence=evidence)
    assert [v.bucket for v in ready] == ["contradicted"]


@settings(max_examples=40)
@given(subject=st.sampled_from(["Brian May", "The band", "Judy", "db-prod-2", "checkout-api"]),
       years=st.integers(2, 60), joiner=st.sampled_from(["for", "for over", "since"]))
def test_active_is_an_alert_that_fires_only_in_a_text_about_an_alert(
        subject: str, years: int, joiner: str) -> None:
    career = slots_of(f"{subject} has been active {joiner} {years} years.")
    assert ("alert_state", "firing") not in career.categories, career.categories
    alert = slots_of(f"Alert ALRT-{years} on {subject} was active {joiner} {years} minutes.")
    assert ("alert_state", "firing") in alert.categories, alert.categories


@settings(max_examples=40)
@given(word=st.sampled_from(["close", "up", "down"]), value=st.integers(1, 99),
       verb=st.sampled_from(["is", "was", "stayed"]))
def test_a_word_before_to_is_a_preposition_not_a_category(word: str, value: int,
                                                           verb: str) -> None:
    slots = slots_of(f"Error rate on db-prod-1 {verb} {word} to {value}%.")
    assert slots.categories == (), slots.categories
    plain = slots_of(f"db-prod-1 {verb} {word}.")
    assert plain.categories != (), (word, plain.categories)


@pytest.mark.parametrize("claim", ["HighCPU is active.", "The HighCPU rule is active.",
                                   "HighCPU is still active on db-prod-1."])
def test_active_without_a_span_of_time_is_still_an_alert_that_fires(claim: str) -> None:
    evidence = EvidenceSet.coerce(["alertname=HighCPU host=db-prod-1 state=resolved"])
    verdicts = StagedJudge().explain(synthesis=claim, evidence=evidence)
    assert [v.bucket for v in verdicts] == ["contradicted"], verdicts[0].reason
