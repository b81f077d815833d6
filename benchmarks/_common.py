"""Shared helpers for the benchmarks: sample statistics, the machine description, tables."""

from __future__ import annotations

import math
import os
import platform
import statistics
import sys
from collections.abc import Iterable, Sequence
from importlib import metadata
from typing import Any

PACKAGES = ("gsar-otel", "opentelemetry-api", "opentelemetry-sdk", "pydantic", "anthropic",
            "pluggy", "pytest", "pytest-xdist")


def quantile(values: Sequence[float], q: float) -> float:
    """The ``q``-quantile of ``values`` (linear interpolation between ranks)."""
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def summarize(samples: Sequence[float]) -> dict[str, float]:
    """Median, p95, IQR, mean and standard deviation of ``samples``, plus their count."""
    return {
        "median": statistics.median(samples),
        "p95": quantile(samples, 0.95),
        "iqr": quantile(samples, 0.75) - quantile(samples, 0.25),
        "mean": statistics.fmean(samples),
        "stdev": statistics.stdev(samples) if len(samples) > 1 else 0.0,
        "n": len(samples),
    }


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo (or what the platform module knows)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine() -> dict[str, Any]:
    """The machine and package versions a result was measured with."""
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "os": platform.platform(),
        # Other work on the machine skews timings; the load is kept with the numbers.
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "packages": versions,
    }


def table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A plain-text table, first column left-aligned, the others right-aligned."""
    body = [list(map(str, row)) for row in rows]
    widths = [max(len(str(h)), *(len(r[i]) for r in body)) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths, strict=True)))

    return "\n".join([line(headers), line(["-" * w for w in widths]), *map(line, body)])


def verdict(passed: bool) -> str:
    """PASS or MISS."""
    return "PASS" if passed else "MISS"
