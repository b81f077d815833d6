"""The deep import paths of 0.1 are gone: they only handed names on to their 0.2 homes, for a
version that was never published. The paths that did not move import without a warning, and
the public names from ``gsar_otel`` never warn."""

from __future__ import annotations

import importlib
import importlib.machinery
import warnings

import pytest

import gsar_otel

REMOVED = {
    "gsar_otel.model": "gsar_otel.core.model",
    "gsar_otel.scoring": "gsar_otel.core.scoring",
    "gsar_otel.integrity": "gsar_otel.core.integrity",
    "gsar_otel.evaluator": "gsar_otel.core.evaluator",
    "gsar_otel.judges.base": "gsar_otel.core.protocol",
    "gsar_otel.evidence": "gsar_otel.core.evidence",
    "gsar_otel.telemetry": "gsar_otel.otel",
    "gsar_otel._compat": "",
}


@pytest.mark.parametrize("old", sorted(REMOVED))
def test_an_old_path_is_gone(old: str) -> None:
    # Looked up in the package's own directories only, as a plain install imports it (an
    # editable install's fallback finder may still map the name to another checkout).
    parent, _, child = old.rpartition(".")
    package = importlib.import_module(parent)
    spec = importlib.machinery.PathFinder.find_spec(old, list(package.__path__))
    assert spec is None, f"{old} is still in the package: {spec.origin if spec else ''}"


@pytest.mark.parametrize("new", sorted({new for new in REMOVED.values() if new}))
def test_the_new_home_imports_without_a_warning(new: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        importlib.import_module(new)


@pytest.mark.parametrize("name", ["gsar_otel.judges.lexical", "gsar_otel.judges.anthropic",
                                  "gsar_otel.judges.recorded", "gsar_otel.decorator",
                                  "gsar_otel.semconv", "gsar_otel.config", "gsar_otel.plugins",
                                  "gsar_otel.cli"])
def test_paths_that_did_not_move_import_without_a_warning(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        importlib.import_module(name)


def test_every_public_name_imports_from_the_package_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        for name in gsar_otel.__all__:
            assert getattr(gsar_otel, name) is not None
    assert {"RecordingJudge", "CassetteStore"} <= set(gsar_otel.__all__)
    assert gsar_otel.RecordingJudge.__module__.startswith("gsar_otel.judges.recorded")
