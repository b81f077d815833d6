"""JSON read from outside (a command's files, the settings file): nesting bounded before parsing.

``json.loads`` recurses once per level of nesting, so a line of 100,000 ``[`` ends in a
``RecursionError`` from deep inside the parser. :func:`load_json` measures the nesting first, in
one linear pass that never recurses, and refuses anything deeper than the limit with
:class:`JSONTooDeep`, a ``ValueError`` like the parser's own ``JSONDecodeError``; every reader
of outside JSON goes through it.
"""

from __future__ import annotations

import json
from typing import Any, Final

from gsar_otel.errors import GSARError

MAX_JSON_DEPTH: Final = 64
"""Deepest nesting of JSON accepted from outside; what gsar reads is a few levels deep."""


class JSONTooDeep(ValueError, GSARError):
    """JSON nested deeper than the limit, refused before the parser recursed into it."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"JSON nested deeper than {limit} levels")
        self.limit = limit


def json_depth(text: str) -> int:
    """The deepest bracket nesting of JSON ``text`` (strings skipped), in one linear pass."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def check_depth(text: str, *, limit: int = MAX_JSON_DEPTH) -> None:
    """Refuse ``text`` nested deeper than ``limit``.

    Raises:
        JSONTooDeep: it is.
    """
    if json_depth(text) > limit:
        raise JSONTooDeep(limit)


def load_json(text: str, *, limit: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads(text)`` for JSON nested at most ``limit`` levels.

    Raises:
        JSONTooDeep: nested deeper (checked before parsing).
        json.JSONDecodeError: not JSON.
    """
    check_depth(text, limit=limit)
    return json.loads(text)
