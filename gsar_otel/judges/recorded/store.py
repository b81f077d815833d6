"""The cassette store of recorded judge verdicts: record modes, keys, secret masking, files.

A cassette is one JSON file of verdicts, each under a stable key: the hash of the judge's
identity (backend, model, prompt version), the answer and the evidence with its ids and types.
:class:`~gsar_otel.judges.recorded.judge.RecordingJudge` reads and writes it by record mode.

Cassettes are meant to be committed and reviewed: indented JSON with sorted keys, no
timestamps, the answer and evidence next to each verdict. They never hold a request header or
an API key: every string is scanned before writing, known secret shapes and the values of
secret-named environment variables are masked, and a cassette that would still contain one is
not written.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
import threading
from collections.abc import Iterator, Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import JudgeOutput
from gsar_otel.core.protocol import JudgeUsage, JudgeVerdict

CASSETTE_FORMAT: Final = "gsar-cassette/1"
"""Format marker written into every cassette; a cassette with another marker is refused."""

KEY_LENGTH: Final = 32
"""Hex digits of the SHA-256 kept in a verdict key (128 bits)."""

REDACTED: Final = "[REDACTED]"


class RecordMode(StrEnum):
    """When a RecordingJudge may call the judge it wraps."""

    NONE = "none"
    ONCE = "once"
    NEW_EPISODES = "new_episodes"
    ALL = "all"


RECORD_MODES: Final = tuple(mode.value for mode in RecordMode)


def parse_record_mode(value: object) -> RecordMode:
    """The RecordMode named by ``value``.

    Raises:
        ValueError: naming the allowed modes.
    """
    if isinstance(value, RecordMode):
        return value
    try:
        return RecordMode(str(value).strip().lower())
    except ValueError:
        raise ValueError(
            f"record mode must be one of {', '.join(RECORD_MODES)}; got {value!r}") from None


class CassetteError(Exception):
    """A cassette cannot be read or written (bad JSON, wrong format, a secret in it)."""


class MissingVerdictError(LookupError):
    """The record mode forbids calling the judge and the cassette has no verdict for the answer."""

    def __init__(self, path: Path, mode: RecordMode, *, cassette_existed: bool) -> None:
        self.path = path
        self.mode = mode
        self.cassette_existed = cassette_existed
        super().__init__(self.message)

    @property
    def hint(self) -> str:
        """What to run to record the verdict."""
        # "once" never adds to a cassette that exists, so an existing one needs new_episodes.
        if self.cassette_existed:
            return "run with --gsar-record-mode=new_episodes to add it"
        return "run with --gsar-record-mode=once to record it"

    @property
    def message(self) -> str:
        """The full explanation, naming the cassette and the record mode."""
        return (f"no recorded verdict for this answer in {self.path} (record mode "
                f"{self.mode.value!r}); {self.hint}")


# --- keys -----------------------------------------------------------------------------------------


def _evidence_rows(evidence: EvidenceSet) -> list[dict[str, str]]:
    return [{"id": item.id, "type": str(item.type), "content": item.content}
            for item in evidence.items]


def verdict_key(identity: Mapping[str, str], synthesis: str, evidence: EvidenceSet) -> str:
    """The stable key of one judgement: a hash of the judge identity, answer and evidence.

    The evidence enters with its ids and types, as the judge sees it, so renumbering evidence
    changes the key. Nothing time- or machine-dependent enters it.
    """
    canonical = json.dumps(
        {"judge": dict(identity), "synthesis": synthesis, "evidence": _evidence_rows(evidence)},
        sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:KEY_LENGTH]


# --- secrets --------------------------------------------------------------------------------------

_SECRET_PATTERNS: Final = (
    re.compile(r"sk-ant-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"\bsk-[A-Za-z0-9_\-]{20,}"),
    re.compile(r"\bAKIA[0-9A-Z]{16}\b"),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"),
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/\-]{8,}=*"),
    re.compile(r"(?i)\b(?:x-api-key|authorization|api[_-]?key)\b[\"']?\s*[:=]\s*[\"']?"
               r"[^\s\"',;}]{6,}"),
)
_SECRET_ENV_NAME: Final = re.compile(r"(?i)(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)")
MIN_SECRET_CHARS: Final = 8
"""Shorter values of secret-named environment variables are too common to mask safely."""


def secret_values(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Values of secret-named environment variables (``*_API_KEY``, ``*_TOKEN``), longest first."""
    env = os.environ if environ is None else environ
    values = {value.strip() for name, value in env.items()
              if _SECRET_ENV_NAME.search(name) and len(value.strip()) >= MIN_SECRET_CHARS}
    return tuple(sorted(values, key=len, reverse=True))


def redact_secrets(text: str, secrets: tuple[str, ...] = ()) -> str:
    """``text`` with secret-shaped substrings and the given secret values masked."""
    for value in secrets:
        if value in text:
            text = text.replace(value, REDACTED)
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub(REDACTED, text)
    return text


def _redact_tree(value: Any, secrets: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        return redact_secrets(value, secrets)
    if isinstance(value, Mapping):
        return {key: _redact_tree(item, secrets) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_redact_tree(item, secrets) for item in value]
    return value


# --- the store ------------------------------------------------------------------------------------


class CassetteStore:
    """The verdicts of one cassette file, loaded once and written back on :meth:`save`.

    Safe to share between threads. Several processes (pytest-xdist workers) may record into the
    same cassette: :meth:`save` merges with what is on disk under a directory lock (where the
    platform has ``fcntl``) and replaces the file atomically.
    """

    def __init__(self, path: str | os.PathLike[str], *, existed: bool | None = None) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._entries: dict[str, dict[str, Any]] | None = None
        self._pending: dict[str, dict[str, Any]] = {}
        self._existed_given = existed
        self._existed = False

    # reading

    def _load(self) -> dict[str, dict[str, Any]]:
        if self._entries is None:
            present = self.path.exists()
            self._existed = present if self._existed_given is None else self._existed_given
            self._entries = read_cassette(self.path) if present else {}
        return self._entries

    @property
    def existed(self) -> bool:
        """True when the cassette counts as already recorded (record mode ``once`` adds nothing
        to it): given at construction (e.g. as it was when a test session began), else whether
        the file was there when this store first looked."""
        self._load()
        return self._existed

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._load()

    def __len__(self) -> int:
        with self._lock:
            return len(self._load())

    def get(self, key: str) -> JudgeVerdict | None:
        """The recorded verdict for ``key``, or None.

        Raises:
            CassetteError: the entry does not hold a valid judge output.
        """
        # Parsed on every call, not cached: a replay uses each verdict about once, and a cache
        # of model objects only lengthens the garbage collector's work in big suites.
        with self._lock:
            entry = self._load().get(key)
        return None if entry is None else _verdict_from_entry(entry, self.path, key)

    # writing

    def put(self, key: str, *, identity: Mapping[str, str], synthesis: str, evidence: EvidenceSet,
            verdict: JudgeVerdict) -> None:
        """Keep ``verdict`` under ``key`` (written by the next :meth:`save`)."""
        entry = {
            "judge": dict(identity),
            "synthesis": synthesis,
            "evidence": _evidence_rows(evidence),
            "verdict": {
                "model": verdict.model,
                "output": verdict.output.model_dump(mode="json"),
                "usage": None if verdict.usage is None else verdict.usage.model_dump(mode="json"),
            },
        }
        with self._lock:
            self._load()[key] = entry
            self._pending[key] = entry

    @property
    def dirty(self) -> bool:
        """True when verdicts were recorded since the last save."""
        return bool(self._pending)

    def save(self) -> None:
        """Write recorded verdicts, merged with the cassette on disk; a no-op when none are new.

        Raises:
            CassetteError: the cassette would contain a secret, or the file cannot be written.
        """
        with self._lock:
            if not self._pending:
                return
            pending = dict(self._pending)
            secrets = secret_values()
            cleaned = {key: _redact_tree(entry, secrets) for key, entry in pending.items()}
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with _directory_lock(self.path.parent):
                on_disk = read_cassette(self.path) if self.path.exists() else {}
                on_disk.update(cleaned)
                text = render_cassette(on_disk)
                leaked = [value for value in secrets if value in text]
                if leaked:
                    raise CassetteError(
                        f"refusing to write {self.path}: it would contain the value of a "
                        f"secret environment variable")
                _atomic_write(self.path, text)
            self._entries = on_disk
            self._pending.clear()


def read_cassette(path: Path) -> dict[str, dict[str, Any]]:
    """The verdict entries of the cassette at ``path``.

    Raises:
        CassetteError: not JSON, or not a gsar cassette; the message says how to recover.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CassetteError(f"cannot read cassette {path}: {error}; delete it and record again "
                            f"with --gsar-record-mode=once") from None
    if not isinstance(data, dict) or data.get("format") != CASSETTE_FORMAT or not isinstance(
            data.get("verdicts"), dict):
        raise CassetteError(f"{path} is not a gsar cassette (expected a JSON object with "
                            f"\"format\": \"{CASSETTE_FORMAT}\" and \"verdicts\")")
    verdicts: dict[str, dict[str, Any]] = data["verdicts"]
    return verdicts


def render_cassette(entries: Mapping[str, Mapping[str, Any]]) -> str:
    """The cassette text for ``entries``: stable, indented, sorted JSON ending in a newline."""
    return json.dumps({"format": CASSETTE_FORMAT, "verdicts": entries}, indent=2, sort_keys=True,
                      ensure_ascii=False) + "\n"


def _verdict_from_entry(entry: Mapping[str, Any], path: Path, key: str) -> JudgeVerdict:
    try:
        recorded = entry["verdict"]
        usage = recorded.get("usage")
        return JudgeVerdict(
            output=JudgeOutput.model_validate(recorded["output"]),
            usage=None if usage is None else JudgeUsage.model_validate(usage),
            model=recorded.get("model"),
        )
    except (KeyError, TypeError, AttributeError, ValueError) as error:
        raise CassetteError(f"verdict {key} in {path} is malformed ({error}); delete it and "
                            f"record again with --gsar-record-mode=new_episodes") from None


@contextlib.contextmanager
def _directory_lock(directory: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - no advisory locks on this platform
        yield
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _atomic_write(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
