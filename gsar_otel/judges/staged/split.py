"""The dev / held-out split of labelled examples, keyed on ``pair`` where present.

Rows sharing evidence share a ``pair`` (HaluEval's right and hallucinated summary of one
article): keying on it keeps both halves on one side. Otherwise the key is the ``id``, as in
:func:`gsar_otel.measure.bench.split_of`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, Final, Literal

HELDOUT_PERCENT: Final = 30
SPLIT_RULE: Final = ("held-out iff int(sha256(pair if present else id).hexdigest()[:8], 16) "
                     f"% 100 < {HELDOUT_PERCENT}")


def split_key(example: Mapping[str, Any]) -> str:
    """The text the split is decided on: the example's ``pair``, else its ``id``."""
    pair = example.get("pair")
    return str(pair) if isinstance(pair, str) and pair else str(example["id"])


def split_of(example: Mapping[str, Any]) -> Literal["dev", "heldout"]:
    """``heldout`` for about 30% of examples, ``dev`` for the rest."""
    digest = hashlib.sha256(split_key(example).encode("utf-8")).hexdigest()
    return "heldout" if int(digest[:8], 16) % 100 < HELDOUT_PERCENT else "dev"
