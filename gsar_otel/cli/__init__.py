"""The ``gsar`` command: ``judge``, ``demo``, ``bench`` and ``calibrate``, one module each."""

from gsar_otel.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
