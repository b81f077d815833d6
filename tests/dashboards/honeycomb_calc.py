"""Honeycomb's calculated-field expressions and trigger values, for the few functions the trigger
file uses, evaluated over events the way Honeycomb evaluates them (one event at a time; a missing
field is null, and AVG and SUM skip nulls).

An expression using a function this module does not know is refused, so a new one has to be
added here, with its Honeycomb meaning, before a test can pass.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

Event = Mapping[str, Any]

_TOKEN = re.compile(r"""
    \s*(?:
      (?P<column>\$(?:"(?:[^"\\]|\\.)*"|[\w.:/=+?-]+))
    | (?P<string>"(?:[^"\\]|\\.)*")
    | (?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
    | (?P<name>[A-Za-z][A-Za-z0-9_]*)
    | (?P<punct>[(),])
    )""", re.X)


def _tokens(expression: str) -> list[tuple[str, str]]:
    tokens, position = [], 0
    while position < len(expression.rstrip()):
        match = _TOKEN.match(expression, position)
        if match is None or match.end() == position:
            raise ValueError(f"cannot read {expression[position:]!r} in {expression!r}")
        kind = match.lastgroup
        assert kind is not None
        tokens.append((kind, match.group(kind)))
        position = match.end()
    return tokens


def _if(condition: Any, then: Any, otherwise: Any = None) -> Any:
    return then if _truthy(condition) else otherwise


def _truthy(value: Any) -> bool:
    return value is not None and value is not False and value != 0 and value != ""


def _sum(*values: Any) -> Any:
    numbers = [v for v in values if v is not None]
    return sum(numbers) if numbers else None


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "IF": _if,
    "EQUALS": lambda a, b: a == b,
    "EXISTS": lambda a: a is not None,
    "COALESCE": lambda *values: next((v for v in values if v is not None and v != ""), None),
    "SUM": _sum,
}
"""The calculated-field functions used, with Honeycomb's meaning."""

Node = tuple[str, Any]


def parse(expression: str) -> Node:
    """The expression as a tree: ``("column", name)``, ``("literal", value)`` or
    ``("call", (function, [arguments]))``.

    Raises:
        ValueError: it does not parse, or calls a function :data:`FUNCTIONS` lacks.
    """
    tokens = _tokens(expression)
    position = 0

    def take() -> tuple[str, str]:
        nonlocal position
        if position >= len(tokens):
            raise ValueError(f"{expression!r} ends too early")
        position += 1
        return tokens[position - 1]

    def peek() -> tuple[str, str] | None:
        return tokens[position] if position < len(tokens) else None

    def node() -> Node:
        kind, text = take()
        if kind == "column":
            name = text[1:]
            return ("column", name[1:-1] if name.startswith('"') else name)
        if kind == "string":
            return ("literal", text[1:-1].replace('\\"', '"'))
        if kind == "number":
            return ("literal", float(text))
        if kind == "name" and text in {"true", "false", "null"}:
            return ("literal", {"true": True, "false": False, "null": None}[text])
        if kind == "name":
            if text not in FUNCTIONS:
                raise ValueError(f"{expression!r}: function {text} is not known here")
            if take() != ("punct", "("):
                raise ValueError(f"{expression!r}: {text} without (")
            arguments: list[Node] = []
            while peek() != ("punct", ")"):
                arguments.append(node())
                if peek() == ("punct", ","):
                    take()
                elif peek() != ("punct", ")"):
                    raise ValueError(f"{expression!r}: {text}(...) lacks , or )")
            take()
            return ("call", (text, arguments))
        raise ValueError(f"{expression!r}: unexpected {text!r}")

    tree = node()
    if position != len(tokens):
        raise ValueError(f"{expression!r}: trailing {tokens[position:]}")
    return tree


def columns(tree: Node) -> set[str]:
    """Every column an expression reads."""
    kind, value = tree
    if kind == "column":
        return {value}
    if kind == "call":
        return set().union(*(columns(a) for a in value[1])) if value[1] else set()
    return set()


def evaluate(tree: Node, event: Event) -> Any:
    """The expression's value on one event."""
    kind, value = tree
    if kind == "column":
        return event.get(value)
    if kind == "literal":
        return value
    name, arguments = value
    return FUNCTIONS[name](*(evaluate(a, event) for a in arguments))


def _percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))]


def calculate(spec: Mapping[str, Any], events: Sequence[Event]) -> dict[tuple[Any, ...], float]:
    """A trigger query's one calculation per breakdown group over ``events`` (already
    filtered), with its calculated fields computed first."""
    fields = {f["name"]: parse(f["expression"]) for f in spec.get("calculated_fields", [])}
    (calculation,) = spec["calculations"]
    op, column = calculation["op"], calculation.get("column")
    groups: dict[tuple[Any, ...], list[Event]] = {}
    for event in events:
        enriched = {**event, **{name: evaluate(tree, event) for name, tree in fields.items()}}
        key = tuple(enriched.get(b) for b in spec.get("breakdowns", []))
        groups.setdefault(key, []).append(enriched)
    result = {}
    for key, members in groups.items():
        if op == "COUNT":
            result[key] = float(len(members))
            continue
        values = [float(e[column]) for e in members if e.get(column) is not None]
        if not values:
            continue
        if op == "AVG":
            result[key] = sum(values) / len(values)
        elif op == "SUM":
            result[key] = sum(values)
        elif re.fullmatch(r"P\d{2}", op):
            result[key] = _percentile(values, int(op[1:]) / 100)
        else:
            raise ValueError(f"calculation {op} is not known here")
    return result
