"""One word root for every stage: the core stem, less a derivational ending, so "evicted" meets
"evictions", "deployed" meets "deployment" and "failed" meets "failure" on both sides alike."""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from gsar_otel.core.text import stem

_ENDINGS: Final = ("ation", "ition", "ment", "ion", "ance", "ence", "ur")
_SHORTEST: Final = 4
"""A root keeps at least this many letters: "nation" stays itself, never "n"."""


@lru_cache(maxsize=65536)
def root(word: str) -> str:
    """The root of a lowercased word (one suffix at most, then a final "e")."""
    found = stem(word)
    for ending in _ENDINGS:
        if found.endswith(ending) and len(found) - len(ending) >= _SHORTEST:
            found = found[:-len(ending)]
            break
    if found.endswith("e") and len(found) > _SHORTEST:
        found = found[:-1]
    return found
