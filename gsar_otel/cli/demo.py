"""``gsar demo``: run the example incident-response agent under ``@grounded`` (no key, no servers).

The agent (:mod:`gsar_otel.cli.demo_agent`) investigates alert A-9912, and its first answer claims a
root cause the evidence does not show. The demo prints each judge round's claims (verdict,
evidence type, weight, cited evidence), S and the decision, the trajectory of the recovery loop,
and the final answer; it exits 0 when the final answer proceeds.

Telemetry goes where ``configure_telemetry()`` sends it: over OTLP when
``OTEL_EXPORTER_OTLP_ENDPOINT`` is set; either way a one-line-per-span summary ends the report
(``--console`` also prints the SDK's full span and metric JSON to stderr, which is long).
``--prometheus-port`` serves the metrics for Prometheus, for ``--serve-seconds`` after the run.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from gsar_otel import environment
from gsar_otel.cli.common import EXIT_NOT_PROCEED, EXIT_OK, BadInput
from gsar_otel.plugins import hookimpl
from gsar_otel.semconv import ENV_OTEL_SERVICE_NAME, ENV_OTLP_ENDPOINT, ENV_OTLP_TRACES_ENDPOINT

if TYPE_CHECKING:
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from gsar_otel.core.result import GSAREvaluation, GSARResult
    from gsar_otel.otel.setup import TelemetryHandle

MAX_REPEAT = 10_000
VERDICTS = ("grounded", "ungrounded", "contradicted", "complementary")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register this command's options."""
    parser.add_argument(
        "--judge", metavar="NAME", default=None,
        help="judge to use: staged, lexical, anthropic, or a plugin's (default: GSAR_JUDGE, else "
             "anthropic when ANTHROPIC_API_KEY is set, else staged)")
    parser.add_argument("--json", action="store_true",
                        help="print the results as JSON instead of tables")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="run the agent N times (e.g. to fill metrics; default 1)")
    parser.add_argument("--prometheus-port", type=int, default=None, metavar="PORT",
                        help="serve the metrics for Prometheus on 127.0.0.1:PORT (0: any free "
                             "port); needs the 'prometheus' extra")
    parser.add_argument("--serve-seconds", type=float, default=0.0, metavar="S",
                        help="with --prometheus-port: keep serving S seconds after the run so a "
                             "scraper can read the metrics (default 0)")
    parser.add_argument("--console", action="store_true",
                        help="also print every span and metric as the OpenTelemetry SDK's JSON "
                             "(to stderr); by default only a one-line-per-span summary is shown")


@dataclass
class _Captured:
    """Results of the agent's evaluations, received through the ``gsar_on_result`` hook."""

    function: str
    results: list[GSARResult] = field(default_factory=list)

    @hookimpl
    def gsar_on_result(self, result: GSARResult, function: str) -> None:
        """Keep the results of the demo agent's evaluations."""
        if function == self.function:
            self.results.append(result)


def run(args: argparse.Namespace) -> int:
    """Run the demo; 0 when every run's final answer proceeds, 1 otherwise."""
    _check_args(args)
    from gsar_otel.cli import demo_agent
    from gsar_otel.core.model import Decision
    from gsar_otel.core.protocol import judge_model, judge_name
    from gsar_otel.judges.factory import make_judge
    from gsar_otel.plugins import register, unregister

    try:
        judge = make_judge(args.judge)
    except (ValueError, ImportError) as error:
        raise BadInput(str(error)) from error
    telemetry = _Telemetry.start(args)
    try:
        captured = _Captured(demo_agent.AGENT_FUNCTION)
        plugin_name = register(captured, name=f"gsar-demo-{id(captured)}")
        try:
            agent = demo_agent.make_incident_agent(
                judge, tracer_provider=telemetry.handle.tracer_provider)
            answers = [agent(demo_agent.ALERT_ID) for _ in range(args.repeat)]
        finally:
            unregister(name=plugin_name)
            telemetry.flush()
        if len(captured.results) != len(answers):
            print(f"gsar demo: {len(answers) - len(captured.results)} evaluation(s) were not "
                  "reported (see the log); the answers were returned unjudged", file=sys.stderr)
            return EXIT_NOT_PROCEED
        meta = {"judge": judge_name(judge), "judge_model": judge_model(judge),
                "thresholds": demo_agent.INCIDENT_THRESHOLDS.model_dump(mode="json"),
                "alert_id": demo_agent.ALERT_ID, "function": demo_agent.AGENT_FUNCTION}
        if args.json:
            document = {**meta, "runs": [
                {"answer": answer, "result": result.model_dump(mode="json")}
                for answer, result in zip(answers, captured.results, strict=True)]}
            json.dump(document, sys.stdout, indent=2)
            sys.stdout.write("\n")
            telemetry.report(sys.stderr)
        else:
            _print_report(sys.stdout, meta, answers, captured.results)
            telemetry.report(sys.stdout)
        telemetry.serve(args.serve_seconds, sys.stderr if args.json else sys.stdout)
    finally:
        telemetry.shutdown()
    proceeded = all(r.final_decision is Decision.PROCEED for r in captured.results)
    return EXIT_OK if proceeded else EXIT_NOT_PROCEED


def _check_args(args: argparse.Namespace) -> None:
    if not 1 <= args.repeat <= MAX_REPEAT:
        raise BadInput(f"--repeat must be between 1 and {MAX_REPEAT}, got {args.repeat}")
    if args.prometheus_port is not None and not 0 <= args.prometheus_port <= 65535:
        raise BadInput(f"--prometheus-port must be between 0 and 65535, got "
                       f"{args.prometheus_port}")
    if not args.serve_seconds >= 0 or args.serve_seconds == float("inf"):
        raise BadInput(f"--serve-seconds must be a finite number >= 0, got {args.serve_seconds}")
    if args.serve_seconds and args.prometheus_port is None:
        raise BadInput("--serve-seconds needs --prometheus-port (there is nothing to serve)")


# --- telemetry ----------------------------------------------------------------------------------


@dataclass
class _Telemetry:
    """The providers ``configure_telemetry()`` made for the demo, plus in-memory copies of what
    they export (for the summary)."""

    handle: TelemetryHandle
    spans: InMemorySpanExporter
    metrics: InMemoryMetricReader

    @classmethod
    def start(cls, args: argparse.Namespace) -> _Telemetry:
        from opentelemetry.sdk.metrics.export import InMemoryMetricReader
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        from gsar_otel.otel.setup import configure_telemetry

        spans, metric_reader = InMemorySpanExporter(), InMemoryMetricReader()
        try:
            handle = configure_telemetry(
                service_name=environment.read(ENV_OTEL_SERVICE_NAME) or "gsar-demo",
                console=args.console, console_metrics=args.console,
                prometheus_port=args.prometheus_port, span_exporters=[spans],
                metric_readers=[metric_reader], set_global=_no_global_providers())
        except (ValueError, ImportError, OSError) as error:
            raise BadInput(f"telemetry: {error}") from error
        return cls(handle, spans, metric_reader)

    def flush(self) -> None:
        self.handle.force_flush(10.0)

    def finished_spans(self) -> tuple[ReadableSpan, ...]:
        return tuple(self.spans.get_finished_spans())

    def report(self, out: TextIO) -> None:
        """A few lines on where the telemetry went, with one line per span."""
        handle = self.handle
        spans = self.finished_spans()
        out.write("\nTelemetry\n")
        if handle.tracer_provider is None:
            out.write("  spans and metrics went to the tracer and meter providers this process "
                      "already had\n")
            return
        where = []
        if handle.otlp_traces_protocol:
            endpoint = (environment.read(ENV_OTLP_TRACES_ENDPOINT)
                        or environment.read(ENV_OTLP_ENDPOINT) or "")
            where.append(f"OTLP {handle.otlp_traces_protocol} to {endpoint}")
        if self_console(handle):
            where.append("the console (stderr)")
        if where:
            out.write(f"  {len(spans)} span(s) exported to {', '.join(where)}\n")
        else:
            out.write(f"  {len(spans)} span(s), shown here only; set OTEL_EXPORTER_OTLP_ENDPOINT "
                      "(e.g. http://localhost:4318)\n  to export them over OTLP\n")
        tree = _span_tree(spans)
        roots = [index for index, (_, depth) in enumerate(tree) if depth == 0]
        shown = tree[: roots[1]] if len(roots) > 1 else tree
        for span, depth in shown:
            out.write(f"  {'  ' * depth}{_span_line(span)}\n")
        if len(roots) > 1:
            out.write(f"  ... and {len(roots) - 1} more trace(s) like it\n")
        counters = _metric_summary(self.metrics)
        if counters:
            out.write(f"  metrics: {counters}\n")
        if handle.prometheus_port is not None:
            out.write(f"  Prometheus: http://127.0.0.1:{handle.prometheus_port}/metrics\n")

    def serve(self, seconds: float, out: TextIO) -> None:
        if seconds > 0 and self.handle.prometheus_port is not None:
            out.write(f"serving metrics on http://127.0.0.1:{self.handle.prometheus_port}/metrics "
                      f"for {seconds:g} s\n")
            out.flush()
            time.sleep(seconds)

    def shutdown(self) -> None:
        self.handle.shutdown()


def _no_global_providers() -> bool:
    """True when this process has no tracer or meter provider yet: the demo then installs its
    own globally, so that the judge's SDK spans (e.g. the Anthropic client's) are exported too."""
    from gsar_otel.otel.setup import host_meter_provider, host_tracer_provider

    return host_tracer_provider() is None and host_meter_provider() is None


def self_console(handle: TelemetryHandle) -> bool:
    """True when one of the handle's span exporters prints to the console."""
    return any(type(e).__name__ == "ConsoleSpanExporter" for e in handle.span_exporters)


def _span_tree(spans: Sequence[ReadableSpan]) -> list[tuple[ReadableSpan, int]]:
    """Spans in start order, each child after its parent, with its depth."""
    ordered = sorted(spans, key=lambda s: s.start_time or 0)
    ids = {s.context.span_id for s in ordered if s.context is not None}
    children: dict[int | None, list[ReadableSpan]] = {}
    for span in ordered:
        parent = span.parent.span_id if span.parent is not None else None
        children.setdefault(parent if parent in ids else None, []).append(span)
    tree: list[tuple[ReadableSpan, int]] = []

    def walk(parent: int | None, depth: int) -> None:
        for span in children.get(parent, []):
            tree.append((span, depth))
            if span.context is not None:
                walk(span.context.span_id, depth + 1)

    walk(None, 0)
    return tree


def _span_line(span: ReadableSpan) -> str:
    from gsar_otel import semconv as sc

    attributes = dict(span.attributes or {})
    context = span.context
    ids = f"trace {context.trace_id:032x}" if context is not None and span.parent is None else ""
    if span.name.startswith(sc.SPAN_EVALUATE):
        claims = sum(1 for event in span.events if event.name == sc.EVENT_CLAIM)
        detail = (f"{sc.GSAR_SCORE}={_fmt(attributes.get(sc.GSAR_SCORE))} "
                  f"{sc.GSAR_DECISION}={attributes.get(sc.GSAR_DECISION)} "
                  f"{sc.GSAR_ROUNDS}={attributes.get(sc.GSAR_ROUNDS)} "
                  f"{sc.GSAR_DEGRADED}={str(attributes.get(sc.GSAR_DEGRADED)).lower()} "
                  f"[{claims} {sc.EVENT_CLAIM} events]")
    elif span.name == sc.SPAN_JUDGE:
        detail = " ".join(f"{key}={_fmt(attributes[key])}" for key in (
            sc.GSAR_JUDGE_ROUND, sc.GSAR_JUDGE_ACTION, "gsar.judge.score", "gsar.judge.decision")
            if key in attributes)
    else:
        detail = ""
    parts = [span.name, detail, f"({ids})" if ids else ""]
    return "  ".join(part for part in parts if part)


def _fmt(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def _metric_summary(reader: InMemoryMetricReader) -> str:
    """``gsar.decisions`` and ``gsar.claims`` totals by their main attribute."""
    from gsar_otel import semconv as sc

    data = reader.get_metrics_data()
    if data is None:
        return ""
    totals: dict[str, dict[str, float]] = {}
    keys = {sc.METRIC_DECISIONS: sc.GSAR_DECISION, sc.METRIC_CLAIMS: sc.GSAR_CLAIM_VERDICT}
    for resource_metrics in data.resource_metrics:
        for scope_metrics in resource_metrics.scope_metrics:
            for metric in scope_metrics.metrics:
                key = keys.get(metric.name)
                if key is None:
                    continue
                for point in metric.data.data_points:
                    label = str((point.attributes or {}).get(key, "?"))
                    value = float(getattr(point, "value", 0))
                    bucket = totals.setdefault(metric.name, {})
                    bucket[label] = bucket.get(label, 0) + value
    parts = []
    for name in (sc.METRIC_DECISIONS, sc.METRIC_CLAIMS):
        if name in totals:
            inner = ", ".join(f"{label}={value:g}" for label, value in sorted(totals[name].items()))
            parts.append(f"{name}{{{inner}}}")
    return "; ".join(parts)


# --- the report ---------------------------------------------------------------------------------


def _print_report(out: TextIO, meta: dict[str, Any], answers: Sequence[str],
                  results: Sequence[GSARResult]) -> None:
    thresholds = meta["thresholds"]
    judge = meta["judge"] + (f" ({meta['judge_model']})" if meta["judge_model"] else "")
    out.write(f"gsar demo: incident-response agent, alert {meta['alert_id']}\n")
    out.write(f"judge: {judge}; proceed at S >= {thresholds['proceed']:.2f}, regenerate at "
              f"S >= {thresholds['regenerate']:.2f}, replan below\n")
    result = results[0]
    out.write("\nEvidence the tools returned\n")
    for item in result.trajectory[0].evidence_corpus:
        out.write(f"  {item.id:<4} {item.type.value:<13} {item.source or '-':<14} "
                  f"{_clip(item.content, 70)}\n")
    for entry in result.trajectory:
        _print_round(out, entry)
    out.write("\nTrajectory\n")
    out.write(f"  {'round':<6} {'action':<11} {'S':>6}  decision\n")
    for entry in result.trajectory:
        out.write(f"  {entry.iteration:<6} {entry.action:<11} {entry.score:>6.3f}  "
                  f"{entry.decision.value}\n")
    out.write(f"\nFinal answer ({result.final_decision.value}, S = {result.final_score:.3f}, "
              f"{result.regenerations_used} regeneration(s), {result.replans_used} replan(s)"
              f"{', degraded: ' + str(result.degraded_reason) if result.degraded else ''})\n")
    out.write(textwrap.fill(answers[0], width=98, initial_indent="  ",
                            subsequent_indent="  ", break_on_hyphens=False) + "\n")
    if result.final_decision.value != "proceed":
        out.write("  (it did not reach 'proceed': treat it as unverified)\n")
    held_back = _held_back(result)
    if held_back:
        out.write("Held back as not grounded (follow up before acting on them)\n")
        for text in held_back:
            out.write(f"  - {text}\n")
    if len(results) > 1:
        out.write(f"\n{len(results)} runs\n")
        for number, run_result in enumerate(results, start=1):
            path = " -> ".join(f"{e.decision.value} {e.score:.3f}" for e in run_result.trajectory)
            out.write(f"  run {number}: {path}\n")


def _print_round(out: TextIO, entry: GSAREvaluation) -> None:
    from gsar_otel.core.model import DEFAULT_UNKNOWN_WEIGHT
    from gsar_otel.core.scoring import claim_weight, resolve_weight_map

    weights = resolve_weight_map(None)
    output = entry.judge_output
    out.write(f"\nRound {entry.iteration} ({entry.action}): S = {entry.score:.3f} -> "
              f"{entry.decision.value}\n")
    out.write(f"  {'#':>2}  {'verdict':<13} {'evidence type':<21} {'weight':>6}  "
              f"{'refs':<8} claim\n")
    number = 0
    for verdict in VERDICTS:
        for claim in getattr(output, f"{verdict}_claims"):
            number += 1
            kind = claim.type.value if hasattr(claim.type, "value") else str(claim.type)
            weight = claim_weight(claim, weights, DEFAULT_UNKNOWN_WEIGHT)
            marker = verdict.upper() if verdict in ("ungrounded", "contradicted") else verdict
            refs = ",".join(claim.evidence_refs) or "-"
            out.write(f"  {number:>2}  {marker:<13} {kind:<21} {weight:>6.2f}  {refs:<8} "
                      f"{_clip(claim.text, 80)}\n")
    if entry.adjustments:
        out.write(f"  integrity guard: {len(entry.adjustments)} adjustment(s): "
                  f"{', '.join(sorted({a.kind for a in entry.adjustments}))}\n")
    if output.abstained:
        out.write(f"  judge abstained: {output.abstain_reason}\n")
    if entry.judge_error:
        out.write(f"  judge failed: {entry.judge_error}\n")


def _held_back(result: GSARResult) -> list[str]:
    """Claims some round found ungrounded or contradicted that the final answer no longer makes."""
    final = {c.text for c in result.final_partition.all_claims()}
    seen: list[str] = []
    for entry in result.trajectory:
        output = entry.judge_output
        for claim in (*output.ungrounded_claims, *output.contradicted_claims):
            if claim.text not in final and claim.text not in seen:
                seen.append(claim.text)
    return seen


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
