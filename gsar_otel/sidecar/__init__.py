"""The observability sidecar (``gsar sidecar``): receive an agent's OTLP traces, rebuild each
finished run, judge its answer against the tool results it rested on, and write the grounding
back into the same trace."""
