"""Escaping the judged data: nothing in it can read as one of the judge prompt's tags.

The evidence and the answer travel inside ``<evidence>`` and ``<synthesis>`` tags
(:mod:`~gsar_otel.judges.anthropic.prompt`). An opener ("<" or a character a reader takes for
one) that begins one of those tag names is escaped to ``&lt;``, whatever disguises the tag: a
reader does not see zero-width characters, soft hyphens, bidirectional marks or accents, and
takes fullwidth, Cyrillic and Greek look-alikes for Latin letters. So each opener is judged on
the *skeleton* of the text after it, the text as a reader sees it.

The cost stays linear: only the 64 characters after an opener are read, by regex when they are
plain ASCII, character by character for a bounded number of openers; past the bounds the
remaining openers are escaped unread (over-escaping is harmless: the judge reads "&lt;" as "<").
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from gsar_otel.core.redact import replace_lone_surrogates

_TAG_NAMES: Final = ("evidence", "synthesis", "item", "instructions", "system", "verdict")
# "<" and the characters a model may read as one, followed by one of our tag names (optionally
# closing, with stray whitespace): "</evidence>", "< /Synthesis >", "＜item id=...". It runs on the
# skeleton of the text (see _skeleton), so invisible characters, compatibility forms and
# look-alike letters cannot hide a tag from it: "<\u200b/evidence>", "</evi\u00addence>",
# "</\u0435vidence>" (Cyrillic e), "</ｅｖｉｄｅｎｃｅ>".
_TAG_LOOKALIKE: Final = re.compile(
    r"[<\u2039\u27E8\u3008\u2329\u276C\u276E\u29FC](?=\s*+/?\s*+(?:" + "|".join(_TAG_NAMES)
    + r")(?![a-z0-9_]))",
    re.IGNORECASE,
)

# Latin look-alikes of Cyrillic, Greek and other letters (Unicode confusables, the lower-case
# forms a reader takes for the letters of our tag names and their neighbours).
_CONFUSABLES: Final = str.maketrans({
    "а": "a", "в": "b", "с": "c", "ԁ": "d", "е": "e", "ё": "e", "һ": "h", "і": "i", "ї": "i",
    "ј": "j", "к": "k", "ӏ": "l", "м": "m", "п": "n", "о": "o", "р": "p", "ԛ": "q", "г": "r",
    "ѕ": "s", "т": "t", "ц": "u", "ѵ": "v", "ԝ": "w", "х": "x", "у": "y", "з": "z",
    "α": "a", "β": "b", "ϲ": "c", "ς": "c", "δ": "d", "ε": "e", "η": "n", "ι": "i", "ϳ": "j",
    "κ": "k",
    "μ": "u", "ν": "v", "ο": "o", "ρ": "p", "σ": "o", "τ": "t", "υ": "u", "χ": "x", "γ": "y",
    "ı": "i", "ɩ": "i", "ɑ": "a", "ɡ": "g", "ʏ": "y", "ꭵ": "i", "ꮪ": "s", "ꮯ": "c",
})
# Characters a reader does not see: format characters (zero-width space and joiners, soft
# hyphen, bidirectional marks, word joiner, BOM), combining marks, controls other than spaces.
_INVISIBLE_CATEGORIES: Final = frozenset({"Cf", "Mn", "Me", "Cc", "Cs", "Co", "Cn"})
_ASCII_CONTROL: Final = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")


_OPENERS: Final = re.compile("[<\u226E\uFE64\uFF1C\u2039\u27E8\u3008\u2329\u276C\u276E\u29FC]")
"""Every character whose skeleton is, or starts, one :data:`_TAG_LOOKALIKE` opens with (the
code points whose NFKD form holds "<", and the angle brackets the pattern lists)."""
_PLAIN: Final = re.compile(r"[\t-\r\x20-\x7e]*+")
_WINDOW: Final = 64
"""Characters read after an opener whose next characters are not plain ASCII."""
_TAG_CHARS: Final = 14
"""Visible characters a disguised tag needs at most (opener, "/", the longest name, one more):
a window holding fewer is mostly invisible characters, and is escaped without looking further."""
_SLOW_CHECKS: Final = 4096
_MAX_OPENERS: Final = 65536
"""Openers per text read character by character (those followed by more than plain ASCII), and
openers read at all; past either, every further opener is escaped unread, so escaping stays
linear in the text with a small constant (over-escaping a "<" is harmless: the judge reads
"&lt;" as "<")."""


def _skeleton(text: str) -> str:
    """``text`` as a reader sees it: invisible characters and accents dropped, each character
    NFKD-decomposed, lower-cased and mapped from a look-alike to its Latin letter."""
    chars: list[str] = []
    for char in text:
        if char.isascii():
            if char.isprintable() or char.isspace():
                chars.append(char.lower())
            continue
        if unicodedata.category(char) in _INVISIBLE_CATEGORIES:
            continue
        for part in unicodedata.normalize("NFKD", char).lower().translate(_CONFUSABLES):
            if unicodedata.category(part) not in _INVISIBLE_CATEGORIES:
                chars.append(part)
    return "".join(chars)


def _disguised_tag_starts(text: str) -> tuple[list[int], int]:
    """Indexes of the openers in ``text`` that begin something a reader takes for one of the
    prompt's tags (or that are followed by too much unreadable text to tell), and the index from
    which every opener is escaped unread (``len(text)`` when all were read)."""
    starts: list[int] = []
    slow = 0
    for count, opener in enumerate(_OPENERS.finditer(text)):
        start = opener.start()
        if count >= _MAX_OPENERS:
            return starts, start
        window = text[start + 1:start + 1 + _WINDOW]
        if _PLAIN.fullmatch(window) is not None:
            if _TAG_LOOKALIKE.match(_skeleton(text[start]) + window):
                starts.append(start)
            continue
        slow += 1
        if slow > _SLOW_CHECKS:
            return starts, start
        skeleton = _skeleton(text[start] + window)
        if (_TAG_LOOKALIKE.match(skeleton)
                or (len(window) == _WINDOW and len("".join(skeleton.split())) < _TAG_CHARS)):
            starts.append(start)
    return starts, len(text)


def neutralize_delimiters(text: str) -> str:
    """Escape anything in ``text`` that could read as one of the prompt's tags.

    ``"</evidence>"`` becomes ``"&lt;/evidence>"``, and so do its look-alikes: with invisible
    characters inside, in compatibility forms (fullwidth, ``＜``) or with Cyrillic or Greek
    letters. The rest of the text is left exactly as is, so the judge still sees (and can quote)
    the data faithfully; only a lone surrogate, which no request can encode, becomes U+FFFD.
    """
    text = replace_lone_surrogates(text)[0]
    if text.isascii() and _ASCII_CONTROL.search(text) is None:
        return _TAG_LOOKALIKE.sub("&lt;", text)
    starts, unread = _disguised_tag_starts(text)
    if not starts and unread == len(text):
        return text
    out, position = [], 0
    for start in starts:
        out.append(text[position:start])
        out.append("&lt;")
        position = start + 1
    out.append(text[position:unread])
    out.append(_OPENERS.sub("&lt;", text[unread:]))
    return "".join(out)


__all__ = ["neutralize_delimiters"]
