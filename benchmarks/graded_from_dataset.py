"""Turn a labelled grounding data set into a ``gsar calibrate`` graded file.

Reads the format of ``shared/data/grounding`` (``synthesis``, ``evidence``, ``answer_label``
faithful | unfaithful) and writes one graded line per example: ``ok`` for a faithful answer,
``not_ok`` otherwise. A seeded sample keeps the set at the 100-200 answers a deployment would
grade by hand::

    python benchmarks/graded_from_dataset.py ../shared/data/grounding/wice.jsonl \\
        --limit 200 --seed 0 > wice-graded.jsonl
    gsar calibrate wice-graded.jsonl --judge staged --fit-rho
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path


def main(argv: Sequence[str] | None = None) -> int:
    """Write the graded lines to stdout."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="a labelled .jsonl file")
    parser.add_argument("--limit", type=int, default=200, help="answers to sample (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines()
            if line.strip()]
    random.Random(args.seed).shuffle(rows)
    for row in rows[: args.limit]:
        label = "ok" if row["answer_label"] == "faithful" else "not_ok"
        print(json.dumps({"id": row["id"], "synthesis": row["synthesis"],
                          "evidence": row["evidence"], "label": label}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
