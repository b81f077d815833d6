"""`gsar demo`: not built yet."""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register this command's options."""


def run(args: argparse.Namespace) -> int:
    """Run the command."""
    print("gsar demo is not available yet", file=sys.stderr)
    return 2
