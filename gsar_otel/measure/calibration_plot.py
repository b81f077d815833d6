"""The ``gsar calibrate --plot`` figure: the score distribution by human grade, with the
default and the fitted thresholds. Needs matplotlib (the ``plot`` extra)."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path

from gsar_otel.core.model import GSARThresholds
from gsar_otel.measure.grades import BINARY_LABELS, THREE_WAY_LABELS, GradedScore, LabelScale


def draw_scores(path: Path, examples: Sequence[GradedScore], *, scale: LabelScale,
                fitted: GSARThresholds, rho: float, baseline: GSARThresholds | None = None
                ) -> None:
    """Draw a PNG histogram of S by grade, with the default and fitted thresholds.

    Raises:
        ImportError: matplotlib (the ``plot`` extra) is not installed.
        OSError: the file cannot be written.
    """
    # Imported by name: matplotlib is an optional extra, absent from most installs.
    figure_module = importlib.import_module("matplotlib.figure")
    defaults = baseline or GSARThresholds()
    classes = BINARY_LABELS if scale == "binary" else THREE_WAY_LABELS
    colours = {"proceed": "#2a9d8f", "ok": "#2a9d8f", "regenerate": "#e9c46a",
               "replan": "#e76f51", "not_ok": "#e76f51"}
    bins = [i / 20 for i in range(21)]
    figure = figure_module.Figure(figsize=(8, 4.5))
    axes = figure.subplots()
    for name in classes:
        scores = [e.score(rho) for e in examples if e.label == name and not e.abstained]
        if scores:
            axes.hist(scores, bins=bins, alpha=0.5, color=colours[name],
                      label=f"graded {name} (n={len(scores)})")
    lines = [("tau_proceed", fitted.proceed, defaults.proceed, "#264653"),
             ("tau_regenerate", fitted.regenerate, defaults.regenerate, "#6d597a")]
    for name, value, default, colour in lines:
        kept = scale == "binary" and name == "tau_regenerate"
        label = f"{name} {value:.2f} (band kept)" if kept else f"fitted {name} {value:.2f}"
        axes.axvline(value, color=colour, linestyle="-", label=label)
        axes.axvline(default, color=colour, linestyle=":", label=f"default {name} {default:.2f}")
    abstained = sum(1 for e in examples if e.abstained)
    axes.set_xlabel(f"GSAR score S (rho = {rho:.2f})")
    axes.set_ylabel("answers")
    title = "Score distribution by human grade"
    if abstained:
        title += f" ({abstained} abstained not shown)"
    axes.set_title(title)
    axes.set_xlim(0, 1)
    axes.legend(fontsize="small", loc="upper left")
    figure.savefig(path, format="png", dpi=110, bbox_inches="tight")
