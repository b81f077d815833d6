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
