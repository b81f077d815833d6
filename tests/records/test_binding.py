"""How a claim's values, states and subjects are bound to records: a value to the attribute
named beside it (not past a neighbouring value), a state to a record named in its clause, a
claim that names nothing to the record the claim before spoke of; a size, a duration or an
amount never conflicts with a bare count; hypothetical states and answering "No," are no facts.
Each mechanism is a table; the pronoun case is also a property over any row of a table."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.anchors import extract_anchors
from gsar_otel.judges.records.claims import read_claim
from gsar_otel.judges.records.judge import RecordsJudge
from gsar_otel.judges.records.rules import names_key, same_measure
from tests.records.support import outcomes

judge = RecordsJudge()


@pytest.mark.parametrize(("claimed", "evidence", "same"), [
    ("0.75 GiB", "restart_count=6", False),      # a size is no count
    ("$7,028.30", "refunds=117", False),         # an amount is no count
    ("3 minutes", "replicas=2", False),          # a duration is no count
    ("200 GB", "allocated_storage=200", False),  # the record's unit is unknown
    ("97%", "cpu_pct=95", True),                 # a percentage against a percentage key
    ("4 GiB", "memory=3.5GiB", True),
    ("12", "restarts=14", True),                 # bare against bare
])
def test_a_conflict_needs_the_same_measure(claimed, evidence, same):
    assert same_measure(extract_anchors(claimed)[0], extract_anchors(evidence)[0]) is same


@pytest.mark.parametrize(("keys", "words", "named"), [
    ({"mem"}, {"memori"}, True),            # a key abbreviates a word
    ({"conn"}, {"connect"}, True),
    ({"runtim"}, {"run"}, False),           # a three-letter word stands for no key
    ({"supplier"}, {"sup"}, False),
    ({"restart"}, {"restart"}, True),
    ({"complet"}, {"memori"}, False),
])
def test_a_word_names_a_key(keys, words, named):
    assert names_key(keys, words) is named


@pytest.mark.parametrize(("text", "expected"), [
    ("completed in 41 and 44 minutes", ["41 minutes", "44 minutes"]),
    ("between 2–3 GiB", ["2 GiB", "3 GiB"]),
    ("from 5 to 9%", ["5%", "9%"]),
    ("about 14.8k events", ["14.8k"]),    # as written (its precision), read at its scale
    ("capped at 0.75 GiB", ["0.75 GiB"]),   # a size unit is no multiplier
    ("1.2B rows", ["1.2B"]),
])
def test_values_read_from_a_claim(text, expected):
    assert [a.text for a in read_claim(text).values] == expected


@pytest.mark.parametrize(("text", "value"), [
    ("about 14.8k events", 14800.0),
    ("1.2B rows", 1.2e9),
    ("$402k of revenue", 402000.0),
])
def test_a_short_number_is_read_at_its_scale(text, value):
    assert [a.value for a in read_claim(text).values] == [value]


@pytest.mark.parametrize(("text", "negated", "hypothetical"), [
    ("none of the 12 jobs failed", True, False),      # only content words count for reach
    ("No, the job failed", False, False),             # an answer negates nothing
    ("No — only the job failed", False, False),
    ("the job did not fail", True, False),
    ("so the job can be retried and succeed", False, True),
    ("if the pod fails again", False, True),
    ("the job failed", False, False),
])
def test_negated_and_hypothetical_states(text, negated, hypothetical):
    stated = read_claim(text).states[-1]
    assert (stated.negated, stated.hypothetical) == (negated, hypothetical)


PODS = ("NAME                 STATUS             RESTARTS   AGE\n"
        "cart-7d9f-tq7wn      CrashLoopBackOff   14         2h\n"
        "payments-6c8f-t6zqw  Running            0          2h\n"
        "search-6d9c-pl6xr    Running            3          2h")


@pytest.mark.parametrize(("answer", "expected"), [
    # a value bound to the attribute named beside it, not past a neighbouring value
    ("cart-7d9f-tq7wn has 14 restarts and is 2h old.", ["verified"]),
    ("cart-7d9f-tq7wn has 3 restarts.", ["contradicted"]),
    # a state said of another clause's subject is not the row's
    ("Two pods are Running, and cart-7d9f-tq7wn is crash-looping.", ["verified"]),
    ("cart-7d9f-tq7wn could be Running again after a restart.", ["unverified"]),
    # a claim naming nothing speaks of the record named last
    ("cart-7d9f-tq7wn is crash-looping. It has restarted 14 times.",
     ["verified", "verified"]),
    ("cart-7d9f-tq7wn is crash-looping. It has 3 restarts.", ["verified", "contradicted"]),
    # a whole is no attribute of the row it holds ("14 of the 17 restarts")
    ("cart-7d9f-tq7wn accounts for 14 of the 17 restarts.", ["verified"]),
])
def test_binding_table(answer, expected):
    assert outcomes(answer, [PODS]) == expected


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_a_pronoun_claim_with_another_rows_value_is_never_grounded(data):
    rows = [(f"worker-{i}a{i}", restarts)
            for i, restarts in enumerate(data.draw(st.lists(
                st.integers(1, 900), min_size=2, max_size=6, unique=True)))]
    text = "NAME        RESTARTS\n" + "\n".join(f"{n:<12}{r}" for n, r in rows)
    own = data.draw(st.sampled_from(rows))
    other = data.draw(st.sampled_from([r for r in rows if r != own]))
    found = outcomes(f"{own[0]} is the one to look at. It has {other[1]} restarts.", [text])
    assert found[1] != "verified"
    assert outcomes(f"{own[0]} is the one to look at. It has {own[1]} restarts.",
                    [text])[1] == "verified"


PAYMENTS = (" user_id | amount_cents | count | any_refunded | status\n"
            "---------+--------------+-------+--------------+-----------\n"
            "   20311 |         4999 |     2 | f            | captured\n"
            "   48810 |        12900 |     2 | t            | authorized\n")
REQUESTS = ('{"ts":"2024-06-12T12:04:18.194Z","level":"info","msg":"request completed",'
            '"order_id":88412,"route":"/v1/orders/:id/pay","duration_ms":1834,'
            '"paid_at":"2024-06-12T12:01:55Z"}')
STACK = "IllegalStateException at CartFragment.kt:214 in onPriceUpdated"
INIT = ('{"name":"wait-for-db","state":{"terminated":{"startedAt":"2024-05-14T10:02:00Z",'
        '"finishedAt":"2024-05-14T10:02:12Z","exitCode":0}}}')


@pytest.mark.parametrize(("answer", "items", "expected"), [
    # a key's unit read in the claim's: cents as an amount, milliseconds as seconds
    ("User 48810 was charged $129.00 twice.", [PAYMENTS], ["verified"]),
    ("User 48810 was charged $12.90 twice.", [PAYMENTS], ["absent"]),
    ("Order 88412's request took 1.8 s.", [REQUESTS], ["verified"]),
    # a number after a colon ("file:line") is also a number
    ("It crashed in CartFragment.kt, line 214.", [STACK], ["verified"]),
    # a number under a naming key names its record
    ("User 48810 has a count of 3.", [PAYMENTS], ["contradicted"]),
    # a true flag whose key names a state: the record is in it
    ("User 48810's charges were refunded.", [PAYMENTS], ["verified"]),
    ("User 48810 has not been refunded.", [PAYMENTS], ["contradicted"]),
    ("User 20311 has not been refunded.", [PAYMENTS], ["verified"]),
    # payment states are one family: authorised is not captured
    ("User 48810's payment was captured.", [PAYMENTS], ["contradicted"]),
    # a plural pronoun speaks of every record the claim before named
    ("Users 20311 and 48810 were each charged 2 times. None of them has been refunded.",
     [PAYMENTS], ["verified", "contradicted"]),
    # words inside a path name no attribute ("/pay" is no paid_at)
    ("Order 88412 was a POST to /v1/orders/88412/pay at 12:04:18 UTC.", [REQUESTS],
     ["verified"]),
    # a duration of a named record may be the span between two of its moments
    ("wait-for-db completed in about 12 seconds.", [INIT], ["verified"]),
    ("wait-for-db completed in about 40 seconds.", [INIT], ["absent"]),
])
def test_reading_table(answer, items, expected):
    assert outcomes(answer, items) == expected


@pytest.mark.parametrize(("text", "kind", "value", "unit"), [
    ("about $402k", "number", 402000.0, "$"),        # a short amount is scaled, its unit kept
    ("19.9 MB/s", "number", 19.9, "mb"),             # a size per second is a size
    ("380m CPU", "number", 0.38, "cores"),           # millicores of CPU are no minutes
    ("6.1 cores", "number", 6.1, "cores"),
    ("four 502s", "http_status", "502", None),       # statuses, not seconds
    ("retried after 300s", "http_status", "300", None),
    ("300s ago", "duration", 300.0, "s"),
])
def test_a_claims_units(text, kind, value, unit):
    read = read_claim(text).values[-1]
    assert (read.kind.value, read.value, read.unit) == (kind, value, unit)


TOP = ("NAME              CPU(cores)   MEMORY(bytes)\n"
       "ip-10-42-11-87    1200m        9100Mi\n"
       "ip-10-42-12-143   2415m        12400Mi\n"
       "ip-10-42-13-201   1300m        5200Mi\n"
       "ip-10-42-14-66    1200m        5800Mi")
WEEKS = ("week       | orders | revenue\n"
         "2024-04-29 |   6120 | 412880.15\n"
         "2024-05-06 |   5587 | 371204.60")


@pytest.mark.parametrize(("answer", "items", "expected"), [
    ("The four nodes use about 6.1 cores in total.", [TOP], ["verified"]),
    ("The four nodes use about 7.1 cores in total.", [TOP], ["absent"]),
    ("ip-10-42-12-143 uses 2415m CPU.", [TOP], ["verified"]),
    ("gunicorn-shop has about 1.1 GB of memory in use.", ["Memory: 1.1G"], ["verified"]),
    # a percent change of one column, at the precision written
    ("Revenue fell about 10% week over week.", [WEEKS], ["verified"]),
    ("Revenue fell roughly 12% week over week.", [WEEKS], ["absent"]),
    # values of unrelated columns are never combined
    ("Revenue per order changed by 67.46.", [WEEKS], ["absent"]),
])
def test_derivations_table(answer, items, expected):
    assert outcomes(answer, items) == expected


ROLLBAR = ('{"id": 2241, "status": "active", "first_occurrence_timestamp": "2024-05-15T09:25:03Z",'
           ' "last_occurrence_timestamp": "2024-05-16T17:48:12Z", "total_occurrences": 418}')
ALERTS = ('{"alerts": [{"labels": {"alertname": "PaymentsHighErrorRate", "severity": "critical"},'
          ' "state": "firing"}, {"labels": {"alertname": "KubePodCrashLooping",'
          ' "severity": "warning"}, "state": "firing"}]}')
ISSUE = '{"shortId": "WEB-9K2", "status": "ignored", "substatus": "archived_until_escalating"}'


@pytest.mark.parametrize(("answer", "items", "expected"), [
    # a time written with its date is one moment
    ("The latest occurrence was at 17:48 UTC on May 16.", [ROLLBAR], ["verified"]),
    ("The latest occurrence was at 17:48 UTC on May 15.", [ROLLBAR], ["absent"]),
    ("The first occurrence was on May 15 at 09:25.", [ROLLBAR], ["verified"]),
    # severities and the life of alerts and tracked issues are families of states
    ("KubePodCrashLooping is a warning.", [ALERTS], ["verified"]),
    ("KubePodCrashLooping is critical.", [ALERTS], ["contradicted"]),
    ("WEB-9K2 was marked resolved.", [ISSUE], ["contradicted"]),
    ("WEB-9K2 was archived.", [ISSUE], ["verified"]),
    # a recommendation states no fact, whatever state words it uses
    ("Consider leaving WEB-9K2 resolved until the client is fixed.", [ISSUE], ["advice"]),
])
def test_moments_and_families_table(answer, items, expected):
    assert outcomes(answer, items) == expected


PLAN = ('  ~ resource "aws_autoscaling_group" "ci" {\n'
        '      ~ max_size                         = 20 -> 12\n'
        '      ~ min_size                         = 2 -> 4\n'
        '    }')


@pytest.mark.parametrize(("answer", "expected"), [
    # a direction given to a value is checked against the change that ends at it
    ("The maximum goes down to 12 instances.", ["verified"]),
    ("The maximum goes up to 12 instances.", ["contradicted"]),
    ("The minimum rises to 4.", ["verified"]),
    ("The minimum drops to 4.", ["contradicted"]),
    # and against the claim's own starting value
    ("The minimum doubles from 2 to 4.", ["verified"]),
    ("The minimum drops from 2 to 4.", ["contradicted"]),
    ("The maximum is 12 and the minimum 4.", ["verified"]),
])
def test_comparisons_table(answer, expected):
    assert outcomes(answer, [PLAN]) == expected
