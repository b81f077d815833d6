"""Subcommands of the ``gsar`` command line."""
