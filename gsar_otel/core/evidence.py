"""Evidence items with stable ids.

An :class:`EvidenceSet` is what a judge sees: an ordered list of items, each with an id a claim can
cite (``E1``, ``E2`` ... unless the caller gives ids). :func:`coerce_evidence` (the same as
``EvidenceSet.coerce``) turns the shapes agents actually have (a block of text, a list of
strings, dicts, Evidence, tool results such as lists of rows) into one; it is the one coercion
every entry point uses: ``@grounded``'s ``evidence=``, ``assert_grounded`` and case files,
``gsar judge`` and ``--batch``, ``gsar bench`` and ``gsar calibrate``. One item that is neither
text, a dict nor an Evidence (a list, a number) is kept as compact JSON by :func:`evidence_text`,
as ``record_evidence`` and ``@tool_evidence`` keep a tool's return value. Oversized input is cut
to configurable limits and every cut is recorded in ``EvidenceSet.truncations``.

Capturing evidence inside an agent call (``record_evidence``, ``@tool_evidence``) is
:mod:`gsar_otel.core.capture`.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field, field_validator

from gsar_otel.core.model import EvidenceType, _Frozen

DEFAULT_MAX_ITEM_CHARS = 20_000
"""Longest single evidence item kept; longer ones are cut and the cut is recorded."""
DEFAULT_MAX_TOTAL_CHARS = 400_000
"""Most evidence text kept in one set; items past it are dropped and the drop is recorded."""
DEFAULT_MAX_ITEMS = 2_000
"""Most evidence items kept in one set."""

_SIGNAL_HINT = re.compile(r"^\s*\[(?:signal|alert)\]|\balert(?:_id|name)?\b|\bfired(?:_at)?\b",
                          re.IGNORECASE)


def infer_evidence_type(content: str) -> EvidenceType:
    """Guess an item's type: alerts and signals are ``signal_match``, the rest ``tool_match``."""
    if content.isascii():
        # Cheap rejection (this runs on the caller's thread for every recorded item). Only in
        # ASCII text: a case-insensitive match may also stand on a non-ASCII letter ('ſ', 'ı').
        # Every match of _SIGNAL_HINT contains one of these words.
        lowered = content.lower()
        if "alert" not in lowered and "fired" not in lowered and "signal" not in lowered:
            return EvidenceType.TOOL_MATCH
    return EvidenceType.SIGNAL_MATCH if _SIGNAL_HINT.search(content) else EvidenceType.TOOL_MATCH


class Evidence(_Frozen):
    """One piece of evidence: a tool row, log line, alert or document passage.

    ``Evidence("E1", "host=db-prod-1 cpu_pct=97.2")`` and the keyword form are both accepted.
    """

    id: str = Field(description="Stable id that claims cite, e.g. 'E1'.")
    content: str = Field(description="The evidence text as the judge sees it.")
    type: EvidenceType = Field(default=EvidenceType.TOOL_MATCH, description="What kind of item.")
    source: str | None = Field(default=None, description="Where it came from (tool name, URL).")

    def __init__(self, *args: Any, **data: Any) -> None:
        if not args:  # the keyword form, the common one: straight to validation
            super().__init__(**data)
            return
        if len(args) > 4:
            raise TypeError(f"Evidence takes at most 4 positional arguments, got {len(args)}")
        for name, value in zip(("id", "content", "type", "source"), args, strict=False):
            if name in data:
                raise TypeError(f"Evidence got two values for {name!r}")
            data[name] = value
        super().__init__(**data)

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("evidence id must be a non-empty string")
        return value


class Truncation(_Frozen):
    """A record that evidence was cut: which item, how long it was, how much was kept."""

    evidence_id: str | None = Field(description="The item cut, or None when items were dropped.")
    original_chars: int
    kept_chars: int
    reason: str


EvidenceInput = (
    "str | Evidence | Mapping[str, Any] | Sequence[str | Evidence | Mapping[str, Any]] "
    "| EvidenceSet"
)


class EvidenceSet(_Frozen):
    """An ordered, id-unique collection of evidence items, plus a record of any truncation."""

    items: tuple[Evidence, ...] = ()
    truncations: tuple[Truncation, ...] = ()

    @field_validator("items")
    @classmethod
    def _unique_ids(cls, items: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
        seen: dict[str, str] = {}
        for item in items:
            key = normalize_ref(item.id)
            if key in seen:
                same = "" if seen[key] == item.id else f" (as {seen[key]!r})"
                raise ValueError(f"evidence id {item.id!r} appears more than once{same}; "
                                 "ids must be unique, ignoring case and brackets")
            seen[key] = item.id
        return items

    def __iter__(self) -> Iterator[Evidence]:  # type: ignore[override]
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __bool__(self) -> bool:
        return bool(self.items)

    @property
    def ids(self) -> tuple[str, ...]:
        """The item ids, in order."""
        return tuple(item.id for item in self.items)

    def get(self, evidence_id: str) -> Evidence | None:
        """The item with this id (case-insensitive, brackets ignored), or None."""
        wanted = normalize_ref(evidence_id)
        for item in self.items:
            if item.id == evidence_id or normalize_ref(item.id) == wanted:
                return item
        return None

    @property
    def truncated(self) -> bool:
        """True when any input was cut or dropped."""
        return bool(self.truncations)

    @property
    def total_chars(self) -> int:
        """Characters of evidence text kept."""
        return sum(len(item.content) for item in self.items)

    def render(self) -> str:
        """One line per item, ``[E1] content``: the form judges and reports show."""
        return "\n".join(f"[{item.id}] {item.content}" for item in self.items)

    @classmethod
    def coerce(
        cls,
        value: Any,
        *,
        max_item_chars: int = DEFAULT_MAX_ITEM_CHARS,
        max_total_chars: int = DEFAULT_MAX_TOTAL_CHARS,
        max_items: int = DEFAULT_MAX_ITEMS,
    ) -> EvidenceSet:
        """Build an EvidenceSet from text, a list of strings / dicts / Evidence, or an EvidenceSet.

        A string becomes one item per non-empty line. Items without an id get ``E<n>`` by
        position; a dict with a ``content`` key maps onto Evidence's fields, any other dict is a
        structured tool row and is kept as compact JSON, and so is any other item (a list of
        rows, a number: :func:`evidence_text`). ``None`` is an empty set.

        Raises:
            ValueError: an unsupported input type, a bad item, duplicate ids, or a bad limit.
        """
        for name, limit in (("max_item_chars", max_item_chars),
                            ("max_total_chars", max_total_chars), ("max_items", max_items)):
            if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
                raise ValueError(f"{name} must be a positive integer, got {limit!r}")
        if isinstance(value, EvidenceSet):
            if (value.total_chars <= max_total_chars and len(value) <= max_items
                    and all(len(i.content) <= max_item_chars for i in value.items)):
                return value
            raw: list[Any] = list(value.items)
            truncations = list(value.truncations)
        else:
            raw = _as_list(value)
            truncations = []
        # Ids the caller chose are reserved first, so a positional E<n> never collides with one.
        # Only the first max_items entries can be kept, so only their ids matter.
        taken = {normalize_ref(i) for i in (_explicit_id(e, n)
                                            for n, e in enumerate(raw[:max_items], 1)) if i}
        items: list[Evidence] = []
        total = 0
        for position, entry in enumerate(raw, start=1):
            if len(items) >= max_items or total >= max_total_chars:
                dropped = raw[position - 1:]
                truncations.append(Truncation(
                    evidence_id=None,
                    original_chars=sum(_entry_chars(e, position + i)
                                       for i, e in enumerate(dropped)),
                    kept_chars=0,
                    reason=f"{len(dropped)} evidence item(s) dropped past the limit of "
                           f"{max_items} items / {max_total_chars} characters",
                ))
                break
            limit = min(max_item_chars, max_total_chars - total)
            default_id = None
            if _explicit_id(entry, position) is None:
                default_id = _free_id(position, taken)
                taken.add(default_id)
            item, original = _as_evidence(entry, position, default_id or "", limit)
            if original > limit:
                truncations.append(Truncation(
                    evidence_id=item.id, original_chars=original, kept_chars=limit,
                    reason=f"evidence item cut to {limit} characters",
                ))
            items.append(item)
            total += len(item.content)
        return cls(items=tuple(items), truncations=tuple(truncations))


_REF_BRACKETS = re.compile(r"^[\[\(<{]\s*|\s*[\]\)>}]$")


def normalize_ref(ref: str) -> str:
    """Canonical form of an evidence reference: ``[e1]`` -> ``E1``."""
    return _REF_BRACKETS.sub("", ref.strip()).strip().upper()


def _free_id(start: int, taken: set[str]) -> str:
    number = start
    while f"E{number}" in taken:
        number += 1
    return f"E{number}"


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, str):
        return [line.strip() for line in value.splitlines() if line.strip()]
    if isinstance(value, Evidence | Mapping) or _is_record(value):
        return [value]  # one row, also as a dataclass, a pydantic model or a named tuple
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return list(value)
    raise ValueError(
        "evidence must be a string, an Evidence, a dict, a list of those, or an EvidenceSet; "
        f"got {type(value).__name__}"
    )


def coerce_evidence(value: Any, **limits: int) -> EvidenceSet:
    """The one evidence coercion of every entry point: :meth:`EvidenceSet.coerce` (``limits``
    are its ``max_item_chars``, ``max_total_chars`` and ``max_items``).

    Raises:
        ValueError: as :meth:`EvidenceSet.coerce`.
    """
    return EvidenceSet.coerce(value, **limits)


def evidence_text(value: Any) -> str:
    """One item's text: a string as it is, anything else (a tool's row, a list of rows, a
    number) as compact JSON, the way ``record_evidence`` and ``@tool_evidence`` keep it."""
    return value if isinstance(value, str) else _compact_json(value)


def _bad_item(position: int, entry: Any) -> ValueError:
    return ValueError(f"evidence item {position} must be a string, a dict, an Evidence or a "
                      f"JSON value (a list, a number), got {type(entry).__name__}")


def _explicit_id(entry: Any, position: int) -> str | None:
    """The id the caller gave this entry, or None when it gets a positional one."""
    if isinstance(entry, Evidence):
        return entry.id
    if isinstance(entry, Mapping) and "content" in entry and entry.get("id"):
        return str(entry["id"])
    if entry is None or isinstance(entry, bytes | bytearray):
        raise _bad_item(position, entry)
    return None


def _entry_text(entry: Mapping[str, Any]) -> str:
    if "content" in entry:
        content = entry["content"]
        return content if isinstance(content, str) else _compact_json(content)
    return _compact_json(dict(entry))


def _entry_chars(entry: Any, position: int) -> int:
    if isinstance(entry, str):
        return len(entry)
    if isinstance(entry, Evidence):
        return len(entry.content)
    if isinstance(entry, Mapping):
        return len(_entry_text(entry))
    if entry is None or isinstance(entry, bytes | bytearray):
        raise _bad_item(position, entry)
    return len(evidence_text(entry))


def _as_evidence(entry: Any, position: int, default_id: str, limit: int) -> tuple[Evidence, int]:
    """The entry as Evidence with content cut to ``limit``, and its original length.

    Content is cut before the item is built, so a 10 MB string is never scanned in full.
    """
    if isinstance(entry, Evidence):
        original = len(entry.content)
        if original > limit:
            entry = entry.model_copy(update={"content": entry.content[:limit]})
        return entry, original
    if isinstance(entry, str):
        return Evidence(id=default_id, content=entry[:limit],
                        type=infer_evidence_type(entry[:limit])), len(entry)
    if isinstance(entry, Mapping):
        content = _entry_text(entry)
        kept = content[:limit]
        if "content" in entry:
            kind = entry.get("type")
            return Evidence(
                id=str(entry.get("id") or default_id), content=kept,
                type=infer_evidence_type(kept) if kind is None else kind,
                source=entry.get("source"),
            ), len(content)
        return Evidence(id=default_id, content=kept, type=infer_evidence_type(kept)), len(content)
    if entry is None or isinstance(entry, bytes | bytearray):
        raise _bad_item(position, entry)
    text = evidence_text(entry)
    return Evidence(id=default_id, content=text[:limit],
                    type=infer_evidence_type(text[:limit])), len(text)


def _is_record(value: Any) -> bool:
    """A dataclass instance, a pydantic model or a named tuple: one row of named fields."""
    return ((dataclasses.is_dataclass(value) and not isinstance(value, type))
            or isinstance(value, BaseModel)
            or (isinstance(value, tuple) and isinstance(getattr(value, "_fields", None), tuple)))


def _as_record(value: Any) -> Any:
    """A dataclass, a pydantic model or a named tuple as the dict of its fields (what a tool
    returning one means), anything else as it is."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    fields = getattr(value, "_fields", None) if isinstance(value, tuple) else None
    if isinstance(fields, tuple):
        return dict(zip(fields, value, strict=True))
    return value


def _json_default(value: Any) -> Any:
    """A record nested in a result as its fields; a date, a UUID, a Decimal as its text."""
    record = _as_record(value)
    return str(value) if record is value else record


def _compact_json(value: Any) -> str:
    """A tool result as one evidence line: ``key=value`` pairs for a flat row (the shape of a
    metric row or log record, which judges cite best), compact JSON for anything nested."""
    value = _as_record(value)
    if isinstance(value, Mapping) and value and all(
            isinstance(k, str) and (v is None or isinstance(v, str | int | float | bool))
            for k, v in value.items()):
        return " ".join(f"{k}={_scalar(v)}" for k, v in value.items())
    try:
        return json.dumps(value, ensure_ascii=False, default=_json_default,
                          separators=(", ", ": "))
    except (TypeError, ValueError):
        return repr(value)


def _scalar(value: str | float | bool | None) -> str:
    if isinstance(value, str):
        return value if value and not any(ch.isspace() or ch in "=\"" for ch in value) else (
            json.dumps(value, ensure_ascii=False))
    return json.dumps(value)
