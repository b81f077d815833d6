"""The pure core of GSAR: claims and partitions, the score and the decision, evidence, the
integrity guard, the judge protocol and the evaluator loop.

Nothing here imports OpenTelemetry or anything above the core (judges, telemetry, the decorator,
the CLI); the layering test in ``tests/test_layout.py`` keeps it so.
"""
