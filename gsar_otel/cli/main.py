"""The ``gsar`` command: ``judge``, ``demo``, ``bench`` and ``calibrate``.

Each subcommand lives in ``gsar_otel.cli.<name>`` and exposes ``add_arguments(parser)`` and
``run(args) -> int``; heavy imports happen inside ``run`` so ``gsar --help`` stays fast.
Exit codes: 0 success (for ``judge``: the answer proceeds), 1 a negative verdict, 2 bad input.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from gsar_otel._version import __version__
from gsar_otel.cli.common import EXIT_BAD_INPUT, EXIT_OK, BadInput

COMMANDS: dict[str, str] = {
    "judge": "Judge one answer against its evidence and print the claims, S and the decision.",
    "demo": "Run the example incident-response agent under @grounded (no key, no servers).",
    "bench": "Measure a judge on labelled grounding data (balanced accuracy, confusion matrix).",
    "calibrate": "Fit tau_proceed / tau_regenerate (and rho) on a small human-graded set.",
    "sidecar": "Judge any agent from the OTLP traces it already sends; grounding spans go "
               "back into the same trace.",
}

def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="gsar",
        description="Typed grounding (GSAR) for AI-agent answers: judge, demo, bench, calibrate.",
        epilog="Exit codes: 0 success (judge: the answer proceeds), 1 a negative verdict, "
               "2 bad input.")
    parser.add_argument("--version", action="version", version=f"gsar {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, help_text in COMMANDS.items():
        module = importlib.import_module(f"gsar_otel.cli.{name}")
        command = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(command)
        command.set_defaults(_module=module)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``gsar`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if getattr(args, "batch", None) is not None:  # gsar judge --batch FILE.jsonl
            from gsar_otel.cli import batch

            code: int = batch.run(args)
        else:
            code = args._module.run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`gsar judge ... | head`): not an error of ours.
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except BadInput as error:
        print(f"gsar {args.command}: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return code


if __name__ == "__main__":
    sys.exit(main())
