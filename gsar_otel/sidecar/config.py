"""Everything ``gsar sidecar`` takes, as one validated value (see ``gsar sidecar --help``;
:mod:`gsar_otel.sidecar.settings` reads it from flags, variables and the settings file)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from gsar_otel.sidecar.assembly.assembler import AssemblyLimits
from gsar_otel.sidecar.intake.admission import NetworkLimits
from gsar_otel.sidecar.judging import DEFAULT_RUN_DEADLINE_S
from gsar_otel.sidecar.run_budget import DEFAULT_MAX_EXTRACT_BYTES, DEFAULT_MAX_JUDGE_PAIRS

DEFAULT_MAX_BODY_BYTES = 20 * 1024 * 1024
DEFAULT_MALLOC_ARENAS = 4
"""glibc malloc arenas by default: the soak's peak RSS 474 MB with glibc's eight per core, 345
MB with four, /healthz p99 102.6 and 96.4 ms (two: 325 MB, but 128.6 ms; benchmarks section
7b)."""
"""The OTLP specification's suggested request limit (413 above it)."""


@dataclass(frozen=True, slots=True)
class SidecarConfig:
    """Everything ``gsar sidecar`` takes (see ``gsar sidecar --help``)."""

    host: str = "127.0.0.1"
    http_port: int = 4318
    grpc_port: int = 4317
    """0 turns the gRPC receiver off."""
    token: str | None = None
    limits: AssemblyLimits = field(default_factory=AssemblyLimits)
    judge: str | None = None
    judge_model: str | None = None
    queue_size: int = 1_000
    concurrency: int = 4
    judge_processes: int = 0
    """Worker processes an offline judge runs in (0: in the sidecar's own process)."""
    malloc_arenas: int = DEFAULT_MALLOC_ARENAS
    """glibc malloc arenas the process keeps (:func:`gsar_otel.runtime.memory.limit_arenas`; 0:
    glibc's default of eight per core)."""
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_decompressed_bytes: int = 4 * DEFAULT_MAX_BODY_BYTES
    sample_rate: float = 1.0
    tick_s: float = 0.1
    shutdown_grace_s: float = 30.0
    forward: str | None = None
    capture_content: bool | None = None
    max_connections: int = 512
    """Open HTTP connections served at once; more are answered 503 and closed."""
    max_grpc_inflight: int = 64
    """gRPC calls in progress at once (and streams per connection); gRPC refuses more with
    ``RESOURCE_EXHAUSTED``, so at most this many messages of up to ``max_decompressed_bytes``
    are held."""
    services: tuple[str, ...] = ()
    """Judge only runs of these ``service.name`` values (empty: every service)."""
    agents: tuple[str, ...] = ()
    """Judge only runs of these agents (``gen_ai.agent.name``, else the run span's name)."""
    matches: tuple[tuple[str, str], ...] = ()
    """Judge only runs whose run span (else resource) has these attribute values (``--match``;
    all keys must hold, several values for one key: any)."""
    network: NetworkLimits = field(default_factory=NetworkLimits)
    """Timeouts, reserves, byte budgets and the ``/v1/judge`` gate of the receivers."""
    run_deadline_s: float = DEFAULT_RUN_DEADLINE_S
    """Extraction and judging of one run together; the judge gets what extraction left."""
    max_extract_bytes: int = DEFAULT_MAX_EXTRACT_BYTES
    """Most bytes of one run's values extraction reads (the rest cut, the run flagged)."""
    max_judge_pairs: int = DEFAULT_MAX_JUDGE_PAIRS
    """Most claims times evidence rows one run may bring to the judge; a run over it is skipped
    (``judging_budget``) before any judge starts. 0: no bound."""
    model_token_budget: int = 0
    """Tokens a model judge may use in any 60 s; past it runs are judged offline only
    (:mod:`gsar_otel.sidecar.model_budget`). 0: no budget."""
    include_unverified: bool = False
    """Keep history-only tool results (a ``role: tool`` message with no call in the trace) as
    evidence, marked ``#unverified``; by default they are left out and counted."""
    log_verdicts: bool = False
    """One line on stderr per judged run (``--log-verdicts``)."""
    capture_cases: str | None = None
    """Directory judged runs are written into as case-file lines (``--capture-cases``)."""
    capture_rate: float = 1.0
    """Share of judged runs captured, decided on the trace id (``--capture-rate``)."""

    def __post_init__(self) -> None:
        for name in ("queue_size", "concurrency", "max_body_bytes", "max_decompressed_bytes",
                     "max_connections", "max_grpc_inflight", "max_extract_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
        for name in ("max_judge_pairs", "model_token_budget", "judge_processes", "malloc_arenas"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
        for name in ("http_port", "grpc_port"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 65535:
                raise ValueError(f"{name} must be a port in [0, 65535], got {value!r}")
        for name in ("sample_rate", "capture_rate"):
            value = getattr(self, name)
            if isinstance(value, bool) or not (isinstance(value, int | float) and 0 <= value <= 1):
                raise ValueError(f"{name} must be in [0, 1], got {value!r}")
        for name in ("tick_s", "shutdown_grace_s", "run_deadline_s"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
                raise ValueError(f"{name} must be a positive number, got {value!r}")
