"""What the receivers need of the service they feed (:class:`ReceiverApp`): the token check,
backpressure, the byte budget, the counts, and somewhere to put what they decoded.

The OTLP/HTTP and OTLP/gRPC receivers are written against this protocol, never against the
concrete server (:class:`gsar_otel.sidecar.server.Sidecar` satisfies it), so intake depends on
nothing above it and a receiver can be driven by any object that answers these calls.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, Protocol

from gsar_otel.sidecar.intake.admission import ByteBudget, NetworkLimits
from gsar_otel.sidecar.intake.spans import Decoded


class ReceiverConfig(Protocol):
    """The settings the receivers read (a :class:`~gsar_otel.sidecar.config.SidecarConfig`)."""

    @property
    def token(self) -> str | None: ...
    @property
    def max_body_bytes(self) -> int: ...
    @property
    def max_decompressed_bytes(self) -> int: ...
    @property
    def max_connections(self) -> int: ...
    @property
    def max_grpc_inflight(self) -> int: ...
    @property
    def network(self) -> NetworkLimits: ...


class ReceiverCounts(Protocol):
    """Where a refusal is counted (``rejected_*``) and ``/metrics`` is read from."""

    def spans(self, reason: str, n: int = 1) -> None: ...
    def note(self, name: str, reason: str, n: int = 1) -> None: ...
    def prometheus_text(self) -> str: ...


class ReceiverApp(Protocol):
    """The service behind the receivers."""

    @property
    def config(self) -> ReceiverConfig: ...
    @property
    def stats(self) -> ReceiverCounts: ...
    @property
    def inflight(self) -> ByteBudget:
        """Request bytes in flight, OTLP/HTTP and OTLP/gRPC alike."""
        ...
    @property
    def grpc_interceptors(self) -> Sequence[Any]:
        """The operator's own ``grpc.aio.ServerInterceptor`` objects."""
        ...

    def authorized(self, header: str | None) -> bool:
        """True when no token is configured or ``header`` is ``Bearer <token>``."""
        ...

    def busy(self) -> bool:
        """Backpressure: answer 429 / ``RESOURCE_EXHAUSTED`` with a retry delay."""
        ...

    def ingest(self, decoded: Decoded) -> list[tuple[str, str]]:
        """Take decoded spans and logs; the (trace id, span id) of forged ones come back."""
        ...

    def forward(self, signal: str, body: bytes, content_type: str, count: int,
                forged: Collection[tuple[str, str]] = ()) -> None:
        """Pass the received request on (in-line placement), the forged spans marked."""
        ...

    async def judge_payload(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /v1/judge``: the result as JSON (ValueError for a payload it cannot read)."""
        ...

    def health(self) -> dict[str, Any]:
        """``GET /healthz``'s JSON body."""
        ...
