"""Parsers of setting values (from a variable or a settings-file key), shared by
:mod:`gsar_otel.environment`, :mod:`gsar_otel.config` and the sidecar's settings: each returns
the value or raises a :class:`SettingsError` naming where it came from and what is allowed.

Cheap to import (the models and pydantic load when a weight map or a policy is parsed), so
reading the environment never loads them: the background worker reads its exit budget from a
process that may never have judged anything."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Final
from urllib.parse import urlsplit

from gsar_otel.errors import GSARError

_TRUE: Final = frozenset({"1", "true", "yes", "on"})
_FALSE: Final = frozenset({"0", "false", "no", "off"})


class SettingsError(ValueError, GSARError):
    """A setting is invalid; the message names the variable or file key and the allowed values."""


def parse_bool(source: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise SettingsError(f"{source} must be true or false (also 1/0, yes/no, on/off), "
                        f"got {value!r}")


def _parse_unit(source: str, value: object) -> float:
    number: float
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            raise SettingsError(f"{source} must be a number in [0, 1], got {value!r}") from None
    elif isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    else:
        raise SettingsError(f"{source} must be a number in [0, 1], got {value!r}")
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        raise SettingsError(f"{source} must be a number in [0, 1], got {value!r}")
    return number


def int_parser(minimum: int, maximum: int | None = None) -> Callable[[str, object], int]:
    """A parser of an integer setting in [minimum, maximum] (a string or an int, not a bool)."""
    def parse(source: str, value: object) -> int:
        number: int | None = None
        if isinstance(value, str):
            try:
                number = int(value.strip())
            except ValueError:
                number = None
        elif isinstance(value, int) and not isinstance(value, bool):
            number = value
        if number is None or number < minimum or (maximum is not None and number > maximum):
            bound = f"in [{minimum}, {maximum}]" if maximum is not None else f">= {minimum}"
            raise SettingsError(f"{source} must be an integer {bound}, got {value!r}")
        return number

    return parse


def _parse_name(source: str, value: object) -> str | None:
    if not isinstance(value, str):
        raise SettingsError(f"{source} must be a string, got {value!r}")
    cleaned = value.strip()
    return cleaned or None


def _parse_judge(source: str, value: object) -> str | None:
    name = _parse_name(source, value)
    return name.lower() if name else None


def _parse_weight_map(source: str, value: object) -> dict[str, float]:
    from gsar_otel.core.model import EvidenceType

    if not isinstance(value, Mapping):
        raise SettingsError(f"{source} must be a table of evidence type to weight, got {value!r}")
    allowed = [t.value for t in EvidenceType]
    weights: dict[str, float] = {}
    for key, weight in value.items():
        if key not in allowed:
            raise SettingsError(f"{source} key {key!r} is not an evidence type; allowed: "
                                f"{', '.join(allowed)}")
        weights[str(key)] = _parse_unit(f"{source}.{key}", weight)
    return weights


def _parse_policy(source: str, value: object) -> str:
    from gsar_otel.core.scoring import POLICIES

    policy = value.strip().lower() if isinstance(value, str) else value
    if policy not in POLICIES:
        raise SettingsError(f"{source} must be one of {', '.join(POLICIES)}, got {value!r}")
    return str(policy)


def _parse_dispute_policy(source: str, value: object) -> str:
    from gsar_otel.core.scoring import DISPUTE_POLICIES

    policy = value.strip().lower() if isinstance(value, str) else value
    if policy not in DISPUTE_POLICIES:
        raise SettingsError(f"{source} must be one of {', '.join(DISPUTE_POLICIES)}, "
                            f"got {value!r}")
    return str(policy)


def seconds_parser(minimum: float) -> Callable[[str, object], float]:
    """A parser of a duration in seconds >= ``minimum`` (a string or a number, not a bool)."""
    def parse(source: str, value: object) -> float:
        number = value
        if isinstance(value, str):
            try:
                number = float(value.strip())
            except ValueError:
                number = None
        if (isinstance(number, bool) or not isinstance(number, int | float)
                or not math.isfinite(number) or number < minimum):
            raise SettingsError(f"{source} must be a number of seconds >= {minimum:g}, "
                                f"got {value!r}")
        return float(number)

    return parse


def parse_text(source: str, value: object) -> str:
    """A non-empty string, stripped."""
    if not isinstance(value, str) or not value.strip():
        raise SettingsError(f"{source} must be a non-empty string")
    return value.strip()


def parse_url(source: str, value: object) -> str:
    """An http(s) URL with a host."""
    text = parse_text(source, value)
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise SettingsError(f"{source} must be an http(s) URL such as "
                            f"http://collector:4318/v1/traces, got {text!r}")
    return text


def parse_secret(source: str, value: object) -> str:
    """A non-empty string whose value no message shows (a token, a key)."""
    if not isinstance(value, str) or not value.strip():
        raise SettingsError(f"{source} must be a non-empty string (value not shown)")
    return value.strip()
