"""Judges: the offline :mod:`~gsar_otel.judges.staged` judge (the default without a key) and
:mod:`~gsar_otel.judges.lexical` alias of it (deprecated), the Claude-backed
:mod:`~gsar_otel.judges.anthropic` judge, :mod:`~gsar_otel.judges.recorded` verdicts, and
:mod:`~gsar_otel.judges.factory` (a judge by name). The protocol they implement is
:mod:`gsar_otel.core.protocol`."""
