"""What the plugin tells people: the terminal summary section and the HTML report."""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Final

import pytest

from pytest_gsar.baseline import (
    BaselineDiff,
    BaselineError,
    diff,
    updated_entries,
    write_baseline,
)
from pytest_gsar.records import JudgementRecord
from pytest_gsar.state import GSARSession

DECISION_ORDER: Final = ("proceed", "regenerate", "replan", "abstain")
BUCKET_ORDER: Final = ("contradicted", "ungrounded", "complementary", "grounded")
"""Worst first: where claims overlap in the answer, the worse bucket is the one shown."""
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
        from gsar_otel.core.redact import REDACTED, redact_text, replace_lone_surrogates
        from gsar_otel.plugins import has_redactors, redact

        # A lone surrogate cannot be written as UTF-8: the report would not be written at all.
        masked = redact_text(replace_lone_surrogates(text)[0], self.values)
        if not has_redactors():
            return masked
        hooked = redact(masked, kind)
        return REDACTED if hooked is None else hooked


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
            or (verbose and records)):
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

_CSS: Final = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;color:#1d232b;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.05em;margin:0;font-family:ui-monospace,monospace}
.summary td,.summary th{padding:.2em .8em;text-align:left}
section{border:1px solid #d6dbe1;border-radius:6px;margin:1em 0;padding:.6em 1em}
section.failed{border-left:6px solid #c62828}section.passed{border-left:6px solid #2e7d32}
section.missing{border-left:6px solid #f9a825}
summary{cursor:pointer}.meta{color:#56606b;margin:.3em 0}
.answer{white-space:pre-wrap;background:#f7f8fa;padding:.6em;border-radius:4px}
mark{padding:0 .1em;border-radius:3px}
.b-grounded{background:#c8e6c9}.b-complementary{background:#bbdefb}
.b-ungrounded{background:#ffe082}.b-contradicted{background:#ef9a9a}
table.claims{border-collapse:collapse;width:100%;margin:.6em 0}
table.claims td,table.claims th{border-top:1px solid #e3e6ea;padding:.25em .5em;text-align:left;
vertical-align:top}
ol.evidence{font-family:ui-monospace,monospace;font-size:.92em}
.id{font-weight:600}.type{color:#56606b}.problem{color:#b71c1c}
.legend mark{margin-right:.6em}
"""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _slug(value: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", value).strip("-") or "x"


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    from gsar_otel.core.text import split_sentences

    spans, position = [], 0
    for sentence in split_sentences(text):
        start = text.find(sentence, position)
        if start < 0:
            continue
        spans.append((start, start + len(sentence)))
        position = start + len(sentence)
    return spans


def claim_spans(text: str, claims: Sequence[dict[str, Any]]) -> list[tuple[int, int, int]]:
    """Where each claim sits in the answer: ``(start, end, claim index)``, non-overlapping.

    A claim found word for word marks its own words; otherwise it marks the sentence that shares
    most of its content words. Worse buckets are placed first, so they win overlaps.
    """
    from gsar_otel.core.text import content_stems

    taken: list[tuple[int, int, int]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e, _ in taken)

    order = sorted(range(len(claims)), key=lambda i: BUCKET_ORDER.index(claims[i]["bucket"])
                   if claims[i]["bucket"] in BUCKET_ORDER else len(BUCKET_ORDER))
    sentences = _sentence_spans(text)
    for index in order:
        claim_text = str(claims[index]["text"]).strip().rstrip(".!?;:")
        tokens = claim_text.split()
        if not tokens:
            continue
        pattern = re.compile(r"\s+".join(re.escape(t) for t in tokens), re.IGNORECASE)
        match = next((m for m in pattern.finditer(text) if free(m.start(), m.end())), None)
        if match is not None:
            taken.append((match.start(), match.end(), index))
            continue
        stems = content_stems(claim_text)
        if not stems:
            continue
        best, best_overlap = None, 0.5
        for start, end in sentences:
            overlap = len(stems & content_stems(text[start:end])) / len(stems)
            if overlap >= best_overlap and free(start, end):
                best, best_overlap = (start, end), overlap
        if best is not None:
            taken.append((best[0], best[1], index))
    return sorted(taken)


def _answer_html(text: str, claims: Sequence[dict[str, Any]]) -> str:
    out, position = [], 0
    for start, end, index in claim_spans(text, claims):
        claim = claims[index]
        out.append(_e(text[position:start]))
        title = f"{claim['bucket']} · {claim['type']} · refs {', '.join(claim['refs']) or 'none'}"
        out.append(f'<mark class="b-{_e(claim["bucket"])}" title="{_e(title)}">'
                   f"{_e(text[start:end])}</mark>")
        position = end
    out.append(_e(text[position:]))
    return "".join(out)


def _result_html(number: int, record: JudgementRecord) -> str:
    status = "missing" if record.missing is not None else ("passed" if record.passed
                                                            else "failed")
    parts = [f'<section class="{status}" id="r{number}"><details'
             f'{" open" if status != "passed" else ""}><summary><h2 style="display:inline">'
             f"{_e(record.key)}</h2> — {_e(status)}"]
    if record.score is not None:
        parts.append(f" · S {record.score:.2f} · {_e(record.decision)}")
    parts.append("</summary>")
    meta = [f"judge {_e(record.judge)}"] if record.judge else []
    if record.score is not None:
        meta.append(_e(_counts(record)))
    if record.baseline_score is not None and record.baseline_delta is not None:
        meta.append(f"baseline S {record.baseline_score:.2f} ({record.baseline_delta:+.2f}), "
                    f"{_e(record.baseline_decision)}")
    parts.append(f'<p class="meta">{" · ".join(meta)}</p>')
    for problem in record.problems:
        parts.append(f'<p class="problem">{_e(problem)}</p>')
    details = record.details
    if details:
        claims: list[dict[str, Any]] = details.get("claims", [])
        parts.append(f'<div class="answer">{_answer_html(details.get("synthesis", ""), claims)}'
                     f"</div>")
        if claims:
            parts.append('<table class="claims"><tr><th>bucket</th><th>claim</th><th>type</th>'
                         "<th>weight</th><th>evidence</th><th>adjusted</th></tr>")
            for claim in claims:
                refs = ", ".join(f'<a href="#r{number}-{_slug(ref)}">{_e(ref)}</a>'
                                 for ref in claim["refs"]) or "—"
                parts.append(
                    f'<tr><td><mark class="b-{_e(claim["bucket"])}">{_e(claim["bucket"])}</mark>'
                    f"</td><td>{_e(claim['text'])}</td><td>{_e(claim['type'])}</td>"
                    f"<td>{_e(claim.get('weight', ''))}</td><td>{refs}</td>"
                    f"<td>{_e(', '.join(claim.get('adjustments', [])))}</td></tr>")
            parts.append("</table>")
        if details.get("explanation"):
            parts.append(f'<p class="meta">judge: {_e(details["explanation"])}</p>')
        parts.append('<ol class="evidence">')
        for item in details.get("evidence", []):
            parts.append(f'<li id="r{number}-{_slug(item["id"])}"><span class="id">'
                         f'{_e(item["id"])}</span> <span class="type">[{_e(item["type"])}]</span> '
                         f"{_e(item['content'])}</li>")
        parts.append("</ol>")
    parts.append("</details></section>")
    return "".join(parts)


def render_html(records: Sequence[JudgementRecord], *, diff: BaselineDiff | None = None,
                title: str = "gsar grounding report") -> str:
    """A self-contained HTML page (inline CSS, no scripts) showing every judgement."""
    judged = [r for r in records if r.score is not None]
    decisions = Counter(r.decision for r in judged)
    rows = [f"<tr><th>judgements</th><td>{len(records)}</td></tr>",
            f"<tr><th>failed</th><td>{sum(not r.passed for r in records)}</td></tr>"]
    rows += [f"<tr><th>{_e(d)}</th><td>{decisions[d]}</td></tr>" for d in DECISION_ORDER
             if decisions[d]]
    if judged:
        mean = sum(r.score for r in judged if r.score is not None) / len(judged)
        rows.append(f"<tr><th>mean S</th><td>{mean:.3f}</td></tr>")
    if diff is not None:
        rows.append(f"<tr><th>baseline</th><td>{len(diff.regressed)} regressed, "
                    f"{len(diff.new)} new, {len(diff.vanished)} vanished</td></tr>")
    legend = "".join(f'<mark class="b-{b}">{b}</mark>' for b in reversed(BUCKET_ORDER))
    ordered = sorted(records, key=lambda r: (r.passed, r.key))
    body = "".join(_result_html(number, record) for number, record in enumerate(ordered, 1))
    vanished = ""
    if diff is not None and diff.vanished:
        vanished = ("<h2>vanished from the baseline</h2><ul>"
                    + "".join(f"<li>{_e(key)}</li>" for key in diff.vanished) + "</ul>")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>"
            f"<h1>{_e(title)}</h1><table class=\"summary\">{''.join(rows)}</table>"
            f'<p class="legend">{legend}</p>{body}{vanished}</body></html>\n')


def write_html(path: Path, records: Iterable[JudgementRecord], *,
               diff: BaselineDiff | None = None) -> None:
    """Write the HTML report to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(list(records), diff=diff), encoding="utf-8")


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
        baseline = state.baseline()
        state.diff = diff(baseline, state.records, outcomes=state.outcomes,
                          files_ran=state.files_ran, deselected=state.deselected)
        if options.update_baseline:
            entries = updated_entries(baseline, state.records, state.diff.vanished)
            try:
                write_baseline(options.baseline, entries)
                state.baseline_written = len(entries)
            except BaselineError as error:
                state.errors.append(str(error))
    if options.report is not None:
        try:
            write_html(options.report, state.records, diff=state.diff)
            state.report_written = options.report
        except OSError as error:
            state.errors.append(f"cannot write the HTML report {options.report}: {error}")
