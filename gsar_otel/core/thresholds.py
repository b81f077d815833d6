"""The rules of a share in [0, 1] and of the decision thresholds, without pydantic.

:class:`~gsar_otel.core.model.GSARThresholds` validates with them, and so does ``@grounded``
when it checks ``thresholds=`` at decoration, where loading pydantic would make decorating
expensive: one rule, one wording, wherever a threshold is checked.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

THRESHOLD_DEFAULTS: Final[Mapping[str, float]] = MappingProxyType(
    {"proceed": 0.80, "regenerate": 0.65})
"""The default decision thresholds."""


def check_unit_interval(name: str, value: object) -> float:
    """Return ``value`` as a float when it is a finite number in [0, 1].

    Raises:
        ValueError: naming ``name`` and the allowed range otherwise.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
    number = float(value)
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        raise ValueError(f"{name} must be a finite number in [0, 1], got {value!r}")
    return number


def check_threshold_order(proceed: float, regenerate: float) -> None:
    """Regenerate may equal proceed (a two-tier mode), never exceed it.

    Raises:
        ValueError: ``regenerate > proceed``, naming both.
    """
    if regenerate > proceed:
        raise ValueError(f"thresholds.regenerate ({regenerate}) must be <= thresholds.proceed "
                         f"({proceed})")
