"""How a claim writes a value, each form a table row of one mechanism, with a row that must
not pass beside each row that must: a value restated in another unit right after it
("5368709120 (5 GiB)"), the precision a round or short number is written at ("about 3,100",
"$193.6k"), a sign that marks a direction ("+1,842/\u22121,297"), the sum or the product of two
numbers the claim states, a foretold time a record schedules, amounts in cents where another
item names the currency, a subscription's standing, and a quoted message (it states no state)."""

from __future__ import annotations

import pytest

from gsar_otel.core.anchors import extract_anchors
from tests.records.support import outcomes

LIMITS = "[Service]\nMemoryMax=6442450944\nMemoryHigh=5368709120"
PR = '{"number": 311, "commits": 14, "additions": 1842, "deletions": 1297, "changed_files": 38}'
SUBSCRIPTION = ('{"id": "sub_1", "object": "subscription", "currency": "usd", "status": '
                '"past_due", "items": {"data": [{"price": {"unit_amount": 9900}}]}}')
INVOICE = ('{"id": "in_1", "status": "open", "amount_due": 9900, "attempt_count": 3, '
           '"next_payment_attempt": 1733846400, "created": 1733011200}')
PLANS = ('[{"plan": "growth", "active_subs": 388, "mrr_cents": 19361200}, '
         '{"plan": "scale", "active_subs": 61, "mrr_cents": 9144900}]')
WORKERS = "worker_processes=8\nworker_connections=4096"
CUSTOMER = '{"id": "cus_1", "object": "customer", "currency": "usd", "delinquent": true}'
BUILD = ('{"id": 9911, "head_sha": "c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2", "event": "push", '
         '"conclusion": "failure", "kafka_version": "3.6.1"}')
EVENT = ('{"title": "OperationalError", "culprit": "billing.tasks.sync_invoices", "message": '
         '"could not connect to server: Connection timed out", "status": "unresolved"}')


@pytest.mark.parametrize(("answer", "items", "expected"), [
    # a value restated in another unit right after it
    ("The drop-in sets `MemoryHigh=5368709120` (5 GiB).", [LIMITS], ["verified"]),
    ("The drop-in sets `MemoryHigh=5368709120` (4 GiB).", [LIMITS], ["absent"]),
    # a round number's zeros are its precision; a short number keeps the precision written
    ("PR #311 is +1,842/\u22121,297, about 3,100 changed lines in total.", [PR], ["verified"]),
    ("PR #311 is +1,842/\u22121,297, about 2,600 changed lines in total.", [PR], ["absent"]),
    ("Growth has about $193.6k MRR from 388 subscriptions.", [PLANS], ["verified"]),
    ("Growth has about $192.6k MRR from 388 subscriptions.", [PLANS], ["absent"]),
    # a sign marks a direction: the record keeps the size of a decrease
    ("PR #311 removes \u22121,297 lines.", [PR], ["verified"]),
    ("PR #311 removes \u22121,279 lines.", [PR], ["absent"]),
    # the product of two numbers the claim writes
    ("The cap is 32,768 connections: 8 workers \u00d7 4096 each.", [WORKERS], ["verified"]),
    ("The cap is 36,768 connections: 8 workers \u00d7 4096 each.", [WORKERS], ["absent"]),
    # a foretold time is recorded where a record schedules it, and only there
    ("Stripe will retry the invoice on Dec 10.", [SUBSCRIPTION, INVOICE], ["verified"]),
    ("Stripe will retry the invoice on Dec 12.", [SUBSCRIPTION, INVOICE], ["absent"]),
    ("The invoice will be retried on Dec 1.", [SUBSCRIPTION, INVOICE], ["absent"]),
    # amounts in cents where another item of the evidence names the currency
    ("The open invoice is for $99.00 after 3 attempts.", [CUSTOMER, INVOICE], ["verified"]),
    ("The open invoice is for $9.90 after 3 attempts.", [CUSTOMER, INVOICE], ["absent"]),
    ("The open invoice is for $99.00 after 3 attempts.", [INVOICE], ["absent"]),
    # a subscription's standing is one family
    ("Their subscription is `past_due`.", [SUBSCRIPTION, INVOICE], ["verified"]),
    ("Their subscription is `unpaid`.", [SUBSCRIPTION, INVOICE], ["contradicted"]),
    # the leading part of a value the evidence writes whole: a commit id's short form, a
    # version's release line; a hyphenated modifier is no name
    ("Run 9911 was a push at c3d4e5f on Kafka 3.6.", [BUILD], ["verified"]),
    ("Run 9911 was a push at c3d4e5a on Kafka 3.6.", [BUILD], ["absent"]),
    ("Run 9911 was a push at c3d4e5f on Kafka 3.7.", [BUILD], ["absent"]),
    ("The PR-only check of c3d4e5f is no concern.", [BUILD], ["verified"]),
    ("The write/flush stall of c3d4e5f is no I/O concern in MB/s.", [BUILD], ["verified"]),
    ("The check of c3d4e5f ran on ci-runner/v2 only.", [BUILD], ["absent"]),
    # a quoted message states no state; the same word said of the record does
    ('It is an `OperationalError` ("could not connect to server: Connection timed out") in '
     '`billing.tasks.sync_invoices`.', [EVENT], ["unverified"]),
])
def test_written_forms(answer, items, expected):
    assert outcomes(answer, items) == expected


@pytest.mark.parametrize(("text", "value"), [
    ("a balance of \u22122500", -2500.0),
    ("+1,842/\u22121,297", -1297.0),
    ("a drop of \u221212.5%", -12.5),
])
def test_the_minus_sign_is_read_as_a_minus(text, value):
    assert extract_anchors(text)[-1].value == value
