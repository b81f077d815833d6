"""The records of typed anchors: what kind a checkable token is, and how two of them agree.

Kept apart from the reader (:mod:`gsar_otel.core.anchor.scan`) and the comparison
(:mod:`gsar_otel.core.anchor.compare`) so that both can use them without importing each other;
:mod:`gsar_otel.core.anchors` is the public face of all three.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class AnchorKind(StrEnum):
    """What a checkable token of a text is. A token is a number only when it is one."""

    NUMBER = "number"
    """A plain number, possibly with a unit: ``42``, ``3.5 GB``, ``1,024 req/s``, ``-7``."""
    PERCENT = "percent"
    """``41.2%``, ``97 %``, ``41.2 percent``."""
    CLOCK = "clock"
    """``10:15``, ``10:15:32``, ``10:15:32.120``, with an optional zone (``UTC``, ``Z``,
    ``+02:00``) or ``am``/``pm``."""
    TIMESTAMP = "timestamp"
    """``2024-05-01T10:15:32Z``, ``2024-05-01 10:15:32 UTC``."""
    DATE = "date"
    """``2024-05-01``, ``May 1, 2024``, ``1 May 2024``, ``05/01/2024``, ``March 5``."""
    DURATION = "duration"
    """``3m20s``, ``250 ms``, ``2h``, ``1.5 seconds``, ``30s``, ``a 5-minute outage``."""
    VERSION = "version"
    """``v2.3.1``, ``2.3.1``, ``1.28.0-rc1``."""
    IPV4 = "ipv4"
    """``10.0.0.12``, ``10.0.0.0/8``."""
    IPV6 = "ipv6"
    """``2001:db8::1``, ``::1``."""
    PORT = "port"
    """``:8080`` after a host or address, ``port 5432``, ``port=5432``."""
    HTTP_STATUS = "http_status"
    """``503``, ``404`` next to HTTP, status, code or error words, or as a ``status=`` value."""
    HTTP_CLASS = "http_class"
    """``5xx``, ``4XX``."""
    PERCENTILE = "percentile"
    """``p99``, ``p50``, ``P99.9``, ``99th percentile``."""
    IDENTIFIER = "identifier"
    """``cfg-7781``, ``A-5520``, ``INC-123``, UUIDs, hex ids of 7 or more characters, and any
    other token mixing letters and digits."""
    HOST = "host"
    """``edge-lb-3``, ``db-prod-1.example.com``, ``api.internal``, or any value of a ``host=``."""
    QUOTED = "quoted"
    """Several words in double quotes, or anything in backticks: ``"connection refused"``."""
    NAME = "name"
    """Two to four capitalised words not at the start of a sentence: ``Acme Corp``."""


@dataclass(frozen=True, slots=True)
class Anchor:
    """One checkable token of a text, as written and normalised.

    ``value`` is a float for NUMBER and PERCENT (a percentage as 41.2, not 0.412), seconds for
    DURATION, seconds since midnight (as written, before any zone) for CLOCK, an ISO string for
    DATE (``--05-01`` when no year is written) and TIMESTAMP (in UTC, with ``Z``, when a zone is
    given), a tuple of ints and a suffix string for VERSION (``(1, 28, 0, "rc1")``), and a
    lower-cased string otherwise (``"5xx"``, ``"p99"``, ``"8080"``, ``"503"``).
    """

    kind: AnchorKind
    text: str
    """The surface form (with its unit and zone, e.g. ``3.5 GB``, ``10:15:32 UTC``)."""
    value: object
    unit: str | None
    """``ms``, ``gb``, ``req/s``, ``%`` ...; the zone as written for CLOCK and TIMESTAMP."""
    start: int
    end: int
    key: str | None
    """The key this value belongs to in ``key=value`` or ``key: value`` text, lower-cased."""
    qualifier: str | None = None
    """How loosely a number is meant: ``about``, ``nearly``, ``over``, ``under``, ``at_least``
    or ``at_most`` (from ``about``, ``~``, ``more than``, ``<`` ... written before it)."""


class Agreement(StrEnum):
    """How a claim's anchor stands to an evidence anchor."""

    MATCH = "match"
    """Comparable, and the evidence value is the claim's value as written (within rounding)."""
    CONFLICT = "conflict"
    """Of the same kind (comparable), and different."""
    UNRELATED = "unrelated"
    """Not comparable: different kinds (a time never contradicts a percentage) or units."""
