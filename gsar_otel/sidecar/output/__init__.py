"""Output: what the sidecar writes out. The grounding span (``gsar.evaluate``, or
``gsar.sidecar.skipped`` / ``gsar.sidecar.late_spans``) in the agent's trace, its delivery to
``--forward`` (retried, counted when undelivered), in-line forwarding of every received request,
and the sidecar's own counts (``/metrics``, ``/healthz`` and the ``gsar.sidecar.*``
instruments)."""
