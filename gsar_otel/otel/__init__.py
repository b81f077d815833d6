"""OpenTelemetry for grounding: instruments, span and event recording, the traced evaluator,
provider and exporter setup (:func:`~gsar_otel.otel.setup.configure_telemetry`) and the
background worker. Built on the core and the judge protocol only.
"""
