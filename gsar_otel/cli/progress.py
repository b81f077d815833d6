"""The progress display of ``gsar bench`` and ``gsar judge --batch``: a ``\\r`` bar on a
terminal, otherwise a plain line every 10% (every :data:`EVERY_UNKNOWN` rows when the total is
unknown, as when reading stdin)."""

from __future__ import annotations

from typing import TextIO

BAR_WIDTH = 30
EVERY_UNKNOWN = 100
"""Without a terminal and without a known total: a progress line every this many rows."""


class Progress:
    """Progress of ``total`` judgements (None: unknown) on ``stream``, each line led by
    ``label``."""

    def __init__(self, stream: TextIO, total: int | None = None, *, label: str = "") -> None:
        self.stream = stream
        self.total = total
        self.label = f"{label}: " if label else ""
        self.tty = stream.isatty()
        self.last = -1

    def update(self, done: int, errors: int = 0, *, total: int | None = None) -> None:
        """Show ``done`` judgements, ``errors`` of them bad input; ``total`` updates the total."""
        if total is not None:
            self.total = total
        failed = f", {errors} bad" if errors else ""
        if self.tty:
            if self.total:
                filled = round(min(done / self.total, 1.0) * BAR_WIDTH)
                bar = f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{self.total}"
            else:
                bar = f"judged {done}"
            self.stream.write(f"\r{self.label}{bar}{failed}")
            self.stream.flush()
            return
        step = (done * 10 // self.total) if self.total else done // EVERY_UNKNOWN
        if step != self.last:
            self.last = step
            of = f"/{self.total}" if self.total else ""
            self.stream.write(f"{self.label}judged {done}{of}{failed}\n")
            self.stream.flush()

    def of_total(self, done: int, total: int) -> None:
        """``update`` as the ``(done, total)`` callback ``gsar bench``'s judging calls."""
        self.update(done, total=total)

    def finish(self) -> None:
        """End the bar's line."""
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
