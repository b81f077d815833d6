"""Intake: OTLP/HTTP and OTLP/gRPC receivers, what they admit before doing work (token, body
limits, the in-flight byte budget, gzip inflated in steps), and decoding a request into plain,
bounded span and log records. The receivers feed the service through the small protocol of
:mod:`gsar_otel.sidecar.intake.app`, never the concrete server."""
