"""Negation, polarity, conditions and reporting verbs: what a claim asserts of its subject,
said or denied, diagnosed or measured.

Its sections cover negation as a value of the claim, conditions a claim diagnoses ("is leaking
memory") that need a record stating them, and verbs of reporting a result ("achieved",
"obtained") that are the claim's predicate, not words the evidence must hold.

Its table ``SAID_OR_DENIED`` holds claims said or denied (a count of zero, a condition named
as an event), with the bucket each must get.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

# ================================================================================================
# A negation is a value of the claim: a negated claim is grounded only when its evidence states
# the negation (a negated sentence in any phrasing, or a field saying false), and an evidence item
# stating the negation never grounds the plain claim, for actions that are categories ("closed",
# "rolled back") and actions that are not ("merged", "approved") alike.
# ================================================================================================

VERBS = ("closed", "merged", "deployed", "restarted", "acknowledged", "approved", "scaled",
         "drained", "resolved", "rolled back")
CLAIM_NEGATIONS = ("was not {}", "was never {}", "wasn't {}", "has not been {}",
                   "hasn't been {}", "has not yet been {}")
EVIDENCE_NEGATIONS = ("was not {}", "was never {}", "wasn't {}", "has not yet been {}")

judge = StagedJudge()


def bucket(answer: str, items: list[str]) -> str:
    verdicts = judge.explain(synthesis=answer, evidence=EvidenceSet.coerce(items))
    assert len(verdicts) == 1, verdicts
    return verdicts[0].bucket


def record(ticket: int, verb: str, value: bool) -> str:
    return (f'{{"ticket": "TCK-{ticket}", "{verb.replace(" ", "_")}": '
            f'{"true" if value else "false"}, "team": "team-5"}}')


@settings(max_examples=60)
@given(verb=st.sampled_from(VERBS), form=st.sampled_from(CLAIM_NEGATIONS),
       ticket=st.integers(1, 999),
       evidence=st.sampled_from(["long", "other action", "record"]))
def test_a_negated_claim_the_evidence_does_not_negate_is_never_grounded(
        verb: str, form: str, ticket: int, evidence: str) -> None:
    item = {
        # a sentence of several clauses: its polarity is not read as the claim's
        "long": f"After the review on Tuesday, which took three hours, ticket TCK-{ticket} was "
                f"{verb} by team-5, and the channel was archived.",
        # another action on the same ticket: the claim's negation is stated nowhere
        "other action": f"Ticket TCK-{ticket} was assigned to team-5 on Tuesday.",
        "record": record(ticket, verb, True),
    }[evidence]
    claim = f"Ticket TCK-{ticket} {form.format(verb)}."
    assert bucket(claim, [item]) != "grounded", (claim, item)


@settings(max_examples=60)
@given(verb=st.sampled_from(VERBS), form=st.sampled_from(CLAIM_NEGATIONS),
       stated=st.sampled_from([*EVIDENCE_NEGATIONS, "record"]), ticket=st.integers(1, 999),
       long=st.booleans())
def test_a_negation_the_evidence_states_grounds_the_negated_claim_and_never_the_plain_one(
        verb: str, form: str, stated: str, ticket: int, long: bool) -> None:
    if stated == "record":
        item = record(ticket, verb, False)
    elif long:
        item = (f"After the review on Tuesday, which took three hours, ticket TCK-{ticket} "
                f"{stated.format(verb)}, and the channel was archived.")
    else:
        item = f"Ticket TCK-{ticket} {stated.format(verb)} by team-5 on Tuesday."
    negated = f"Ticket TCK-{ticket} {form.format(verb)}."
    assert bucket(negated, [item]) == "grounded", (negated, item)
    plain = f"Ticket TCK-{ticket} was {verb}."
    assert bucket(plain, [item]) != "grounded", (plain, item)


@settings(max_examples=40)
@given(verb=st.sampled_from(VERBS), ticket=st.integers(1, 999), value=st.booleans())
def test_a_field_saying_true_or_false_decides_the_plain_and_the_negated_claim(
        verb: str, ticket: int, value: bool) -> None:
    item = record(ticket, verb, value)
    plain, negated = (bucket(f"Ticket TCK-{ticket} was {verb}.", [item]),
                      bucket(f"Ticket TCK-{ticket} was not {verb}.", [item]))
    assert (plain, negated) == (("grounded", "contradicted") if value
                                else ("contradicted", "grounded"))


# (claim, evidence, expected): a bucket, or "not <bucket>" for any other verdict
SAID_OR_DENIED = [
    # a count of zero states that it did not happen; a count above zero does not
    pytest.param("The checkout-api-7f9c6d pod did not restart.",
                 ["pod=checkout-api-7f9c6d restarts=0 status=Running"], "grounded",
                 id="zero-restarts-did-not-restart"),
    pytest.param("The checkout-api-7f9c6d pod was never restarted.",
                 ["pod=checkout-api-7f9c6d restarts=0 status=Running"], "grounded",
                 id="zero-restarts-never-restarted"),
    pytest.param("The checkout-api-7f9c6d pod did not restart.",
                 ["pod=checkout-api-7f9c6d restarts=4 status=Running"], "not grounded",
                 id="four-restarts-did-not-restart"),
    # a condition named as an event: "the rebalance of X led to the backlog" names the event a
    # root-cause record states; it is no condition of X the records must state as such
    pytest.param("The rebalance of clicks-consumer led to the queue backlog.",
                 ["2025-03-19 03:12:22 UTC INFO rca-bot: root cause: consumer group "
                  "clicks-consumer rebalance",
                  "ALERT QueueBacklogHigh firing for clicks-stream since 03:07:19 UTC"],
                 "grounded", id="a-condition-named-as-an-event"),
]


@pytest.mark.parametrize(("claim", "items", "expected"), SAID_OR_DENIED)
def test_what_a_record_states_grounds_the_claim_said_or_denied(claim: str, items: list[str],
                                                               expected: str) -> None:
    got = bucket(claim, items)
    if expected.startswith("not "):
        assert got != expected.removeprefix("not "), claim
    else:
        assert got == expected, claim


@settings(max_examples=30)
@given(rank=st.integers(1, 99), spelling=st.sampled_from(["No {}", "No. {}", "no {}"]))
def test_no_before_a_number_is_a_rank_not_a_negation(rank: int, spelling: str) -> None:
    title = spelling.format(rank)
    item = f"World {title} Novak Djokovic beat Tomas Berdych in the final in Monte Carlo on Sunday."
    assert bucket(f"The world {title} beat Tomas Berdych in Monte Carlo.", [item]) == "grounded"
    assert bucket(f"The world {title} did not beat Tomas Berdych in Monte Carlo.",
                  [item]) != "grounded"


@settings(max_examples=30)
@given(count=st.integers(1, 999), noun=st.sampled_from(["errors", "5xx errors", "retries",
                                                        "502 responses", "timeouts"]))
def test_no_before_a_count_negates(count: int, noun: str) -> None:
    # only a word of ranking before it makes "No 1" a rank; "returned no 500 errors" negates
    item = f"Checkout returned no {count} {noun} after the deploy."
    assert bucket(f"Checkout returned {count} {noun} after the deploy.", [item]) != "grounded"


@settings(max_examples=60)
@given(verb=st.sampled_from(VERBS), ticket=st.integers(1, 999),
       failed=st.sampled_from(["could not reach", "was unable to verify", "never pinged",
                               "did not find"]),
       joiner=st.sampled_from([", so", "; then", ", and after that", " because the probe failed;",
                               ", but"]))
def test_another_clauses_negation_is_not_the_claims(verb: str, ticket: int, failed: str,
                                                      joiner: str) -> None:
    # the negation stands before the claim's subject, but in a clause of another act: it never
    # contradicts the plain claim
    item = (f"The checker {failed} ticket TCK-{ticket} at 09:12{joiner} ticket TCK-{ticket} "
            f"was {verb} by team-5 on Tuesday.")
    assert bucket(f"Ticket TCK-{ticket} was {verb}.", [item]) == "grounded", item
    # nor grounds the negated one where its clause holds none of the claim's words (a clause
    # about the ticket may paraphrase its negation: "he won't be fit to face Chelsea")
    item = (f"The checker {failed} the review host at 09:12{joiner} ticket TCK-{ticket} "
            f"was {verb} by team-5 on Tuesday.")
    assert bucket(f"Ticket TCK-{ticket} was not {verb}.", [item]) != "grounded", item


@settings(max_examples=60)
@given(verb=st.sampled_from(VERBS), ticket=st.integers(1, 999), form=st.sampled_from([
    "Ticket TCK-{t} was {v} without issues by team-5 on Tuesday.",
    "Ticket TCK-{t} was {v} without any review, and the channel was archived.",
    "Not only was ticket TCK-{t} {v}, the fix was also backported by team-5.",
    "Ticket TCK-{t} was not just {v} but also announced by team-5.",
    "Ticket TCK-{t} went missing from the board after it was {v} by team-5."]))
def test_a_word_of_absence_or_not_only_states_no_negation(verb: str, ticket: int,
                                                           form: str) -> None:
    item = form.format(t=ticket, v=verb)
    assert bucket(f"Ticket TCK-{ticket} was not {verb}.", [item]) != "grounded", item
    assert bucket(f"Ticket TCK-{ticket} was never {verb}.", [item]) != "grounded", item


OUTCOMES = {"succeeded": ("did not succeed", "has not succeeded", "was not successful"),
            "failed": ("did not fail", "has not failed", "never failed"),
            "completed": ("has not completed", "has not yet completed", "did not complete")}
STATUSES = {"succeeded": "succeeded", "completed": "succeeded", "failed": "failed"}


@settings(max_examples=80)
@given(said=st.sampled_from(sorted(OUTCOMES)), form=st.integers(0, 2), deploy=st.integers(1, 9999),
       status=st.sampled_from(["succeeded", "failed", "rolled_back", "pending", "queued",
                               "in_progress"]))
def test_a_denied_outcome_holds_of_any_other_outcome_and_never_of_its_own(
        said: str, form: int, deploy: int, status: str) -> None:
    # an outcome has three poles: "did not fail" names none of the others, so a record of any
    # other (or of none yet) holds it, and a record of the one it denies contradicts it
    item = f'{{"deploy_id": "dep-{deploy}", "service": "checkout-api", "status": "{status}"}}'
    claim = f"Deploy dep-{deploy} of checkout-api {OUTCOMES[said][form]}."
    expected = "contradicted" if STATUSES[said] == status else "grounded"
    assert bucket(claim, [item]) == expected, (claim, item)
    if status in ("pending", "queued", "in_progress"):  # under way: no outcome is stated yet
        assert bucket(f"Deploy dep-{deploy} of checkout-api {said}.", [item]) == "contradicted"


FAILURES = {"FailedScheduling": ("scheduled", "schedule"), "FailedMount": ("mounted", "mount"),
            "FailedCreate": ("created", "create")}


@settings(max_examples=60)
@given(reason=st.sampled_from(sorted(FAILURES)), pod=st.integers(1, 999),
       form=st.sampled_from(["could not be {}", "was not {}", "failed to be {}",
                             "has not been {}"]),
       line=st.sampled_from(["event", "log"]))
def test_a_failure_of_an_act_states_its_negation(reason: str, pod: int, form: str,
                                                 line: str) -> None:
    # a Kubernetes event's reason ("FailedMount") and a log's "failed to mount" both say the act
    # did not happen: the negated claim is grounded, the plain one contradicted
    verb, act = FAILURES[reason]
    item = (f"3m  Warning  {reason}  pod/web-{pod}  the operation did not finish in time"
            if line == "event" else
            f"2026-03-14T09:12:00Z ERROR kubelet: failed to {act} pod/web-{pod}: the operation "
            "did not finish in time")
    assert bucket(f"Pod web-{pod} {form.format(verb)}.", [item]) == "grounded", item
    assert bucket(f"Pod web-{pod} was {verb}.", [item]) == "contradicted", item


@settings(max_examples=30)
@given(order=st.integers(1, 9999), act=st.sampled_from(["scheduled", "queued", "created"]))
def test_a_failure_of_another_act_is_not_the_claims(order: int, act: str) -> None:
    item = f"2026-03-14T09:12:00Z ERROR payments: charge failed for order {order}, retry {act}"
    assert bucket(f"A retry was {act} for order {order}.", [item]) == "grounded", item


REASONS = ("OOMKilled", "CrashLoopBackOff", "ImagePullBackOff", "Evicted", "BackOff")


@settings(max_examples=60)
@given(reason=st.sampled_from(REASONS), pod=st.integers(0, 99),
       form=st.sampled_from(["was never {}", "was not {}", "did not hit {}", "never hit {}"]),
       line=st.sampled_from(["row", "event"]))
def test_a_negated_claim_of_names_alone_is_read_against_the_facts_about_them(
        reason: str, pod: int, form: str, line: str) -> None:
    # the claim's words are a subject and a reason, both names: its negation is still a value
    item = (f"pod=web-{pod} reason={reason} restarts=3" if line == "row"
            else f"4m  Warning  {reason}  pod/web-{pod}  container exited")
    assert bucket(f"web-{pod} {form.format(reason)}.", [item]) == "contradicted", item
    assert bucket(f"web-{pod} was {reason}.", [item]) == "grounded", item


@settings(max_examples=40)
@given(node=st.integers(0, 99), ready=st.booleans(),
       item=st.sampled_from(["node=node-{n} ready={r}", '{{"node": "node-{n}", "ready": {r}}}']))
def test_not_ready_is_one_pole_never_negated_twice(node: int, ready: bool, item: str) -> None:
    evidence = item.format(n=node, r="true" if ready else "false")
    said, denied = ("is ready", "is not ready") if ready else ("is not ready", "is ready")
    assert bucket(f"Node node-{node} {said}.", [evidence]) == "grounded", evidence
    assert bucket(f"Node node-{node} {denied}.", [evidence]) == "contradicted", evidence


@settings(max_examples=60)
@given(verb=st.sampled_from(VERBS), ticket=st.integers(1, 999), form=st.sampled_from([
    "Ticket TCK-{t}, which was filed on Monday, was not {v}.",
    "Ticket TCK-{t} (filed by team-5 on Monday after a long review) was not {v}.",
    "Ticket TCK-{t}, filed Monday, was never {v}.",
    "After the review on Tuesday, ticket TCK-{t} was not {v}."]))
def test_a_negation_split_from_its_subject_is_still_the_claims(verb: str, ticket: int,
                                                              form: str) -> None:
    item = form.format(t=ticket, v=verb)
    assert bucket(f"Ticket TCK-{ticket} was {verb}.", [item]) != "grounded", item
    assert bucket(f"Ticket TCK-{ticket} was not {verb}.", [item]) == "grounded", item


@settings(max_examples=40)
@given(job=st.integers(1, 999), form=st.sampled_from([
    'job=job-{j} status="{s}"', "Note: job job-{j} {s}.",
    'ts=2024-05-01T10:00:00Z level=info msg="job job-{j} {s}"']),
       said=st.sampled_from(["did not fail", "is not complete", "did not succeed"]))
def test_a_negation_a_record_states_is_restated_not_contradicted(job: int, form: str,
                                                                  said: str) -> None:
    item = form.format(j=job, s=said)
    assert bucket(f"Job job-{job} {said}.", [item]) == "grounded", item


@settings(max_examples=30)
@given(pod=st.integers(0, 99), message=st.sampled_from([
    "No space left on device", "Not enough memory", "No route to host"]))
def test_a_negation_inside_a_quote_is_the_quotes(pod: int, message: str) -> None:
    item = f'2024-05-01T10:00:00Z ERROR web-{pod}: write failed: "{message}"'
    claim = f'The error logged on web-{pod} was "{message}".'
    assert bucket(claim, [item]) == "grounded", (claim, item)


@settings(max_examples=30)
@given(pod=st.integers(0, 99), joint=st.sampled_from([" - ", "; ", ", "]))
def test_a_failure_before_another_act_is_not_its_negation(pod: int, joint: str) -> None:
    item = f"2024-05-01T10:00:00Z WARN kubelet: liveness probe failed{joint}restarting pod web-{pod}"
    assert bucket(f"Pod web-{pod} was restarted.", [item]) == "grounded", item


@settings(max_examples=30)
@given(pod=st.integers(0, 99), said=st.sampled_from(["was not ready", "is not ready",
                                                     "was never ready"]),
       item=st.sampled_from([
           "Warning Unhealthy pod/web-{p} Readiness probe failed: HTTP probe failed with "
           "statuscode: 503", "NAME READY STATUS RESTARTS AGE\nweb-{p} 0/1 Running 0 5m"]))
def test_not_ready_is_a_pole_not_a_negation_to_be_stated(pod: int, said: str, item: str) -> None:
    # "not ready" names the not-ready pole; it is no negation the evidence must repeat
    evidence = item.format(p=pod)
    assert bucket(f"web-{pod} {said}.", [evidence]) != "contradicted", evidence


# ================================================================================================
# A condition a claim diagnoses ("is leaking memory", "is rebalancing", "is deadlocked") needs
# a record that states it of the claim's subject.
#
# A process row, a consumer group's lag or a pod's restarts are measurements, not a diagnosis:
# "orders-service is leaking memory" beside its ``RSS`` is never grounded, in any inflection of
# any condition word; a log line stating the condition of that subject grounds it; one stating
# it of another subject does not; and adding unrelated items or reordering them changes
# nothing.
# ================================================================================================

CONDITIONS = [
    ("is leaking memory", "memory leak detected, heap grew {n} MB in 10m"),
    ("was deadlocked", "deadlock detected between {n} transactions"),
    ("is hung", "worker hung, no heartbeat for {n}s"),
    ("is being throttled", "requests throttled: {n} rejected by rate limiter"),
    ("is saturated", "connection pool saturated ({n} of {n} in use)"),
    ("is overloaded", "overloaded: queue length {n}"),
    ("is rebalancing", "rebalancing group after {n} members left"),
    ("is flapping", "health check flapping, {n} transitions in 5m"),
    ("was starved", "starved of CPU for {n}s"),
    ("is thrashing", "thrashing: {n} page faults/s"),
]
SERVICES = ["orders-service", "cart-api", "ledger-worker", "payments-api"]


def row(service: str, n: int) -> str:
    return f"service={service} rss_mb={n * 10} cpu_pct={n % 100}.5 restarts={n % 7}"


@settings(max_examples=40, deadline=None)
@given(condition=st.sampled_from(CONDITIONS), services=st.lists(
    st.sampled_from(SERVICES), min_size=2, max_size=2, unique=True), n=st.integers(2, 900),
       order=st.permutations(range(3)))
def test_a_condition_needs_a_record_stating_it(condition: tuple[str, str],
                                               services: list[str], n: int,
                                               order: list[int]) -> None:
    said, logged = condition
    own, other = services
    claim = f"{own} {said}."
    rows = [row(own, n), row(other, n + 1)]
    assert bucket(claim, rows) != "grounded", rows
    stated = f"2024-06-10T14:02:01Z WARN {own}: {logged.format(n=n)}"
    elsewhere = f"2024-06-10T14:02:01Z WARN {other}: {logged.format(n=n)}"
    assert bucket(claim, [*rows, stated]) == "grounded", stated
    assert bucket(claim, [*rows, elsewhere]) != "grounded", elsewhere
    # unrelated items, in any order, leave both verdicts alone
    noise = [f"2024-06-10T13:00:0{n % 10}Z INFO deploy-bot: rolled out web-{n} v1.{n}.0",
             "host=edge-lb-2 p99_ms=41"]
    items = [[*rows, stated][i] for i in order] + noise
    assert bucket(claim, items) == "grounded", items
    items = [[*rows, elsewhere][i] for i in order] + noise
    assert bucket(claim, items) != "grounded", items


# ================================================================================================
# A verb of reporting a measured result ("achieved", "obtained", "attained", "yielded",
# "performed", "outperformed") is the claim's predicate, free to paraphrase: it is never a word the
# evidence must hold, so it neither uses up the paraphrase budget nor lowers coverage. The values
# it reports are still checked: another value is never grounded.
# ================================================================================================

MODELS = ["LRN", "BiLSTM", "GPT-2", "ULMFiT", "TGen"]
RESULT_VERBS = ["achieved", "achieves", "obtained", "obtains", "attained", "yielded", "yields"]
METRICS = [("accuracy", "accuracy"), ("BLEU", "bleu"), ("F1", "f1")]


@settings(max_examples=40)
@given(model=st.sampled_from(MODELS), verb=st.sampled_from(RESULT_VERBS),
       metric=st.sampled_from(METRICS),
       score=st.integers(100, 999), delta=st.integers(-30, 30), other=st.sampled_from(MODELS))
def test_a_reported_result_is_its_value_not_its_verb(model: str, verb: str,
                                                    metric: tuple[str, str], score: int,
                                                    delta: int, other: str) -> None:
    said, key = metric
    value = score / 10
    rows = [f"model={model} {key}={value}"]
    if other != model:
        rows.append(f"model={other} {key}={(score + 7) / 10}")
    evidence = EvidenceSet.coerce("\n".join(rows))
    claim = f"{model} {verb} a {said} of {value}."
    verdicts = judge.explain(synthesis=claim, evidence=evidence)
    assert [v.bucket for v in verdicts] == ["grounded"], (claim, rows)
    assert verdicts[0].missing == (), (claim, verdicts[0].missing)
    if delta:
        changed = f"{model} {verb} a {said} of {(score + delta) / 10}."
        assert [v.bucket for v in judge.explain(synthesis=changed, evidence=evidence)]\
            != ["grounded"], (changed, rows)
