"""The concurrency machinery every entry point shares: the judging pool, event loops in threads
of their own, deadlines, the background job worker and the guards around them.

- :mod:`~gsar_otel.runtime.guards`: every policy for a ``BaseException`` (who owns it, what
  becomes of it), each stated once; no other module catches one.
- :mod:`~gsar_otel.runtime.pool`: the bounded worker pool asyncio callers can stop waiting for.
- :mod:`~gsar_otel.runtime.deadline`: awaiting within a deadline, told apart from a
  ``TimeoutError`` of the work itself.
- :mod:`~gsar_otel.runtime.loop`: event loops for code not on one: a coroutine run from
  synchronous code, each thread's loop for a sync caller, an event loop in a thread of its own.
- :mod:`~gsar_otel.runtime.loop_resources`: closers of per-event-loop resources.
- :mod:`~gsar_otel.runtime.inbox` and :mod:`~gsar_otel.runtime.worker`: the job worker: a bounded
  queue, a feeder thread and an event loop thread, every job ending exactly once.

The package is generic: it imports the standard library and :mod:`gsar_otel.errors` (and
:mod:`gsar_otel.semconv`'s names) only, never the core, the judges or OpenTelemetry, so each of
them can use it. Nothing is imported here: each module loads on its own.
"""
