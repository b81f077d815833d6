"""Stage 4: the invariants, checked per claim against its aligned facts. Rules, not scores.

A claim is grounded only when every subject, typed value and categorical value it states is
found in its aligned facts (within the rounding and unit conversions of
:func:`gsar_otel.core.anchors.compare_anchors`):

- another value for the same key and subject, the opposite category, "no X" where X is logged,
  or a negated statement of what a fact states plainly is a CONFLICT (contradicted);
- a subject, name or value found nowhere, a value found only for another subject, a category no
  fact about the subject states, a prediction or a cause no fact states is ABSENT (ungrounded);
- the coverage backstop: a claim whose content words are nearly all absent from its support is
  ABSENT whatever else matched (the answer's paraphrase budget, :func:`.verdicts.budget_pass`,
  bounds the words its claims add in all).

Each check carries a reason a person can act on ("says failed; E9 has status=succeeded").
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from gsar_otel.core.anchor.derived import stated_difference
from gsar_otel.core.text import words
from gsar_otel.judges.staged.absence import check_absence
from gsar_otel.judges.staged.aggregates import (
    check_only,
    check_ordinal,
    check_superlative,
    check_total,
    line_count,
)
from gsar_otel.judges.staged.alignment import (
    Alignment,
    FactIndex,
    numbered_records,
    typed_records,
)
from gsar_otel.judges.staged.anchoring import NAMING_KINDS as _TYING  # what a claim is about
from gsar_otel.judges.staged.anchoring import STATUS_CODE, agree, comparable, digits, shape
from gsar_otel.judges.staged.categories import compatible
from gsar_otel.judges.staged.cells import check_cells
from gsar_otel.judges.staged.check_model import Check
from gsar_otel.judges.staged.claims import (
    ClaimSlots,
    Value,
)
from gsar_otel.judges.staged.differences import (
    comparison_of,
    difference_of,
    written_as_change,
)
from gsar_otel.judges.staged.events import check_event_time, check_span, check_state_now
from gsar_otel.judges.staged.facts import Fact
from gsar_otel.judges.staged.keyed import (
    agreement,
    expanded,
    keyed_fields,
    measure_words,
    other_measure,
)
from gsar_otel.judges.staged.levels import check_level
from gsar_otel.judges.staged.lexicon import WINDOW
from gsar_otel.judges.staged.modality import check_modality
from gsar_otel.judges.staged.pairs import check_pairs
from gsar_otel.judges.staged.plain_names import check_plain_names
from gsar_otel.judges.staged.polarity import check_polarity
from gsar_otel.judges.staged.quantifiers import check_quantifier, record_count
from gsar_otel.judges.staged.ranges import check_order, check_range, ranges_of
from gsar_otel.judges.staged.replacement import replaced
from gsar_otel.judges.staged.scope import check_scope
from gsar_otel.judges.staged.textual import line_level
from gsar_otel.judges.staged.together import check_together
from gsar_otel.judges.staged.word_values import check_method, check_word_values
from gsar_otel.judges.staged.years import years_check

TIME_KINDS: Final = frozenset({"CLOCK", "TIMESTAMP"})
PROSE_CONFLICT_COVERAGE: Final = 0.6
"""Share of a claim's words a prose fact must hold before its other value contradicts it."""
COVERAGE_BACKSTOP: Final = 0.1
"""Under a tenth of a claim's content words in its support: not grounded. Chosen with the
paraphrase budget (:data:`~gsar_otel.judges.staged.verdicts.PARAPHRASE_BUDGET`), which bounds
the words an answer's claims add in absolute terms, by ``benchmarks/lodo.py`` on all
development domains by the worst domain's margin over the bag-of-words and length rules."""


def check_value(place: int, value: Value, slots: ClaimSlots, alignment: Alignment,
                index: FactIndex) -> tuple[Check, ...]:
    """A typed value: matched in a focus fact (by its key where the claim names one); an era,
    age or span of years read off the years of the aligned facts (an age cites its birth
    record beside its event)."""
    order = (*alignment.focus, *alignment.support, *alignment.about, *alignment.related)
    years = years_check(slots.text, value.spec, expanded(value.key_stems),
                        expanded(slots.stems | value.key_stems | frozenset(slots.names)),
                        lambda: [index.facts[p] for p in dict.fromkeys(order)])
    if years is not None and years.plain:  # an age with no record to read it off
        plain = _plain_value(place, value, slots, alignment, index)
        return (plain if plain.status == "MATCH" else Check("value", "ABSENT", years.reason),)
    if years is not None:  # "in the 1980s", "in his 40s", "for 44 years": years, not numbers
        held = [f for f in (years.fact, years.birth) if f is not None]
        found = tuple(Check("value", years.status, years.reason, f.ref, f.position) for f in held)
        return found or (Check("value", years.status, years.reason),)
    plain = _plain_value(place, value, slots, alignment, index)
    if plain.status == "ABSENT" and value.spec.kind == "DURATION":  # "the outage lasted 15m"
        plain = check_span(value, slots, alignment, index) or plain
    stated = stated_difference(slots.text, value.spec.raw)
    if stated is None or (
            plain.status == "MATCH" and plain.position is not None
            and written_as_change(index.facts[plain.position], value.spec)):
        return (plain,)
    # "by 2.4 points": the gap between two rows the claim names, not a value that happens to
    # be 2.4 (a score of 2.4 is no change of 2.4)
    refs = {index.facts[p].ref for p in order}
    gap = difference_of(value, slots, [f for f in index.facts if f.ref in refs])
    if stated.year_like and (gap is None or not gap.matches):  # "rose by 2012": by that year?
        return (plain if plain.status == "MATCH" else Check(
            "value", "ABSENT", f"{value.spec.text} is neither a change two rows the claim names "
            "show nor a year of the evidence"),)
    if gap is not None and not gap.matches:  # a subject's only two samples: another change
        return (Check("value", "CONFLICT", gap.reason, gap.second.ref, gap.second.position,
                      gap.trend),)
    if gap is not None:
        return tuple(Check("value", "MATCH", gap.reason, f.ref, f.position, gap.trend)
                     for f in (gap.first, gap.second))
    # a level of the key is no change of it: neither one equal to it nor one unlike it decides
    return (Check("value", "ABSENT", f"{value.spec.text} is stated as a change, and no two rows "
                  "the claim names differ by it"),)


def _plain_value(place: int, value: Value, slots: ClaimSlots, alignment: Alignment,
                 index: FactIndex) -> Check:
    focus = [index.facts[p] for p in alignment.focus]
    text = value.spec.text
    window = next((f for f in focus for fl in f.fields if text.lower() in fl.key_stems),
                  None) if WINDOW.fullmatch(text) else None
    if window is not None:  # "the 1h burn rate": the window ``burn_rate_1h`` names
        return Check("value", "MATCH", f"{text} names a window of {window.ref}'s keys",
                     window.ref, window.position)
    holders = set(alignment.value_facts.get(place, ()))
    # a measure of the record the claim's address or id names, not of another record ("the
    # error ratio of 10.0.4.18" is not 10.0.4.17's); an address, an id or a class of status
    # ("the 5xx burst") is itself no measure
    tied = [] if slots.subjects or value.spec.kind in _TYING | {"HTTP_CLASS"} else _tied(
        place, slots, alignment, index, holders) or [
        index.facts[p] for p in sorted(typed_records(slots.text, index))]  # "the ERROR lines"
    keyed = keyed_fields(value, tied or focus,
                         slots.stems if len(slots.values) == 1 else frozenset())
    # a field its value cannot be compared with ("24%" beside ``Used=120G``) decides nothing
    if any(agreement(value.spec, spec) != "unrelated" for _, _, spec in keyed):
        for fact, _, spec in keyed:
            if agreement(value.spec, spec) == "match":
                return Check("value", "MATCH", f"{text} matches {fact.ref}", fact.ref,
                             fact.position)
        # the fact that states the rest of the claim holds the value itself: "4 members left"
        # is the rebalance line's, not the group row's ``members=2``; in its words, not under
        # another key (an expiry date is not a row's ``ts``)
        stating = alignment.support[0] if alignment.support else None
        if stating is not None and stating in alignment.value_facts.get(place, ()) \
                and stating in alignment.focus and all(f.position != stating for f, _, _ in keyed) \
                and not any(agreement(value.spec, a) == "match"
                            for fl in index.facts[stating].fields for a in fl.anchors):
            return Check("value", "MATCH", f"{text} matches {index.facts[stating].ref}",
                         index.facts[stating].ref, stating)
        fact, field, _ = next(((f, fl, sp) for f, fl, sp in keyed
                               if agreement(value.spec, sp) == "conflict"), keyed[0])
        return Check("value", "CONFLICT", f"says {text}; {fact.ref} has {field.shown}",
                     fact.ref, fact.position)
    measure = other_measure(value, focus)
    if measure is not None:  # "p95 latency" held only as p99: another measure, not this one
        said = measure_words(value.key_stems)
        return Check("value", "ABSENT", f"says {text} of {said}; {measure[0].ref} has it as "
                     f"{measure[1].shown}, another measure", measure[0].ref)
    first = set(alignment.support[:1])
    # the fact that states the rest of the claim first: a time is the CPU row's, not the alert's
    for fact in sorted(tied or focus, key=lambda f: f.position not in first):
        if fact.position in holders:
            return Check("value", "MATCH", f"{text} matches {fact.ref}", fact.ref,
                         fact.position)
    named = {s.lower() for s in slots.subjects}
    held = sorted(p for p in holders & set(alignment.about) if index.facts[p].subjects & named
                  - {field.key.lower() for field in index.facts[p].fields})
    if held:  # stated of one of the claim's subjects (not only a key named like one: F1)
        return Check("value", "MATCH", f"{text} matches {index.facts[held[0]].ref}",
                     index.facts[held[0]].ref, held[0])
    for fact in tied:
        # "requests to 10.6.4.23:8080 failed with status 500": the line about that address
        # says 503; a 5xx class elsewhere is no status 500
        clash = next((a for a in fact.facts.anchors if (
            a.kind == value.spec.kind and agree(value.spec, a) == "conflict") or (
            value.spec.kind == "HTTP_STATUS" and a.kind == "NUMBER"  # "returned 503"
            and STATUS_CODE.fullmatch(a.text) and a.text != value.spec.text)), None)
        if clash is not None:
            return Check("value", "CONFLICT", f"says {text}; {fact.ref}, about "
                         f"{_tying(slots, fact)}, says {clash.text}", fact.ref, fact.position)
    if holders and not slots.subjects and not tied and not (set(alignment.focus) & numbered_records(
            slots.text, index, own=True)):  # "PID 2210 uses 12.4%": not another PID's
        return Check("value", "MATCH", f"{text} matches {index.facts[min(holders)].ref}",
                     index.facts[min(holders)].ref, min(holders))
    # the same digits under a key of another unit ("15600 minutes" for uptime_s=15600)
    written = digits(value.spec)
    for fact in focus:
        for field in fact.fields:
            if any(digits(a) == written and agree(value.spec, a) == "conflict"
                   for a in field.anchors):
                return Check("value", "CONFLICT", f"says {text}; {fact.ref} has "
                             f"{field.shown}", fact.ref, fact.position)
    if alignment.support:
        lead = index.facts[alignment.support[0]]
        clashing = lead.kind == "prose" and alignment.coverage >= PROSE_CONFLICT_COVERAGE
        # the time of the tool line that states the claim: another time is a wrong time
        clashing = clashing or (value.spec.kind in TIME_KINDS and lead.kind != "prose"
                                and alignment.coverage >= PROSE_CONFLICT_COVERAGE
                                and lead.position in alignment.focus)
        for spec in lead.facts.anchors if clashing else ():
            if comparable(value.spec, spec) and agree(value.spec, spec) == "conflict" \
                    and shape(spec) == shape(value.spec):
                return Check("value", "CONFLICT", f"says {text}; {lead.ref} says "
                             f"{spec.text}", lead.ref, lead.position)
    if holders and (slots.subjects or tied):
        other = index.facts[min(holders)]
        keys = {field.key.lower() for field in other.fields}
        about = [s for s in slots.subjects if s not in keys] or [_tying(slots, tied[0])]
        return Check("value", "ABSENT", f"{text} is in {other.ref}, about "
                     f"{', '.join(sorted(other.subjects - keys)) or 'something else'}, not "
                     f"about {', '.join(about)}", other.ref)
    return Check("value", "ABSENT", f"{text} appears in no evidence item")


def _tied(place: int, slots: ClaimSlots, alignment: Alignment, index: FactIndex,
          holders: set[int]) -> list[Fact]:
    """The focus facts holding one of the claim's other values of a :data:`_TYING` kind, and
    the ``holders`` of the value that are about one (an element of its JSON record's array)."""
    tying = [at for at, v in enumerate(slots.values) if at != place and v.spec.kind in _TYING]
    positions = {p for at in tying for p in alignment.value_facts.get(at, ())}
    names = {slots.values[at].spec.text.lower() for at in tying}
    return [index.facts[p] for p in sorted({*alignment.focus, *holders}) if (
        p in positions and p in alignment.focus) or (
        p in holders and names & {s.lower() for s in index.facts[p].subjects})]


def _tying(slots: ClaimSlots, fact: Fact) -> str:
    return next((v.spec.text for v in slots.values if v.spec.kind in _TYING
                 and v.spec.text.lower() in fact.text.lower()), "what the claim names")


def check_categories(slots: ClaimSlots, alignment: Alignment, index: FactIndex,
                     trends: frozenset[str] = frozenset()) -> list[Check]:
    """Each categorical value against the focus facts' categories on its axis; a direction
    also against the ``trends`` of the claim's matched differences ("rose by 300 ms")."""
    checks: list[Check] = []
    if slots.absent:
        return checks  # "no alerts fired": the absence check decides, not "fired"
    focus = [index.facts[p] for p in alignment.focus]
    if focus and all(f.kind == "prose" for f in focus) and not slots.subjects:
        # "argocd app get checkout" above ``Name: checkout / Health Status: Degraded``: the
        # record whose subject the claim names ("the checkout app") states its state
        focus += [f for f in (index.facts[p] for p in (*alignment.support, *alignment.related))
                  if f.kind != "prose" and f.subjects & set(words(slots.text.lower()))
                  and f not in focus]
    for axis, pole in slots.categories:
        same = next((f for f in focus if (axis, pole) in f.categories), None)
        if same is not None:
            checks.append(Check("category", "MATCH", f"{pole} matches {same.ref}", same.ref,
                                same.position))
            continue
        other = next(((f, c) for f in focus for c in f.categories
                      if c[0] == axis and not compatible(c, (axis, pole))), None)
        if other is not None:
            fact, (_, theirs) = other
            stated = next((fl.shown for fl in fact.fields if (axis, theirs) in fl.categories),
                          theirs)
            checks.append(Check("category", "CONFLICT", f"says {pole.replace('_', ' ')}; "
                                f"{fact.ref} has {stated.replace('_', ' ')}",
                                fact.ref, fact.position))
        elif all(f.kind == "prose" for f in focus):
            continue  # prose paraphrases states freely: only a stated opposite contradicts
        elif (axis, pole) == ("outcome", "failed") and (failing := next((
                f for f in (*focus, *(index.facts[p] for p in alignment.about))
                if f.kind != "prose" and line_level(f.text) == "error"), None)) is not None:
            # "requests to 10.1.18.71:8080 failed with 503" beside an ERROR line about it
            checks.append(Check("category", "MATCH", f"failed: {failing.ref} logs it at level "
                                "error", failing.ref, failing.position))
        elif axis == "direction" and trends:  # the change two samples of the subject show
            shown = "the later sample higher" if "increased" in trends else "the later sample lower"
            checks.append(Check("category", "MATCH" if pole in trends else "CONFLICT",
                                f"says {pole}; {shown}"))
        elif axis == "direction":
            checks.append(Check("category", "ABSENT", f"says {pole.replace('_', ' ')}: a trend "
                                "needs two values or a stated change, and no evidence item "
                                "states one"))
        else:
            checks.append(Check("category", "ABSENT", f"says {pole.replace('_', ' ')}; no "
                                f"evidence item about it states its {axis.replace('_', ' ')}"))
    for axis, pole in slots.denied:  # "did not fail": held by a record's other pole of the axis
        other = next(((f, c) for f in focus for c in f.categories if c == (axis, pole)),
                     None) or next(((f, c) for f in focus if f.kind != "prose"
                                    for c in f.categories if c[0] == axis), None)
        if other is not None:
            fact, category = other
            stated = next((fl.shown for fl in fact.fields if category in fl.categories),
                          category[1])
            checks.append(Check("category", "CONFLICT" if category[1] == pole else "MATCH",
                                f"says not {pole.replace('_', ' ')}; {fact.ref} has {stated}",
                                fact.ref, fact.position))
    return checks


MIN_REASON_PART: Final = 5


def _reason_part(subject: str, about: list[Fact]) -> bool:
    """"NotReady" for a node whose event reason is ``NodeNotReady``: a CamelCase reason named
    without its leading word, in a fact about the claim's other subjects."""
    return (len(subject) >= MIN_REASON_PART and subject.isalpha()
            and any(token != subject and token.endswith(subject)
                    for fact in about for token in fact.tokens))


def check_claim(slots: ClaimSlots, alignment: Alignment, index: FactIndex,
                coverage: float) -> list[Check]:
    """Every invariant for one claim, in a fixed order."""
    checks: list[Check] = []
    about = [index.facts[p] for p in alignment.about]
    for subject in (*slots.subjects, *slots.names):
        if subject not in alignment.found_subjects:
            if _reason_part(subject, about):
                continue
            other = replaced(subject, slots, about, alignment, index)
            checks.append(Check("subject", "CONFLICT", f"says {subject}; {other[0].ref} has "
                                f"{other[1]}", other[0].ref, other[0].position) if other
                          else Check("subject", "ABSENT", f"{subject} appears in no evidence item"))
    modality = check_modality(slots, alignment, index)
    if modality is not None:
        checks.append(modality)
    if slots.modality != "prediction" or (modality is not None and modality.status == "MATCH"):
        # a predicted value is no measurement to compare, but a stated prediction's values are
        ranges = ranges_of(slots)
        # "3 pods restarted", "logged 3 resets": a count of records or lines; "8 in total"
        counted = record_count(slots, index) or line_count(slots, alignment, index)
        total = check_total(slots, alignment, index)
        paired, done = check_pairs(slots, alignment, index)  # "3/3 ready" beside READY=1/3
        checks.extend(paired)
        if paired:  # "0/1 replicas ready": the pair says how many are, not that all are
            slots = replace(slots, categories=tuple(
                c for c in slots.categories if c[0] not in ("readiness", "availability")))
        for aggregate in (counted, total):
            if aggregate is not None:
                checks.append(aggregate[0])
        by_place: dict[int, tuple[Check, ...]] = {}
        for place, v in enumerate(slots.values):
            if place in done or (counted is not None and v.spec.raw.start == counted[1]) or (
                    total is not None and place == total[1]):
                continue
            if place in ranges:  # "between 80 and 90%": one range, not two values
                end, stated = ranges[place]
                found = check_range(stated, v, slots.values[end],
                                    [index.facts[p] for p in alignment.focus])
                if found is not None:
                    checks.extend(found)
                    done.add(end)
                    continue
            by_place[place] = check_value(place, v, slots, alignment, index)
            checks.extend(by_place[place])
        together = check_together(slots, by_place, index)  # 97% "at 14:01": the 14:01 row's
        if together is not None:
            checks.append(together)
    if not slots.values:  # "api-1 had higher CPU than api-2": the order of two named rows
        refs = {index.facts[p].ref for p in (*alignment.focus, *alignment.about)}
        compared = comparison_of(slots, index.facts if not slots.subjects and " than " in
                                 slots.text else [f for f in index.facts if f.ref in refs])
        if compared is not None:
            checks.append(Check("value", "MATCH" if compared.matches else "CONFLICT",
                                compared.reason, compared.second.ref, compared.second.position))
    checks.extend(check_categories(slots, alignment, index,
                                   frozenset(c.trend for c in checks if c.trend)))
    checks.extend(check_absence(slots, alignment, index))
    checks.extend(check_word_values(slots, alignment, index))
    checks.extend(check_cells(slots, alignment, index))
    checks.extend(check_method(slots, index))
    checks.extend(check_plain_names(slots, index))
    checks.extend(check_event_time(slots, alignment, index))
    checks.extend(check_state_now(slots, alignment, index))
    for extra in (check_polarity(slots, alignment, index), check_level(slots, alignment, index),
                  check_order(slots, [index.facts[p] for p in dict.fromkeys(
                      (*alignment.focus, *alignment.support))]),
                  check_quantifier(slots, alignment, index),
                  check_only(slots, alignment, index), check_ordinal(slots, alignment, index),
                  check_superlative(slots, alignment, index),
                  check_scope(slots, alignment, index)):
        if extra is not None:
            checks.append(extra)
    if alignment.coverage < coverage:
        shown = ", ".join(alignment.missing[:4])
        checks.append(Check("coverage", "ABSENT", f"the evidence lacks {shown} "
                            f"({alignment.coverage:.0%} of the claim's words found)"))
    return checks
