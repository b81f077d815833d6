"""The ``gsar`` command: ``judge`` (and ``judge --batch``), ``demo``, ``bench``, ``calibrate``,
``sidecar`` and ``cases``.

Each subcommand lives in ``gsar_otel.cli.<name>`` and exposes ``add_arguments(parser)`` and
``run(args) -> int``; heavy imports happen inside ``run`` so ``gsar --help`` stays fast.
Exit codes: 0 success (for ``judge``: the answer proceeds), 1 a negative verdict, 2 bad input.
A subcommand that writes files also exposes ``file_arguments(args)`` (the paths it writes and
reads); an output that is one of its inputs is refused here, before the command runs.

A usage error is one line with the prefix of the command it belongs to (``gsar judge: error:
...``); a mistyped option or command gets the closest valid one as a hint (argparse's own
``suggest_on_error`` needs Python 3.14).
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from gsar_otel._version import __version__
from gsar_otel.cli.common import EXIT_BAD_INPUT, EXIT_OK, BadInput

COMMANDS: dict[str, str] = {
    "judge": "Judge one answer against its evidence and print the claims, S and the decision; "
             "--batch FILE.jsonl judges a file of answers (gsar judge --batch is the batch "
             "command).",
    "demo": "Run the example incident-response agent under @grounded (no key, no servers).",
    "bench": "Measure a judge on labelled grounding data (balanced accuracy, confusion matrix).",
    "calibrate": "Fit tau_proceed / tau_regenerate (and rho) on a small human-graded set.",
    "sidecar": "Judge any agent from the OTLP traces it already sends; grounding spans go "
               "back into the same trace.",
    "cases": "Captured runs as a regression suite: import stored traces, list, filter, "
             "deduplicate, set expectations and promote cases into a suite file.",
}

ALIASES: dict[str, str] = {"batch": "gsar judge --batch FILE.jsonl"}
"""Commands people look for that are spelled another way."""


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors under the right prefix and close-match hints."""

    def error(self, message: str) -> NoReturn:
        """Print ``<prog>: error: <message>`` and a pointer to ``--help``; exit 2."""
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} "
                                  f"(see '{self.prog} --help')\n")

    def _check_value(self, action: argparse.Action, value: object) -> None:
        if action.choices is not None and value not in action.choices:
            alias = ALIASES.get(str(value))
            hint = (f"; did you mean '{alias}'?" if alias else
                    _did_you_mean(str(value), [str(c) for c in action.choices], quote="'"))
            names = ", ".join(map(repr, action.choices))
            raise argparse.ArgumentError(action, f"invalid choice: {value!r} (choose from "
                                                 f"{names}){hint}")
        super()._check_value(action, value)


def _did_you_mean(word: str, candidates: Sequence[str], *, quote: str = "") -> str:
    """``"; did you mean --synthesis?"`` for the closest candidate, else ``""``."""
    close = difflib.get_close_matches(word, candidates, n=1, cutoff=0.6)
    return f"; did you mean {quote}{close[0]}{quote}?" if close else ""


def _option_strings(parser: argparse.ArgumentParser) -> list[str]:
    return [option for action in parser._actions for option in action.option_strings]


def build_parser() -> Parser:
    """The argument parser with every subcommand registered."""
    parser = Parser(
        prog="gsar",
        description="Typed grounding (GSAR) for AI-agent answers: judge, demo, bench, calibrate.",
        epilog="Batch: gsar judge --batch FILE.jsonl judges a file of answers, one JSON per "
               "line. Exit codes: 0 success (judge: the answer proceeds), 1 a negative verdict, "
               "2 bad input.")
    parser.add_argument("--version", action="version", version=f"gsar {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                parser_class=Parser)
    for name, help_text in COMMANDS.items():
        module = importlib.import_module(f"gsar_otel.cli.{name}")
        command = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(command)
        command.set_defaults(_module=module, _parser=command)
    return parser


def parse(parser: Parser, argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse ``argv``; an unknown option is reported by the subcommand it was given to, with
    the closest option it has."""
    args, extras = parser.parse_known_args(argv)
    if extras:
        owner: argparse.ArgumentParser = getattr(args, "_parser", parser)
        word = extras[0].split("=", 1)[0]
        hint = _did_you_mean(word, _option_strings(owner)) if word.startswith("-") else ""
        owner.error(f"unrecognized arguments: {' '.join(extras)}{hint}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``gsar`` console script."""
    parser = build_parser()
    args = parse(parser, argv)
    try:
        files = getattr(args._module, "file_arguments", None)
        if files is not None:  # an output that is an input is refused before anything runs
            from gsar_otel.cli.inputs import refuse_overwriting

            refuse_overwriting(*files(args))
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
