"""Recorded judge verdicts: a cassette store and a judge that records and replays verdicts."""

from gsar_otel.judges.recorded.judge import RecordingJudge
from gsar_otel.judges.recorded.store import (
    CassetteError,
    CassetteStore,
    MissingVerdictError,
    RecordMode,
    parse_record_mode,
)

__all__ = [
    "CassetteError",
    "CassetteStore",
    "MissingVerdictError",
    "RecordMode",
    "RecordingJudge",
    "parse_record_mode",
]
