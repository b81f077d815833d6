"""The level a claim says a line was logged at is a value of the line: a warning reported as an
error, or an error as a warning, is contradicted, in every line shape and phrasing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()
LINES = {
    "plain": "2024-05-01T10:02:11Z {L} {s} slow query took 2300ms",
    "bracket": "[2024-05-01 10:02:11] [{L}] {s}: slow query took 2300ms",
    "logfmt": 'ts=2024-05-01T10:02:11Z level={l} service={s} msg="slow query took 2300ms"',
    "json": '{{"ts": "2024-05-01T10:02:11Z", "level": "{l}", "service": "{s}", '
            '"msg": "slow query took 2300ms"}}',
}
LEVELS = {"ERROR": "error", "WARN": "warning", "INFO": "info", "DEBUG": "debug"}
SAID = ("{s} logged a slow query at {L} level.", "{s} logged a slow query as {L}.")
LEADS = {"error": "an error", "warning": "a warning"}


def bucket(answer: str, items: list[str]) -> str:
    verdicts = judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))
    assert len(verdicts) == 1, verdicts
    return verdicts[0].bucket


@settings(max_examples=80)
@given(line=st.sampled_from(sorted(LINES)), held=st.sampled_from(sorted(LEVELS)),
       said=st.sampled_from(sorted(LEVELS)), form=st.sampled_from(SAID),
       service=st.sampled_from(["checkout-api", "auth-service", "db-prod-2"]))
def test_a_level_is_the_lines_own(line: str, held: str, said: str, form: str,
                                  service: str) -> None:
    item = LINES[line].format(L=held, l=held.lower(), s=service)
    claim = form.format(L=said, s=service)
    expected = "grounded" if LEVELS[said] == LEVELS[held] else "contradicted"
    assert bucket(claim, [item]) == expected, (claim, item)


@settings(max_examples=40)
@given(line=st.sampled_from(["plain", "bracket", "json"]), held=st.sampled_from(sorted(LEVELS)),
       said=st.sampled_from(sorted(LEADS)))
def test_a_level_in_the_claims_lead_is_read_too(line: str, held: str, said: str) -> None:
    # "logged an error: <message>": the level stands in the lead the claim is split from
    item = LINES[line].format(L=held, l=held.lower(), s="checkout-api")
    claim = f"checkout-api logged {LEADS[said]}: slow query took 2300ms."
    expected = "grounded" if said == LEVELS[held] else "contradicted"
    assert bucket(claim, [item]) == expected, (claim, item)


@settings(max_examples=40)
@given(kind=st.sampled_from(["Normal", "Warning"]), said=st.sampled_from(sorted(LEADS)),
       form=st.sampled_from(["checkout-api logged a slow query {w}.",
                             "checkout-api logged {a} about a slow query."]))
def test_a_kubernetes_event_type_is_its_level(kind: str, said: str, form: str) -> None:
    item = f"3m  {kind}  SlowQuery  pod/checkout-api  slow query took 2300ms"
    claim = form.format(w=said, a=LEADS[said])
    # Normal is informational: neither an error nor a warning
    expected = "grounded" if kind == "Warning" and said == "warning" else "contradicted"
    assert bucket(claim, [item]) == expected, (claim, item)
