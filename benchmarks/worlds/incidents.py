"""Realistic SRE incident cases with true labels, to measure a judge against.

:func:`generate` makes, for every kind, ``cases_per_kind`` cases whose evidence has exactly
``items`` items: the items the answer is about, at random places among unrelated distractors of
the same shapes (metric rows, ``key: value`` blocks, log lines, alerts, deploy records in JSON,
``kubectl get events`` tables, tool results wrapped in JSON, ticket notes, result sets). When the
answer is about more items than ``items``, they are packed into ``items`` multi-line items.

A case of a *faithful* kind (:data:`FAITHFUL_KINDS`) has an answer of true sentences only: it
should proceed. A case of an *unfaithful* kind (:data:`UNFAITHFUL_KINDS`) has exactly one false
sentence, labelled as :data:`FALSE_LABEL` says, alone or beside two to four true ones: it should
not. Every sentence of an answer is one claim, listed in :attr:`IncidentCase.claims` with its
label, so a judge's claims are matched to the labels by their words.

A case depends only on ``seed``, its kind and its number, not on ``items``: the same case at
sizes 1, 10 and 2000 has the same answer and differs only in its distractors.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from benchmarks.worlds.incident_changes import stated_change, wrong_change
from benchmarks.worlds.incident_faults import (
    all_quantifier,
    negated_predicate,
    no_errors_logged,
    prediction,
    unknown_actor,
    unknown_host,
    unknown_service,
    unstated_cause,
    wrong_alert_id,
    wrong_alert_name,
    wrong_severity,
    wrong_state,
    wrong_status,
)
from benchmarks.worlds.incident_kinds import FAITHFUL as SHARED_FAITHFUL
from benchmarks.worlds.incident_kinds import Scene, companions
from benchmarks.worlds.incident_metrics import CONTRADICTED, UNGROUNDED, Said
from benchmarks.worlds.incident_noise import distractor, noise_shape
from benchmarks.worlds.incident_value_faults import (
    other_field_value,
    other_host_ip,
    unit_from_key,
    wrong_time,
    wrong_value,
)
from benchmarks.worlds.incident_world import Item, World
from gsar_otel.core.evidence import (
    DEFAULT_MAX_TOTAL_CHARS,
    Evidence,
    EvidenceSet,
    infer_evidence_type,
)

__all__ = ["FAITHFUL_KINDS", "FALSE_LABEL", "KINDS", "UNFAITHFUL_KINDS", "EvidenceItem",
           "IncidentCase", "LabelledClaim", "generate"]

UNFAITHFUL: Final[dict[str, Callable[[World, int], Scene]]] = {
    "wrong_status": wrong_status, "no_errors_logged": no_errors_logged,
    "wrong_alert_id": wrong_alert_id, "wrong_alert_name": wrong_alert_name,
    "wrong_severity": wrong_severity, "wrong_state": wrong_state, "prediction": prediction,
    "unknown_service": unknown_service, "unknown_actor": unknown_actor,
    "unknown_host": unknown_host, "wrong_value": wrong_value,
    "other_field_value": other_field_value, "unit_from_key": unit_from_key,
    "other_host_ip": other_host_ip, "negated_predicate": negated_predicate,
    "all_quantifier": all_quantifier, "unstated_cause": unstated_cause, "wrong_time": wrong_time,
    "wrong_change": wrong_change,
}
FAITHFUL: Final[dict[str, Callable[[World, int], Scene]]] = {
    **SHARED_FAITHFUL, "stated_change": stated_change}
FAITHFUL_KINDS: Final = tuple(FAITHFUL)
"""Kinds whose answers are all true: a judge should let them proceed."""
UNFAITHFUL_KINDS: Final = tuple(UNFAITHFUL)
"""Kinds whose answers hold one false sentence: a judge should not let them proceed."""
KINDS: Final = FAITHFUL_KINDS + UNFAITHFUL_KINDS
FALSE_LABEL: Final[dict[str, str]] = {
    kind: UNGROUNDED if kind in ("prediction", "unknown_service", "unknown_host",
                                 "unstated_cause") else CONTRADICTED
    for kind in UNFAITHFUL_KINDS}
"""The label of an unfaithful kind's false sentence: ``contradicted`` when the evidence states
the same thing otherwise, ``ungrounded`` when it says nothing either way."""
LABELS: Final = ("grounded", "ungrounded", "contradicted")
EVIDENCE_BUDGET: Final = DEFAULT_MAX_TOTAL_CHARS * 9 // 10
"""Most evidence text of a case: below the library's default limit, so nothing is cut."""


@dataclass(frozen=True, slots=True)
class EvidenceItem:
    """One evidence item of a case."""

    id: str
    """``E1``, ``E2`` ... by position."""
    content: str
    type: str | None
    """An evidence type, or None to let the library infer it from the content."""


@dataclass(frozen=True, slots=True)
class LabelledClaim:
    """One sentence of an answer with its true label."""

    text: str
    """The sentence as it appears in the answer."""
    label: str
    """``grounded``, ``ungrounded`` or ``contradicted``."""
    kind: str
    """The move that made it: the case's kind for its focus sentences, ``exact_restatement``
    for true sentences beside them (``multi_claim`` and ``synthesis`` name their own)."""
    evidence_ids: tuple[str, ...]
    """The items the sentence is about, the one whose value it states first; empty when it
    names something no item mentions."""
    support: tuple[str, ...]
    """Evidence text, verbatim in those items, that the sentence restates (grounded) or
    states otherwise (contradicted)."""
    stated: str
    """The value or phrase of the sentence that carries the claim, verbatim in ``text``."""


@dataclass(frozen=True, slots=True)
class IncidentCase:
    """An answer about an incident, its evidence, and the true label of each sentence."""

    id: str
    kind: str
    faithful: bool
    """True when every sentence is true, so the answer should proceed."""
    evidence: tuple[EvidenceItem, ...]
    answer: str
    claims: tuple[LabelledClaim, ...]
    relevant_ids: tuple[str, ...]
    """Ids of the items about what the answer is about, in evidence order; the other items are
    distractors that mention none of its names."""

    def evidence_set(self) -> EvidenceSet:
        """The evidence as the library takes it, with its ids and types (None inferred)."""
        return EvidenceSet(items=tuple(
            Evidence(id=item.id, content=item.content,
                     type=infer_evidence_type(item.content) if item.type is None else item.type)
            for item in self.evidence))


def generate(*, seed: int, cases_per_kind: int, items: int) -> list[IncidentCase]:
    """``cases_per_kind`` cases of every kind in :data:`KINDS`, each with ``items`` evidence items.

    Raises:
        ValueError: ``cases_per_kind`` is below 0 or ``items`` below 1.
    """
    if isinstance(cases_per_kind, bool) or not isinstance(cases_per_kind, int) \
            or cases_per_kind < 0:
        raise ValueError(f"cases_per_kind must be an integer >= 0, got {cases_per_kind!r}")
    if isinstance(items, bool) or not isinstance(items, int) or items < 1:
        raise ValueError(f"items must be an integer >= 1, got {items!r}")
    return [make_case(seed, kind, index, items)
            for kind in KINDS for index in range(cases_per_kind)]


def make_case(seed: int, kind: str, index: int, items: int) -> IncidentCase:
    """Case number ``index`` of ``kind`` for ``seed``, with ``items`` evidence items.

    Raises:
        ValueError: an unknown kind.
    """
    build = FAITHFUL.get(kind) or UNFAITHFUL.get(kind)
    if build is None:
        raise ValueError(f"unknown kind {kind!r}; kinds: {', '.join(KINDS)}")
    world = World.new(random.Random(f"gsar-incidents/{seed}/{kind}/{index}"))
    scene = build(world, index)
    sentences, own_items = _compose(world, scene, kind in FAITHFUL, index)
    evidence, ids = _lay_out(world, own_items, items)
    claims = tuple(LabelledClaim(
        s.text, s.label, s.kind, tuple(dict.fromkeys(ids[id(item)] for item in s.about)),
        s.support, s.stated) for s in sentences)
    relevant = set(ids.values())
    return IncidentCase(f"{kind}-{index:03d}", kind, kind in FAITHFUL, evidence,
                        " ".join(s.text for s in sentences), claims,
                        tuple(item.id for item in evidence if item.id in relevant))


def _compose(world: World, scene: Scene, faithful: bool,
             index: int) -> tuple[list[Said], list[Item]]:
    """The answer's sentences (the focus kept together, true ones around it) and its items."""
    rng = world.rng
    if faithful:
        count = rng.randint(1, 2) if index % 3 == 2 and len(scene.focus) == 1 else 0
    else:
        count = 0 if index % 3 == 0 else rng.randint(2, 4)
    spare = rng.sample(scene.spare, min(count, len(scene.spare)))
    extra = companions(world, count - len(spare))
    beside = spare + extra.focus
    rng.shuffle(beside)
    cut = rng.randint(0, len(beside))
    sentences = [*beside[:cut], *scene.focus, *beside[cut:]]
    return sentences, [*scene.items, *extra.items]


def _distractors(world: World, like: Sequence[str], count: int, used: int) -> list[Item]:
    """``count`` distractors whose text stays within :data:`EVIDENCE_BUDGET` with ``used``."""
    items: list[Item] = []
    for done in range(count):
        limit = used + (EVIDENCE_BUDGET - used) * (done + 1) // count
        item = distractor(world, like)
        for attempt in range(10):
            if used + len(item.content) <= limit:
                break
            # A log line is short: the fallback that keeps the budget.
            item = distractor(world, like, "log" if attempt == 8 else None)
        items.append(item)
        used += len(item.content)
    return items


def _lay_out(world: World, own: Sequence[Item],
             size: int) -> tuple[tuple[EvidenceItem, ...], dict[int, str]]:
    """``size`` evidence items: the case's own at random places among distractors, or packed
    into ``size`` multi-line items when there are more of them. Returns the items and the id
    each own item ended up in (keyed by ``id(item)``)."""
    rng = world.rng
    if len(own) > size:
        groups = [list(own[start::size]) for start in range(size)]
        laid = [(Item("\n".join(i.content for i in group),
                      group[0].type if len(group) == 1 else None), group) for group in groups]
    else:
        like = sorted({noise_shape(item) for item in own})
        laid = [(item, [item]) for item in own]
        laid += [(item, []) for item in _distractors(world, like, size - len(own),
                                                      sum(len(i.content) for i in own))]
        rng.shuffle(laid)
    evidence, ids = [], {}
    for position, (item, members) in enumerate(laid, start=1):
        evidence.append(EvidenceItem(f"E{position}", item.content, item.type))
        for member in members:
            ids[id(member)] = f"E{position}"
    return tuple(evidence), ids
