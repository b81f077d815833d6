"""Listings SRE tools print, read record by record:

- ``kubectl get pods``: "no pods restarted" is read against every row's RESTARTS (the rows of a
  ``NAME`` column are the pods), and ``READY 0/1`` is a pod that is not ready;
- ping's summary: its counts (``17 received``) and slash-joined round-trip times
  (``min/avg/max/mdev = ...``) are fields of their own, so one is never another's;
- a CI run that completed with ``conclusion: failure`` failed (it still completed);
- an incident or alarm whose state is ``triggered`` or ``ALARM`` is firing, so "resolved" is
  contradicted;
- "the total lag" is the sum over the rows;
- "returned 502" is a status code, read against the access log line of the request it names;
- dig's answer section: each record its name, TTL (in seconds), type and value.

Swapping any one value is never grounded; restating it is."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

judge = StagedJudge()
PODS = ["checkout-api-7f9c6d-q8zt4", "checkout-api-7f9c6d-x2b9k", "payments-worker-5c8d7b-k1m2n",
        "cart-6d5f4c-p0o9i"]


def bucket(claim: str, items: list[str]) -> str:
    got = [v.bucket for v in judge.explain(synthesis=claim, evidence=EvidenceSet.coerce(items))]
    assert len(got) == 1, (claim, got)
    return got[0]


def pods(rows: list[tuple[str, int, int]]) -> str:
    """``kubectl get pods`` output: (name, ready containers of 1, restarts) per row."""
    lines = [f"{'NAME':<32}READY   STATUS             RESTARTS   AGE"]
    for name, ready, restarts in rows:
        status = "Running" if ready else "CrashLoopBackOff"
        lines.append(f"{name:<32}{ready}/1     {status:<19}{restarts:<11}3d2h")
    return "\n".join(lines)


@settings(max_examples=40)
@given(restarts=st.lists(st.integers(0, 9), min_size=2, max_size=4),
       ready=st.lists(st.booleans(), min_size=4, max_size=4), pick=st.integers(0, 3),
       phrase=st.sampled_from(["No pods have restarted.", "No pod restarted.",
                               "None of the pods restarted."]))
def test_a_pod_listing_is_read_row_by_row(restarts: list[int], ready: list[bool], pick: int,
                                          phrase: str) -> None:
    rows = [(PODS[at], int(ready[at]), count) for at, count in enumerate(restarts)]
    text = pods(rows)
    expected = "grounded" if not any(restarts) else "contradicted"
    assert bucket(phrase, [text]) == expected, text
    name, is_ready, _ = rows[pick % len(rows)]
    got = bucket(f"{name} is ready.", [text])
    assert (got == "grounded") == bool(is_ready), (text, got)
    assert bucket(f"{name} is {is_ready}/1 ready.", [text]) == "grounded", text
    assert bucket(f"{name} is {1 - is_ready}/1 ready.", [text]) == "contradicted", text


@settings(max_examples=40)
@given(sent=st.integers(5, 100), lost=st.integers(1, 4), times=st.lists(
    st.integers(100, 99999), min_size=4, max_size=4, unique=True), pick=st.integers(0, 2),
    other=st.integers(1, 2))
def test_a_ping_summary_is_read_field_by_field(sent: int, lost: int, times: list[int], pick: int,
                                               other: int) -> None:
    received = sent - lost
    loss = round(100 * lost / sent)
    rtt = sorted(t / 1000 for t in times)  # min, avg, max in order, mdev last
    text = "\n".join([
        "--- 10.0.3.17 ping statistics ---",
        f"{sent} packets transmitted, {received} received, {loss}% packet loss, time 19026ms",
        f"rtt min/avg/max/mdev = {rtt[0]:.3f}/{rtt[1]:.3f}/{rtt[2]:.3f}/{rtt[3]:.3f} ms"])
    assert bucket(f"{received} packets were received.", [text]) == "grounded", text
    assert bucket(f"{sent} packets were received.", [text]) == "contradicted", text
    assert bucket(f"Packet loss was {loss}%.", [text]) == "grounded", text
    assert bucket(f"Packet loss was {loss + 7}%.", [text]) == "contradicted", text
    names = ["minimum", "average", "maximum"]
    said = f"The {names[pick]} round-trip time (RTT) was {{:.3f}} ms."
    assert bucket(said.format(rtt[pick]), [text]) == "grounded", text
    assert bucket(said.format(rtt[(pick + other) % 3]), [text]) == "contradicted", text


@settings(max_examples=30)
@given(run=st.integers(1000, 99999), conclusion=st.sampled_from(["success", "failure"]),
       said=st.sampled_from(["succeeded", "failed", "completed"]))
def test_a_run_that_completed_is_what_its_conclusion_says(run: int, conclusion: str,
                                                          said: str) -> None:
    record = (f'{{"id": {run}, "name": "deploy-prod", "head_branch": "main", '
              f'"status": "completed", "conclusion": "{conclusion}"}}')
    got = bucket(f"The deploy-prod run {said}.", [record])
    if said == "completed" or (said == "succeeded") == (conclusion == "success"):
        assert got == "grounded", (record, said, got)
    else:
        assert got == "contradicted", (record, said, got)


@settings(max_examples=30)
@given(number=st.integers(1000, 99999), shape=st.sampled_from(["pagerduty", "cloudwatch"]))
def test_a_triggered_incident_or_an_alarm_is_firing(number: int, shape: str) -> None:
    if shape == "pagerduty":
        record = (f'{{"incident": {{"incident_number": {number}, "status": "triggered", '
                  '"urgency": "high"}}')
        name = f"Incident {number}"
    else:
        record = (f'{{"MetricAlarms": [{{"AlarmName": "checkout-5xx-{number}", '
                  '"StateValue": "ALARM", "Threshold": 5.0}]}')
        name = f"The checkout-5xx-{number} alarm"
    assert bucket(f"{name} was resolved.", [record]) == "contradicted", record
    assert bucket(f"{name} is firing.", [record]) == "grounded", record


@settings(max_examples=30)
@given(lags=st.lists(st.integers(0, 50000), min_size=2, max_size=5), delta=st.integers(1, 99))
def test_the_total_is_the_sum_over_the_rows(lags: list[int], delta: int) -> None:
    lines = ["GROUP           TOPIC    PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG"]
    lines += [f"orders-consumer orders   {at:<11}{100000:<16}{100000 + lag:<16}{lag}"
              for at, lag in enumerate(lags)]
    text = "\n".join(lines)
    said = "The total lag of orders-consumer is {}."
    assert bucket(said.format(sum(lags)), [text]) == "grounded", text
    assert bucket(said.format(sum(lags) + delta), [text]) == "contradicted", text


@settings(max_examples=30)
@given(codes=st.lists(st.sampled_from([200, 201, 301, 404, 429, 500, 502, 503]), min_size=3,
                      max_size=3, unique=True), pick=st.integers(0, 2), other=st.integers(1, 2))
def test_returned_a_code_is_the_status_of_the_named_request(codes: list[int], pick: int,
                                                           other: int) -> None:
    paths = ["/api/orders", "/api/checkout", "/api/cart"]
    text = "\n".join(
        f'10.1.2.{at} - - [10/Jun/2024:14:02:1{at} +0000] "POST {path} HTTP/1.1" {code} 157 '
        '"-" "curl/8.0"' for at, (path, code) in enumerate(zip(paths, codes, strict=True)))
    path = paths[pick]
    assert bucket(f"POST {path} returned {codes[pick]}.", [text]) == "grounded", text
    assert bucket(f"POST {path} returned {codes[(pick + other) % 3]}.",
                  [text]) == "contradicted", text


@settings(max_examples=30)
@example(addresses=[1], ttl=1040, other=0, delta=1)  # a TTL written like a decade ("1040s")
@given(addresses=st.lists(st.integers(1, 254), min_size=1, max_size=3, unique=True),
       ttl=st.integers(30, 86400), other=st.sampled_from([0, 255]), delta=st.integers(1, 20))
def test_a_dns_answer_is_its_records(addresses: list[int], ttl: int, other: int,
                                     delta: int) -> None:
    text = "\n".join([";; ANSWER SECTION:", *(f"api.example.com.\t{ttl}\tIN\tA\t203.0.113.{a}"
                                               for a in addresses)])
    said = "api.example.com resolves to 203.0.113.{}."
    assert bucket(said.format(addresses[0]), [text]) == "grounded", text
    assert bucket(said.format(other), [text]) != "grounded", text  # an address it holds not
    assert bucket(f"The TTL of api.example.com is {ttl} seconds.", [text]) == "grounded", text
    assert bucket(f"The TTL of api.example.com is {ttl + delta} seconds.",
                  [text]) == "contradicted", text
