"""Score baselines: the S and decision each judgement had when the baseline was last written.

The file is JSON with sorted keys and scores rounded to four places, so it diffs well in review::

    {
      "entries": {
        "tests/gsar_incidents.jsonl::db-outage": {"decision": "proceed", "judge": "lexical",
                                                   "score": 0.8667}
      },
      "format": "gsar-baseline/1"
    }

Keys are pytest node ids; a test that judges more than once adds ``#2``, ``#3``... A judgement
regresses when S falls more than the tolerance below its baseline or its decision gets worse
(proceed < regenerate < replan < abstain). ``--gsar-update-baseline`` merges a run's entries into
the file as it is when the run ends, under an exclusive lock (:func:`update_baseline`), so
concurrent runs keep each other's entries.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from gsar_otel.core.model import DECISION_RANK, Decision
from gsar_otel.errors import GSARError
from gsar_otel.judges.recorded.files import atomic_write, directory_lock, real_path
from pytest_gsar.records import JudgementRecord

BASELINE_FORMAT: Final = "gsar-baseline/1"
SCORE_PLACES: Final = 4
_EPSILON: Final = 1e-9
MAX_REPORTED: Final = 20
"""Bad entries of a baseline named in its error; further ones are counted."""
_RECOVER: Final = "fix or delete it, then write it again with --gsar-update-baseline"


def decision_rank(decision: str) -> int:
    """How bad a decision is (``gsar_otel.core.model.DECISION_RANK``); unknown names rank worst."""
    try:
        return DECISION_RANK[Decision(decision)]
    except ValueError:
        return len(DECISION_RANK)


class BaselineError(GSARError):
    """The baseline file cannot be read or written."""


@dataclass(frozen=True, slots=True)
class BaselineEntry:
    """The stored S and decision of one judgement."""

    score: float
    decision: str
    judge: str = ""


def file_of(key: str) -> str:
    """The test file part of a node id (``tests/gsar_x.jsonl::case`` -> ``tests/gsar_x.jsonl``)."""
    return key.split("::", 1)[0]


def load_baseline(path: Path) -> dict[str, BaselineEntry]:
    """The entries of the baseline at ``path``; none when the file does not exist yet.

    Raises:
        BaselineError: the file is not a gsar baseline; the message names the path and says
            what is wrong (every bad entry, up to :data:`MAX_REPORTED`).
    """
    if not path.exists():
        return {}
    entries: dict[str, BaselineEntry] = {}
    problems: list[str] = []
    for key, raw in _raw_entries(path).items():
        try:
            entries[key] = _entry(raw)
        except ValueError as error:
            problems.append(f"entry {_short(key)} {error}")
    if problems:
        shown = problems[:MAX_REPORTED]
        more = len(problems) - len(shown)
        raise BaselineError(f"baseline {path}: {len(problems)} bad entr"
                            f"{'y' if len(problems) == 1 else 'ies'}: " + "; ".join(shown)
                            + (f"; ... and {more} more" if more else "") + f"; {_RECOVER}")
    return entries


def _raw_entries(path: Path) -> dict[str, object]:
    if not path.is_file():  # a FIFO would block the read
        raise BaselineError(f"cannot read baseline {path}: not a regular file")
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise BaselineError(f"cannot read baseline {path}: {error}") from None
    if not raw.strip():
        raise BaselineError(f"cannot read baseline {path}: the file is empty; {_RECOVER}")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise BaselineError(f"cannot read baseline {path}: not UTF-8 text (byte {error.start}), "
                            f"the file is damaged; {_RECOVER}") from None
    except json.JSONDecodeError as error:
        conflict = " (it holds merge conflict markers)" if b"<<<<<<< " in raw else ""
        raise BaselineError(f"cannot read baseline {path}: not valid JSON{conflict}: "
                            f"{error.msg} (line {error.lineno}, column {error.colno}); "
                            f"{_RECOVER}") from None
    except RecursionError:
        raise BaselineError(f"cannot read baseline {path}: JSON nested too deeply; "
                            f"{_RECOVER}") from None
    found = data.get("format") if isinstance(data, dict) else None
    if isinstance(found, str) and found != BASELINE_FORMAT and found.startswith("gsar-baseline/"):
        raise BaselineError(f"baseline {path} has format {found[:40]!r}, which this gsar cannot "
                            f"read (it reads {BASELINE_FORMAT!r}); write it again with "
                            f"--gsar-update-baseline")
    if not isinstance(data, dict) or found != BASELINE_FORMAT or not isinstance(
            data.get("entries"), dict):
        raise BaselineError(f"{path} is not a gsar baseline (expected a JSON object with "
                            f"\"format\": \"{BASELINE_FORMAT}\" and \"entries\")")
    entries: dict[str, object] = data["entries"]
    return entries


def _entry(raw: object) -> BaselineEntry:
    """One baseline entry, checked.

    Raises:
        ValueError: what is wrong with it.
    """
    if not isinstance(raw, dict):
        raise ValueError(f"must be an object with \"score\" and \"decision\", got "
                         f"{type(raw).__name__}")
    if "score" not in raw or "decision" not in raw:
        raise ValueError("needs a numeric \"score\" and a \"decision\"")
    score, decision, judge = raw.get("score"), raw.get("decision"), raw.get("judge")
    if isinstance(score, bool) or not isinstance(score, int | float) or not (
            math.isfinite(score) and 0 <= score <= 1):
        raise ValueError(f"needs a \"score\" between 0 and 1, got {_short(score)}")
    if not isinstance(decision, str) or decision not in DECISION_RANK:
        raise ValueError(f"has decision {_short(decision)}; allowed: {', '.join(DECISION_RANK)}")
    if judge is not None and not isinstance(judge, str):
        raise ValueError(f"has \"judge\" {_short(judge)}, expected a judge name")
    return BaselineEntry(score=float(score), decision=decision, judge=judge or "")


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _places(old: float, new: float) -> int:
    """Two decimals, or three where two would not add up (0.667 -> 0.625 is not "0.67 -> 0.62
    by 0.04")."""
    rounded = round(old, 2) - round(new, 2)
    return 2 if f"{rounded:.2f}" == f"{old - new:.2f}" else 3


def compare(entry: BaselineEntry, *, score: float, decision: str, tolerance: float,
            judge: str = "") -> list[str]:
    """Why a judgement regressed against ``entry``; empty when it did not. A regression by
    another judge than the baseline's (``judge``, the run's judge label) says so."""
    problems = []
    drop = entry.score - score
    if drop > tolerance + _EPSILON:
        places = _places(entry.score, score)
        problems.append(f"S fell by {drop:.{places}f}, from {entry.score:.{places}f} to "
                        f"{score:.{places}f} (baseline tolerance {tolerance:.2f})")
    if decision_rank(decision) > decision_rank(entry.decision):
        problems.append(f"decision got worse than the baseline: {entry.decision} -> {decision}")
    if problems and entry.judge and judge and entry.judge != judge:
        problems.append(f"the baseline was written with judge {entry.judge!r}, this run judged "
                        f"with {judge!r}")
    return problems


def test_of(key: str) -> str:
    """The node id of the test that made the judgement ``key`` (``#2``... suffix removed)."""
    head, _, suffix = key.rpartition("#")
    return head if head and suffix.isdigit() else key


@dataclass(frozen=True, slots=True)
class BaselineDiff:
    """How a run's judgements relate to the baseline."""

    new: tuple[str, ...]
    """Judged now, not in the baseline."""
    vanished: tuple[str, ...]
    """In the baseline, and gone: the case or test was removed, or a passing test no longer
    makes that judgement."""
    regressed: tuple[str, ...]
    not_run: tuple[str, ...]
    """In the baseline, not judged because their test did not run (deselected, skipped, another
    file) or failed before judging."""


def diff(baseline: Mapping[str, BaselineEntry], records: Iterable[JudgementRecord], *,
         outcomes: Mapping[str, str], files_ran: set[str], deselected: set[str]) -> BaselineDiff:
    """Compare a run with the baseline.

    Args:
        baseline: the stored entries.
        records: the run's judgements.
        outcomes: ``passed`` / ``failed`` / ``skipped`` per test node id that ran.
        files_ran: test files with at least one test that ran.
        deselected: node ids deselected in this run (``-k``, ``-m``, ``--lf``...).
    """
    judged = {r.key: r for r in records}
    vanished: list[str] = []
    not_run: list[str] = []
    for key in sorted(baseline):
        if key in judged:
            continue
        test = key if key in outcomes else test_of(key)
        outcome = outcomes.get(test)
        if outcome is not None:
            gone = outcome == "passed"
        else:
            gone = file_of(test) in files_ran and test not in deselected
        (vanished if gone else not_run).append(key)
    return BaselineDiff(
        new=tuple(sorted(k for k, r in judged.items()
                         if k not in baseline and r.score is not None)),
        vanished=tuple(vanished),
        regressed=tuple(sorted(k for k, r in judged.items() if r.regressed)),
        not_run=tuple(not_run),
    )


def judged_entries(records: Iterable[JudgementRecord]) -> dict[str, BaselineEntry]:
    """This run's entries; a judgement without a verdict (missing recording) has none."""
    return {record.key: BaselineEntry(score=round(record.score, SCORE_PLACES),
                                      decision=record.decision, judge=record.judge)
            for record in records if record.score is not None and record.decision is not None}


def merged_entries(current: Mapping[str, BaselineEntry], *, read: Mapping[str, BaselineEntry],
                   judged: Mapping[str, BaselineEntry], vanished: Iterable[str]
                   ) -> dict[str, BaselineEntry]:
    """The baseline after a run, merged into the file as it is now.

    ``current`` is the file read again just before writing (another run may have written it
    since), ``read`` what this run read when it started. This run's judged entries replace
    theirs; a vanished entry is dropped unless another run changed it meanwhile; every other
    entry, another run's new ones among them, is kept as it is now.
    """
    merged = dict(current)
    for key in vanished:
        if key in merged and merged[key] == read.get(key):
            del merged[key]
    merged.update(judged)
    return merged


def update_baseline(path: Path, read: Mapping[str, BaselineEntry],
                    records: Iterable[JudgementRecord], vanished: Iterable[str]) -> int:
    """Write this run's judgements into the baseline at ``path``: read again, merged
    (:func:`merged_entries`) and written atomically under an exclusive lock on its directory,
    so concurrent runs (two CI jobs, two terminals) keep each other's entries. Returns the
    number of entries written.

    Raises:
        BaselineError: the file cannot be read again or written.
    """
    target = real_path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise BaselineError(f"cannot write baseline {path}: {error}") from None
    with directory_lock(target.parent):
        entries = merged_entries(load_baseline(path), read=read,
                                 judged=judged_entries(records), vanished=vanished)
        write_baseline(path, entries)
    return len(entries)


def write_baseline(path: Path, entries: Mapping[str, BaselineEntry]) -> None:
    """Write ``entries`` to ``path`` atomically (stable JSON).

    Raises:
        BaselineError: the file cannot be written.
    """
    from gsar_otel.core.redact import redact_text, secret_values

    values = secret_values()
    # Keys are node ids, and a parametrized id can hold the secret it was given.
    data = {
        "format": BASELINE_FORMAT,
        "entries": {redact_text(key, values): {"score": round(entry.score, SCORE_PLACES),
                                               "decision": entry.decision,
                                               "judge": redact_text(entry.judge, values)}
                    for key, entry in entries.items()},
    }
    text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, text)
    except (OSError, UnicodeError) as error:
        raise BaselineError(f"cannot write baseline {path}: {error}") from None
