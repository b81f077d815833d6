"""The offline judge as a whole: end to end, its invariants as properties, its rules for prose,
and what a text says about itself.

Its sections cover stage 7 (the judge end to end, the seed examples and the row property); the
invariants (a restated value is grounded, a swapped one never is, unrelated evidence changes no
verdict); the paraphrase budget, names spelled one letter off, adjectives of a people and
documents inside signal items; and stage 2 (markers, names, stems, the anchors adapter). Cost
and the ``lodo`` replay stay in their own files (``test_cost.py``, ``test_lodo_replay.py``),
which docs and the test targets name by path.

Its tables: ``NEGATIONS`` (sentences and whether they are negated), the conclusions and
observations, the pronouns, and the bad budgets.
"""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import Evidence, EvidenceSet
from gsar_otel.core.model import EvidenceType, JudgeOutput
from gsar_otel.core.protocol import Judge
from gsar_otel.judges.staged import StagedJudge
from gsar_otel.judges.staged.alignment import build_index
from gsar_otel.judges.staged.anchoring import agree, comparable, extract
from gsar_otel.judges.staged.claims import slots_of
from gsar_otel.judges.staged.judge import OfflineSettings, judge_claims
from gsar_otel.judges.staged.textual import facts_of

# ================================================================================================
# Stage 7: the judge end to end, the seed examples and the row property.
# ================================================================================================

SEED_EVIDENCE = EvidenceSet(items=(
    Evidence("E1", "2024-05-01 10:14:30 UTC INFO deploy-bot: config push cfg-7781 to edge-lb-3"),
    Evidence("E2", "[signal] alert_id=A-1 fired_at=10:15:00 outage on edge-lb-3 severity=critical",
             EvidenceType.SIGNAL_MATCH),
    Evidence("E3", "host=edge-lb-3 http_5xx_rate=41.2% p99_ms=850 ts=2024-05-01T10:15:32Z"),
))
CAUSE = "The outage was caused by a config push."


def judge(synthesis: str, evidence: EvidenceSet = SEED_EVIDENCE) -> JudgeOutput:
    return asyncio.run(StagedJudge().judge(synthesis=synthesis, evidence=evidence))


def test_it_is_a_deterministic_judge_named_staged() -> None:
    assert isinstance(StagedJudge(), Judge)
    assert StagedJudge.name == "staged"
    assert StagedJudge.deterministic is True


def test_an_unstated_cause_is_an_ungrounded_conclusion() -> None:
    output = judge(CAUSE)
    assert [c.text for c in output.ungrounded_claims] == [CAUSE]
    assert output.ungrounded_claims[0].conclusion
    assert output.decision_status == "resolved"


def test_an_unstated_cause_beside_three_grounded_facts() -> None:
    output = judge("The 5xx rate on edge-lb-3 reached 41.2% at 10:15:32 UTC. "
                   "deploy-bot pushed config cfg-7781 to edge-lb-3 at 10:14:30 UTC. "
                   "The p99 latency on edge-lb-3 was 850 ms. " + CAUSE)
    assert len(output.grounded_claims) == 3
    assert [c.text for c in output.ungrounded_claims] == [CAUSE]
    assert output.ungrounded_claims[0].conclusion
    assert not any(c.conclusion for c in output.grounded_claims)


def test_the_5xx_rate_row_grounds_its_claim() -> None:
    evidence = EvidenceSet.coerce(["host=edge-lb-3 http_5xx_rate=41.2% ts=2024-05-01T10:15:32Z"])
    output = judge("The 5xx rate on edge-lb-3 reached 41.2% at 10:15:32 UTC.", evidence)
    (claim,) = output.grounded_claims
    assert claim.type is EvidenceType.TOOL_MATCH
    assert claim.evidence_refs == ("E1",)
    assert output.grounding_score == 1.0 and output.is_grounded


def test_a_changed_value_is_contradicted_and_reported() -> None:
    evidence = EvidenceSet.coerce(["host=edge-lb-3 http_5xx_rate=41.2% ts=2024-05-01T10:15:32Z"])
    output = judge("The 5xx rate on edge-lb-3 reached 12.5% at 10:15:32 UTC.", evidence)
    assert len(output.contradicted_claims) == 1
    assert output.contradictions and "12.5%" in output.contradictions[0]


def test_an_anaphoric_conclusion_of_grounded_facts_is_a_synthesis() -> None:
    evidence = EvidenceSet.coerce(["host=db-prod-1 cpu_pct=97.2 ts=14:02:01",
                                   "host=db-prod-1 rps=12.4 ts=14:02:01"])
    output = judge("CPU on db-prod-1 reached 97% at 14:02 UTC. Request rate on db-prod-1 "
                   "was 12 RPS. These two observations indicate the spike is real.",
                   evidence)
    # Each claim cites the row that holds its value.
    assert [c.evidence_refs for c in output.grounded_claims] == [("E1",), ("E2",)]
    assert [(c.type, c.evidence_refs) for c in output.complementary_claims] == [
        (EvidenceType.SYNTHESIS, ("E1", "E2"))]


def test_a_trend_stated_from_one_sample_is_not_grounded() -> None:
    evidence = EvidenceSet.coerce(["host=db-prod-1 rps=12.4 ts=14:02:01"])
    output = judge("Request rate on db-prod-1 dropped to 12 RPS.", evidence)
    assert not output.grounded_claims
    assert output.gaps == ("Request rate on db-prod-1 dropped to 12 RPS.: says decreased: a "
                           "trend needs two values or a stated change, and no evidence item "
                           "states one",)


def test_no_evidence_grounds_nothing() -> None:
    output = judge("CPU on db-prod-1 reached 97%.", EvidenceSet())
    assert not output.grounded_claims
    assert output.grounding_score == 0.0


def test_empty_answer_has_no_claims() -> None:
    output = judge("Here is what I found:")
    assert output.to_partition().is_empty
    assert output.grounding_score == 0.5


def test_the_judge_is_deterministic_and_instances_share_nothing() -> None:
    answer = "The 5xx rate on edge-lb-3 reached 41.2% at 10:15:32 UTC. " + CAUSE
    assert judge(answer) == judge(answer)
    used = StagedJudge()
    used.judge_now(synthesis=answer, evidence=EvidenceSet.coerce(["host=edge-lb-3 p99_ms=12"]))
    assert used.judge_now(synthesis=answer, evidence=SEED_EVIDENCE) == StagedJudge().judge_now(
        synthesis=answer, evidence=SEED_EVIDENCE)
    assert vars(StagedJudge()) == {"settings": OfflineSettings()}  # no state beyond settings


HOSTS = st.builds(lambda a, n: f"{a}-{n}", st.sampled_from(["edge-lb", "db-prod", "api-gw"]),
                  st.integers(1, 99))
VALUES = st.fixed_dictionaries({
    "count": st.integers(2, 9000),
    "pct": st.integers(1, 999).map(lambda v: v / 10),
    "clock": st.tuples(st.integers(0, 23), st.integers(0, 59), st.integers(0, 59)),
    "version": st.tuples(st.integers(1, 9), st.integers(0, 30), st.integers(0, 30)),
    "req": st.integers(1000, 99999),
})
TEMPLATE_ROW = ("host={host} conn_count={count} error_pct={pct}% ts={clock} "
                "release=v{version} request_id=req-{req}")
TEMPLATE_CLAIM = ("On {host} the conn count was {count} and the error pct was {pct}% at {clock} "
                  "with release v{version} for request req-{req}.")


def render(template: str, host: str, values: dict[str, object]) -> str:
    clock = "{:02d}:{:02d}:{:02d}".format(*values["clock"])  # type: ignore[str-format]
    version = "{}.{}.{}".format(*values["version"])  # type: ignore[str-format]
    return template.format(host=host, count=values["count"], pct=values["pct"], clock=clock,
                           version=version, req=values["req"])


@settings(max_examples=40, deadline=None)
@given(HOSTS, VALUES, st.sampled_from(["count", "pct"]))
def test_copying_a_row_is_never_contradicted_and_changing_a_value_is(
        host: str, values: dict[str, object], changed: str) -> None:
    evidence = EvidenceSet.coerce([render(TEMPLATE_ROW, host, values),
                                   "2024-05-01 10:00:00 UTC INFO unrelated line"])
    copied = judge(render(TEMPLATE_CLAIM, host, values), evidence)
    assert not copied.contradicted_claims
    other = dict(values)
    other[changed] = (int(values["count"]) * 3 + 7 if changed == "count"  # type: ignore[call-overload]
                      else round(float(values["pct"]) + 37.3, 1))  # type: ignore[arg-type]
    altered = judge(render(TEMPLATE_CLAIM, host, other), evidence)
    assert altered.contradicted_claims


# ================================================================================================
# The offline judge's invariants, as properties: a restated value is grounded; a swapped typed,
# categorical or named value never is; unrelated evidence items, added or reordered, change no
# verdict.
# ================================================================================================

METRICS = {
    # key: (claim words, format of a value in the claim)
    "cpu_pct": ("CPU", "{:.1f}%"),
    "conn_count": ("the connection count", "{:.0f}"),
    "p99_latency_ms": ("p99 latency", "{:.0f} ms"),
    "error_pct": ("the error rate", "{:.1f}%"),
    "errors": ("the error count", "{:.0f}"),
    "mem_used_gb": ("memory used", "{:.1f} GB"),
}
HOSTNAMES = ("db-prod-1", "api-prod-3", "cache-2", "edge-lb-7", "queue-4")
STATUSES = {"succeeded": "failed", "failed": "succeeded"}
SEVERITIES = ("info", "warning", "critical")

offline = StagedJudge()


def buckets(answer: str, items: list[str]) -> list[str]:
    return [v.bucket for v in offline.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))]


def row(host: str, values: dict[str, float]) -> str:
    return f"host={host} " + " ".join(f"{k}={v:g}" for k, v in values.items())


values_st = st.fixed_dictionaries({k: st.integers(100, 90000).map(lambda n: n / 10)
                                   for k in METRICS})
"""Values from 10.0 to 9000.0: a changed value below differs from the stated one by far more
than the claim's rounding."""


PHRASINGS = (
    "On {host}, {words} was {value}.",
    "{words} on host {host} reached {value}.",
    "Host {host} reported {words} of {value}.",
)
"""How an answer may state one row's value: the subject first, last, or named by its kind."""


@settings(max_examples=40)
@given(host=st.sampled_from(HOSTNAMES), values=values_st, key=st.sampled_from(sorted(METRICS)),
       factor=st.sampled_from([0.5, 0.7, 1.5, 3.0]), phrasing=st.sampled_from(range(3)))
@example(host="cache-2", values={k: 133.0 for k in METRICS}, key="conn_count", factor=0.5,
         phrasing=0)
@example(host="db-prod-1", values={k: 97.2 for k in METRICS}, key="cpu_pct", factor=1.5,
         phrasing=0)
@example(host="db-prod-1", values={k: 97.2 for k in METRICS}, key="cpu_pct", factor=0.7,
         phrasing=1)
@example(host="db-prod-1", values={k: 97.2 for k in METRICS}, key="errors", factor=3.0,
         phrasing=2)
def test_a_restated_value_is_grounded_and_a_changed_one_is_contradicted(
        host: str, values: dict[str, float], key: str, factor: float, phrasing: int) -> None:
    words, shape = METRICS[key]
    evidence = [row(host, values)]
    right = PHRASINGS[phrasing].format(host=host, words=words, value=shape.format(values[key]))
    # at least 7 away, and more: never within the claim's rounding of the true value
    changed = values[key] * factor + 7 if factor > 1 else values[key] * (1 + factor) + 7
    wrong = PHRASINGS[phrasing].format(host=host, words=words, value=shape.format(changed))
    assert buckets(right, evidence) == ["grounded"], right
    assert buckets(wrong, evidence) == ["contradicted"], (wrong, evidence)


@settings(max_examples=40)
@given(host=st.sampled_from(HOSTNAMES), values=values_st, key=st.sampled_from(sorted(METRICS)),
       other=st.sampled_from(sorted(METRICS)))
@example(host="cache-2", values={**{k: 5.0 for k in METRICS}, "conn_count": 133.0,
                                 "errors": 248.0}, key="errors", other="conn_count")
def test_a_value_of_another_field_of_the_row_is_never_grounded(
        host: str, values: dict[str, float], key: str, other: str) -> None:
    words, shape = METRICS[key]
    claimed = values[other]
    if shape.format(claimed) == shape.format(values[key]) or abs(claimed - values[key]) <= 0.5:
        return  # the two fields hold the same value (or one rounding of it): stating it is right
    answer = f"On {host}, {words} was {shape.format(claimed)}."
    assert buckets(answer, [row(host, values)]) != ["grounded"], answer


@settings(max_examples=40)
@given(host=st.sampled_from(HOSTNAMES), other=st.sampled_from(["payments-api", "db-prod-9",
                                                            "billing-worker", "john.smith"]),
       values=values_st, key=st.sampled_from(sorted(METRICS)))
def test_a_subject_named_nowhere_is_never_grounded(host: str, other: str,
                                                   values: dict[str, float], key: str) -> None:
    words, shape = METRICS[key]
    answer = f"On {other}, {words} was {shape.format(values[key])}."
    assert buckets(answer, [row(host, values)]) == ["ungrounded"], answer


@settings(max_examples=40)
@given(status=st.sampled_from(sorted(STATUSES)), deploy=st.integers(1000, 9999),
       service=st.sampled_from(["checkout-api", "payment-worker", "search-svc"]),
       wrapped=st.booleans())
@example(status="succeeded", deploy=5521, service="checkout-api", wrapped=True)
def test_the_opposite_status_is_contradicted(status: str, deploy: int, service: str,
                                              wrapped: bool) -> None:
    record = (f'{{"deploy_id": "dep-{deploy}", "service": "{service}", "status": "{status}", '
              f'"actor": "maria.lopez"}}')
    item = record
    if wrapped:
        item = f'{{"result": "deploy_id=dep-{deploy} service={service} status={status}"}}'
    assert buckets(f"Deploy dep-{deploy} of {service} {status}.", [item]) == ["grounded"]
    assert buckets(f"Deploy dep-{deploy} of {service} {STATUSES[status]}.", [item]) == [
        "contradicted"]


@settings(max_examples=40)
@given(severity=st.sampled_from(SEVERITIES), claimed=st.sampled_from(SEVERITIES),
       host=st.sampled_from(HOSTNAMES), alert=st.integers(10000, 99999))
def test_a_severity_is_grounded_only_as_stated(severity: str, claimed: str, host: str,
                                               alert: int) -> None:
    item = (f"ALERT ALRT-{alert} DiskSpace host={host} severity={severity} state=firing")
    expected = "grounded" if claimed == severity else "contradicted"
    assert buckets(f"Alert ALRT-{alert} on {host} is {claimed}.", [item]) == [expected]


@settings(max_examples=40)
@given(verb=st.sampled_from(["closed", "merged", "deployed", "restarted", "acknowledged",
                             "approved", "scaled", "drained", "resolved", "rolled back"]),
       form=st.sampled_from(["was never {}", "was not {}", "wasn't {}"]),
       ticket=st.integers(1, 999))
def test_a_negated_statement_of_a_logged_action_is_never_grounded(verb: str, form: str,
                                                                  ticket: int) -> None:
    item = f"2026-03-14T09:13:42Z INFO ticket-bot: ticket TCK-{ticket} was {verb} by team-5"
    assert buckets(f"Ticket TCK-{ticket} was {verb}.", [item]) == ["grounded"]
    claim = f"Ticket TCK-{ticket} {form.format(verb)}."
    assert buckets(claim, [item]) == ["contradicted"], claim


@settings(max_examples=40)
@given(host=st.sampled_from(HOSTNAMES), values=values_st,
       distractors=st.lists(st.tuples(st.sampled_from(["web-9", "batch-3", "ldap-1"]),
                                      values_st), min_size=1, max_size=30),
       position=st.integers(0, 30), key=st.sampled_from(sorted(METRICS)),
       factor=st.sampled_from([1.0, 0.5]))
def test_unrelated_items_added_or_reordered_change_no_verdict(
        host: str, values: dict[str, float], distractors: list[tuple[str, dict[str, float]]],
        position: int, key: str, factor: float) -> None:
    words, shape = METRICS[key]
    answer = (f"On {host}, {words} was {shape.format(values[key] * factor)}. "
              f"db-prod-9 had {words} of {shape.format(values[key])}.")
    alone = buckets(answer, [row(host, values)])
    others = [row(h, v) for h, v in distractors]
    items = [*others[:position], row(host, values), *others[position:]]
    assert buckets(answer, items) == alone
    assert buckets(answer, list(reversed(items))) == alone


PEOPLE = ("maria.lopez", "john.smith", "wei.chen", "amara.okafor", "lucas.martin")


@settings(max_examples=30)
@given(actor=st.sampled_from(PEOPLE), other=st.sampled_from(PEOPLE),
       deploy=st.integers(1000, 9999), alert=st.integers(10000, 99998))
@example(actor="maria.lopez", other="john.smith", deploy=5521, alert=20932)
def test_a_name_in_another_name_s_place_is_contradicted(actor: str, other: str, deploy: int,
                                                       alert: int) -> None:
    record = (f'{{"deploy_id": "dep-{deploy}", "service": "checkout-api", "status": "succeeded", '
              f'"actor": "{actor}"}}')
    signal = f"ALERT ALRT-{alert} DiskSpaceWarning host=db-prod-2 severity=warning state=firing"
    items = [record, signal]
    assert buckets(f"Deploy dep-{deploy} was run by {actor}.", items) == ["grounded"]
    assert buckets(f"Alert ALRT-{alert} fired on db-prod-2.", items) == ["grounded"]
    if other != actor:
        assert buckets(f"Deploy dep-{deploy} was run by {other}.", items) == ["contradicted"]
    assert buckets(f"Alert ALRT-{alert + 1} fired on db-prod-2.", items) == ["contradicted"]
    assert buckets("Alert DiskSpaceCritical fired on db-prod-2.", items) == ["contradicted"]


# ================================================================================================
# The offline judge's rules for prose and tables: the answer's paraphrase budget, names spelled
# one letter off, adjectives of a people, and documents inside items typed as signals.
# ================================================================================================

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


# ================================================================================================
# Stage 2: what a text says about itself (markers, names, stems) and the anchors adapter.
# ================================================================================================

@pytest.mark.parametrize("claim", [
    "The outage was caused by a config push.",
    "Latency rose due to the cache flush.",
    "The deploy led to the error spike.",
    "So the root cause is the new release.",
    "Errors rose because the pool was exhausted.",
    "The pool filled, which means the service stalled.",
    "Therefore the fix worked.",
    "The spike was likely caused by a runaway query.",
    "This probably indicates a leak.",
])
def test_conclusions(claim: str) -> None:
    assert facts_of(claim).conclusion


@pytest.mark.parametrize("claim", [
    "CPU on db-prod-1 reached 97% at 14:02 UTC.",
    "The team also thanked the reviewers.",
    "Due diligence was done in May.",
    "The rebalance led by two members finished.",
])
def test_observations_are_not_conclusions(claim: str) -> None:
    assert not facts_of(claim).conclusion


# (sentence, whether facts_of reads it as negated)
NEGATIONS = [
    # "not", "no" and "failed to" negate; a failure that happened is no negation
    ("The job did not restart.", True),
    ("No errors were logged.", True),
    ("The pod failed to start.", True),
    ("The deploy failed on web-1.", False),
]


@pytest.mark.parametrize(("sentence", "negated"), NEGATIONS)
def test_negation_markers(sentence: str, negated: bool) -> None:
    assert facts_of(sentence).negated is negated


def test_names_are_whole_lowercased_tokens_not_the_first_word() -> None:
    facts = facts_of("Yesterday Stefani's manager met George in Georgetown.")
    assert facts.names == frozenset({"stefani", "george", "georgetown"})


def test_number_words_are_digits_among_the_stems() -> None:
    assert "3" in facts_of("three replicas restarted").stems


def test_adjacent_pairs() -> None:
    assert ("request", "rat") in facts_of("the request rate dropped").pairs


def test_anchor_specs_compare_across_formats() -> None:
    (claim,) = [s for s in extract("CPU hit 97%") if s.kind == "PERCENT"]
    (row,) = [s for s in extract("cpu_pct=97.2%") if s.kind == "PERCENT"]
    (other,) = [s for s in extract("cpu_pct=55.0%") if s.kind == "PERCENT"]
    assert comparable(claim, row)
    assert agree(claim, row) == "match"
    assert agree(claim, other) == "conflict"


CAUSES = ("Config push cfg-{p} took down the API on db-{h}.",
          "Config push cfg-{p} brought down the API on db-{h}.",
          "Config push cfg-{p} precipitated the errors on db-{h}.",
          "Config push cfg-{p} provoked the errors on db-{h}.",
          "Config push cfg-{p} is to blame for the errors on db-{h}.",
          "The errors on db-{h} stemmed from config push cfg-{p}.",
          "The errors on db-{h} originated from config push cfg-{p}.",
          "The errors on db-{h} were driven by config push cfg-{p}.",
          "The errors on db-{h} were induced by config push cfg-{p}.",
          "The errors on db-{h} were a consequence of config push cfg-{p}.",
          "The errors on db-{h} trace back to config push cfg-{p}.")


@given(form=st.sampled_from(CAUSES), host=st.integers(1, 99), push=st.integers(10, 999))
def test_every_phrasing_of_a_cause_is_a_cause(form: str, host: int, push: int) -> None:
    claim = form.format(p=push, h=host)
    assert facts_of(claim).causal, claim
    # and the judge does not ground a cause the evidence only sets side by side
    items = [f"2024-05-01T10:00:00Z INFO config push cfg-{push} applied to db-{host}",
             f"2024-05-01T10:01:00Z ERROR db-{host} upstream errors from the API"]
    verdicts = StagedJudge().explain(synthesis=claim, evidence=EvidenceSet.coerce(items))
    assert [v.bucket for v in verdicts] == ["ungrounded"], claim


@given(day=st.integers(1, 31), form=st.sampled_from(["on May {d}", "{d} May", "in May",
                                                     "since May {d}", "in early May"]))
def test_the_month_may_is_no_hedge(day: int, form: str) -> None:
    assert not facts_of(f"db-1 hit an OOM kill {form.format(d=day)}.").speculative
    assert facts_of(f"The OOM kill on db-{day} may be a memory leak.").speculative


@given(service=st.sampled_from(["checkout-api", "auth-service", "db-prod-2"]),
       octet=st.integers(1, 254), verb=st.sampled_from(["resolved", "resolves"]))
def test_a_name_resolved_to_an_address_is_no_alert_state(service: str, octet: int,
                                                         verb: str) -> None:
    items = EvidenceSet.coerce([f"service={service} ip=10.1.7.{octet}"])
    claim = f"{service} {verb} to 10.1.7.{octet}."
    assert [v.bucket for v in StagedJudge().explain(synthesis=claim, evidence=items)] \
        == ["grounded"], claim
