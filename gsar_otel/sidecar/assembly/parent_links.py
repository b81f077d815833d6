"""The parent links of one buffered trace, followed once: what lies above a span, and depths.

A trace's spans arrive in any order and their ids may even form a cycle, so the chain above a
span is walked link by link. Walking it again for every run-span candidate and every run made
assembly quadratic in the length of a chain (a 200 KB body of agent spans held the event loop
for seconds). Here every walk leaves shortcuts behind (path compression, as in a union-find):
a span's shortcut points to an ancestor such that every span strictly between them is present
and is not a run, and never will be one, so no later walk needs to pass them again. The spans a
walk must stop at (``stops``: the trace's runs, and the candidate being considered) are given by
the caller; a span that stopped being a run is passed by later walks like any other. What the
shortcuts rely on: links never change (a span's parent id is fixed, spans are only added), and a
span can become a run only while it is being considered, right after it arrived, before any walk
can pass it.

Depths (how many ancestors of each span are present) are computed for all spans in one pass,
each span's from its parent's.
"""

from __future__ import annotations

from collections.abc import Container, Mapping

from gsar_otel.sidecar.intake.spans import SpanRecord

ROOT = 0
"""The walk reached a span with no parent (the id returned is that span's)."""
GAP = 1
"""The walk reached a span whose parent has not arrived (the id returned is the parent's)."""
STOP = 2
"""The walk reached a span in ``stops`` (its id is returned)."""
CYCLE = 3
"""The ids above loop back on themselves (a present id on the loop is returned)."""


class ParentLinks:
    """Walks up a trace's spans (``spans``, the buffer's own mapping, read as it grows)."""

    __slots__ = ("_cyclic", "_jump", "_spans")

    def __init__(self, spans: Mapping[str, SpanRecord]) -> None:
        self._spans = spans
        self._jump: dict[str, str] = {}
        """Shortcuts: a present ancestor, every span strictly between present and never a run."""
        self._cyclic: dict[str, str] = {}
        """Spans whose ancestors loop (never to change: links are fixed), with an id on the loop."""

    def above(self, span_id: str, stops: Container[str]) -> tuple[int, str]:
        """What is first found walking up from the present span ``span_id`` (itself excluded):
        ``(STOP, id)``, ``(ROOT, id)``, ``(GAP, parent id)`` or ``(CYCLE, id)``."""
        spans, jump, cyclic = self._spans, self._jump, self._cyclic
        path: list[str] = []
        on_path = {span_id}
        node = span_id
        while True:
            if node in cyclic:
                found: tuple[int, str] = (CYCLE, cyclic[node])
                break
            target = jump.get(node) or spans[node].parent_span_id
            if not target:
                found, last = (ROOT, node), node
                break
            if target not in spans:
                found, last = (GAP, target), node
                break
            if target in stops:
                found, last = (STOP, target), target
                break
            path.append(node)
            if target in on_path:
                found = (CYCLE, target)
                break
            on_path.add(target)
            node = target
        if found[0] == CYCLE:
            for passed in (*path, node):
                cyclic[passed] = found[1]
            return found
        for passed in path:
            if passed != last:
                jump[passed] = last
        return found

    def depths(self) -> dict[str, int]:
        """Each span's count of ancestors present (on a loop: the other spans of the loop)."""
        spans = self._spans
        depth: dict[str, int] = {}
        for start in spans:
            path: list[str] = []
            where: dict[str, int] = {}
            node = start
            while node not in depth:
                where[node] = len(path)
                path.append(node)
                parent = spans[node].parent_span_id
                if not parent or parent not in spans:
                    base = -1  # the top: depth 0 for it
                    break
                if parent in where:  # a loop: each of its spans counts the others
                    loop = path[where[parent]:]
                    for member in loop:
                        depth[member] = len(loop) - 1
                    del path[where[parent]:]
                    base = len(loop) - 1
                    break
                node = parent
            else:
                base = depth[node]
            for member in reversed(path):
                base += 1
                depth[member] = base
        return depth
