"""A plain word a record holds under a key (``namespace=prod``, ``strategy=bluegreen``) is a
value like a number: another word given for that key of that subject is contradicted, in every
record shape and phrasing; the value itself, written alike, shortened or as initials, is
grounded."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge
from gsar_otel.judges.staged.word_values import _beside, _holds

judge = StagedJudge()
# key, the value a record holds, another value, the phrasings that give the key a value
FIELDS = [
    ("namespace", "prod", "staging",
     ("{s} runs in namespace {v}.", "{s} runs in the {v} namespace.")),
    ("environment", "production", "sandbox",
     ("{s} is deployed to the {v} environment.", "The environment of {s} is {v}.")),
    ("strategy", "bluegreen", "canary", ("The {s} rollout used a {v} strategy.",
                                         "{s} was rolled out with strategy {v}.")),
    ("engine", "postgres", "mysql", ("{s} uses a {v} database engine.", "{s} runs engine {v}.")),
    ("protocol", "grpc", "thrift", ("{s} speaks the {v} protocol.", "{s} uses protocol {v}.")),
    ("cloud", "aws", "azure", ("{s} runs on {v} cloud.", "{s} runs in the {v} cloud.")),
    ("tier", "gold", "bronze", ("{s} is in the {v} tier.", "{s} has tier {v}.")),
    ("runtime", "python", "golang",
     ("{s} is built on runtime {v}.", "{s} runs on the {v} runtime.")),
]
SHAPES = {
    "logfmt": "service={s} {k}={v} replicas=3",
    "colon": "service: {s}, {k}: {v}, replicas: 3",
    "json": '{{"service": "{s}", "{k}": "{v}", "replicas": 3}}',
    "wrapped": '[{{"text": "service={s} {k}={v} replicas=3"}}]',
}
OTHER = ["host=db-9 cpu_pct=12.5 status=ok", "2024-05-01T10:02:11Z INFO cache-1 flushed 42 keys",
         "service=search-api owner=team-search replicas=2"]


def bucket(answer: str, items: list[str]) -> str:
    verdicts = judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))
    assert len(verdicts) == 1, verdicts
    return verdicts[0].bucket


@settings(max_examples=120)
@given(field=st.sampled_from(FIELDS), shape=st.sampled_from(sorted(SHAPES)),
       phrasing=st.integers(0, 1), swapped=st.booleans(),
       service=st.sampled_from(["checkout-api", "payments-api", "orders-svc"]),
       others=st.lists(st.sampled_from(OTHER), unique=True, max_size=3))
@example(field=FIELDS[0], shape="logfmt", phrasing=0, swapped=True, service="checkout-api",
         others=[])
@example(field=FIELDS[7], shape="json", phrasing=1, swapped=False, service="orders-svc",
         others=OTHER)
def test_another_word_for_a_records_key_is_contradicted(
        field: tuple[str, str, str, tuple[str, str]], shape: str, phrasing: int, swapped: bool,
        service: str, others: list[str]) -> None:
    key, held, other, forms = field
    record = SHAPES[shape].format(s=service, k=key, v=held)
    claim = forms[phrasing].format(s=service, v=other if swapped else held)
    expected = "contradicted" if swapped else "grounded"
    # unrelated records, before or after it, change nothing
    assert bucket(claim, [record, *others]) == expected, (claim, record)
    assert bucket(claim, [*others, record]) == expected, (claim, record)


@settings(max_examples=40)
@given(field=st.sampled_from(FIELDS), phrasing=st.integers(0, 1))
def test_the_value_of_the_key_on_another_record_is_another_value(
        field: tuple[str, str, str, tuple[str, str]], phrasing: int) -> None:
    # the claim's word is in the evidence, but as the same key's value of another service
    key, held, other, forms = field
    items = [f"service=checkout-api {key}={held} replicas=3",
             f"service=search-api {key}={other} replicas=2"]
    claim = forms[phrasing].format(s="checkout-api", v=other)
    assert bucket(claim, items) == "contradicted", claim


@given(written=st.sampled_from([
    ("production", "the prod environment"), ("prod", "the production namespace"),
    ("bluegreen", "a blue-green strategy"), ("blue/green", "a bluegreen strategy"),
    ("postgresql", "the postgres engine"), ("gcp", "on google cloud platform"),
    ("EU-West-1", "in region eu-west-1"), ("canary", "canary")]))
def test_a_value_written_otherwise_is_the_value(written: tuple[str, str]) -> None:
    value, phrase = written
    assert _holds(value, _tokens(phrase))


def _tokens(text: str) -> list[str]:
    return text.split()


def test_the_word_beside_a_key_is_before_it_or_after_a_copula() -> None:
    stems = frozenset({"namespac"})
    assert _beside(_tokens("runs in the staging namespace"), stems) == ["staging"]
    assert _beside(_tokens("runs in namespace staging"), stems) == ["staging"]
    assert _beside(_tokens("the namespace was staging"), stems) == ["staging"]
    # a stopword or a copula ends the words before it; none after it is a value
    assert _beside(_tokens("was namespace of the pod"), stems) == []
    assert _beside(_tokens("a mysql database namespace"), stems) == ["mysql", "database"]


@settings(max_examples=30)
@given(word=st.sampled_from(["new", "busy", "shared"]), key=st.sampled_from(["namespace", "tier"]))
def test_a_word_the_evidence_states_elsewhere_is_left_to_the_other_checks(word: str,
                                                                         key: str) -> None:
    # "the busy namespace" beside a line saying the namespace is busy: a paraphrase, not a value
    items = [f"service=checkout-api {key}=prod replicas=3",
             f"2024-05-01T10:02:11Z INFO checkout-api {key} is {word} today"]
    assert bucket(f"checkout-api runs in the {word} {key}.", items) != "contradicted"


@settings(max_examples=40)
@given(scope=st.sampled_from(["namespace", "environment", "cluster"]),
       said=st.sampled_from(["staging", "sandbox", "prod", "production"]),
       held=st.sampled_from(["prod", "production", "eu-prod"]))
def test_a_scope_named_nowhere_is_no_scope_of_the_evidence(scope: str, said: str,
                                                           held: str) -> None:
    # "in the staging namespace" beside a tool run against another: a name found nowhere
    items = ["\n".join([f"$ kubectl top pods -n {held}",
                         "NAME                  CPU(cores)   MEMORY(bytes)",
                         "orders-1332a1-a6s     235m         512Mi"])]
    claim = f"Pod orders-1332a1-a6s in the {said} {scope} is using 512Mi of memory."
    written = said.startswith("prod") and "prod" in held
    assert (bucket(claim, items) == "grounded") == written, (claim, held)


INCIDENT = ('{{"incidents": [{{"incident_number": {n}, "status": "{status}", '
            '"urgency": "{urgency}", "service": {{"summary": "search-prod"}}}}]}}')


@settings(max_examples=60)
@given(n=st.integers(1000, 99999), urgency=st.sampled_from(["low", "high"]),
       said=st.sampled_from(["low", "high"]),
       status=st.sampled_from(["resolved", "acknowledged", "triggered"]),
       form=st.sampled_from(["Incident {n} is {u} urgency.", "Incident {n} has {u} urgency."]))
def test_a_numbered_record_is_the_claims_subject(n: int, urgency: str, said: str, status: str,
                                                 form: str) -> None:
    item = INCIDENT.format(n=n, status=status, urgency=urgency)
    claim = form.format(n=n, u=said)
    verdicts = judge.explain(synthesis=claim, evidence=EvidenceSet.coerce([item]))
    expected = "grounded" if said == urgency else "contradicted"
    assert [v.bucket for v in verdicts] == [expected], (claim, item)


@settings(max_examples=40)
@given(key=st.sampled_from(["active", "enabled", "resolved"]),
       value=st.sampled_from(["failed", "inactive", "degraded", "pending"]),
       unit=st.sampled_from(["haproxy", "nginx", "pgbouncer"]))
def test_a_value_stating_its_own_state_is_the_state_whatever_its_key_names(
        key: str, value: str, unit: str) -> None:
    item = f"unit={unit} {key}={value} host=db-03"
    verdicts = judge.explain(synthesis=f"The {unit} unit is {key}.",
                             evidence=EvidenceSet.coerce([item]))
    assert [v.bucket for v in verdicts] != ["grounded"], item
    # a truth or a time under the key still states what the key names
    for held in ("true", "14:02"):
        item = f"unit={unit} {key}={held} host=db-03"
        verdicts = judge.explain(synthesis=f"The {unit} unit is {key}.",
                                 evidence=EvidenceSet.coerce([item]))
        assert [v.bucket for v in verdicts] == ["grounded"], item
