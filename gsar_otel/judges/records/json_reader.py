"""The JSON reader: a document (or JSON lines) as records, objects flattened by key path, each
object of an array a row of that array's group, ``[{"Key": k, "Value": v}]`` tag lists fields
of their owner, ``[time, value]`` samples (Prometheus) a time and a value, epoch times read as
timestamps."""

from __future__ import annotations

import json
from typing import Any, Final

from gsar_otel.judges.records.record import Record, epoch, json_text, timeish
from gsar_otel.judges.records.text_reader import PAIR, read_text

MAX_DEPTH: Final = 40
"""Deepest JSON nesting flattened; deeper values are kept as their text."""


MAX_PAIRS: Final = 64
"""Most ``key=value`` pairs read from one JSON string ("host=gw-37 ip=10.6.0.199")."""


def read_json(item: str, text: str) -> list[Record] | None:
    """A JSON document (or JSON lines) as records: objects flattened by key path, each object of
    an array a row of that array's group."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[":
        return None
    try:
        documents = [json.loads(stripped)]
    except (ValueError, RecursionError):
        documents = []
        for line in stripped.splitlines():
            line = line.strip()
            if not line:
                continue
            try:
                documents.append(json.loads(line))
            except (ValueError, RecursionError):
                return None
    records: list[Record] = []
    group = f"{item}#{'lines' if len(documents) > 1 else 'doc'}"
    for document in documents:
        root = Record(item, group)
        children: list[Record] = []
        _flatten(document, "", root, children, item, 0, frozenset())
        if root.values:
            records.append(root)
        records.extend(children)
    return records


def _flatten(node: Any, path: str, owner: Record, out: list[Record], item: str, depth: int,
             inherited: frozenset[str]) -> None:
    if depth > MAX_DEPTH:
        owner.add(path, json.dumps(node)[:2000])
        return
    if isinstance(node, dict):
        for key, child in node.items():
            at = f"{path}.{key}" if path else str(key)
            kind = type(child)
            if (kind is int or kind is float) and not timeish(at):
                owner.add(at, json_text(child))  # a plain number: the common cell, read at once
                continue
            _flatten(child, at, owner, out, item, depth + 1, inherited)
        return
    if isinstance(node, list):
        if node and all(isinstance(e, dict) and _tag(e) for e in node):
            for entry in node:  # [{"Key": "Name", "Value": "web-1"}]: fields of the owner
                tag_key, tag_value = _tag(entry) or ("", "")
                owner.add(f"{path}.{tag_key}", tag_value)
            return
        if node and all(isinstance(e, dict | list) for e in node):
            names = frozenset(owner.names) | inherited
            for entry in node:
                row = Record(item, f"{item}:{path}")
                row.names |= names
                if isinstance(entry, list):
                    _sample(entry, row)
                else:
                    _flatten(entry, "", row, out, item, depth + 1, names)
                out.append(row)
            return
        if len(node) == 2 and epoch(node[0]) is not None and not isinstance(node[1], dict | list):
            _sample(node, owner, path)
            return
        for entry in node:
            _flatten(entry, path, owner, out, item, depth + 1, inherited)
        return
    if node is None:
        return
    if isinstance(node, bool):
        owner.add(path, "true" if node else "false")
        return
    stamp = epoch(node) if timeish(path) else None
    if isinstance(node, str) and "\n" in node.strip() and depth < MAX_DEPTH:
        # a tool's text output inside JSON ({"output": "NAME  STATUS\n..."}, MCP content):
        # read as the text it is, its records of their own
        out.extend(read_text(item, node, group=f"{item}:{path}"))
        return
    pairs = PAIR.findall(node)[:MAX_PAIRS] if isinstance(node, str) and "=" in node else []
    if len(pairs) >= 2:  # "host=batch-14 gc_pause_ms=157": its keys, not one string of them
        for key, value in pairs:
            owner.add(f"{path}.{key}" if path else key, value.strip('"'))
        return
    owner.add(path, stamp or (node if isinstance(node, str) else json_text(node)))
    if stamp and not isinstance(node, str):
        owner.add(path, json.dumps(node))  # the epoch as written too ("1733745600")


def _sample(pair: list[Any], row: Record, path: str = "") -> None:
    """A ``[time, value]`` sample (Prometheus): its time as a timestamp, its value as the value."""
    prefix = f"{path}." if path else ""
    if len(pair) == 2 and epoch(pair[0]) is not None:
        row.add(f"{prefix}time", epoch(pair[0]) or "")
        row.add(f"{prefix}value" if path else "value", pair[1])
    else:
        for entry in pair:
            row.add(path or "value", entry if not isinstance(entry, dict | list)
                    else json.dumps(entry))


def _tag(entry: dict[str, Any]) -> tuple[str, str] | None:
    keys = {k.lower(): k for k in entry}
    for name_key in ("key", "name"):
        if len(entry) == 2 and name_key in keys and "value" in keys:
            name, value = entry[keys[name_key]], entry[keys["value"]]
            if isinstance(name, str) and not isinstance(value, dict | list):
                return name, "" if value is None else str(value)
    return None



