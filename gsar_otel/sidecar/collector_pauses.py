"""Short and rare pauses of Python's cyclic garbage collector in ``gsar sidecar``.

A full collection (generation 2) walks every object the collector tracks while it holds the
interpreter lock, in whichever thread triggers it: the event loop that answers ``/healthz`` and
``/metrics`` waits for all of it. Under the soak (``benchmarks/sidecar_soak.py``: 10,000 open
traces, 50 runs/s judged) the sidecar tracks 140,000 to 170,000 objects, about 50,000 of them
from its start (modules, the judge's tables); full collections came every 5 s or so and took 45
to 260 ms each (at a load of 5 to 6 on 2 cores), the main cause of the slow probes.

:func:`apply` (called by ``gsar sidecar`` once it listens, never by an embedding program) runs
one collection and then freezes what is left (:func:`gc.freeze`: the start-up objects are never
walked again; they are still freed by reference counting), and raises the third threshold to
:data:`THRESHOLDS` (a full collection after 100 collections of the middle generation instead of
10): full collections come about ten times less often, each walking the held traces and not the
start-up objects. The young and middle generations keep CPython's thresholds, so their
collections stay short (raising the first threshold to 10,000 made the middle generation hold
the traces and its collections as long as the full ones). Cyclic garbage waits longer to be freed
(in the soak, about 40,000 objects a minute, a few MB). :func:`restore` undoes both.
"""

from __future__ import annotations

import gc
from typing import Final

THRESHOLDS: Final = (700, 10, 100)
"""``gc.set_threshold`` while the sidecar serves (CPython's defaults: 700, 10, 10)."""

_saved: list[tuple[int, ...]] = []


def apply() -> int:
    """Collect once, freeze the survivors and raise the thresholds; returns the objects frozen.
    A second call before :func:`restore` changes nothing."""
    if not _saved:
        _saved.append(gc.get_threshold())
        gc.collect()
        gc.freeze()
        gc.set_threshold(*THRESHOLDS)
    return gc.get_freeze_count()


def restore() -> None:
    """Unfreeze and put the thresholds back as :func:`apply` found them."""
    if _saved:
        gc.set_threshold(*_saved.pop())
        gc.unfreeze()
