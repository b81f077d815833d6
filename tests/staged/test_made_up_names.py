"""A name of a tool subject (a host, a service, a pod, a node, an alert or deploy id, a person, a
team) that no evidence item holds is a made-up tool observation: beside any number of true
claims the answer never proceeds by default, and the paper's pure decision (``score``) is what
S alone gives."""

from __future__ import annotations

import string

from hypothesis import example, given, settings
from hypothesis import strategies as st

from benchmarks.worlds.incident_world import PEOPLE, SERVICES, TEAMS
from gsar_otel.core.evaluator import GSAREvaluator
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import TOOL_BACKED_TYPES, Decision
from gsar_otel.core.scoring import decide
from gsar_otel.judges.staged import StagedJudge
from gsar_otel.judges.staged.claims import slots_of

judge = StagedJudge()
HOSTS = ("db-prod-1", "api-prod-3", "cache-2", "edge-lb-7", "queue-4", "worker-38")
ROW_CLAIMS = (
    ("cpu_pct", "{:.1f}", "CPU on {host} reached {value}%."),
    ("conn_count", "{:.0f}", "The connection count on {host} was {value}."),
    ("p99_latency_ms", "{:.0f}", "On {host}, p99 latency was {value} ms."),
    ("errors", "{:.0f}", "Host {host} logged {value} errors."),
)
"""A row's key and how a true claim restates it."""
TEMPLATES = (
    "Errors also spread to {name}.",
    "Service {name} was restarted at 10:02 UTC.",
    "The {name} service reported elevated latency.",
    "Deploy dep-4410 was followed by a restart of {name}.",
    "Traffic was shifted to {name}.",
    "{name} was restarted after the alert.",
    "The errors were first seen on {name}, then on the others.",
)
"""Sentences stating a tool observation about a name (the subject, object or agent)."""

WORD = st.text(alphabet=string.ascii_lowercase, min_size=4, max_size=9).filter(
    lambda w: w not in {"over", "back", "away", "with", "self", "anti", "semi", "well", "half",
                        "down", "under", "around", "through", "multi"})
"""One part of a made-up name; parts that make an English compound (``self-``, ``well-``)
are not names."""
NAMES = st.one_of(
    st.sampled_from([s for s in SERVICES if s not in ("checkout-api",)]),
    st.sampled_from([t for t in TEAMS if "-" in t]),
    st.lists(WORD, min_size=2, max_size=3).map("-".join),
    st.builds("{}-prod-{}".format, WORD, st.integers(1, 99)),
    st.builds("pod/{}-{}".format, WORD, st.integers(1000, 9999)),
    st.builds("ip-10-0-{}-{}.ec2.internal".format, st.integers(0, 9), st.integers(1, 250)),
    st.builds("ALRT-{}".format, st.integers(10000, 99999)),
    st.builds("dep-{}".format, st.integers(1000, 9999)),
    st.sampled_from(PEOPLE),
)
"""Names of every tool subject kind, none of which the evidence below holds."""


def _case(hosts: list[str], values: list[float], name: str, template: int) -> tuple[str, list[str]]:
    items, said = [], []
    for number, (host, value) in enumerate(zip(hosts, values, strict=True)):
        key, shape, claim = ROW_CLAIMS[number % len(ROW_CLAIMS)]
        items.append(f"host={host} {key}={shape.format(value)} status=ok")
        said.append(claim.format(host=host, value=shape.format(value)))
    items.append('{"deploy_id": "dep-4411", "service": "checkout-api", "status": "succeeded"}')
    return " ".join([*said, TEMPLATES[template].format(name=name)]), items


@settings(max_examples=80, deadline=None)
@given(hosts=st.lists(st.sampled_from(HOSTS), min_size=1, max_size=6, unique=True),
       values=st.lists(st.integers(10, 900), min_size=6, max_size=6),
       name=NAMES, template=st.integers(0, len(TEMPLATES) - 1))
@example(hosts=list(HOSTS[:4]), values=[97, 239, 850, 12, 5, 5], name="media-resizer",
         template=0)
@example(hosts=list(HOSTS[:4]), values=[97, 239, 850, 12, 5, 5], name="geo-lookup", template=3)
@example(hosts=list(HOSTS[:4]), values=[97, 239, 850, 12, 5, 5], name="sre-oncall", template=1)
def test_a_name_found_nowhere_beside_true_claims_never_proceeds(
        hosts: list[str], values: list[int], name: str, template: int) -> None:
    answer, items = _case(hosts, [float(v) for v in values[:len(hosts)]], name, template)
    verdicts = judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))
    *true, last = verdicts
    assert [v.bucket for v in true] == ["grounded"] * len(hosts), answer
    assert last.bucket == "ungrounded", (answer, last.reason)
    assert last.type in TOOL_BACKED_TYPES, (answer, last.type)  # it claims a tool observation
    result = GSAREvaluator(judge).evaluate_sync(report_synthesis=answer, evidence_corpus=items)
    assert result.final_decision is not Decision.PROCEED, (answer, result.final_score)
    pure = GSAREvaluator(judge, contradiction_policy="score").evaluate_sync(
        report_synthesis=answer, evidence_corpus=items)
    assert pure.final_score == result.final_score
    assert pure.final_decision is decide(pure.final_score)


COMPOUNDS = (
    "The team agreed on a long-term plan.", "The cache has a read-only replica.",
    "A follow-up was scheduled.", "The co-founder approved it.",
    "The fix is well-known.", "The plan is long-term.",
)
"""Hyphenated English words: modifiers before a noun, after a linking verb, or built with a
particle or prefix. None of them names a thing."""


def test_an_english_compound_is_no_name() -> None:
    for sentence in COMPOUNDS:
        assert slots_of(sentence).subjects == (), sentence
