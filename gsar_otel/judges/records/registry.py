"""The registry: every claim rule, in the order their checks are reported, and the one loop
that checks a claim by them. A new rule is a class with ``name``, ``applies`` and ``check``
(:class:`gsar_otel.judges.records.rules.ClaimRule`) and one entry here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from gsar_otel.judges.records.actors import ActorRule
from gsar_otel.judges.records.causes import CauseRule
from gsar_otel.judges.records.claims import ClaimText
from gsar_otel.judges.records.compare import (
    ComparativeRule,
    ComparisonRule,
    RelationRule,
    SuperlativeRule,
)
from gsar_otel.judges.records.index import RecordIndex
from gsar_otel.judges.records.rules import (
    Check,
    ClaimRule,
    MomentRule,
    NameRule,
    ValueRule,
)
from gsar_otel.judges.records.states import FlagRule, NoneRule, PredicateRule, StateRule
from gsar_otel.judges.records.subjects import Subjects, subjects_of

RULES: Final[Sequence[ClaimRule]] = (ValueRule(), MomentRule(), NameRule(), StateRule(),
                                     PredicateRule(), NoneRule(), FlagRule(), CauseRule(),
                                     ComparisonRule(), ComparativeRule(), SuperlativeRule(),
                                     RelationRule(), ActorRule())
"""Every rule: values, moments, names, states, negated predicates, counts of what did not
happen, what is there where a record holds nothing, causes, directions of change, comparisons
between two sides, extremes of a table's rows, relations between the claim's own values,
actors."""


def check_claim(claim: ClaimText, index: RecordIndex, inherited: frozenset[int] = frozenset(),
                opened: frozenset[int] = frozenset()) -> tuple[list[Check], Subjects]:
    """Every check of every rule that applies to ``claim``, and the records it spoke of."""
    subjects = subjects_of(claim, index, inherited, opened)
    return [check for rule in RULES if rule.applies(claim)
            for check in rule.check(claim, subjects, index)], subjects
