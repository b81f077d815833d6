"""``gsar cases import``: stored traces into case lines, through the sidecar's own intake
decoding, assembly and extraction, so a run reads as the sidecar would have read it live.

Two formats, told apart by the first byte:

- OTLP JSON lines, the Collector's file exporter default: one ``ExportTraceServiceRequest``
  (``{"resourceSpans": [...]}``) or logs request (``{"resourceLogs": [...]}``) per line;
- OTLP protobuf: the Collector's file exporter with ``format: proto`` (each request preceded by
  its length, 4 bytes big-endian), or one ``ExportTraceServiceRequest`` as sent over OTLP/HTTP.

Requests are read in order; a run is released once its spans settled (its run span arrived and
no span above it is missing) and :data:`SETTLE_REQUESTS` further requests were read, so the
spans a batch exporter sends a little later still join it; the rest at the end of the file.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final

from gsar_otel.cli.common import BadInput

if TYPE_CHECKING:
    from gsar_otel.core.evaluator import GSAREvaluator
    from gsar_otel.measure.case_writer import CaseWriter
    from gsar_otel.sidecar.assembly.assembler import ReadyRun, TraceAssembler

SETTLE_REQUESTS: Final = 16
"""Requests read after a run settled before it is released (a virtual settle window)."""
MAX_REQUEST_BYTES: Final = 64 * 2**20


@dataclass
class ImportCounts:
    requests: int = 0
    runs: int = 0
    written: int = 0
    no_answer: int = 0
    no_evidence: int = 0
    rejected_spans: int = 0
    evicted: int = 0
    already_there: int = 0
    by_decision: dict[str, int] = field(default_factory=dict)


def requests(path: Path) -> Iterator[tuple[bytes, bool]]:
    """Each request of the file as ``(body, json_encoded)``.

    Raises:
        BadInput: the file cannot be read or is in neither format.
    """
    try:
        handle = path.open("rb")
    except OSError as error:
        raise BadInput(f"{path}: cannot read: {error.strerror or error}") from None
    with handle:
        head = handle.read(1)
        while head in (b" ", b"\n", b"\r", b"\t"):
            head = handle.read(1)
        handle.seek(0)
        if head in (b"{", b"\xef"):  # JSON (maybe after a byte order mark)
            for number, line in enumerate(handle, start=1):
                if len(line) > MAX_REQUEST_BYTES:
                    raise BadInput(f"{path}:{number}: a request larger than 64 MiB")
                line = line.strip().removeprefix(b"\xef\xbb\xbf")
                if line:
                    yield line, True
            return
        data = handle.read(MAX_REQUEST_BYTES * 16 + 1)
    if not data:
        return
    if len(data) > MAX_REQUEST_BYTES * 16:
        raise BadInput(f"{path}: a protobuf file larger than 1 GiB")
    framed = _frames(data)
    yield from ((frame, False) for frame in (framed if framed is not None else [data]))


def _frames(data: bytes) -> list[bytes] | None:
    """``data`` split into 4-byte-length-prefixed frames, or None when it is not so framed."""
    frames, offset = [], 0
    while offset < len(data):
        if offset + 4 > len(data):
            return None
        (size,) = struct.unpack(">I", data[offset:offset + 4])
        if size == 0 or offset + 4 + size > len(data):
            return None
        frames.append(data[offset + 4:offset + 4 + size])
        offset += 4 + size
    return frames


class Importer:
    """Feeds requests to an assembler on a clock counting requests, judges released runs."""

    def __init__(self, evaluator: GSAREvaluator, writer: CaseWriter) -> None:
        from gsar_otel.sidecar.assembly.assembler import AssemblyLimits, TraceAssembler

        self.tick = 0.0
        self.assembler: TraceAssembler = TraceAssembler(
            AssemblyLimits(decision_wait_s=SETTLE_REQUESTS, max_age_s=1e12), clock=self.now)
        self.evaluator = evaluator
        self.writer = writer
        self.counts = ImportCounts()
        self.known = known_ids(writer.directory)
        """Case ids the directory already holds: a run imported again is not written twice (a
        case file with one id twice is a collection error)."""

    def now(self) -> float:
        return self.tick

    def feed(self, body: bytes, json_encoded: bool, where: str) -> None:
        from gsar_otel.sidecar.intake.spans import MalformedRequest, decode_logs, decode_traces

        logs = json_encoded and body.lstrip().startswith(b'{"resourceLogs"')
        try:
            decoded = (decode_logs if logs else decode_traces)(body, json_encoded=json_encoded)
        except MalformedRequest as error:
            raise BadInput(f"{where}: not an OTLP {'JSON' if json_encoded else 'protobuf'} "
                           f"export request: {error}") from None
        self.counts.requests += 1
        self.counts.rejected_spans += decoded.rejected
        evicted = (self.assembler.add_logs(decoded.logs) if logs
                   else self.assembler.add_spans(decoded.spans))
        self.counts.evicted += len(evicted)
        self.tick += 1
        for run in self.assembler.due():
            self.judge(run)

    def finish(self) -> None:
        self.tick += SETTLE_REQUESTS + 1
        for run in [*self.assembler.due(), *self.assembler.drain()]:
            self.judge(run)

    def judge(self, run: ReadyRun) -> None:
        from gsar_otel.measure.captured import case_line, utc_stamp
        from gsar_otel.sidecar.conventions.extract import extract_run
        from gsar_otel.sidecar.output.verdict_spans import agent_name

        self.counts.runs += 1
        extracted = extract_run(run)
        if extracted.answer is None:
            self.counts.no_answer += 1
            return
        evidence = extracted.evidence_set()
        if not evidence:
            self.counts.no_evidence += 1
            return
        result = self.evaluator.evaluate_sync(report_synthesis=extracted.answer,
                                              evidence_corpus=evidence)
        decision = str(result.final_decision)
        self.counts.by_decision[decision] = self.counts.by_decision.get(decision, 0) + 1
        span = run.run_span
        at = utc_stamp(span.end_ns / 1e9) if span is not None and span.end_ns else None
        run_id = span.span_id if span is not None else extracted.answer_span_id or "0" * 16
        line = case_line(result, trace_id=run.trace_id, run_id=run_id, origin="import",
                         agent=agent_name(run), at=at)
        if line["id"] in self.known:
            self.counts.already_there += 1
            return
        self.known.add(line["id"])
        if self.writer.write(line) is not None:
            self.counts.written += 1


def known_ids(directory: Path) -> set[str]:
    """The ids of the cases in ``directory``'s case files.

    Raises:
        BadInput: a case file there that cannot be read.
    """
    from gsar_otel.measure.case_files import CaseFileError, read_all

    try:
        return {row.data["id"] for row in read_all([directory])}
    except CaseFileError as error:
        raise BadInput(str(error)) from None


def import_file(path: Path, evaluator: GSAREvaluator, writer: CaseWriter) -> ImportCounts:
    """Every run of the stored traces at ``path``, judged and written by ``writer``.

    Raises:
        BadInput: the file cannot be read, or a request in it cannot be decoded.
    """
    importer = Importer(evaluator, writer)
    for number, (body, json_encoded) in enumerate(requests(path), start=1):
        importer.feed(body, json_encoded, f"{path}:{number}" if json_encoded
                      else f"{path} (request {number})")
    importer.finish()
    return importer.counts


def summary(counts: ImportCounts) -> str:
    decisions = ", ".join(f"{n} {d}" for d, n in sorted(counts.by_decision.items())) or "none"
    return (f"{counts.requests} request(s), {counts.runs} run(s): {counts.written} written "
            f"({decisions}); not judged: {counts.no_answer} without an answer, "
            f"{counts.no_evidence} without evidence, {counts.already_there} already in the "
            f"directory; {counts.rejected_spans} span(s) rejected, {counts.evicted} trace(s) "
            f"evicted")


def as_json(counts: ImportCounts) -> str:
    return json.dumps(counts.__dict__, sort_keys=True)
