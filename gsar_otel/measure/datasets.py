"""Labelled grounding data for ``gsar bench``: the file format, reading it, and the splits.

The data format (one JSON object per line) has ``id``, ``evidence`` (what every entry point
takes: a string of one item per line, or a list of strings, ``{id, content}`` objects or tool
rows; see :func:`gsar_otel.core.evidence.coerce_evidence`), ``synthesis``,
``answer_label`` (``faithful`` | ``unfaithful``) and optionally ``claims`` (``text`` and
``label``: grounded | ungrounded | contradicted | complementary | unclear | partially_supported).

Every example belongs to the ``dev`` or the ``heldout`` split by a hash of its ``pair`` when it
has one (rows that share evidence, such as a right and a hallucinated summary of one article, stay
on the same side), else of its ``id``; the split never changes as a file grows or is reordered.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from gsar_otel.core.evidence import EvidenceSet, coerce_evidence
from gsar_otel.core.json_input import JSONTooDeep, load_json

AnswerLabel = Literal["faithful", "unfaithful"]
Split = Literal["dev", "heldout"]
SplitChoice = Literal["all", "dev", "heldout"]

ANSWER_LABELS: Final = ("faithful", "unfaithful")
CLAIM_LABELS: Final = (
    "grounded", "ungrounded", "contradicted", "complementary", "unclear", "partially_supported")
HELDOUT_PERCENT: Final = 30
"""Share of examples (by a hash of their pair, else their id) kept out of tuning."""
SPLIT_RULE: Final = ("heldout iff int.from_bytes(sha256(pair if present else id)[:8], 'big') "
                     f"% 100 < {HELDOUT_PERCENT}")
"""The split rule in words, for reports and trained models that must name it."""


@dataclass(frozen=True, slots=True)
class LabelledClaim:
    """One human-labelled claim of an answer."""

    text: str
    label: str


@dataclass(frozen=True, slots=True)
class BenchExample:
    """One labelled answer with its evidence."""

    id: str
    evidence: Any
    """As written in the data: a string, or a list (see :func:`coerce_evidence`)."""
    synthesis: str
    answer_label: AnswerLabel
    claims: tuple[LabelledClaim, ...] = ()
    pair: str | None = None
    """Rows with the same pair share evidence and always land in the same split."""

    @property
    def evidence_set(self) -> EvidenceSet:
        """The evidence as the judge sees it (checked when the example was read)."""
        return coerce_evidence(self.evidence)

    @property
    def evidence_text(self) -> str:
        """The evidence as one text (the items' contents, one a line), for the baselines."""
        if isinstance(self.evidence, str):
            return self.evidence
        return "\n".join(item.content for item in self.evidence_set)

    @property
    def split_key(self) -> str:
        """What decides the split: the pair when there is one, else the id."""
        return self.pair or self.id

    @property
    def split(self) -> Split:
        """``dev`` or ``heldout``, fixed by :attr:`split_key` (see :func:`split_of`)."""
        return split_of(self.split_key)

    @property
    def faithful(self) -> bool:
        """True when the answer is labelled faithful."""
        return self.answer_label == "faithful"


def split_of(key: str) -> Split:
    """The split of an example's key (its pair, else its id): a SHA-256 of it puts about 30%
    into ``heldout``."""
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return "heldout" if int.from_bytes(digest[:8], "big") % 100 < HELDOUT_PERCENT else "dev"


def load_examples(path: str | Path) -> list[BenchExample]:
    """Read a ``.jsonl`` file of labelled examples.

    Raises:
        ValueError: a line is not JSON or lacks a field, naming the line and the field.
        OSError: the file cannot be read.
    """
    examples = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                examples.append(parse_example(line, where=f"{path}:{number}"))
    return examples


def parse_example(line: str, *, where: str = "input") -> BenchExample:
    """One example from one JSON line.

    Raises:
        ValueError: naming ``where`` and the bad field.
    """
    try:
        data = load_json(line)
    except JSONTooDeep as error:
        raise ValueError(f"{where}: {error}") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"{where}: not valid JSON ({error.msg})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{where}: each line must be a JSON object")
    for name in ("id", "synthesis"):
        if not isinstance(data.get(name), str):
            raise ValueError(f"{where}: field {name!r} must be a string")
    if "evidence" not in data or data["evidence"] is None:
        raise ValueError(f"{where}: field 'evidence' is missing: a string, or a list of strings "
                         "or {id, content} objects")
    try:
        coerce_evidence(data["evidence"])
    except ValueError as error:
        raise ValueError(f"{where}: field 'evidence': {str(error).splitlines()[0]}") from None
    label = data.get("answer_label")
    if label not in ANSWER_LABELS:
        raise ValueError(f"{where}: field 'answer_label' must be one of {list(ANSWER_LABELS)}, "
                         f"got {label!r}")
    claims = []
    raw_claims = data.get("claims") or []
    if not isinstance(raw_claims, list):
        raise ValueError(f"{where}: field 'claims' must be a list")
    for position, claim in enumerate(raw_claims):
        if not (isinstance(claim, dict) and isinstance(claim.get("text"), str)
                and claim.get("label") in CLAIM_LABELS):
            raise ValueError(f"{where}: claims[{position}] needs 'text' and a 'label' in "
                             f"{list(CLAIM_LABELS)}")
        claims.append(LabelledClaim(claim["text"], claim["label"]))
    pair = data.get("pair")
    if pair is not None and not isinstance(pair, str):
        raise ValueError(f"{where}: field 'pair' must be a string when present")
    return BenchExample(data["id"], data["evidence"], data["synthesis"], label, tuple(claims),
                        pair=pair or None)


def select(examples: Sequence[BenchExample], split: SplitChoice,
           limit: int | None = None) -> list[BenchExample]:
    """The examples of ``split`` (all, dev or heldout), at most ``limit`` of them, in file order."""
    chosen = [e for e in examples if split == "all" or e.split == split]
    return chosen if limit is None else chosen[:limit]
