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


def _expected_cuts(added: list[int], budget: int | None,
                   sentence_budget: int | None) -> set[int]:
    """The claims (one per sentence) the budgets hold back, from their definition: any over
    ``budget``; then, the loosest left aside (the most words, the earliest on a tie), any over
    ``sentence_budget``."""
    cut = {i for i, n in enumerate(added) if budget is not None and n > budget}
    left = [i for i, n in enumerate(added) if i not in cut and n]
    if left and sentence_budget is not None:
        loosest = min(left, key=lambda i: (-added[i], i))
        cut |= {i for i in left if i != loosest and added[i] > sentence_budget}
    return cut


@settings(max_examples=80, deadline=None)
@given(extras=st.lists(st.integers(0, 4), min_size=1, max_size=8),
       budget=st.one_of(st.none(), st.integers(0, 8)),
       sentence_budget=st.one_of(st.none(), st.integers(0, 4)))
def test_the_budgets_ground_exactly_the_sentences_that_fit_them(
        extras: list[int], budget: int | None, sentence_budget: int | None) -> None:
    answer = " ".join(_claim(n, extra) for n, extra in enumerate(extras))
    index = build_index(EvidenceSet.coerce(ROWS))
    free = judge_claims(answer, index, 0.0, None)
    # every claim is grounded without a budget, adding exactly its extra words
    assert [v.bucket for v in free] == ["grounded"] * len(extras)
    assert [len(v.missing) for v in free] == extras
    verdicts = judge_claims(answer, index, 0.0, budget, sentence_budget)
    cut = {i for i, v in enumerate(verdicts) if v.bucket != "grounded"}
    assert cut == _expected_cuts(extras, budget, sentence_budget)
    assert all(verdicts[i].rule == "budget" and verdicts[i].bucket == "ungrounded"
               for i in cut)
    # what is grounded fits: at most one sentence over the sentence budget, none over the budget
    held = [extras[i] for i in range(len(extras)) if i not in cut]
    assert budget is None or all(n <= budget for n in held)
    assert sentence_budget is None or sum(n > sentence_budget for n in held) <= 1
    # unrelated items, added or reordered, change nothing
    more = build_index(EvidenceSet.coerce([*reversed(ROWS), "ALERT DiskFull on db-9 fired"]))
    assert [v.bucket for v in judge_claims(answer, more, 0.0, budget, sentence_budget)] == [
        v.bucket for v in verdicts]


def test_a_sentence_spends_its_budget_across_its_claims() -> None:
    # two clauses adding a word each are one sentence adding two: the loosest (the earlier of
    # two adding two), so the later sentence's two words are over its budget of one
    answer = ("On web-1, CPU was 11.5% quietly and on web-2, CPU was 12.5% nightly. "
              "On web-3, CPU was 13.5% quorum vacuum.")
    verdicts = judge_claims(answer, build_index(EvidenceSet.coerce(ROWS)), 0.0, 4, 1)
    assert [v.bucket for v in verdicts] == ["grounded", "grounded", "ungrounded"]
    assert verdicts[2].reason == ("another sentence of the answer already adds words no evidence "
                                  "item states; this claim adds quorum, vacuum")
    # alone, the same sentence is the answer's loosest and fits its budget of four
    alone = judge_claims("On web-3, CPU was 13.5% quorum vacuum.",
                         build_index(EvidenceSet.coerce(ROWS)), 0.0, 4, 1)
    assert [v.bucket for v in alone] == ["grounded"]


def test_a_restated_answer_spends_no_budget() -> None:
    answer = " ".join(_claim(n, 0) for n in range(8))
    judge = StagedJudge(OfflineSettings(budget=0, sentence_budget=0))
    assert {v.bucket for v in judge.explain(synthesis=answer,
                                            evidence=EvidenceSet.coerce(ROWS))} == {"grounded"}


@pytest.mark.parametrize("name", ["budget", "sentence_budget"])
@pytest.mark.parametrize("budget", [-1, 1.5, True, "4"])
def test_a_bad_budget_is_a_clear_error(name: str, budget: object) -> None:
    with pytest.raises(ValueError, match=f"^{name} must be an integer >= 0 or None"):
        OfflineSettings(**{name: budget})  # type: ignore[arg-type]


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


@pytest.mark.parametrize("pronoun", str.split(
    "him her hers them it us me you ours yours theirs myself yourself yourselves himself herself "
    "itself ourselves themselves"))
def test_a_pronoun_is_no_word_a_record_must_hold(pronoun: str) -> None:
    # not even with no paraphrase budget at all: a pronoun names what the record already holds
    item = "2024-05-01T10:00:00Z ERROR checkout-api: worker restarted after OOM"
    judge = StagedJudge(OfflineSettings(budget=0, sentence_budget=0))
    verdicts = judge.explain(synthesis=f"The checkout-api worker restarted {pronoun} after an OOM.",
                             evidence=EvidenceSet.coerce([item]))
    assert [(v.bucket, v.missing) for v in verdicts] == [("grounded", ())], pronoun
