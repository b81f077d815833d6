"""`gsar judge --batch FILE.jsonl`: judge a file of answers, one JSON result per line.

Each input line is a JSON object with ``synthesis`` (the answer), ``evidence`` (what
``gsar judge --evidence`` accepts: a string of one item per line or a JSON list, or the list
itself) and an optional ``id``. Each output line holds the id, the input line number, S, the
decision, the claim counts, whether the verdict is degraded, the abstain reason and every claim
with its bucket: a table that DeepEval or Ragas users can keep next to their own.

A bad line does not stop the batch: it becomes an error row (``error`` set, named
``FILE:LINE`` on stderr too) and the exit code is 2 at the end. Otherwise 0 when every answer
proceeds, 1 when some do not. Results come out in input order; at most ``--concurrency``
judgements run at once and at most four times that many results wait for an earlier one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, BinaryIO, TextIO

from gsar_otel.cli.common import EXIT_BAD_INPUT, EXIT_NOT_PROCEED, EXIT_OK, BadInput
from gsar_otel.cli.progress import Progress

if TYPE_CHECKING:
    from gsar_otel.core.evaluator import GSAREvaluator
    from gsar_otel.core.evidence import EvidenceSet
    from gsar_otel.core.result import GSARResult

@dataclass(frozen=True, slots=True)
class Row:
    """One input line: judged when ``error`` is None."""

    line: int
    id: str
    synthesis: str = ""
    evidence: EvidenceSet | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Tally:
    """What the batch did, for the exit code and the closing line."""

    judged: int
    proceed: int
    errors: int

    def exit_code(self) -> int:
        """2 with any error row, else 1 when some answer does not proceed, else 0."""
        if self.errors:
            return EXIT_BAD_INPUT
        return EXIT_OK if self.proceed == self.judged else EXIT_NOT_PROCEED


# --- reading ------------------------------------------------------------------------------------


def _lines(handle: BinaryIO, limit: int) -> Iterator[tuple[int, bytes | None]]:
    """``(number, bytes)`` per line; ``None`` for a line longer than ``limit`` (skipped whole)."""
    number = 0
    while True:
        data = handle.readline(limit + 1)
        if not data:
            return
        number += 1
        if len(data) > limit and not data.endswith(b"\n"):
            while data and not data.endswith(b"\n"):
                data = handle.readline(1 << 16)
            yield number, None
            continue
        yield number, data


def parse_row(data: bytes | None, number: int, where: str, limit: int) -> Row | None:
    """One input line as a Row (an error row when it cannot be judged); None for a blank line."""
    from gsar_otel.cli.inputs import has_surrogates, parse_json
    from gsar_otel.cli.judge import parse_evidence
    from gsar_otel.core.evidence import coerce_evidence

    place = f"{where}:{number}"
    fallback = str(number)

    def bad(message: str, row_id: str = fallback) -> Row:
        return Row(line=number, id=row_id, error=f"{place}: {message}")

    if data is None:
        return bad(f"line longer than the input limit of {limit:,} bytes (--max-input-bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return bad(f"not UTF-8 text (byte {error.start})")
    if not text.strip():
        return None
    try:
        item = parse_json(text, place)
    except BadInput as error:
        return bad(str(error).removeprefix(f"{place}: "))
    except json.JSONDecodeError as error:
        return bad(f"not JSON ({error.msg}, column {error.colno})")
    if not isinstance(item, dict):
        return bad(f"expected a JSON object, got {type(item).__name__}")
    raw_id = item.get("id")
    if raw_id is not None and (isinstance(raw_id, bool) or not isinstance(raw_id, str | int)):
        return bad(f"id must be a string or an integer, got {type(raw_id).__name__}")
    row_id = fallback if raw_id is None else str(raw_id)
    synthesis = item.get("synthesis")
    if not isinstance(synthesis, str) or not synthesis.strip():
        return bad("synthesis must be a non-empty string", row_id)
    evidence = item.get("evidence")
    if isinstance(evidence, str):
        try:
            evidence = parse_evidence(evidence) if evidence.strip() else None
        except BadInput as error:
            return bad(str(error), row_id)
    if not evidence:
        return bad("evidence is missing or empty", row_id)
    if has_surrogates(json.dumps([synthesis, evidence], ensure_ascii=False)):
        return bad("a lone surrogate escape (such as \\ud800) is not UTF-8 text", row_id)
    try:
        coerced = coerce_evidence(evidence)
    except (TypeError, ValueError) as error:
        return bad(f"evidence: {error}", row_id)
    return Row(line=number, id=row_id, synthesis=synthesis, evidence=coerced)


def count_lines(path: str) -> int | None:
    """Non-blank lines of ``path`` for the progress bar; None for stdin or an unreadable file."""
    if path == "-":
        return None
    count = 0
    try:
        with open(path, "rb") as handle:
            for data in handle:
                count += bool(data.strip())
    except OSError:
        return None
    return count


# --- writing ------------------------------------------------------------------------------------


def result_row(row: Row, result: GSARResult) -> dict[str, Any]:
    """The output line of a judged answer."""
    from gsar_otel.core.scoring import unverified_share

    output = result.final_judge_output
    return {
        "id": row.id, "line": row.line, "S": round(result.final_score, 6),
        "decision": str(result.final_decision), "counts": result.final_partition.counts(),
        "degraded": result.degraded,
        "abstain_reason": output.abstain_reason if output.abstained else None,
        "unverified_share": round(unverified_share(result.final_partition), 6),
        "judge": result.judge_name, "error": None,
        "claims": [{"bucket": bucket, "type": str(claim.type), "refs": list(claim.evidence_refs),
                    "text": claim.text, "verifiable": claim.verifiable}
                   for bucket, claims in result.final_partition.buckets() for claim in claims],
    }


def error_row(row: Row) -> dict[str, Any]:
    """The output line of an answer that was not judged."""
    return {"id": row.id, "line": row.line, "S": None, "decision": None, "counts": None,
            "degraded": None, "abstain_reason": None, "unverified_share": None, "judge": None,
            "error": row.error,
            "claims": []}


# --- judging ------------------------------------------------------------------------------------


async def judge_rows(rows: Iterator[Row], evaluator: GSAREvaluator, out: IO[str], *,
                     concurrency: int, progress: Progress | None = None,
                     errors_to: TextIO | None = None) -> Tally:
    """Judge ``rows`` (at most ``concurrency`` at once) and write one line each, in input order."""
    gate = asyncio.Semaphore(concurrency)
    window: deque[asyncio.Task[dict[str, Any]]] = deque()
    judged = proceed = errors = done = 0

    async def one(row: Row) -> dict[str, Any]:
        if row.error is not None or row.evidence is None:
            return error_row(row)
        async with gate:
            try:
                result = await evaluator.evaluate(report_synthesis=row.synthesis,
                                                  evidence_corpus=row.evidence)
            except Exception as error:  # a judge bug costs one row, not the batch
                return {**error_row(row), "error": f"judging failed: "
                                                   f"{type(error).__name__}: {error}",
                        "judge_failed": True}
        return result_row(row, result)

    def emit(entry: dict[str, Any]) -> None:
        nonlocal judged, proceed, errors, done
        done += 1
        if entry.pop("judge_failed", False):
            judged += 1
            if errors_to is not None:
                print(f"gsar judge: {where_of(entry)}: {entry['error']}", file=errors_to)
        elif entry["error"] is not None:
            errors += 1
            if errors_to is not None:
                print(f"gsar judge: {entry['error']}", file=errors_to)
        else:
            judged += 1
            proceed += entry["decision"] == "proceed"
        out.write(json.dumps(entry, ensure_ascii=False) + "\n")
        out.flush()
        if progress is not None:
            progress.update(done, errors)

    for row in rows:
        window.append(asyncio.create_task(one(row)))
        while window and (window[0].done() or len(window) >= 4 * concurrency):
            emit(await window.popleft())
    while window:
        emit(await window.popleft())
    return Tally(judged=judged, proceed=proceed, errors=errors)


def where_of(entry: dict[str, Any]) -> str:
    """``id 'x' (line 3)`` for a message about an output row."""
    return f"id {entry['id']!r} (line {entry['line']})"


def run(args: argparse.Namespace) -> int:
    """Judge every line of ``args.batch``; see the module docstring for the exit code."""
    from gsar_otel.cli import inputs
    from gsar_otel.cli.judge import load_cli_settings, make_evaluator, parse_thresholds

    if args.synthesis is not None or args.evidence is not None:
        raise BadInput("--batch judges the answers of its file: give --batch, or --synthesis "
                       "and --evidence, not both")
    if args.concurrency < 1:
        raise BadInput(f"--concurrency must be an integer >= 1, got {args.concurrency}")
    limit = args.max_input_bytes or inputs.DEFAULT_MAX_INPUT_BYTES
    settings = load_cli_settings()
    thresholds = parse_thresholds(args.proceed, args.regenerate, settings.thresholds_model())
    evaluator = make_evaluator(args, settings, thresholds)
    path: str = args.batch
    where = "stdin" if path == "-" else path
    handle = sys.stdin.buffer if path == "-" else inputs.open_regular(
        path, "--batch", hint="give a JSON Lines file, or - to read stdin")
    try:
        out: IO[str] = (sys.stdout if args.output in (None, "-")
                        else open(args.output, "w", encoding="utf-8"))  # noqa: SIM115
    except OSError as error:
        handle.close()
        raise BadInput(f"--output: cannot write {args.output!r}: "
                       f"{error.strerror or error}") from None
    progress = Progress(sys.stderr, count_lines(path))
    rows = (row for number, data in _lines(handle, limit)
            if (row := parse_row(data, number, where, limit)) is not None)
    try:
        tally = asyncio.run(judge_rows(rows, evaluator, out, concurrency=args.concurrency,
                                       progress=progress, errors_to=sys.stderr))
    finally:
        progress.finish()
        if out is not sys.stdout:
            out.close()
        if handle is not sys.stdin.buffer:
            handle.close()
    if tally.judged + tally.errors == 0:
        raise BadInput(f"--batch: {where} holds no answers (one JSON object per line)")
    print(f"gsar judge --batch: {tally.judged} judged, {tally.proceed} proceed, "
          f"{tally.judged - tally.proceed} do not, {tally.errors} bad line(s)", file=sys.stderr)
    return tally.exit_code()
