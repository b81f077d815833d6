"""Synthetic, tool-output-shaped grounding cases whose claim labels are true by construction.

Each case is one JSON object in the format of the labelled sets in ``shared/data/grounding``
(see :func:`gsar_otel.measure.datasets.parse_example`): ``id``, ``task`` (``incident``),
``evidence`` (metric rows, log lines, alerts and JSON tool results, one a line), ``synthesis`` (one
to five sentences, one claim each), ``claims`` (``text``, ``label``, ``type``, ``conclusion``),
``answer_label`` and ``meta``. A claim is

- ``grounded`` when it restates a value of the evidence exactly, rounded (``about 41%`` for
  ``41.2%``) or in another unit (``0.412`` as ``41.2%``), a logged event, or a root cause an
  evidence line states;
- ``contradicted`` when it gives the same subject another value of the same kind (a wrong number,
  time, version, status code or address, another host's value), denies a logged event, or names a
  cause other than the one the evidence states;
- ``ungrounded`` when it adds a fact nothing supports (a host or metric the evidence never
  mentions, an action nobody logged) or over-reaches to a conclusion: ``The outage was caused by a
  config push.`` when the evidence only shows a push and, thirty seconds later, an alert.

``type`` is the GSAR evidence type a careful judge gives: the type of the item the claim is
checked against (``tool_match`` for metric rows and log lines, ``signal_match`` for the alert,
``specific_data`` for JSON tool results), ``inference`` for every ungrounded claim.
``conclusion`` is true for causal and conclusion claims. ``meta`` names the scenario, the token
kinds of the evidence, and per claim the move that made it and the kind of value it states.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from benchmarks.worlds.synthetic_scenarios import SCENARIOS, build_world
from benchmarks.worlds.synthetic_templates import (
    CONTRADICTABLE_KINDS,
    SEED_SENTENCE,
    UNSEEN_METRICS,
    Fact,
    cap,
    causal_sentence,
    event_sentence,
    fact_sentence,
    overreach_sentence,
    shown_value,
    true_display,
    with_unit,
    wrong_display,
)
from benchmarks.worlds.synthetic_world import TOKEN_KINDS, World

__all__ = ["CLAIM_LABELS", "SCENARIOS", "TOKEN_KINDS", "generate_cases", "write_cases"]

CLAIM_LABELS: Final = ("grounded", "ungrounded", "contradicted")
FAITHFUL_SHARE: Final = 0.5
"""Share of answers whose claims are all grounded."""
_CLAIM_COUNTS: Final = ((1, 2, 3, 4, 5), (15, 20, 25, 22, 18))
_BAD_COUNTS: Final = ((1, 2, 3), (60, 30, 10))
_BAD_MOVES: Final = {"cause": 30, "wrong_value": 22, "wrong_subject": 8, "negation": 8,
                     "wrong_time": 8, "new_subject": 8, "new_metric": 7, "new_event": 6,
                     "conclusion_overreach": 3}
"""Weights of the moves that make a claim contradicted or ungrounded."""


@dataclass(frozen=True, slots=True)
class _Claim:
    text: str
    label: str
    type: str
    conclusion: bool
    move: str
    kind: str


@dataclass
class _Composer:
    """Writes one answer about one world; each fact and event is used at most once."""

    world: World
    rng: random.Random
    used: set[int] = field(default_factory=set)
    """ids of the facts and events already used."""

    def _pick(self, items: list[Any]) -> Any:
        fresh = [item for item in items if id(item) not in self.used]
        if not fresh:
            return None
        item = self.rng.choice(fresh)
        self.used.add(id(item))
        return item

    def grounded(self) -> _Claim | None:
        w, rng = self.world, self.rng
        item = self._pick([*w.facts, *w.events])
        if item is None:
            return None
        if isinstance(item, Fact):
            display, move = true_display(item, rng)
            return _Claim(fact_sentence(item, display, rng), "grounded", item.source, False, move,
                          item.kind)
        return _Claim(event_sentence(item, rng), "grounded", item.source, False, "event", "event")

    def stated_cause(self) -> _Claim | None:
        w = self.world
        if w.stated is None:
            return None
        return _Claim(self._cause_text(w.stated.specific + w.stated.generic), "grounded",
                      w.stated_source, True, "stated_cause", "cause")

    def _cause_text(self, phrases: tuple[str, ...]) -> str:
        w, rng = self.world, self.rng
        if (w.scenario == "config_push" and "a config push" in phrases
                and rng.random() < 0.5):
            return SEED_SENTENCE
        return causal_sentence(rng.choice(phrases), rng.choice(w.effects), rng)

    # -- moves that make a claim contradicted or ungrounded -------------------------------------

    def cause(self) -> _Claim | None:
        w, rng = self.world, self.rng
        if w.stated is None:
            chosen = rng.choice(w.causes)
            return _Claim(self._cause_text(chosen.specific + chosen.generic), "ungrounded",
                          "inference", True, "cause_overreach", "cause")
        other = next(c for c in w.causes if c is not w.stated)
        text = causal_sentence(rng.choice(other.specific), rng.choice(w.effects), rng,
                               root_only=True)
        return _Claim(text, "contradicted", w.stated_source, True, "wrong_cause", "cause")

    def wrong_value(self) -> _Claim | None:
        fact = self._pick([f for f in self.world.facts if f.kind in CONTRADICTABLE_KINDS])
        if fact is None:
            return None
        wrong = wrong_display(fact, self.rng)
        assert wrong is not None
        return _Claim(fact_sentence(fact, wrong, self.rng), "contradicted", fact.source, False,
                      "wrong_value", fact.kind)

    def wrong_subject(self) -> _Claim | None:
        pairs = [(f, g) for f in self.world.facts for g in self.world.facts
                 if f.family and f.family == g.family and f.subject != g.subject
                 and id(f) not in self.used
                 and abs(shown_value(f) - shown_value(g)) >= max(1.0, 0.2 * shown_value(f))]
        if not pairs:
            return None
        fact, other = self.rng.choice(pairs)
        self.used.add(id(fact))
        value, _ = true_display(other, self.rng)
        return _Claim(fact_sentence(fact, value, self.rng), "contradicted", fact.source, False,
                      "wrong_subject", fact.kind)

    def negation(self) -> _Claim | None:
        event = self._pick(self.world.events)
        if event is None:
            return None
        return _Claim(cap(event.negated + "."), "contradicted", event.source, False, "negation",
                      "event")

    def wrong_time(self) -> _Claim | None:
        event = self._pick(self.world.events)
        if event is None:
            return None
        when = wrong_display(Fact("", "", "time", event.at, event.source), self.rng)
        return _Claim(event_sentence(event, self.rng, when=when), "contradicted", event.source,
                      False, "wrong_time", "event")

    def new_subject(self) -> _Claim | None:
        fact = self._pick([f for f in self.world.facts if f.subject in self.world.hosts
                           and f.number is not None])
        if fact is None:
            return None
        value = self.rng.choice((true_display(fact, self.rng)[0], wrong_display(fact, self.rng)))
        assert value is not None
        host = self.world.new_host(fact.subject)
        text = fact_sentence(fact, value, self.rng, subject=host, timed=False)
        return _Claim(text, "ungrounded", "inference", False, "new_subject", fact.kind)

    def new_metric(self) -> _Claim | None:
        w, rng = self.world, self.rng
        what, kind = rng.choice(UNSEEN_METRICS)
        ranges = {"percent": (0.5, 30.0), "ms": (20, 900), "gb": (0.5, 30.0), "count": (3, 5000)}
        low, high = ranges[kind]
        number = round(rng.uniform(low, high), 1) if kind in ("percent", "gb") else float(
            rng.randint(int(low), int(high)))
        text = w.fresh([with_unit(kind, number), with_unit(kind, number + 0.3)])
        fact = Fact(rng.choice(w.hosts), what, kind, text, "inference", number=number)
        return _Claim(fact_sentence(fact, text, rng), "ungrounded", "inference", False,
                      "new_metric", kind)

    def new_event(self) -> _Claim | None:
        w, rng = self.world, self.rng
        minutes = list(range(3, 58))
        rng.shuffle(minutes)
        when = w.fresh([w.clock(w.at(60 * m))[:5] for m in minutes])
        host = rng.choice(w.hosts)
        version = w.fresh([f"v{rng.randint(1, 9)}.{rng.randint(0, 30)}.{n}" for n in range(20)])
        incident = w.fresh([f"INC-{rng.randint(1000, 9999)}" for _ in range(20)])
        text = rng.choice((f"An engineer restarted {host} at {when} UTC.",
                           f"The on-call engineer rolled {host} back to {version} at {when}.",
                           f"{host} was drained from the load balancer at {when} UTC.",
                           f"The incident was escalated as {incident} at {when}."))
        return _Claim(text, "ungrounded", "inference", False, "new_event", "event")

    def conclusion_overreach(self) -> _Claim | None:
        return _Claim(overreach_sentence(self.rng.choice(self.world.effects), self.rng),
                      "ungrounded", "inference", True, "conclusion_overreach", "conclusion")


def _compose(world: World, rng: random.Random) -> list[_Claim]:
    """One to five claims: all grounded about half the time, else one to three bad ones; at
    most one causal claim, and conclusions last."""
    composer = _Composer(world, rng)
    count = rng.choices(*_CLAIM_COUNTS)[0]
    bad = 0 if rng.random() < FAITHFUL_SHARE else min(count, rng.choices(*_BAD_COUNTS)[0])
    restate_cause = world.stated is not None and count > bad and rng.random() < 0.4
    moves, weights = list(_BAD_MOVES), list(_BAD_MOVES.values())
    claims: list[_Claim] = []
    for slot in range(count):
        for _ in range(30):  # a move with nothing left to use (no second host ...) is redrawn
            has_cause = any(c.kind == "cause" for c in claims)
            make: Callable[[], _Claim | None] = composer.grounded
            if slot < bad:
                make = getattr(composer, rng.choices(moves, weights)[0])
            elif restate_cause and not has_cause:
                make = composer.stated_cause
            claim = make()
            if claim is None or any(c.text == claim.text for c in claims) or (
                    has_cause and claim.kind == "cause"):
                continue
            claims.append(claim)
            break
    rng.shuffle(claims)
    return sorted(claims, key=lambda c: c.conclusion)  # conclusions close the answer


def _case(case_id: str, world_evidence: str, claims: list[_Claim], meta: dict[str, Any],
          pair: str | None = None) -> dict[str, Any]:
    faithful = all(c.label == "grounded" for c in claims)
    return {
        "id": case_id, "pair": pair or case_id, "source": "synthetic:benchmarks.worlds.synthetic",
        "task": "incident", "evidence": world_evidence,
        "synthesis": " ".join(c.text for c in claims),
        "claims": [{"text": c.text, "label": c.label, "type": c.type, "conclusion": c.conclusion}
                   for c in claims],
        "answer_label": "faithful" if faithful else "unfaithful",
        "meta": {**meta, "claim_moves": [c.move for c in claims],
                 "claim_kinds": [c.kind for c in claims]},
    }


SEED_EVIDENCE: Final = "\n".join((
    "2024-05-01 10:15:02 UTC INFO deploy-bot: pushed cfg-7781 to edge-lb-3",
    "ALERT HighErrorRate firing for edge-lb-3 since 10:15:32 UTC (threshold 5%)",
    "host=edge-lb-3 http_5xx_rate=41.2% p99_ms=850 ts=2024-05-01T10:15:32Z",
    '{"service": "checkout", "version": "v2.3.1", "replicas": 3}',
))
"""The seed scenario: a config push logged thirty seconds before the outage alert."""
_SEED_FACTS: Final = (
    _Claim("deploy-bot pushed cfg-7781 to edge-lb-3 at 10:15:02 UTC.", "grounded", "tool_match",
           False, "event", "event"),
    _Claim("The HighErrorRate alert for edge-lb-3 fired at 10:15:32 UTC.", "grounded",
           "signal_match", False, "exact", "time"),
    _Claim("The 5xx rate on edge-lb-3 reached 41.2%.", "grounded", "tool_match", False, "exact",
           "percent"),
)
_SEED_CAUSE: Final = _Claim(SEED_SENTENCE, "ungrounded", "inference", True, "cause_overreach",
                            "cause")
_SEED_KINDS: Final = ("clock_time", "count", "host", "identifier", "percent", "percentile",
                      "timestamp", "unit_number", "version")


def _seed_cases(seed: int) -> list[dict[str, Any]]:
    """The seed scenario twice: the causal sentence alone, and after three grounded facts."""
    meta = {"scenario": "config_push_seed", "token_kinds": list(_SEED_KINDS),
            "stated_cause": False, "seed": seed}
    pair = f"synthetic-{seed}-seed"
    return [_case(f"synthetic-{seed}-00000", SEED_EVIDENCE, [_SEED_CAUSE], meta, pair),
            _case(f"synthetic-{seed}-00001", SEED_EVIDENCE, [*_SEED_FACTS, _SEED_CAUSE], meta,
                  pair)]


def generate_cases(n: int, *, seed: int) -> list[dict[str, Any]]:
    """``n`` synthetic incident cases, the same for the same seed.

    The first two are the seed scenario (see :data:`SEED_EVIDENCE`); the rest cycle through the
    ten scenarios of :data:`SCENARIOS` in a shuffled order. The first ``k`` cases of ``n`` are the
    cases of ``k``.

    Raises:
        ValueError: ``n`` is negative.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    master = random.Random(seed)
    cases = _seed_cases(seed)[:n]
    names = sorted(SCENARIOS)
    order: list[str] = []
    while len(cases) < n:
        if not order:
            order = names[:]
            master.shuffle(order)
        rng = random.Random(master.getrandbits(64))
        world = build_world(order.pop(), rng)
        claims = _compose(world, rng)
        meta = {"scenario": world.scenario, "token_kinds": sorted(world.kinds),
                "stated_cause": world.stated is not None, "seed": seed}
        cases.append(_case(f"synthetic-{seed}-{len(cases):05d}", world.text(), claims, meta))
    return cases


def write_cases(path: str | Path, n: int, seed: int) -> int:
    """Write :func:`generate_cases` to ``path`` as JSON lines; return how many were written."""
    cases = generate_cases(n, seed=seed)
    with open(path, "w", encoding="utf-8") as handle:
        for case in cases:
            handle.write(json.dumps(case, ensure_ascii=False) + "\n")
    return len(cases)
