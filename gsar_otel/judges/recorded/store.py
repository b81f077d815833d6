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

import hashlib
import json
import os
import threading
import warnings
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

from pydantic import ValidationError

from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.core.model import JudgeOutput
from gsar_otel.core.protocol import GuardMemo, JudgeUsage, JudgeVerdict
from gsar_otel.core.redact import MIN_SECRET_CHARS as MIN_SECRET_CHARS
from gsar_otel.core.redact import REDACTED as REDACTED
from gsar_otel.core.redact import redact_secrets as redact_secrets
from gsar_otel.core.redact import secret_values
from gsar_otel.errors import GSARError
from gsar_otel.judges.recorded.files import CASSETTE_FORMAT as CASSETTE_FORMAT
from gsar_otel.judges.recorded.files import CassetteError as CassetteError
from gsar_otel.judges.recorded.files import CassetteWarning as CassetteWarning
from gsar_otel.judges.recorded.files import (
    atomic_write,
    directory_lock,
    read_cassette_holding,
    real_path,
    set_aside_damaged,
)
from gsar_otel.judges.recorded.files import read_cassette as read_cassette
from gsar_otel.judges.recorded.files import render_cassette as render_cassette
from gsar_otel.judges.recorded.masking import REFERENCE_MARK as REFERENCE_MARK
from gsar_otel.judges.recorded.masking import evidence_rows, mask_entry
from gsar_otel.judges.recorded.masking import restore_verdict as restore_verdict

KEY_LENGTH: Final = 32
"""Hex digits of the SHA-256 kept in a verdict key (128 bits)."""
GUARD_FIELD: Final = "guard"
"""Where a verdict keeps the integrity guard's report on it (see gsar_otel.core.guard_memo)."""


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


class MissingVerdictError(LookupError, GSARError):
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


def verdict_key(identity: Mapping[str, str], synthesis: str, evidence: EvidenceSet) -> str:
    """The stable key of one judgement: a hash of the judge identity, answer and evidence.

    The evidence enters with its ids and types, as the judge sees it, so renumbering evidence
    changes the key. Nothing time- or machine-dependent enters it.
    """
    canonical = json.dumps(
        {"judge": dict(identity), "synthesis": synthesis, "evidence": evidence_rows(evidence)},
        sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    # surrogatepass: a lone surrogate (not valid UTF-8) keys like any other character.
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()[:KEY_LENGTH]


# --- the store ------------------------------------------------------------------------------------


class CassetteStore:
    """The verdicts of one cassette file, loaded once and written back on :meth:`save`.

    Safe to share between threads. Several processes (pytest-xdist workers) may record into the
    same cassette: :meth:`save` merges with what is on disk under a directory lock (where the
    platform has ``fcntl``) and replaces the file atomically, so a reader never sees half a file.

    With ``replace_damaged`` (record mode ``all``, which records every verdict again) a cassette
    that cannot be read counts as empty: :meth:`save` moves it aside (``NAME.damaged``), writes
    a fresh one and warns with a :class:`CassetteWarning`; :attr:`damaged` says why.
    """

    def __init__(self, path: str | os.PathLike[str], *, existed: bool | None = None,
                 replace_damaged: bool = False) -> None:
        self.path = Path(path)
        self.replace_damaged = replace_damaged
        self.damaged: str | None = None
        """Why the cassette on disk could not be read, when ``replace_damaged`` let that pass."""
        self._lock = threading.Lock()
        self._entries: dict[str, dict[str, Any]] | None = None
        self._pending: dict[str, dict[str, Any]] = {}
        self._existed_given = existed
        self._existed = False
        self._references = False

    # reading

    def _load(self) -> dict[str, dict[str, Any]]:
        if self._entries is None:
            present = self.path.exists()
            self._existed = present if self._existed_given is None else self._existed_given
            self._entries, self._references = self._read_or_replace() if present else ({},
                                                                                   False)
        return self._entries

    def _read_or_replace(self) -> tuple[dict[str, dict[str, Any]], bool]:
        """The cassette's entries (none when it is damaged and may be replaced), and whether
        its text holds a reference mask."""
        try:
            return read_cassette_holding(self.path, REFERENCE_MARK)
        except CassetteError as error:
            if not (self.replace_damaged and self.path.is_file()):
                raise
            self.damaged = str(error)
            return {}, False

    @property
    def may_hold_references(self) -> bool:
        """False when no verdict held here has a reference mask to read back (the cassette's
        text has none, and nothing recorded since does)."""
        return self._references

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

    def get(self, key: str, *, guard: bool = True) -> JudgeVerdict | None:
        """The recorded verdict for ``key`` (with the guard's recorded report unless ``guard``
        is false), or None.

        Raises:
            CassetteError: the entry does not hold a valid judge output.
        """
        # Parsed on every call, not cached: a replay uses each verdict about once, and a cache
        # of model objects only lengthens the garbage collector's work in big suites.
        with self._lock:
            entry = self._load().get(key)
        return None if entry is None else _verdict_from_entry(entry, self.path, key, guard=guard)

    # writing

    def put(self, key: str, *, identity: Mapping[str, str], synthesis: str, evidence: EvidenceSet,
            verdict: JudgeVerdict) -> None:
        """Keep ``verdict`` under ``key`` (written by the next :meth:`save`)."""
        entry = {
            "judge": dict(identity),
            "synthesis": synthesis,
            "evidence": evidence_rows(evidence),
            "verdict": {
                "model": verdict.model,
                "output": verdict.output.model_dump(mode="json"),
                "usage": None if verdict.usage is None else verdict.usage.model_dump(mode="json"),
            },
        }
        references = REFERENCE_MARK in json.dumps(entry["verdict"], ensure_ascii=False)
        with self._lock:
            self._load()[key] = entry
            self._pending[key] = entry
            self._references = self._references or references

    def put_guard_memo(self, key: str, memo: GuardMemo, *, update: bool = False) -> bool:
        """Keep the guard's report beside the verdict under ``key`` when that verdict is being
        recorded (or, with ``update``, beside any verdict); True when it was kept."""
        data: dict[str, Any] = {"digest": memo.digest, "adjustments": list(memo.adjustments)}
        if memo.output is not None:
            data["output"] = memo.output
        with self._lock:
            entry = self._pending.get(key)
            if entry is None and update:
                entry = self._load().get(key)
            if entry is None or not isinstance(entry.get("verdict"), Mapping):
                return False
            if entry["verdict"].get(GUARD_FIELD) == data:
                return False
            entry = {**entry, "verdict": {**entry["verdict"], GUARD_FIELD: data}}
            self._load()[key] = entry
            self._pending[key] = entry
        return True

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
            cleaned = {key: mask_entry(entry, secrets) for key, entry in pending.items()}
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with directory_lock(real_path(self.path).parent):
                    # Read again under the lock: another process may have saved meanwhile.
                    self.damaged = None
                    on_disk = self._read_or_replace()[0] if self.path.exists() else {}
                    on_disk.update(cleaned)
                    text = render_cassette(on_disk)
                    leaked = [value for value in secrets if value in text]
                    if leaked:
                        raise CassetteError(
                            f"refusing to write {self.path}: it would contain the value of a "
                            f"secret environment variable")
                    if self.damaged is not None:
                        backup = set_aside_damaged(self.path)
                        warnings.warn(CassetteWarning(
                            f"record mode 'all' replaced the damaged cassette {self.path} "
                            f"({self.damaged}); the damaged file is kept as {backup}"),
                            stacklevel=2)
                    atomic_write(self.path, text)
            except (OSError, UnicodeError, RecursionError) as error:
                raise CassetteError(f"cannot write cassette {self.path}: {error}") from None
            self._entries = on_disk
            self._references = REFERENCE_MARK in text
            self._pending.clear()


def _verdict_from_entry(entry: Mapping[str, Any], path: Path, key: str, *,
                        guard: bool = True) -> JudgeVerdict:
    try:
        recorded = entry["verdict"]
        usage = recorded.get("usage")
        return JudgeVerdict(
            output=JudgeOutput.model_validate(recorded["output"]),
            usage=None if usage is None else JudgeUsage.model_validate(usage),
            model=recorded.get("model"),
            guard_memo=_guard_memo(recorded.get(GUARD_FIELD)) if guard else None,
        )
    except (KeyError, TypeError, AttributeError, ValueError) as error:
        raise CassetteError(f"verdict {key} in {path} is malformed ({error}); delete it and "
                            f"record again with --gsar-record-mode=new_episodes") from None


def _guard_memo(value: object) -> GuardMemo | None:
    """The recorded guard report, or None when there is none or it is malformed (the guard
    then runs, as for a cassette recorded before memos existed)."""
    if not isinstance(value, Mapping):
        return None
    try:
        return GuardMemo.model_validate(value)
    except ValidationError:
        return None
