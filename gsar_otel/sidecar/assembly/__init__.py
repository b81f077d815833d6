"""Assembly: received spans and logs buffered per trace until each agent run in it is finished
(:mod:`~gsar_otel.sidecar.assembly.assembler`), one trace's runs and parent links, released runs
(:class:`~gsar_otel.sidecar.assembly.ready.ReadyRun`), spans that arrive after their run was
judged, and which spans are the sidecar's own coming back (or forged to look so)."""
