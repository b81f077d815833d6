"""Shared fixtures. Server fixtures live in tests/support/ and are registered here, once for the
whole session: ``phoenix`` (tests/support/phoenix.py) is one server shared by tests/e2e and
tests/sidecar, not one per directory."""

pytest_plugins: list[str] = ["pytester", "tests.support.phoenix"]
