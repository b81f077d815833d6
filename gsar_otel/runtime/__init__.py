"""The concurrency machinery every entry point shares: the judging pool, deadlines, per-loop
resources and the guards around them.

- :mod:`~gsar_otel.runtime.guards`: every policy for a ``BaseException`` (who owns it, what
  becomes of it), each stated once.
- :mod:`~gsar_otel.runtime.pool`: the bounded worker pool asyncio callers can stop waiting for.
- :mod:`~gsar_otel.runtime.deadline`: awaiting within a deadline, told apart from a
  ``TimeoutError`` of the work itself.
- :mod:`~gsar_otel.runtime.loop_resources`: closers of per-event-loop resources.

The package is generic: it imports the standard library and :mod:`gsar_otel.errors` only, never
the core, the judges or OpenTelemetry, so each of them can use it. Nothing is imported here: each
module loads on its own.
"""
