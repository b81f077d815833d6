"""Where anchors can be: the tokens of a text and its quoted spans, each found in one linear
scan for :mod:`gsar_otel.core.anchor.scan`."""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Final

from gsar_otel.core.anchor.words import MONTHS

_DELIMITERS: Final = "\\s=;,()\\[\\]{}<>\"'`|“”‘’!?*–—…"
_TOKEN: Final = re.compile(
    rf"(?:[^{_DELIMITERS}:.]|:(?=[^{_DELIMITERS}])|\.(?=[^{_DELIMITERS}.])(?![A-Z][a-z])"
    rf"|(?<=\d),(?=\d))++")
"""A token: a run of non-delimiters. A colon or a full stop belongs to it only when more of the
token follows (``10:15``, ``2.5``, not ``Founded:`` or ``2017.``), a full stop never before a
glued sentence (``2017.It``), and a comma only between digits (``1,024``)."""
_ASSIGNS: Final = re.compile(r"[=:]")
_QUOTE: Final = re.compile(r"[\"“”`\n]")
_MAX_QUOTE: Final = 300


def token_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every token of ``text``, left to right."""
    return [match.span() for match in _TOKEN.finditer(text)]


def quote_spans(text: str) -> list[tuple[int, int]]:
    """Spans (open, close) of quoted text on one line: several words in double quotes, or
    anything in backticks. Quotes pair up in order, so the cost is linear."""
    spans: list[tuple[int, int]] = []
    if not any(mark in text for mark in "\"“`"):
        return spans
    opened: dict[str, int] = {}
    for match in _QUOTE.finditer(text):
        mark = match.group(0)
        if mark == "\n":
            opened.clear()
            continue
        kind = "“" if mark in "“”" else mark
        if mark == "“" or kind not in opened:
            if mark != "”":
                opened[kind] = match.start()
            continue
        start = opened.pop(kind)
        content = text[start + 1:match.start()]
        if 0 < len(content) <= _MAX_QUOTE and content.strip() and (
                kind == "`" or any(ch.isspace() for ch in content.strip())):
            spans.append((start, match.end()))
    spans.sort()
    return spans


def keyed_tokens(text: str, spans: list[tuple[int, int]]) -> set[int]:
    """Indexes of the tokens (of ``spans``) whose gap before them holds ``=`` or ``:``, from one
    scan for those marks: only such a plain word can be the value of a key (``host=api``)."""
    keyed: set[int] = set()
    if "=" not in text and ":" not in text:
        return keyed
    starts = [start for start, _ in spans]
    for mark in _ASSIGNS.finditer(text):
        at = mark.start()
        following = bisect_right(starts, at)
        if following and at < spans[following - 1][1]:
            continue  # inside a token (``10:15``)
        keyed.add(following)
    return keyed


def name_continues(text: str, spans: list[tuple[int, int]], words: list[str], last: int) -> bool:
    """True when token ``last + 1`` is a title word (``Acme``), not a month, one space after
    token ``last``: a name of capitalised words goes on."""
    if last + 1 >= len(words):
        return False
    following = words[last + 1]
    gap_at = spans[last][1]
    return (spans[last + 1][0] == gap_at + 1 and text[gap_at] == " " and len(following) > 1
            and following[0].isupper() and following[1:].islower() and following.isalpha()
            and following.lower() not in MONTHS)
