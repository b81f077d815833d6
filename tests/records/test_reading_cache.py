"""A value's reading is remembered by key and text: a record built through the cache holds
the same values, names and changes as one built by reading every value afresh (the reading
before it was cached, kept here as the reference)."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.anchors import Anchor, AnchorKind, extract_anchors
from gsar_otel.judges.records import record as record_module
from gsar_otel.judges.records.record import (
    _ARROW,
    _NAMEISH,
    _NUMBER_ID,
    _PLAIN_NUMBER,
    _REQUEST,
    AGENT,
    NAME_TOKEN,
    NUMBERED,
    REQUEST_KEYS,
    Record,
    Value,
    _key_info,
    _measure,
    json_text,
    nameable,
    short,
)
from gsar_otel.judges.records.units import record_anchor


def _reference_add(record: Record, key: str, raw: object) -> None:
    """Record.add as it read each value before readings were remembered."""
    text = raw if isinstance(raw, str) else json.dumps(raw)
    text = text.strip()
    if not text:
        return
    key_l = key.lower()
    last, words, naming = _key_info(key_l)
    is_short = short(text)
    anchors = extract_anchors(f"{last}={text}" if key_l and is_short else text)
    if key_l and is_short:
        anchors = tuple(a for a in anchors if a.start >= len(last) + 1)
    anchors = tuple(record_anchor(words, text, a) for a in anchors)
    anchors += tuple(
        Anchor(AnchorKind.NUMBER, a.text.lstrip(":"), float(a.text.lstrip(":")), None,
               a.start, a.end, a.key, None)
        for a in anchors if a.kind is AnchorKind.PORT and a.text.lstrip(":").isdigit())
    record.values.append(Value(key_l, text, anchors))
    record.text += (" " if record.text else "") + text.lower()
    if _PLAIN_NUMBER.fullmatch(text):
        if naming and _NUMBER_ID.fullmatch(text):
            record.names.add(text)
        return
    for change in _ARROW.finditer(text):
        old, new = extract_anchors(change.group(1)), extract_anchors(change.group(2))
        if len(old) == 1 and len(new) == 1 and old[0].kind is new[0].kind:
            record.changes.append((old[0], new[0]))
    request = _REQUEST.match(text) if last in REQUEST_KEYS else None
    if request is not None and len(request.group(1)) > 1:
        path = request.group(1).lower()
        record.names.update({path, path.strip("/"), path.rstrip("/").rsplit("/", 1)[-1]})
    name = text.lower()
    if naming and (nameable(name) or _NUMBER_ID.fullmatch(name)):
        record.names.add(name)
        last = name.rstrip("/").rsplit("/", 1)[-1].strip()
        if "/" in name.strip("/") and nameable(last):
            record.names.add(last)
    if not key_l:
        record.names.update(m.group(1) for m in NUMBERED.finditer(text))
        for actor in AGENT.finditer(text):
            record.values.append(Value("by", actor.group(2).lower().rstrip("."), ()))
    keys = {v.key for v in record.values} if not key_l else set()
    for token in NAME_TOKEN.findall(text):
        token = token.rstrip(".:/")
        if token.lower() in keys:
            continue
        if _NAMEISH.search(token) and nameable(token.lower()) and not _measure(token):
            record.names.add(token.lower())
            if "/" in token.strip("/"):
                record.names.add(token.lower().rsplit("/", 1)[-1])


KEYS = st.sampled_from(["", "host", "name", "user_id", "request", "cpu", "memory", "mem_mb",
                        "status", "latency_ms", "ts", "created_at", "pod.name", "restartCount",
                        "msg", "config.max_size", "upstream", "Region"])
PIECES = st.sampled_from([
    "web-1", "checkout-api-7d9f8-q8lmn", "GET /v1/orders HTTP/1.1", "380m", "1.1G", "97.2",
    "51277", "10.20.4.31:8080", "CartFragment.kt:214", "max_size = 20 -> 12", "3.5 GB", "503",
    "2024-05-01T10:15:32Z", "14:21:03", "Ticket 6513", "closed by team-60", "cpu_pct=97.2",
    "system.slice/kibana.service", "ERROR", "timeout after 30s", "eu-west", "-4", "12%",
    "\"quoted text\"", "user 51277", "about 40%", "OOMKilled", "/api/v2/checkout", " ", "x"])
TEXTS = st.lists(PIECES, min_size=1, max_size=4).map(" ".join) | st.text(
    alphabet="ab1-_.:/= %9xZ", max_size=24)
RAWS = TEXTS | st.integers(-10**6, 10**13) | st.floats(allow_nan=True) | st.booleans() | st.none()


def _state(record: Record) -> tuple[object, ...]:
    return (record.values, sorted(record.names), record.changes, record.text)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(KEYS, RAWS), min_size=1, max_size=8))
def test_remembered_readings_build_the_records_a_fresh_reading_builds(
        pairs: list[tuple[str, object]]) -> None:
    for _ in range(2):  # the second pass reads every value from the cache
        cached, fresh = Record("E1", "g"), Record("E1", "g")
        for key, raw in pairs:
            cached.add(key, raw)
            _reference_add(fresh, key, raw)
        assert _state(cached) == _state(fresh)


def test_a_long_value_is_read_afresh_and_the_same() -> None:
    text = "deploy of checkout-api-7d9f8 failed: " + "retrying web-2 after 30s; " * 20
    assert len(text) > record_module.READ_CACHE_CHARS
    cached, fresh = Record("E1", "g"), Record("E1", "g")
    cached.add("msg", text)
    _reference_add(fresh, "msg", text)
    assert _state(cached) == _state(fresh)


@given(st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.booleans()
       | st.none())
def test_a_number_is_written_as_json_writes_it(raw: object) -> None:
    assert json_text(raw) == json.dumps(raw)


def test_non_finite_floats_are_written_as_json_writes_them() -> None:
    assert [json_text(x) for x in (math.inf, -math.inf, math.nan)] == [
        "Infinity", "-Infinity", "NaN"]
