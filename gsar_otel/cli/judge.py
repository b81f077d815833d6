"""`gsar judge`: judge one answer against its evidence and print the claims, S and the decision.

``--synthesis`` and ``--evidence`` take text, or ``@FILE`` to read a file (``@-``: stdin; at most
``--max-input-bytes``, 16 MiB by default, per argument; only regular files). ``--evidence`` may be
repeated, each adding its items in order: a file is one item (its name the item's source) unless
it holds a JSON list (one item per element) or object (one item); text is one item per non-empty
line, or JSON as for a file. Exit code 0 when the answer proceeds, 1 for any
other decision, 2 for bad input or invalid settings.

The settings apply as for ``@grounded`` and ``GSAREvaluator``: options on the command line win
over ``GSAR_*`` variables (``GSAR_PROCEED``, ``GSAR_REGENERATE``, ``GSAR_CONTRADICTION_PENALTY``,
``GSAR_CONCLUSION_POLICY``, ``GSAR_JUDGE`` ...), which win over the ``GSAR_CONFIG`` file. The
thresholds in force and where they came from are printed (on stderr with ``--json``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gsar_otel.cli.inputs import NamedPath
    from gsar_otel.config import GSARSettings
    from gsar_otel.core.evaluator import GSAREvaluator
    from gsar_otel.core.model import GSARThresholds
    from gsar_otel.core.result import GSARResult
from gsar_otel.core.scoring import WeightMap


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register this command's options."""
    parser.add_argument("--synthesis", metavar="TEXT|@FILE",
                        help="the answer to judge, or @path to read it from a file")
    parser.add_argument("--evidence", metavar="TEXT|@FILE", action="append", help=EVIDENCE_HELP)
    parser.add_argument("--batch", metavar="FILE.jsonl", help=BATCH_HELP)
    parser.add_argument("--output", metavar="FILE", help="--batch: write the results here "
                        "(default stdout)")
    parser.add_argument("--concurrency", type=_positive_int, default=4, metavar="N",
                        help="--batch: judgements in flight at once (default 4)")
    parser.add_argument("--judge", default=None,
                        help="staged, records, tiered, anthropic, lexical or a plugin's judge "
                             "(default: "
                             "GSAR_JUDGE, else anthropic with a key, else staged)")
    parser.add_argument("--model", default=None, help="model for a model-backed judge")
    parser.add_argument("--json", action="store_true", help="print the GSARResult as JSON")
    parser.add_argument("--max-input-bytes", type=_positive_int, default=None, metavar="N",
                        help="largest answer or evidence read, in bytes (default 16777216, "
                             "16 MiB); a larger file, argument or stdin is refused (exit 2)")
    parser.add_argument("--proceed", type=float, default=None, metavar="X",
                        help="proceed threshold tau_proceed (default: GSAR_PROCEED, the "
                             "GSAR_CONFIG file, else 0.80)")
    parser.add_argument("--regenerate", type=float, default=None, metavar="Y",
                        help="regenerate threshold tau_regenerate (default: GSAR_REGENERATE, "
                             "the GSAR_CONFIG file, else 0.65)")
    parser.add_argument("--rho", type=float, default=None, metavar="R",
                        help="contradiction penalty in [0, 1] (default: "
                             "GSAR_CONTRADICTION_PENALTY, the GSAR_CONFIG file, else 0.5)")
    parser.add_argument("--conclusion-policy", choices=("cap", "score"), default=None,
                        help="cap: an ungrounded or contradicted cause or conclusion caps the "
                             "decision at regenerate; score: the decision follows S alone "
                             "(default: GSAR_CONCLUSION_POLICY, the GSAR_CONFIG file, else cap)")
    parser.add_argument("--contradiction-policy", choices=("cap", "score"), default=None,
                        help="cap: a contradicted or unsupported "
                             "tool-backed claim (tool_match, specific_data, "
                             "signal_match) caps the decision at regenerate; score: the decision "
                             "follows S alone (default: GSAR_CONTRADICTION_POLICY, the "
                             "GSAR_CONFIG file, else cap)")
    parser.add_argument("--dispute-policy", choices=("flag", "cap"), default=None,
                        help="flag: a claim a model judge grounded but the offline engine "
                             "contradicts is reported and counted; cap: it caps the decision at "
                             "regenerate (default: GSAR_DISPUTE_POLICY, the GSAR_CONFIG file, "
                             "else flag)")
    parser.add_argument("--max-escalated-claims", type=int, default=None, metavar="N",
                        help="--judge tiered: most claims sent to the model per answer (default: "
                             "GSAR_MAX_ESCALATED_CLAIMS, the GSAR_CONFIG file, else 16)")


EVIDENCE_HELP = ("the evidence; repeat it to add more. @FILE (@- stdin) is one item, the whole "
                 "file (a kubectl table stays one item), unless the file is a JSON list (one "
                 "item per element: strings or {\"id\", \"content\", \"type\", "
                 "\"source\"} objects) or a JSON object (one item). TEXT is one item per "
                 "non-empty line, or a JSON list / object as for a file")
"""``gsar judge --evidence``."""

BATCH_HELP = ("judge every answer of a JSON Lines file (one {\"synthesis\", \"evidence\", "
              "\"id\"} object per line; - reads stdin) and write one JSON result per line "
              "with a progress bar on stderr; a bad line becomes an error row and the batch "
              "goes on. Exit 0 all proceed, 1 some do not, 2 any bad line")
"""``gsar judge --batch`` (run by ``gsar_otel.cli.batch``)."""


def file_arguments(args: argparse.Namespace) -> tuple[list[NamedPath], list[NamedPath]]:
    """The files this command writes and reads; ``main`` refuses an output that is an input."""
    from gsar_otel.cli.inputs import settings_file

    def at_file(value: str | None) -> str | None:
        return value[1:] if value is not None and value.startswith("@") else None

    evidence = [("--evidence", at_file(value)) for value in args.evidence or ()]
    return [("--output", args.output)], [
        ("--batch", args.batch), ("--synthesis", at_file(args.synthesis)), *evidence,
        settings_file()]


def _positive_int(value: str) -> int:
    """A positive whole number, for ``--max-input-bytes``."""
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {value!r}")
    return number


def read_argument(value: str, name: str, *, limit: int | None = None) -> str:
    """The text of ``value``, or of the file ``@path`` names (``@-``: stdin); see
    :mod:`gsar_otel.cli.inputs` for the limits and the refusals.

    Raises:
        BadInput: the file cannot be used, the text is not UTF-8, too large, or empty.
    """
    from gsar_otel.cli import inputs

    return inputs.read_argument(value, name, limit=limit or inputs.DEFAULT_MAX_INPUT_BYTES)


def parse_thresholds(proceed: float | None, regenerate: float | None,
                     defaults: GSARThresholds | None = None) -> GSARThresholds:
    """Thresholds from the command line; unset values keep ``defaults`` (the settings').

    Raises:
        BadInput: a value outside [0, 1], or regenerate above proceed.
    """
    from pydantic import ValidationError

    from gsar_otel.cli.common import BadInput
    from gsar_otel.core.model import GSARThresholds

    values: dict[str, float] = {}
    if proceed is not None:
        values["proceed"] = proceed
    if regenerate is not None:
        values["regenerate"] = regenerate
    try:
        base = defaults or GSARThresholds()
        if proceed is not None and regenerate is None and proceed < base.regenerate:
            values["regenerate"] = proceed
        return GSARThresholds(**{"proceed": base.proceed, "regenerate": base.regenerate,
                                 **values})
    except ValidationError as error:
        messages = "; ".join(str(e.get("msg", "")).removeprefix("Value error, ")
                             for e in error.errors())
        raise BadInput(f"invalid thresholds: {messages} (--proceed X --regenerate Y need "
                       f"0 <= Y <= X <= 1)") from None


def parse_evidence(text: str) -> Any:
    """Evidence text as the evaluator takes it: a JSON list or object when it is one, else lines."""
    from gsar_otel.cli.common import BadInput
    from gsar_otel.cli.inputs import has_surrogates, parse_json

    stripped = text.strip()
    if stripped[:1] in "[{":
        try:
            data = parse_json(stripped, "--evidence")
        except json.JSONDecodeError:
            return text
        if isinstance(data, list | dict):
            if has_surrogates(json.dumps(data, ensure_ascii=False)):
                raise BadInput("--evidence: the JSON escapes a lone surrogate (such as "
                               "\\ud800), which is not UTF-8 text")
            return data
    return text


def gather_evidence(values: list[str], *, limit: int | None = None) -> list[Any]:
    """The items of every ``--evidence`` in order: ``@FILE`` one item (its file name the
    source) unless it holds a JSON list (its elements) or object (one item); text one item per
    non-empty line, or its JSON likewise.

    Raises:
        BadInput: as :func:`read_argument` and :func:`parse_evidence`.
    """
    items: list[Any] = []
    for value in values:
        text = read_argument(value, "--evidence", limit=limit)
        data = parse_evidence(text)
        if isinstance(data, list):
            items.extend(data)
        elif isinstance(data, dict):
            items.append(data)
        elif value.startswith("@"):
            name = "stdin" if value == "@-" else os.path.basename(value[1:]) or value[1:]
            items.append({"content": text.strip("\n"), "source": name})
        else:
            items.extend(line for line in text.splitlines() if line.strip())
    return items


def run(args: argparse.Namespace) -> int:
    """Judge once and print the verdict; 0 when it proceeds, 1 otherwise."""
    from gsar_otel.cli.common import EXIT_NOT_PROCEED, EXIT_OK, BadInput
    from gsar_otel.core.evidence import coerce_evidence
    from gsar_otel.core.model import Decision

    if args.synthesis is None or args.evidence is None:
        raise BadInput("give --synthesis and --evidence, or --batch FILE.jsonl")
    settings = load_cli_settings()
    limit = getattr(args, "max_input_bytes", None)
    synthesis = read_argument(args.synthesis, "--synthesis", limit=limit)
    items = gather_evidence(args.evidence, limit=limit)
    thresholds = parse_thresholds(args.proceed, args.regenerate, settings.thresholds_model())
    try:
        evidence = coerce_evidence(items)
    except ValueError as error:
        raise BadInput(f"--evidence: {error}") from None
    evaluator = make_evaluator(args, settings, thresholds)
    in_force = describe_thresholds(thresholds, args, settings)
    result = evaluator.evaluate_sync(report_synthesis=synthesis, evidence_corpus=evidence)
    if args.json:
        print(in_force, file=sys.stderr)
        print(result.model_dump_json(indent=2))
    else:
        print(render(result, evidence, weights=evaluator.weight_map, in_force=in_force))
    return EXIT_OK if result.final_decision is Decision.PROCEED else EXIT_NOT_PROCEED


def make_evaluator(args: argparse.Namespace, settings: GSARSettings,
                   thresholds: GSARThresholds) -> GSAREvaluator:
    """The evaluator ``--judge``, ``--model``, ``--rho``, ``--conclusion-policy`` and
    ``--contradiction-policy`` name, over the settings; a judge that cannot be made or a bad
    penalty is bad input (exit 2)."""
    from gsar_otel.cli.common import BadInput
    from gsar_otel.core.evaluator import GSAREvaluator
    from gsar_otel.judges.factory import make_judge

    try:
        judge = make_judge(args.judge or settings.judge, model=args.model or settings.judge_model)
    except (ValueError, ImportError) as error:
        raise BadInput(f"--judge: {error}") from None
    cap = getattr(args, "max_escalated_claims", None)
    if cap is not None:
        if cap < 0:
            raise BadInput(f"--max-escalated-claims must be an integer >= 0, got {cap}")
        if hasattr(judge, "max_escalated_claims"):
            judge.max_escalated_claims = cap
    try:
        return GSAREvaluator(judge, thresholds=thresholds, contradiction_penalty=args.rho,
                             conclusion_policy=args.conclusion_policy,
                             contradiction_policy=args.contradiction_policy,
                             dispute_policy=getattr(args, "dispute_policy", None),
                             settings=settings)
    except ValueError as error:
        raise BadInput(f"--rho: {error}") from None


def load_cli_settings(env: Mapping[str, str] | None = None) -> GSARSettings:
    """The ``GSAR_*`` settings and the ``GSAR_CONFIG`` file, as ``@grounded`` reads them.

    Raises:
        BadInput: a variable or the file is invalid (the message names it and the allowed
            values).
    """
    from gsar_otel.cli.common import BadInput
    from gsar_otel.config import SettingsError, load_settings

    try:
        return load_settings(env)
    except SettingsError as error:
        raise BadInput(str(error)) from None


def describe_thresholds(thresholds: GSARThresholds, args: argparse.Namespace,
                        settings: GSARSettings, env: Mapping[str, str] | None = None) -> str:
    """``thresholds in force: proceed 0.80 (default), regenerate 0.65 (GSAR_REGENERATE)``."""
    from gsar_otel import environment, semconv

    parts = []
    for name, flag, variable in (("proceed", args.proceed, semconv.ENV_PROCEED),
                                 ("regenerate", args.regenerate, semconv.ENV_REGENERATE)):
        value = getattr(thresholds, name)
        if flag is not None:
            source = f"--{name}"
        elif name == "regenerate" and args.proceed is not None and value == args.proceed:
            source = "--proceed"  # lowered to a proceed below it
        elif environment.raw(variable, env):
            source = variable
        elif settings.config_file and value != _DEFAULTS[name]:
            source = settings.config_file
        else:
            source = "default"
        parts.append(f"{name} {value:.2f} ({source})")
    return "thresholds in force: " + ", ".join(parts)


_DEFAULTS = {"proceed": 0.80, "regenerate": 0.65}


def render(result: GSARResult, evidence: Any, *, weights: WeightMap | None = None,
           in_force: str | None = None) -> str:
    """The verdict as a table of claims, then the thresholds, S and the decision."""
    from gsar_otel.core.scoring import claim_weight, resolve_weight_map, unverified_share

    weights = resolve_weight_map(weights)
    adjustments: dict[str, list[str]] = {}
    loose: list[str] = []
    claim_texts = {c.text for c in result.final_partition.all_claims()}
    for adjustment in result.adjustments:
        if adjustment.claim in claim_texts:
            adjustments.setdefault(adjustment.claim, []).append(adjustment.kind)
        else:
            loose.append(f"{adjustment.kind}: {adjustment.reason}")
    rows = [("bucket", "type", "weight", "refs", "adjustments", "claim")]
    for bucket, claims in result.final_partition.buckets():
        for claim in claims:
            kind = claim.type.value if hasattr(claim.type, "value") else str(claim.type)
            shown = bucket if claim.verifiable else f"{bucket} (unverified)"
            rows.append((shown, kind, f"{claim_weight(claim, weights):.2f}",
                         ",".join(claim.evidence_refs) or "-",
                         ",".join(adjustments.get(claim.text, [])) or "-", claim.text))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row[:5], widths, strict=True))
             + "  " + row[5] for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths) + "  " + "-" * 5)
    if len(rows) == 1:
        lines.append("(no claims)")
    output = result.final_judge_output
    lines += [""]
    lines += [f"adjustment {note}" for note in loose]
    if output.abstained:
        lines.append(f"judge abstained: {output.abstain_reason}")
    elif output.explanation:
        lines.append(output.explanation)
    partition = result.final_partition
    unverified = sum(not c.verifiable for c in partition.all_claims())
    if unverified:
        lines.append(f"unverified: {unverified} of {partition.total_claims} claims could not be "
                     f"checked against any record (left out of S; share "
                     f"{unverified_share(partition):.2f})")
    lines.append(f"evidence items: {len(evidence)}; judge: {result.judge_name}"
                 + (f" ({result.judge_model})" if result.judge_model else ""))
    if in_force:
        lines.append(in_force)
    if result.cap_note:
        lines.append(result.cap_note)
    lines.append(f"S = {result.final_score:.3f}  decision: {result.final_decision.value}")
    return "\n".join(lines)
