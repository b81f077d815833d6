"""gsar-otel: typed grounding (GSAR) for AI-agent answers, reported through OpenTelemetry.

A judge splits an answer into atomic claims and sorts each into grounded, ungrounded,
contradicted or complementary, with an evidence type and weight; one score S decides whether the
answer proceeds, is regenerated from the same evidence, or needs new evidence (replan).

Quick use::

    from gsar_otel import grounded, record_evidence

    @grounded()                      # judge every answer, report it as spans and metrics
    def answer(question: str) -> str:
        record_evidence("host=db-prod-1 cpu_pct=97.2")
        return "CPU on db-prod-1 reached 97%."

Names are loaded on first use, so ``import gsar_otel`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from gsar_otel._version import __version__ as __version__

_EXPORTS: dict[str, str] = {
    # the public API: what users call (docs/reference/api.md lists the same names)
    "EvidenceType": "gsar_otel.core.model",
    "DEFAULT_WEIGHT_MAP": "gsar_otel.core.model",
    "Claim": "gsar_otel.core.model",
    "Partition": "gsar_otel.core.model",
    "GSARThresholds": "gsar_otel.core.model",
    "Decision": "gsar_otel.core.model",
    "JudgeOutput": "gsar_otel.core.model",
    "partition_weight": "gsar_otel.core.scoring",
    "gsar_score": "gsar_otel.core.scoring",
    "decide": "gsar_otel.core.scoring",
    "Evidence": "gsar_otel.core.evidence",
    "EvidenceSet": "gsar_otel.core.evidence",
    "Judge": "gsar_otel.core.protocol",
    "LexicalJudge": "gsar_otel.judges.lexical.judge",
    "StagedJudge": "gsar_otel.judges.staged.judge",
    "AnthropicJudge": "gsar_otel.judges.anthropic.judge",
    "GSAREvaluator": "gsar_otel.core.evaluator",
    "GSARResult": "gsar_otel.core.evaluator",
    "grounded": "gsar_otel.decorator.api",
    "GroundedCall": "gsar_otel.decorator.api",
    "GroundingError": "gsar_otel.decorator.api",
    "flush": "gsar_otel.decorator.api",
    "last_result": "gsar_otel.decorator.api",
    "record_evidence": "gsar_otel.core.capture",
    "tool_evidence": "gsar_otel.core.capture",
    "collect_evidence": "gsar_otel.core.capture",
    "configure_telemetry": "gsar_otel.otel.setup",
}

_ELSEWHERE: dict[str, str] = {
    # names that are no longer public here: where they live
    "safe_default_judge_output": "gsar_otel.core.model",
    "coerce_evidence": "gsar_otel.core.evidence",
    "Adjustment": "gsar_otel.core.integrity",
    "check_judge_output": "gsar_otel.core.integrity",
    "JudgeVerdict": "gsar_otel.core.protocol",
    "JudgeUsage": "gsar_otel.core.protocol",
    "GSAREvaluation": "gsar_otel.core.evaluator",
    "set_exit_flush_timeout": "gsar_otel.otel.background",
    "TelemetryHandle": "gsar_otel.otel.setup",
    "TracedEvaluator": "gsar_otel.otel.traced",
    "emit_result": "gsar_otel.otel.traced",
    "GSARSettings": "gsar_otel.config",
    "SettingsError": "gsar_otel.config",
    "load_settings": "gsar_otel.config",
    "RecordingJudge": "gsar_otel.judges.recorded.judge",
    "CassetteStore": "gsar_otel.judges.recorded.store",
}
"""Names the package once handed on: asking for one says where it lives."""

__all__ = [
    "DEFAULT_WEIGHT_MAP",
    "AnthropicJudge",
    "Claim",
    "Decision",
    "Evidence",
    "EvidenceSet",
    "EvidenceType",
    "GSAREvaluator",
    "GSARResult",
    "GSARThresholds",
    "GroundedCall",
    "GroundingError",
    "Judge",
    "JudgeOutput",
    "LexicalJudge",
    "Partition",
    "StagedJudge",
    "collect_evidence",
    "configure_telemetry",
    "decide",
    "flush",
    "grounded",
    "gsar_score",
    "last_result",
    "partition_weight",
    "record_evidence",
    "tool_evidence",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        home = _ELSEWHERE.get(name)
        hint = f"; import it from {home}" if home else ""
        raise AttributeError(f"module 'gsar_otel' has no attribute {name!r}{hint}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


if TYPE_CHECKING:
    from gsar_otel.core.capture import collect_evidence, record_evidence, tool_evidence
    from gsar_otel.core.evaluator import GSAREvaluator
    from gsar_otel.core.evidence import Evidence, EvidenceSet
    from gsar_otel.core.model import (
        DEFAULT_WEIGHT_MAP,
        Claim,
        Decision,
        EvidenceType,
        GSARThresholds,
        JudgeOutput,
        Partition,
    )
    from gsar_otel.core.protocol import Judge
    from gsar_otel.core.result import GSARResult
    from gsar_otel.core.scoring import decide, gsar_score, partition_weight
    from gsar_otel.decorator.api import GroundedCall, GroundingError, flush, grounded, last_result
    from gsar_otel.judges.anthropic.judge import AnthropicJudge
    from gsar_otel.judges.lexical.judge import LexicalJudge
    from gsar_otel.judges.staged.judge import StagedJudge
    from gsar_otel.otel.setup import configure_telemetry
