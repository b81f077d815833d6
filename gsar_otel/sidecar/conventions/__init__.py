"""Conventions: how other instrumentations write an agent run into a trace, and reading the
answer and the tool results back out of a finished run."""
