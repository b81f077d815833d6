"""Classes of over-reach the records judge catches as mechanisms, each a table row: a name
that stands where a name stands and is found nowhere, a numbered thing of prose and what its
prose asserts (negated or not), who did it, a state said of every record named, a predicted
value, a cause no record states beside its effect (a failure a log line states is the cause
of the effect its own log records), a direction given to an amount across rows
in time order, a key's unit inside a JSON string."""

from __future__ import annotations

import pytest

from gsar_otel.judges.records.judge import RecordsJudge
from tests.records.support import outcomes

judge = RecordsJudge()


DEPLOY = ('{"deploy_id": "dep-5716", "service": "loyalty-api", "status": "failed", '
          '"actor": "wei.chen"}')
ALERT = ("ALERT ALRT-61738 ErrorRateWarning host=search-prod-31 severity=warning state=firing "
         "fired_at=2026-03-15T00:35:36Z")
TICKET = "Ticket 4837 was closed by team-60 at 22:07 UTC."
BATCH = ("order_id=ord-1 batch=B-9234 status=shipped\norder_id=ord-2 batch=B-9234 status=shipped\n"
         "order_id=ord-3 batch=B-9234 status=cancelled")
PUSH = ("2026-03-22T05:26:49Z INFO auth-prod-34 deployer: config push cfg-8070 applied\n"
        "2026-03-22T05:27:13Z ERROR auth-prod-34 order-sync: TLS handshake failed: "
        "certificate expired")
WORKER = ("Dec 07 10:41:26 app-07 worker[48805]: ERROR failed to connect to postgres: dial tcp "
          "10.9.0.5:5432: connect: connection refused\n"
          "Dec 07 10:41:26 app-07 systemd[1]: worker.service: Main process exited, code=exited, "
          "status=1/FAILURE")
LATENCY = ["ts=2026-03-18T19:40:38Z host=search-6 p99_latency_ms=8858",
           "ts=2026-03-18T19:35:38Z host=search-6 p99_latency_ms=1129"]
GC = '{"result": "host=batch-14 gc_pause_ms=157 errors=372"}'


@pytest.mark.parametrize(("answer", "items", "expected"), [
    # names where names stand
    ("Errors also spread to media-resizer.", [DEPLOY], ["absent"]),
    ("The media-resizer service reported errors.", [DEPLOY], ["absent"]),
    ("Deploy dep-5716 of loyalty-api failed.", [DEPLOY], ["verified"]),
    ("The alert on search-prod-31 was ErrorRateCritical.", [ALERT], ["absent"]),
    ("The alert on search-prod-31 was ErrorRateWarning.", [ALERT], ["unverified"]),
    ("Usage on the right-hand side of the dashboard is read-only.", [DEPLOY], ["unverified"]),
    # a numbered thing of prose, what its prose asserts, and who did it
    ("Ticket 4837 was closed by team-60.", [TICKET], ["verified"]),
    ("Ticket 4837 was closed by netops.", [TICKET], ["contradicted"]),
    ("Ticket 4837 was never closed.", [TICKET], ["contradicted"]),
    ("Deploy dep-5716 was started by wei.chen.", [DEPLOY], ["verified"]),
    ("Deploy dep-5716 was started by olga.ivanova.", [DEPLOY], ["contradicted"]),
    # a state said of every record named
    ("All orders in batch B-9234 were cancelled.", [BATCH], ["contradicted"]),
    ("Order ord-3 in batch B-9234 was cancelled.", [BATCH], ["verified"]),
    # a predicted value is on no record
    ("Memory on search-prod-31 will be exhausted in about 61 minutes.", [ALERT], ["absent"]),
    # a cause holds beside its effect only
    ("The outage was caused by config push cfg-8070.", [PUSH], ["absent"]),
    ("The TLS handshake on auth-prod-34 failed because the certificate expired.", [PUSH],
     ["verified"]),
    # a failure a log line states is the cause of the effect its own log records; the cause
    # is its own clause
    ("The worker exited because it could not connect to postgres (connection refused), and "
     "it restarts.", [WORKER], ["verified"]),
    ("The worker exited because postgres ran out of disk, and it restarts.", [WORKER],
     ["absent"]),
    ("The worker exited because of config push cfg-8070.", [WORKER, PUSH], ["absent"]),
    # a direction given to an amount, across rows in their own time order
    ("The p99 latency on search-6 rose by 7729 ms.", LATENCY, ["verified"]),
    ("The p99 latency on search-6 fell by 7729 ms.", LATENCY, ["contradicted"]),
    # a key's unit inside a JSON string
    ("The longest GC pause on batch-14 was 157 ms.", [GC], ["verified"]),
    ("The longest GC pause on batch-14 was 157 seconds.", [GC], ["contradicted"]),  # 157 ms
])
def test_over_reach_classes(answer, items, expected):
    assert outcomes(answer, items) == expected
