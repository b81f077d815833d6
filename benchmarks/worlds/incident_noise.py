"""Distractor evidence: items of the same shapes as a case's own, about other names.

A distractor never mentions a name the case reserved (its hosts, services, people, alert names,
ids, and the names its answer invents), so it can neither support nor contradict a sentence of
the answer; it only makes the relevant item harder to find. Half of the distractors take a
shape of the case's own items, the rest any shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from benchmarks.worlds.incident_events import alert, deploy, log_event
from benchmarks.worlds.incident_metrics import make_row, row_fields
from benchmarks.worlds.incident_records import KUBE_KINDS, KubeEvents, kube_row, note, result_set
from benchmarks.worlds.incident_world import Item, World

NOISE_SHAPES: Final = ("metric", "metric", "log", "log", "alert", "deploy", "note", "kube",
                       "results")


def noise_shape(item: Item) -> str:
    """The distractor shape like ``item``'s."""
    if item.shape.startswith("metric"):
        return "metric"
    return "kube" if item.shape == "kubectl" else item.shape


def distractor(world: World, like: Sequence[str] = (), shape: str | None = None) -> Item:
    """One item about names the case does not use: of ``shape`` if given, else half the time
    of a shape in ``like``."""
    rng = world.rng
    if shape is None:
        shape = rng.choice(like) if like and rng.random() < 0.5 else rng.choice(NOISE_SHAPES)
    when = world.noise_time()
    if shape == "metric":
        return make_row(world, row_fields(rng, [], rng.randint(2, 5)), own=False).item
    if shape == "log":
        level = rng.choice(("ERROR", "WARN", "INFO", "INFO"))
        return log_event(world, when, level, own=False).item
    if shape == "alert":
        return alert(world, when, own=False).item
    if shape == "deploy":
        return deploy(world, when, own=False).item
    if shape == "note":
        return note(world, when, own=False).item
    if shape == "kube":
        rows = [kube_row(world, kind, own=False)
                for kind in rng.sample(KUBE_KINDS, rng.randint(1, 2))]
        return KubeEvents([row for row, _, _ in rows],
                          [(exact, para, row[3], row[2]) for row, exact, para in rows]).item
    return result_set(world, own=False).item
