"""``gsar cases``: stored traces imported through the sidecar's assembly and extraction into the
same case lines the live sidecar captures; listing, filtering, deduplicating, setting
expectations and promoting into a suite that pytest runs."""

from __future__ import annotations

import base64
import json
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from gsar_otel.cli import main
from gsar_otel.judges.staged.judge import StagedJudge
from tests.sidecar.support import (
    CPU_ROW,
    GROUNDED,
    OVERREACHING,
    agent_tracer,
    run_genai_agent,
    start_sidecar,
)

SECRET = "password=" + "s3cr3t" * 4


class FileExporter(SpanExporter):
    """What the Collector's file exporter writes for each export: an OTLP JSON line (hex ids)
    and a length-prefixed protobuf request."""

    def __init__(self, json_path: Path, proto_path: Path) -> None:
        self.json_path, self.proto_path = json_path, proto_path

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        request = encode_spans(spans)
        body = request.SerializeToString()
        with self.proto_path.open("ab") as handle:
            handle.write(struct.pack(">I", len(body)) + body)
        data = MessageToDict(request)
        for resource in data["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    for key in ("traceId", "spanId", "parentSpanId"):
                        if key in span:
                            span[key] = base64.b64decode(span[key]).hex()
        with self.json_path.open("a") as handle:
            handle.write(json.dumps(data) + "\n")
        return SpanExportResult.SUCCESS


def lines_in(directory: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for path in sorted(directory.glob("gsar_*.jsonl"))
            for line in path.read_text().splitlines()]


@pytest.fixture
def stored(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Three agent runs sent to a live sidecar (capturing) and stored as the Collector would."""
    live = tmp_path / "live"
    running = start_sidecar(judge=StagedJudge(), capture_cases=str(live))
    json_path, proto_path = tmp_path / "traces.jsonl", tmp_path / "traces.pb"
    try:
        tracer, provider = agent_tracer(OTLPSpanExporter(endpoint=f"{running.http}/v1/traces"),
                                        FileExporter(json_path, proto_path))
        run_genai_agent(tracer, GROUNDED)
        run_genai_agent(tracer, OVERREACHING, tool_result=f"{CPU_ROW} {SECRET}")
        run_genai_agent(tracer, GROUNDED)  # the same answer and evidence again
        provider.shutdown()
        running.wait_for(lambda: running.sidecar.stats.get("runs_judged") == 3, "three runs")
    finally:
        running.stop()
    return live, json_path, proto_path


def comparable(line: dict[str, Any]) -> tuple[Any, ...]:
    recorded = line["recorded"]
    return (line["trace_id"], line["run_id"], line["synthesis"], line["evidence"],
            line["sources"], recorded["decision"], recorded["score"], recorded["judge"],
            recorded["agent"])


@pytest.mark.parametrize("kind", ["json", "proto"])
def test_import_writes_what_the_live_sidecar_captured(
        stored: tuple[Path, Path, Path], tmp_path: Path, kind: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    live, json_path, proto_path = stored
    into = tmp_path / f"imported-{kind}"
    code = main(["cases", "import", str(json_path if kind == "json" else proto_path),
                 "--into", str(into), "--judge", "staged"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "3 run(s): 3 written" in err
    imported, captured = lines_in(into), lines_in(live)
    assert sorted(map(comparable, imported)) == sorted(map(comparable, captured))
    assert {line["recorded"]["origin"] for line in imported} == {"import"}
    assert SECRET not in json.dumps(imported)
    # Imported again into the same directory: nothing is written twice.
    assert main(["cases", "import", str(json_path), "--into", str(into), "--judge",
                 "staged"]) == 0
    again = capsys.readouterr().err
    assert "0 written" in again and "3 already in the directory" in again
    assert len(lines_in(into)) == 3


def test_a_file_that_is_not_otlp_is_bad_input(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"resourceSpans": 5}\n')
    assert main(["cases", "import", str(bad), "--into", str(tmp_path / "o")]) == 2
    assert "bad.jsonl:1: not an OTLP JSON export request" in capsys.readouterr().err
    garbage = tmp_path / "bad.pb"
    garbage.write_bytes(b"\x00\x00\x00\x05\xff\xff\xff\xff\xff")
    assert main(["cases", "import", str(garbage), "--into", str(tmp_path / "o")]) == 2
    assert "not an OTLP protobuf export request" in capsys.readouterr().err
    missing = main(["cases", "import", str(tmp_path / "none"), "--into", str(tmp_path / "o")])
    assert missing == 2 and "cannot read" in capsys.readouterr().err


def test_list_filters_and_dedupes(stored: tuple[Path, Path, Path],
                                  capsys: pytest.CaptureFixture[str]) -> None:
    live = stored[0]
    assert main(["cases", "list", str(live), "--json"]) == 0
    every = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(every) == 3
    main(["cases", "list", str(live), "--json", "--dedupe"])
    assert len(capsys.readouterr().out.splitlines()) == 2
    main(["cases", "list", str(live), "--json", "--decision", "not_proceed"])
    [bad] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert bad["decision"] != "proceed"
    main(["cases", "list", str(live), "--json", "--min-score", "0.99"])
    assert all(json.loads(line)["score"] >= 0.99 for line in capsys.readouterr().out.splitlines())
    main(["cases", "list", str(live), "--json", "--agent", "nobody"])
    assert capsys.readouterr().out == ""
    main(["cases", "list", str(live), "--json", "--since", "2999-01-01"])
    assert capsys.readouterr().out == ""
    main(["cases", "list", str(live)])
    out = capsys.readouterr().out
    assert "trace=" in out and "expect=recorded" in out
    assert main(["cases", "list", str(live), "--min-score", "0.9", "--max-score", "0.1"]) == 2


def test_promote_and_expect_build_a_suite_pytest_runs(
        stored: tuple[Path, Path, Path], tmp_path: Path, pytester: pytest.Pytester,
        capsys: pytest.CaptureFixture[str]) -> None:
    live = stored[0]
    suite = pytester.path / "gsar_suite.jsonl"
    assert main(["cases", "promote", str(live), "--to", str(suite)]) == 0
    assert "promoted 2 case(s)" in capsys.readouterr().err  # the repeat is the same content
    assert main(["cases", "promote", str(live), "--to", str(suite)]) == 0
    assert "promoted 0 case(s)" in capsys.readouterr().err
    cases = lines_in(pytester.path)
    bad = next(c for c in cases if c["recorded"]["decision"] != "proceed")
    assert main(["cases", "expect", "not_proceed", str(suite), "--id", bad["id"]]) == 0
    assert [c.get("expect") for c in lines_in(pytester.path)].count("not_proceed") == 1
    assert main(["cases", "expect", "proceed", str(suite), "--id", "nope"]) == 2
    assert "no case with id 'nope'" in capsys.readouterr().err
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--gsar-judge", "staged")
    result.assert_outcomes(passed=2)
    # Expecting proceed of the over-reaching answer fails, naming its trace.
    main(["cases", "expect", "proceed", str(suite), "--id", bad["id"]])
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--gsar-judge", "staged")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([f"recorded from trace {bad['trace_id']} *"])
    assert main(["cases", "promote", str(suite), "--to", str(suite)]) == 2
