"""What the plugin tells people: the terminal summary section; writing the HTML report
(:mod:`pytest_gsar.report_html`) and the baseline when the session ends."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import pytest

from pytest_gsar.records import DECISION_ORDER, JudgementRecord
from pytest_gsar.state import GSARSession

if TYPE_CHECKING:
    from pytest_gsar.baseline import BaselineDiff
    from pytest_gsar.report_meta import RunInfo

LIST_LIMIT: Final = 10
"""New and vanished keys listed without ``-v``; the rest are counted."""


# --- redaction -----------------------------------------------------------------------------------


class Redactor:
    """Masks text before it reaches a report, a baseline or a failure message: the built-in
    secret masking (:mod:`gsar_otel.core.redact`, with the secret environment values read once),
    then the ``gsar_redact`` plugins. A failing plugin hides the text (fails closed)."""

    def __init__(self) -> None:
        from gsar_otel.core.redact import secret_values

        self.values = secret_values()

    def __call__(self, text: str, kind: str) -> str:
        from gsar_otel.core.redact import REDACTED
        from gsar_otel.plugins import mask

        # A lone surrogate cannot be written as UTF-8: mask() replaces it.
        masked = mask(text, kind, self.values)
        return REDACTED if masked is None else masked


# --- terminal ------------------------------------------------------------------------------------


def _counts(record: JudgementRecord) -> str:
    c = record.counts
    return (f"G{c.get('grounded', 0)} U{c.get('ungrounded', 0)} X{c.get('contradicted', 0)} "
            f"K{c.get('complementary', 0)}")


def _row(record: JudgementRecord, width: int) -> tuple[str, str, dict[str, bool]]:
    if record.missing is not None:
        return "MISSING", f"{record.key:<{width}}  no recorded verdict", {"yellow": True}
    status, markup = ("FAILED", {"red": True}) if not record.passed else ("passed", {"green": True})
    text = (f"{record.key:<{width}}  S {record.score:.2f}  {record.decision:<10} "
            f"{_counts(record)}")
    if record.baseline_score is not None and record.baseline_delta is not None:
        text += f"  baseline {record.baseline_score:.2f} ({record.baseline_delta:+.2f})"
    return status, text, markup


def _listing(label: str, keys: Sequence[str], verbose: bool) -> list[str]:
    shown = keys if verbose else keys[:LIST_LIMIT]
    lines = [f"  {label}: {key}" for key in shown]
    if len(keys) > len(shown):
        lines.append(f"  ... and {len(keys) - len(shown)} more {label} (-v lists them)")
    return lines


def summary_hint(records: Sequence[JudgementRecord], diff: BaselineDiff | None, *,
                 update: bool, has_baseline: bool) -> str | None:
    """The one thing to do next, or None when all is well."""
    if any(r.missing is not None for r in records):
        # new_episodes records into existing cassettes and new ones alike.
        needs_new_episodes = any("new_episodes" in (r.missing or "") for r in records)
        mode = "new_episodes" if needs_new_episodes else "once"
        return f"run with --gsar-record-mode={mode} to record the missing verdicts"
    if diff is not None and diff.regressed and not update:
        return ("grounding regressed: fix the agent's answers, or run with "
                "--gsar-update-baseline to accept the new scores")
    if diff is not None and (diff.new or diff.vanished) and not update:
        return (f"run with --gsar-update-baseline to add {len(diff.new)} new and drop "
                f"{len(diff.vanished)} vanished baseline entries")
    if any(not r.passed for r in records):
        if not has_baseline:
            return ("each failure above lists the claims that are not grounded; "
                    "-v shows every judgement")
        return "each failure above lists the claims that are not grounded"
    return None


def shown_path(path: Path, base: Path) -> str:
    """``path`` relative to ``base`` when it lies below it, else as is."""
    try:
        return str(path.relative_to(base))
    except ValueError:
        return str(path)


def write_summary(terminal: Any, records: Sequence[JudgementRecord], *, verbose: bool,
                  diff: BaselineDiff | None, baseline: Path | None, update: bool,
                  baseline_written: int | None, report: Path | None, errors: Sequence[str],
                  base: Path) -> None:
    """Write the gsar section of the terminal summary, when it has something to say.

    Paths are shown relative to ``base`` (the invocation directory) where possible.
    """
    failed = [r for r in records if not r.passed]
    baseline_news = diff is not None and bool(diff.new or diff.vanished or diff.regressed)
    if not (failed or baseline_news or baseline_written is not None or report or errors
            or (verbose and records) or any(r.unverified for r in records)):
        return
    terminal.write_sep("=", "gsar grounding")
    shown = records if verbose else failed
    width = min(max((len(r.key) for r in shown), default=0), 60)
    for record in shown:
        status, text, markup = _row(record, width)
        terminal.write(f"{status:<8}", **markup)
        terminal.line(f" {text}")
    judged = [r for r in records if r.score is not None]
    if judged:
        decisions = Counter(r.decision for r in judged)
        spread = ", ".join(f"{decisions[d]} {d}" for d in DECISION_ORDER if decisions[d])
        mean = sum(r.score for r in judged if r.score is not None) / len(judged)
        tail = []
        if failed:
            tail.append(f"{len(failed)} failed")
        missing = sum(r.missing is not None for r in records)
        if missing:
            tail.append(f"{missing} missing verdict{'s' if missing != 1 else ''}")
        unverified = sum(r.unverified and r.passed for r in records)
        if unverified:
            tail.append(f"{unverified} passed unverified (too few claims checkable; "
                        f"--gsar-strict fails them)")
        terminal.line(f"{len(judged)} judged: {spread}; mean S {mean:.2f}"
                      + (f"; {', '.join(tail)}" if tail else ""))
    elif records:
        terminal.line(f"{len(records)} judgements, none with a verdict")
    if diff is not None and baseline is not None:
        parts = [f"{len(diff.regressed)} regressed", f"{len(diff.new)} new",
                 f"{len(diff.vanished)} vanished"]
        if diff.not_run:
            parts.append(f"{len(diff.not_run)} not run")
        terminal.line(f"baseline {shown_path(baseline, base)}: {', '.join(parts)}")
        for line in (_listing("new", diff.new, verbose) + _listing("vanished", diff.vanished,
                                                                    verbose)):
            terminal.line(line)
        if baseline_written is not None:
            terminal.line(f"baseline written: {baseline_written} entries")
    for error in errors:
        terminal.line(f"error: {error}", red=True)
    if report is not None:
        terminal.line(f"HTML report: {shown_path(report, base)}")
    hint = summary_hint(records, diff, update=update, has_baseline=baseline is not None)
    if hint:
        terminal.line(f"hint: {hint}", bold=True)


# --- HTML ----------------------------------------------------------------------------------------


def write_html(path: Path, records: Iterable[JudgementRecord], *,
               diff: BaselineDiff | None = None, info: RunInfo | None = None) -> None:
    """Write the HTML report to ``path``, every text masked by the :class:`Redactor`."""
    from pytest_gsar.report_html import render_html

    page = render_html(list(records), mask=Redactor(), diff=diff, info=info)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")


def outcome_of(report: pytest.TestReport) -> str | None:
    """``passed`` / ``failed`` / ``skipped`` for the phase that decides a test's outcome."""
    if report.when == "call" or (report.when == "setup" and not report.passed):
        return report.outcome
    return None


def finish_session(state: GSARSession) -> None:
    """On the controller, after the last test: compare with the baseline, write the baseline
    (``--gsar-update-baseline``) and the HTML report. Failures to write become summary errors."""
    options = state.options
    if options.baseline is not None:
        from pytest_gsar.baseline import BaselineError, diff, update_baseline

        baseline = state.baseline()
        state.diff = diff(baseline, state.records, outcomes=state.outcomes,
                          files_ran=state.files_ran, deselected=state.deselected)
        if options.update_baseline:
            try:  # merged under a lock into the file as it is now: concurrent runs keep theirs
                state.baseline_written = update_baseline(options.baseline, baseline,
                                                         state.records, state.diff.vanished)
            except BaselineError as error:
                state.errors.append(str(error))
    if options.report is not None:
        try:
            from pytest_gsar.report_meta import collect_run_info

            write_html(options.report, state.records, diff=state.diff,
                       info=collect_run_info(state, state.records))
            state.report_written = options.report
        except OSError as error:
            state.errors.append(f"cannot write the HTML report {options.report}: {error}")
