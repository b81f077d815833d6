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

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "EvidenceType": "gsar_otel.model",
    "DEFAULT_WEIGHT_MAP": "gsar_otel.model",
    "Claim": "gsar_otel.model",
    "Partition": "gsar_otel.model",
    "GSARThresholds": "gsar_otel.model",
    "Decision": "gsar_otel.model",
    "JudgeOutput": "gsar_otel.model",
    "safe_default_judge_output": "gsar_otel.model",
    "partition_weight": "gsar_otel.scoring",
    "gsar_score": "gsar_otel.scoring",
    "decide": "gsar_otel.scoring",
    "Evidence": "gsar_otel.evidence",
    "EvidenceSet": "gsar_otel.evidence",
    "record_evidence": "gsar_otel.evidence",
    "tool_evidence": "gsar_otel.evidence",
    "Adjustment": "gsar_otel.integrity",
    "check_judge_output": "gsar_otel.integrity",
    "Judge": "gsar_otel.judges.base",
    "JudgeVerdict": "gsar_otel.judges.base",
    "JudgeUsage": "gsar_otel.judges.base",
    "LexicalJudge": "gsar_otel.judges.lexical",
    "AnthropicJudge": "gsar_otel.judges.anthropic",
    "GSAREvaluator": "gsar_otel.evaluator",
    "GSAREvaluation": "gsar_otel.evaluator",
    "GSARResult": "gsar_otel.evaluator",
    "grounded": "gsar_otel.decorator",
    "GroundingError": "gsar_otel.decorator",
    "GroundedCall": "gsar_otel.decorator",
    "flush": "gsar_otel.decorator",
    "configure_telemetry": "gsar_otel.telemetry",
    "TelemetryHandle": "gsar_otel.telemetry",
    "TracedEvaluator": "gsar_otel.telemetry",
    "emit_result": "gsar_otel.telemetry",
    "GSARSettings": "gsar_otel.config",
    "SettingsError": "gsar_otel.config",
    "load_settings": "gsar_otel.config",
}

__all__ = [
    "DEFAULT_WEIGHT_MAP",
    "Adjustment",
    "AnthropicJudge",
    "Claim",
    "Decision",
    "Evidence",
    "EvidenceSet",
    "EvidenceType",
    "GSAREvaluation",
    "GSAREvaluator",
    "GSARResult",
    "GSARSettings",
    "GSARThresholds",
    "GroundedCall",
    "GroundingError",
    "Judge",
    "JudgeOutput",
    "JudgeUsage",
    "JudgeVerdict",
    "LexicalJudge",
    "Partition",
    "SettingsError",
    "TelemetryHandle",
    "TracedEvaluator",
    "check_judge_output",
    "configure_telemetry",
    "decide",
    "emit_result",
    "flush",
    "grounded",
    "gsar_score",
    "load_settings",
    "partition_weight",
    "record_evidence",
    "safe_default_judge_output",
    "tool_evidence",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'gsar_otel' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


if TYPE_CHECKING:
    from gsar_otel.config import GSARSettings, SettingsError, load_settings
    from gsar_otel.decorator import GroundedCall, GroundingError, flush, grounded
    from gsar_otel.evaluator import GSAREvaluation, GSAREvaluator, GSARResult
    from gsar_otel.evidence import Evidence, EvidenceSet, record_evidence, tool_evidence
    from gsar_otel.integrity import Adjustment, check_judge_output
    from gsar_otel.judges.anthropic import AnthropicJudge
    from gsar_otel.judges.base import Judge, JudgeUsage, JudgeVerdict
    from gsar_otel.judges.lexical import LexicalJudge
    from gsar_otel.model import (
        DEFAULT_WEIGHT_MAP,
        Claim,
        Decision,
        EvidenceType,
        GSARThresholds,
        JudgeOutput,
        Partition,
        safe_default_judge_output,
    )
    from gsar_otel.scoring import decide, gsar_score, partition_weight
    from gsar_otel.telemetry import (
        TelemetryHandle,
        TracedEvaluator,
        configure_telemetry,
        emit_result,
    )
