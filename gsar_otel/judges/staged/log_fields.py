"""The fields of log lines whose format is well known, so a claim is read against the line of
what it names, never a value on another line.

- **Access logs** (the combined and common formats of nginx, Apache, Envoy and load
  balancers): ``10.0.0.7 - - [10/Jun/2024:14:50:50 +0000] "GET /api/orders HTTP/1.1" 200 4775``
  is one request of ``/api/orders``: its method, path, protocol, status, bytes and client.
- **Unified diffs** of ``key: value`` lines: ``-  timeoutSeconds: 10`` beside
  ``+  timeoutSeconds: 30`` is one change, ``timeoutSeconds_old`` to ``timeoutSeconds_new``;
  a hunk head's line numbers (``@@ -12,8 +12,8 @@``) are no values.
- **Tag strings** as metric APIs return them (Datadog's ``scope``,
  ``service:shipping,env:prod``): a field per tag.
- **Logged SQL statements** (Postgres and MySQL slow and statement logs): ``app_rw@core LOG:
  duration: 8501.646 ms  statement: SELECT * FROM payments ...`` is a ``SELECT`` of the
  ``payments`` table, run by ``app_rw`` on the ``core`` database.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Final, Protocol

METHODS: Final = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "CONNECT",
                  "TRACE")
_REQUEST: Final = re.compile(
    rf'"({"|".join(METHODS)}) ([^\s"]{{1,2000}}) (HTTP/[\d.]{{1,5}})" (\d{{3}}) (\d{{1,15}}|-)')
_CLIENT: Final = re.compile(r"([0-9a-fA-F.:]{3,45}) ")


def access_fields(line: str) -> list[tuple[str, str]]:
    """The fields of an access log line (none for another line): ``client``, ``method``,
    ``path``, ``protocol``, ``status``, ``bytes`` and ``request`` (the request line)."""
    found = _REQUEST.search(line)
    if found is None:
        return []
    method, path, protocol, status, sent = found.groups()
    fields = [("request", f"{method} {path}"), ("method", method), ("path", path),
              ("protocol", protocol), ("status", status)]
    if sent != "-":
        fields.append(("bytes", sent))
    client = _CLIENT.match(line)
    if client is not None and any(ch.isdigit() for ch in client.group(1)):
        fields.insert(0, ("client", client.group(1)))
    return fields


COMMANDS: Final = ("SELECT", "INSERT", "UPDATE", "DELETE", "MERGE", "COPY", "VACUUM", "ANALYZE",
                   "CREATE", "ALTER", "DROP", "TRUNCATE")
_STATEMENT: Final = re.compile(
    rf"\b(?:statement|execute\s[^:]{{0,60}}|query):\s{{1,4}}({'|'.join(COMMANDS)})\b(.{{0,2000}})",
    re.IGNORECASE)
_TABLE: Final = re.compile(
    r"\b(?:FROM|INTO|UPDATE|JOIN|TABLE|ONLY)\s{1,4}([A-Za-z_][\w.\"]{0,120})", re.IGNORECASE)
_USER_AT_DB: Final = re.compile(r"(?:^|[\s\]])([A-Za-z_][\w-]{0,62})@([A-Za-z_][\w-]{0,62})\s")
_SQL_WORDS: Final = frozenset({"select", "set", "where", "values", "only", "lateral"})


def statement_fields(line: str) -> list[tuple[str, str]]:
    """The fields of a logged SQL statement (none for another line): ``command``, the
    ``table`` it names first, and the ``user`` and ``database`` of a ``user@db`` prefix."""
    found = _STATEMENT.search(line)
    if found is None:
        return []
    command, rest = found.group(1).upper(), found.group(1) + found.group(2)
    fields = [("command", command)]
    table = next((t.group(1).strip('"') for t in _TABLE.finditer(rest)
                  if t.group(1).lower() not in _SQL_WORDS), None)
    if table is not None:
        fields.append(("table", table.rsplit(".", 1)[-1].lower()))
    prefix = _USER_AT_DB.search(line[:found.start()])
    if prefix is not None:
        fields.extend((("user", prefix.group(1)), ("database", prefix.group(2))))
    return fields


_HUNK: Final = re.compile(r"@@ -\d{1,9}(?:,\d{1,9})? \+\d{1,9}(?:,\d{1,9})? @@ ?")


def hunk_context(line: str) -> str:
    """A diff's hunk head without its line numbers (``@@ -12,8 +12,8 @@ search:`` is
    ``search:``): numbers of lines are no values."""
    head = _HUNK.match(line)
    return line[head.end():] if head else line


def diff_keys(keys: list[str]) -> list[str]:
    """The keys of a record, a removed and an added line of one key (``-  ttl``, ``+  ttl``)
    renamed as the change they are (``ttl_old``, ``ttl_new``); a key with no counterpart (a
    YAML list's ``- name``) is left as it is."""
    removed = {k[1:].strip() for k in keys if k.startswith("-")}
    added = {k[1:].strip() for k in keys if k.startswith("+")}
    both = removed & added
    return [f"{k[1:].strip()}_{'old' if k[0] == '-' else 'new'}"
            if k[:1] in "+-" and k[1:].strip() in both else k for k in keys]


_TAG: Final = re.compile(r"([A-Za-z_][\w.-]{0,60}):([^,:\s]{1,200})")
_TAGS: Final = re.compile(r"[A-Za-z_][\w.-]{0,60}:[^,:\s]{1,200}(?:,\s?[A-Za-z_][\w.-]{0,60}:"
                          r"[^,:\s]{1,200}){1,30}")


def tag_pairs(text: str) -> list[tuple[str, str]]:
    """The tags of a tag string (``service:shipping,env:prod``); none for other text."""
    if len(text) > 4000 or _TAGS.fullmatch(text.strip()) is None:
        return []
    return _TAG.findall(text)


_HEADER: Final = re.compile(r"( *)([A-Za-z_][\w.-]{0,60}):")
_CHILD: Final = re.compile(r"( +)([A-Za-z_][\w.-]{0,60}): (\S.{0,400})")
_ALIGNED: Final = re.compile(r"\S: {2,}\S")
_INFO: Final = re.compile(r"([a-z][a-z0-9_]{0,60}):([^\s:/][^\s]{0,200})")
MIN_INFO_LINES: Final = 3
_UNIT: Final = re.compile(r"[●○×*]?\s?([\w@:.-]{1,200}\.(?:service|socket|timer|mount|target|path|"
                         r"scope|slice|device|swap))\s+-\s")
_ACTIVE: Final = re.compile(
    r"\s*Active: (\w{1,20}) \(([\w-]{1,40})[^)]{0,80}\)(?: since (.{1,80}))?")
_TRACE: Final = re.compile(
    r"\s*(?:at [\w$.<>]{1,300}\(|Caused by: |\.\.\. \d{1,6} more|"
    r"(?:[a-z_][a-z0-9_]{0,40}\.){1,12}[A-Z]\w{0,80}(?:Exception|Error)\b)")
"""A line of a stack trace: a frame, its cause, the exception it names."""
_PLAN: Final = re.compile(
    r"\bPlan: (\d{1,9}) to (add), (\d{1,9}) to (change), (\d{1,9}) to (destroy)")
"""Terraform's plan summary: ``plan.add: 3, plan.change: 1, plan.destroy: 2``."""


_SLASHED: Final = re.compile(
    r"\s*([A-Za-z][\w ]{0,30}?)\s+([a-z]{1,12}(?:/[a-z]{1,12}){1,7})\s*=\s*"
    r"(-?[\d.]{1,15}(?:/-?[\d.]{1,15}){1,7})\s*([A-Za-z%]{1,6})?\s*")
"""Slash-joined keys and values: ping's ``rtt min/avg/max/mdev = 0.41/1.87/12.9/2.7 ms``."""
_PING_HEAD: Final = re.compile(r"--- ?(\S{1,253}) ping statistics ?---")
"""The head of ping's summary: the host its counts and round-trip times are of."""
_COUNTED: Final = re.compile(r"(\d[\d.]{0,14}%?)\s+([a-z][a-z ]{0,30}[a-z])|"
                             r"([a-z][a-z ]{0,30}[a-z])\s+(\d[\d.]{0,14}[a-z%]{0,3})")
"""One item of a line of counts, its number before or after its words: ping's ``20 packets
transmitted, 17 received, 15% packet loss, time 19026ms``."""


_RECORD: Final = re.compile(
    r"([\w.\-*]{1,253}?)\.?\s+(\d{1,10})\s+IN\s+([A-Z]{1,10})\s+(\S.{0,300})")
"""A DNS resource record as dig prints it: ``api.example.com. 300 IN A 203.0.113.10``."""


_STATUS_LINE: Final = re.compile(
    r"(HTTP/[0-9.]{1,3}) ([1-5][0-9]{2})(?: ([A-Za-z][A-Za-z '-]{0,60}))?")
"""The status line of an HTTP response as curl -i/-I prints it: ``HTTP/2 503``,
``HTTP/1.1 404 Not Found``."""


def status_line(line: str) -> str | None:
    """An HTTP response's status line as its fields (protocol, status, reason), or None."""
    found = _STATUS_LINE.fullmatch(line.strip())
    if found is None:
        return None
    protocol, status, reason = found.groups()
    return f"protocol: {protocol}, status: {status}" + (f", reason: {reason}" if reason else "")


def dns_record(line: str) -> str | None:
    """A DNS resource record as its fields (the TTL in seconds), or None for another line."""
    found = _RECORD.fullmatch(line.strip())
    if found is None:
        return None
    name, ttl, kind, value = found.groups()
    return f"name: {name}, ttl: {ttl} seconds, type: {kind}, value: {value.strip()}"


def counted_fields(line: str) -> str | None:
    """A line of counts (two or more comma-separated items, each a number and its words) as
    ``key: value`` pairs, a bare participle keyed with the first item's noun ("17 received"
    after "20 packets transmitted" is ``packets received``); None for another line. Slash-joined
    keys and values are a pair each."""
    slashed = _SLASHED.fullmatch(line)
    if slashed is not None:
        prefix, keys, values, unit = slashed.groups()
        return ", ".join(f"{prefix.strip()}.{k}: {v}{' ' + unit if unit else ''}"
                         for k, v in zip(keys.split("/"), values.split("/"), strict=False))
    items = [_COUNTED.fullmatch(part.strip()) for part in line.split(",")]
    if len(items) < 2 or not all(items) or sum(1 for m in items if m and m.group(1)) < 2:
        return None
    pairs = [(m.group(2), m.group(1)) if m.group(1) else (m.group(3), m.group(4))
             for m in items if m]
    noun = pairs[0][0].split()[0] if len(pairs[0][0].split()) > 1 else ""
    return ", ".join(f"{noun + ' ' if noun and ' ' not in key and key.endswith('ed') else ''}"
                     f"{key}: {value}" for key, value in pairs)


def well_known_lines(texts: list[str]) -> list[str]:
    """Lines of well-known blocks as the reader's records: a stack trace joined to its log line
    (one event); YAML-style blocks with their key paths (``cache:`` over ``  enabled: true`` is
    ``cache.enabled: true``, another block's ``enabled`` another key), each block a record of its
    own named by its path; ``key:value`` lines of an INFO dump (Redis: ``connected_clients:812``),
    three or more, as ``key: value``; ``systemctl status`` (the unit, its state and
    availability), Terraform's plan summary (three counts), lines of counts (ping), DNS
    records (dig) and an HTTP response's status line (curl). Output whose values are aligned
    with runs of spaces (kubectl describe) keeps its lines."""
    info = sum(1 for t in texts if _INFO.fullmatch(t)) >= MIN_INFO_LINES
    nested = any(_HEADER.fullmatch(t) for t in texts) and not any(
        _ALIGNED.search(t) for t in texts)
    trace = any(_TRACE.match(t) for t in texts[1:])
    planned = any(_PLAN.search(t) for t in texts)
    counted = [counted_fields(t) or dns_record(t) or status_line(t) for t in texts]
    if not (info or nested or trace or planned or any(counted) or _UNIT.match(texts[0])):
        return texts
    out: list[str] = []
    stack: list[tuple[int, str]] = []
    about = ""  # "--- db-1 ping statistics ---": the host the counts below it are of
    for text, count in zip(texts, counted, strict=True):
        if (head := _PING_HEAD.fullmatch(text.strip())) is not None:
            about = head.group(1)
        if count is not None:
            out.append(f"host: {about}, {count}" if about else count)
            continue
        if trace and out and out[-1].strip() and _TRACE.match(text):
            out[-1] += f" | {text.strip()}"  # a stack trace is its log line's: one event
            continue
        unit = _UNIT.match(text)  # systemctl status: the unit its Loaded/Active lines are of
        plan = _PLAN.search(text)
        active = _ACTIVE.match(text)
        if active is not None:  # "Active: active (running) since ...": the state is running;
            # systemd's active state is the unit's availability (failed, inactive: down)
            state = active.group(2) if active.group(1) == "active" else active.group(1)
            up = {"active": "up", "failed": "down", "inactive": "down"}.get(active.group(1))
            out += [f"state: {state}", *([f"availability: {up}"] if up else []),
                    *([f"since: {active.group(3)}"] if active.group(3) else [])]
            continue
        if unit is not None:
            out.append(f"unit: {unit.group(1)}")
            continue
        if plan is not None:
            out.append(", ".join(f"plan.{plan.group(at + 1)}: {plan.group(at)}"
                                 for at in (1, 3, 5)))
            continue
        found = _INFO.fullmatch(text) if info else None
        if found is not None:
            out.append(f"{found.group(1)}: {found.group(2)}")
            continue
        header = _HEADER.fullmatch(text) if nested else None
        child = _CHILD.fullmatch(text) if nested and header is None else None
        indent = len(text) - len(text.lstrip(" "))
        while stack and stack[-1][0] >= indent and text.strip():
            stack.pop()
        if header is not None:  # a block begins: the record before it ends; its name is
            stack.append((indent, header.group(2)))  # what its record is about
            out += ["", f"name: {'.'.join(n for _, n in stack)}"]
        elif child is not None and stack:
            out.append(f"{'.'.join(n for _, n in stack)}.{child.group(2)}: {child.group(3)}")
        else:
            out.append(text)
    return out


EPOCH_RANGE: Final = (946684800, 4102444800)
"""Unix times a sample may carry (2000 to 2100): a larger or smaller first number is no time."""


def sample_pair(value: object) -> tuple[str, str] | None:
    """A sample as Prometheus's HTTP API writes one, ``[1718028180.123, "0.2314"]``: its time
    (ISO 8601, UTC) and its value, or None for any other list."""
    if not (isinstance(value, list) and len(value) == 2 and isinstance(value[1], str)
            and isinstance(value[0], int | float) and not isinstance(value[0], bool)
            and EPOCH_RANGE[0] <= value[0] < EPOCH_RANGE[1]):
        return None
    try:
        float(value[1])
    except ValueError:
        return None
    at = datetime.fromtimestamp(value[0], tz=UTC)
    return at.isoformat(timespec="seconds").replace("+00:00", "Z"), value[1]


class _Keyed(Protocol):
    @property
    def key(self) -> str: ...
    @property
    def value(self) -> str: ...


def metric_key(key: str, fields: Iterable[_Keyed]) -> str:
    """The key of a Prometheus sample's value: its path and the metric its series'
    ``__name__`` label names (``value.http_requests_error_ratio``), so the value reads as what
    the series measures (a ratio is a share of 1, ``..._seconds`` a duration); ``key`` itself
    when no field of ``fields`` names a metric. The API writes ``metric`` before ``value``."""
    name = next((f.value for f in fields if f.key.endswith("__name__") and f.value), None)
    return f"{key}.{name}" if name else key
