"""Synthetic graded sets whose true thresholds (and rho) are known, for calibration tests."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from gsar_otel.core.model import Claim, Partition
from gsar_otel.core.scoring import gsar_score

_NOISE_FLIP = {"proceed": "regenerate", "regenerate": "replan", "replan": "regenerate",
               "ok": "not_ok", "not_ok": "ok"}


def random_partition(rng: random.Random, *, max_grounded: int = 12, max_ungrounded: int = 6,
                     max_contradicted: int = 3) -> Partition:
    """A partition with random bucket sizes (so S takes many values): grounded tool_match
    claims, ungrounded and contradicted inferences, which no decision policy
    caps, so S alone decides (the caps are tested in test_calibration_caps.py)."""

    def claims(prefix: str, count: int, kind: str) -> list[Claim]:
        return [Claim(f"{prefix} claim {i}", kind, ["E1"]) for i in range(count)]

    return Partition(
        grounded=claims("grounded", rng.randint(0, max_grounded), "tool_match"),
        ungrounded=claims("ungrounded", rng.randint(0, max_ungrounded), "inference"),
        contradicted=claims("contradicted", rng.randint(0, max_contradicted), "inference"),
    )


def true_label(score: float, *, proceed: float, regenerate: float, binary: bool) -> str:
    """The grade the known thresholds give a score."""
    if binary:
        return "ok" if score >= proceed else "not_ok"
    if score >= proceed:
        return "proceed"
    return "regenerate" if score >= regenerate else "replan"


def graded_rows(
    count: int, *, proceed: float, regenerate: float, rho: float = 0.5, binary: bool = False,
    noise: float = 0.0, seed: int = 0,
) -> list[dict[str, Any]]:
    """``count`` graded lines (partition + label) graded by the known thresholds and rho.

    With ``noise`` > 0 that share of grades is flipped to a neighbouring grade, as human graders
    disagree with any rule now and then.
    """
    rng = random.Random(seed)
    rows = []
    for i in range(count):
        partition = random_partition(rng)
        score = gsar_score(partition, contradiction_penalty=rho)
        label = true_label(score, proceed=proceed, regenerate=regenerate, binary=binary)
        if noise and rng.random() < noise:
            label = _NOISE_FLIP[label]
        rows.append({"id": f"answer-{i}", "partition": partition.model_dump(mode="json"),
                     "label": label})
    return rows


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Write ``rows`` one JSON object per line."""
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path
