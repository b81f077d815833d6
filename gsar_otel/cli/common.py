"""What every ``gsar`` subcommand shares: exit codes and the bad-input error."""

from __future__ import annotations

from gsar_otel.errors import GSARError

EXIT_OK = 0
EXIT_NOT_PROCEED = 1
EXIT_BAD_INPUT = 2


class BadInput(GSARError):
    """Raised by a subcommand for input it cannot use; printed without a traceback, exit 2."""
