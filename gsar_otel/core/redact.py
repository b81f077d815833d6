"""One redaction for every artefact: secret shapes and secret environment values, masked.

Spans and events (with content capture on), cassettes, baselines, the JUnit XML, the HTML report
and the judge SDK's debug log all pass text through :func:`redact_text` before it leaves the
process. It masks a class of shapes, not a list of examples:

- the value after a secret-named key: ``password=...``, ``db_password: ...``, ``"api_key":
  "..."``, ``token=...``, ``secret: ...``, ``Authorization: Bearer ...`` / ``Basic ...``,
  ``aws_secret_access_key = ...``, ``export GITHUB_TOKEN=...``;
- bearer tokens, JWTs, Anthropic / OpenAI style keys (``sk-ant-...``, ``sk-...``), AWS access
  key ids (``AKIA...``), 40-character AWS-style secret keys, GitHub and Slack tokens, Slack
  webhooks, PEM private key blocks, and the password of a URL with credentials
  (``postgres://user:pw@host``);
- the values of secret-named environment variables (``*_KEY``, ``*_TOKEN``, ``*_SECRET``,
  ``*PASSWORD*``, ``*CREDENTIAL*``) of at least :data:`MIN_SECRET_CHARS` characters.

Every pattern is linear in the text (possessive or bounded quantifiers, no nested repetition),
so hostile input cannot make redaction slow. Over-masking prose is accepted; a missed secret is
not. User redaction (the ``gsar_redact`` plugin hook) runs after these built-ins.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from gsar_otel.core.evidence import EvidenceSet

REDACTED: Final = "[REDACTED]"
"""What a masked secret reads as."""

MIN_SECRET_CHARS: Final = 8
"""Shorter values of secret-named environment variables are too common to mask safely."""

_SECRET_ENV_NAME: Final = re.compile(r"(?i)(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)")

# Whole matches that are secrets.
_SHAPES: Final = (
    # Anthropic, then OpenAI-style keys (sk-..., sk-proj-...).
    re.compile(r"sk-ant-[A-Za-z0-9_\-]{8,}+"),
    re.compile(r"sk-(?<![A-Za-z0-9]sk-)[A-Za-z0-9_\-]{20,}+"),
    # AWS access key ids (long-term AKIA, temporary ASIA, and the other IAM prefixes).
    re.compile(r"(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)(?<![A-Za-z0-9]....)[A-Z0-9]{16}"
               r"(?![A-Za-z0-9])"),
    # GitHub tokens (classic and fine-grained), Slack tokens and webhooks.
    re.compile(r"gh[pousr]_(?<![A-Za-z0-9]....)[A-Za-z0-9]{20,}+"),
    re.compile(r"github_pat_[A-Za-z0-9_]{20,}+"),
    re.compile(r"xox[abposre]-(?<![A-Za-z0-9].....)[A-Za-z0-9\-]{8,}+"),
    re.compile(r"hooks\.slack\.com/services/[A-Za-z0-9/_\-]{8,}+"),
    # JSON Web Tokens: three base64url parts, the first two JSON objects ("eyJ").
    re.compile(r"eyJ[A-Za-z0-9_\-]{4,}+\.eyJ[A-Za-z0-9_\-]{4,}+\.[A-Za-z0-9_\-]{4,}+"),
    # PEM private key blocks; an unterminated block is masked to the end of the text.
    re.compile(r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY-----(?:[^-]|-(?!----END))*+"
               r"(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY-----)?"),
)

# Matches whose group "secret" is the secret (the rest is kept as context).
_VALUES: Final = (
    # Bearer tokens anywhere (headers, curl lines, logs).
    re.compile(r"(?i)\bbearer\s++(?P<secret>[A-Za-z0-9._~+/\-]{8,}+=*+)"),
    # The password of a URL with credentials: scheme://user:password@host.
    re.compile(r"://[^\s/:@]{0,256}:(?P<secret>[^\s/@]{1,256})@"),
)

# A 40-character AWS-style secret key: base64 with upper, lower and digits (a lower-case hex
# digest such as a git commit is not one).
_AWS_SECRET: Final = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")

# key = value, key: value, "key": "value". The key is judged by name (see _secret_key), and only
# then is its value read, so a value never hides the next key and each character is read once.
_KEY: Final = re.compile(
    r"(?<![A-Za-z0-9_.\-])(?P<key>[A-Za-z][A-Za-z0-9_.\-]{0,63}+)[\"']?[ \t]*+(?:=>|[:=])[ \t]*+")
_VALUE: Final = re.compile(
    r"(?P<quote>[\"'])(?P<quoted>[^\"'\n]{1,1024}+)|"
    r"(?P<scheme>(?i:bearer|basic|token|digest|negotiate)[ \t]++)?(?P<bare>[^\s\"',;}&]{1,1024}+)")
_VALUE_READ: Final = 1100
_KEY_READ: Final = 256
# The words a secret key name holds: only keys around one are read, so ordinary key=value text
# (most of a log) costs one regex scan.
_SECRET_WORD: Final = re.compile(
    r"(?i)pass|pwd|secret|token|api|access|private|signing|auth|credential|session|cookie")
_KEY_RUN: Final = re.compile(r"[A-Za-z0-9_.\-]{1,64}\Z")
_SEPARATOR_AFTER: Final = re.compile(r"[A-Za-z0-9_.\-]{0,63}+[\"']?[ \t]*+(?:=>|[:=])")
_KEY_PARTS: Final = re.compile(r"[_.\-]+|(?<=[a-z])(?=[A-Z])")
_SECRET_KEY_ENDINGS: Final = (
    "password", "passwd", "pwd", "passphrase", "pass", "secret", "token", "apikey", "accesskey",
    "secretkey", "privatekey", "signingkey", "authorization", "auth", "credential", "credentials",
    "sessionid", "cookie", "clientsecret",
)
_SECRET_KEY_PARTS: Final = frozenset({"password", "passwd", "secret", "token", "credentials",
                                      "credential", "apikey"})


def secret_values(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Values of secret-named environment variables (``*_API_KEY``, ``*_TOKEN``), longest first.

    Without ``environ``, the process environment, read again only when it changed in a way that
    matters since the last call: a variable added or removed, or a secret-named one set to
    another value (pytest alone changes ``PYTEST_CURRENT_TEST`` for every test). A secret set
    mid-run is masked from the next call on.
    """
    if environ is not None:
        return _secret_values(environ.items())
    raw = getattr(os.environ, "_data", None)
    decode_key = getattr(os.environ, "decodekey", None)
    decode_value = getattr(os.environ, "decodevalue", None)
    if not (isinstance(raw, dict) and callable(decode_key) and callable(decode_value)):
        return _secret_values(os.environ.items())
    global _environ_seen
    seen = _environ_seen
    if seen is not None and raw.keys() == seen.names:
        try:
            if tuple(raw[name] for name in seen.secret_names) == seen.raw_values:
                return seen.values
        except KeyError:  # removed meanwhile by another thread: read it all again
            pass
    snapshot = dict(raw)  # everything below reads this copy, never the live table
    secret_names = tuple(name for name in snapshot
                         if _SECRET_ENV_NAME.search(decode_key(name)))
    values = _secret_values((decode_key(name), decode_value(snapshot[name]))
                            for name in secret_names)
    _environ_seen = _EnvironSeen(frozenset(snapshot), secret_names,
                                 tuple(snapshot[name] for name in secret_names), values)
    return values


@dataclass(frozen=True, slots=True)
class _EnvironSeen:
    """The process environment as :func:`secret_values` last read it."""

    names: frozenset[Any]
    secret_names: tuple[Any, ...]
    raw_values: tuple[Any, ...]
    values: tuple[str, ...]


_environ_seen: _EnvironSeen | None = None


def _secret_values(items: Iterable[tuple[str, str]]) -> tuple[str, ...]:
    values = {value.strip() for name, value in items
              if _SECRET_ENV_NAME.search(name) and len(value.strip()) >= MIN_SECRET_CHARS}
    return tuple(sorted(values, key=len, reverse=True))


def _secret_key(key: str) -> bool:
    parts = [part.lower() for part in _KEY_PARTS.split(key) if part]
    joined = "".join(parts)
    return (joined.endswith(_SECRET_KEY_ENDINGS) or joined.startswith(("password", "secret"))
            or any(part in _SECRET_KEY_PARTS for part in parts)
            or joined in {"xapikey", "apikey"})


def _is_aws_secret(candidate: str) -> bool:
    return (any(c.isupper() for c in candidate) and any(c.islower() for c in candidate)
            and any(c.isdigit() for c in candidate))


def secret_spans(text: str, values: Iterable[str] = ()) -> list[tuple[int, int]]:
    """Where ``text`` holds a secret: sorted, merged ``(start, end)`` spans.

    ``values`` are known secrets (e.g. from :func:`secret_values`) found wherever they occur.
    """
    spans: list[tuple[int, int]] = []
    for value in values:
        if not value:
            continue
        start = text.find(value)
        while start >= 0:
            spans.append((start, start + len(value)))
            start = text.find(value, start + len(value))
    for pattern in _SHAPES:
        spans.extend(match.span() for match in pattern.finditer(text))
    for pattern in _VALUES:
        spans.extend(match.span("secret") for match in pattern.finditer(text))
    spans.extend(match.span() for match in _AWS_SECRET.finditer(text)
                 if _is_aws_secret(match.group()))
    end = 0
    for word in _SECRET_WORD.finditer(text):
        if word.start() < end or _SEPARATOR_AFTER.match(text, word.end(),
                                                        word.end() + _KEY_READ) is None:
            continue  # inside the key (or value) just read, or no key = value here
        run = _KEY_RUN.search(text, max(0, word.start() - 64), word.start())
        start = run.start() if run is not None else word.start()
        key = _KEY.match(text, start, start + _KEY_READ)
        if key is None or key.end("key") < word.end() or not _secret_key(key.group("key")):
            continue
        end = key.end()
        # endpos bounds the read: a value is at most 1,024 characters after its scheme.
        read = _VALUE.match(text, key.end(), key.end() + _VALUE_READ)
        if read is not None:
            group = "quoted" if read.group("quoted") is not None else "bare"
            begin = read.start("scheme") if read.group("scheme") else read.start(group)
            spans.append((begin, read.end(group)))
            end = read.end(group)
    return _merged(spans)


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def redact_text(text: str, values: Iterable[str] = (), *, mask: str = REDACTED) -> str:
    """``text`` with every secret shape and every one of ``values`` replaced by ``mask``."""
    spans = secret_spans(text, values)
    if not spans:
        return text
    out, position = [], 0
    for start, end in spans:
        out.append(text[position:start])
        out.append(mask)
        position = end
    out.append(text[position:])
    return "".join(out)


def redact_secrets(text: str, secrets: tuple[str, ...] = ()) -> str:
    """``text`` with secret-shaped substrings and the given secret values masked."""
    return redact_text(text, secrets)


def redact_tree(value: Any, values: tuple[str, ...] = ()) -> Any:
    """``value`` (JSON-like: str, mapping, list, tuple, scalars) with every string redacted."""
    if isinstance(value, str):
        return redact_text(value, values)
    if isinstance(value, Mapping):
        return {key: redact_tree(item, values) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact_tree(item, values) for item in value]
    return value


def contains_secret(text: str, values: Iterable[str] = ()) -> bool:
    """True when ``text`` holds a secret shape or one of ``values``."""
    return bool(secret_spans(text, values))


# --- masks that a replay can undo -----------------------------------------------------------------
# A recorded verdict quotes the answer it judged. Masking a secret in the verdict's claims with a
# bare "[REDACTED]" would make the replayed claims differ from the answer, and the integrity guard
# would then find sentences "uncovered" on replay only. So a secret that also occurs in one of the
# judged texts (the answer, an evidence item) is masked by a reference to where it occurs there:
# "[REDACTED:synthesis@40+12]". A replay has the same texts (the cassette key hashes them), reads
# the secret back from them and gets exactly the verdict that was recorded.

_REFERENCE: Final = re.compile(r"\[REDACTED:(?P<source>[a-z]++(?:\.[0-9]{1,9})?)"
                               r"@(?P<start>[0-9]{1,12})\+(?P<length>[0-9]{1,12})\]")


_LITERAL_CHARS: Final = 4
"""A secret of the judged texts this long is masked wherever a verdict repeats it, even without
the key or shape that marked it (``password hunter22``)."""


def secret_references(sources: Mapping[str, str], values: Iterable[str] = ()) -> dict[str, str]:
    """Each secret found in ``sources`` (name -> text), mapped to the mask that locates its first
    occurrence: ``{"hunter22": "[REDACTED:synthesis@9+8]"}``."""
    values = tuple(values)
    references: dict[str, str] = {}
    for name, text in sources.items():
        for start, end in secret_spans(text, values):
            references.setdefault(text[start:end], f"[REDACTED:{name}@{start}+{end - start}]")
    return references


def redact_with_references(text: str, references: Mapping[str, str],
                           values: Iterable[str] = (), *,
                           sources: Mapping[str, str] | None = None) -> str:
    """``text`` redacted, each secret of ``references`` masked by its reference, others by
    :data:`REDACTED`.

    With ``sources``, a masked stretch that is not one of ``references`` but occurs verbatim in
    a source (part of a private key block, a secret with its trailing words) is masked by a
    reference to that occurrence too.
    """
    literal = (secret for secret in references if len(secret) >= _LITERAL_CHARS)
    spans = secret_spans(text, (*values, *literal))
    if not spans:
        return text
    out, position = [], 0
    for start, end in spans:
        out.append(text[position:start])
        out.append(_reference(text[start:end], references, sources or {}))
        position = end
    out.append(text[position:])
    return "".join(out)


def _reference(secret: str, references: Mapping[str, str], sources: Mapping[str, str]) -> str:
    known = references.get(secret)
    if known is not None:
        return known
    for name, source in sources.items():
        found = source.find(secret)
        if found >= 0:
            return f"[REDACTED:{name}@{found}+{len(secret)}]"
    return REDACTED


def references_for_changes(before: str, after: str, sources: Mapping[str, str]) -> str:
    """``after`` (``before`` as a user redactor masked it), with each stretch of ``before`` that
    it replaced or removed masked by a reference instead when a source holds it verbatim.

    A user redactor is not reversible; a reference is, so a replay reads the stretch back.
    """
    if before == after or not sources:
        return after
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out.append(before[i1:i2])
            continue
        piece = before[i1:i2]
        reference = _reference(piece, {}, sources) if piece.strip() else REDACTED
        out.append(reference if reference != REDACTED else after[j1:j2])
    return "".join(out)


def restore_references(text: str, sources: Mapping[str, str]) -> str:
    """``text`` with every reference mask replaced by the secret it locates in ``sources``; a
    reference that does not fit its source is left as is."""
    if "[REDACTED:" not in text:
        return text

    def secret(match: re.Match[str]) -> str:
        source = sources.get(match.group("source"))
        start, length = int(match.group("start")), int(match.group("length"))
        if source is None or start + length > len(source):
            return match.group()
        return source[start:start + length]

    return _REFERENCE.sub(secret, text)


# --- characters that cannot be encoded ------------------------------------------------------------

REPLACEMENT_CHARACTER: Final = "\ufffd"
_LONE_SURROGATE: Final = re.compile(r"[\ud800-\udfff]")


def replace_lone_surrogates(text: str) -> tuple[str, int]:
    """``text`` with each lone surrogate (not encodable as UTF-8) replaced by U+FFFD, and how
    many were replaced."""
    return _LONE_SURROGATE.subn(REPLACEMENT_CHARACTER, text)


def encodable_inputs(synthesis: str, evidence: EvidenceSet) -> tuple[str, EvidenceSet, int]:
    """The answer and evidence with every lone surrogate replaced by U+FFFD, and how many were.

    A lone surrogate (from ``surrogateescape``-decoded bytes or a broken string) cannot be sent
    to a judge API nor hashed into a cassette key; replaced at the judging boundary, the
    evaluator records the change as an adjustment.
    """
    clean, count = replace_lone_surrogates(synthesis)
    items = []
    for item in evidence.items:
        fields = {}
        for name in ("id", "content", "source"):
            value = getattr(item, name)
            if isinstance(value, str):
                fixed, replaced = replace_lone_surrogates(value)
                if replaced:
                    fields[name], count = fixed, count + replaced
        items.append(item.model_copy(update=fields) if fields else item)
    if count == 0:
        return synthesis, evidence, 0
    return clean, evidence.model_copy(update={"items": tuple(items)}), count


__all__ = [
    "MIN_SECRET_CHARS",
    "REDACTED",
    "REPLACEMENT_CHARACTER",
    "contains_secret",
    "encodable_inputs",
    "redact_secrets",
    "redact_text",
    "redact_tree",
    "redact_with_references",
    "references_for_changes",
    "replace_lone_surrogates",
    "restore_references",
    "secret_references",
    "secret_spans",
    "secret_values",
]
