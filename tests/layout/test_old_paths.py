"""The deep import paths of 0.1 are gone: they only handed names on to their 0.2 homes, for a
version that was never published. The anchor modules that sat flat in ``gsar_otel.core``
(``anchor_scan``, ``anchor_tokens`` ...) live in the package ``gsar_otel.core.anchor``, with
nothing left at their old paths; ``gsar_otel.core.anchors`` stays their public face. The
concurrency machinery lives in ``gsar_otel.runtime`` (the judging pool of ``core.deadline`` in
``runtime.pool``, its judge round in ``core.judge_round``; the background job worker of
``otel.worker`` in ``runtime.worker``, its inbox in ``runtime.inbox``), nothing left at the old
paths. Modules are named by what they hold: the sidecar's span exporters are
``sidecar.output.exporters`` (was ``verdicts``), its verdict spans ``sidecar.output.verdict_spans``
(was ``emit``), the Claude judge's reading of a verdict payload ``judges.anthropic.payload`` (was
``verdicts``). The paths
that did not move import without a warning, and the public names from ``gsar_otel`` never
warn."""

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
    "gsar_otel.sidecar.output.verdicts": "gsar_otel.sidecar.output.exporters",
    "gsar_otel.sidecar.output.emit": "gsar_otel.sidecar.output.verdict_spans",
    "gsar_otel.judges.anthropic.verdicts": "gsar_otel.judges.anthropic.payload",
    "gsar_otel.core.anchor_model": "gsar_otel.core.anchor.model",
    "gsar_otel.core.anchor_words": "gsar_otel.core.anchor.words",
    "gsar_otel.core.anchor_scan": "gsar_otel.core.anchor.scan",
    "gsar_otel.core.anchor_spans": "gsar_otel.core.anchor.scan",
    "gsar_otel.core.anchor_tokens": "gsar_otel.core.anchor.scan",
    "gsar_otel.core.anchor_fractions": "gsar_otel.core.anchor.fractions",
    "gsar_otel.core.anchor_sizes": "gsar_otel.core.anchor.units",
    "gsar_otel.core.anchor_durations": "gsar_otel.core.anchor.units",
    "gsar_otel.core.anchor_times": "gsar_otel.core.anchor.times",
    "gsar_otel.core.anchor_compare": "gsar_otel.core.anchor.compare",
    "gsar_otel.core.anchor_years": "gsar_otel.core.anchor.derived",
    "gsar_otel.core.anchor_differences": "gsar_otel.core.anchor.derived",
    "gsar_otel.core.anchor_ranges": "gsar_otel.core.anchor.derived",
    "gsar_otel.core.anchor_derived": "gsar_otel.core.anchor.derived",
    "gsar_otel.core.deadline": "gsar_otel.core.judge_round",
    "gsar_otel.core.loop_resources": "gsar_otel.runtime.loop_resources",
    "gsar_otel.otel.worker": "gsar_otel.runtime.worker",
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


@pytest.mark.parametrize("name", ["gsar_otel.core.anchors", "gsar_otel.judges.lexical",
                                  "gsar_otel.judges.anthropic", "gsar_otel.judges.recorded",
                                  "gsar_otel.decorator",
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
    assert "grounded" in gsar_otel.__all__
