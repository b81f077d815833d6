"""Deep import paths of 0.1 keep working for one release, each with a DeprecationWarning that
names the new home; the public names from ``gsar_otel`` never warn."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import gsar_otel

OLD_PATHS = {
    "gsar_otel.model": ("gsar_otel.core.model", ["Claim", "JudgeOutput", "EvidenceType"]),
    "gsar_otel.scoring": ("gsar_otel.core.scoring", ["gsar_score", "decide"]),
    "gsar_otel.integrity": ("gsar_otel.core.integrity", ["check_judge_output", "Adjustment"]),
    "gsar_otel.evaluator": ("gsar_otel.core.evaluator", ["GSAREvaluator", "GSARResult"]),
    "gsar_otel.judges.base": ("gsar_otel.core.protocol", ["Judge", "JudgeVerdict", "run_judge"]),
    "gsar_otel.evidence": ("gsar_otel.core", ["Evidence", "EvidenceSet", "record_evidence",
                                              "tool_evidence"]),
    "gsar_otel.telemetry": ("gsar_otel.otel", ["configure_telemetry", "TracedEvaluator",
                                               "emit_result", "set_providers"]),
}


def _fresh_import(name: str) -> tuple[object, list[warnings.WarningMessage]]:
    sys.modules.pop(name, None)
    parent, _, child = name.rpartition(".")
    if hasattr(sys.modules.get(parent), child):
        delattr(sys.modules[parent], child)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(name)
    return module, [w for w in caught if issubclass(w.category, DeprecationWarning)]


@pytest.mark.parametrize("old", sorted(OLD_PATHS))
def test_an_old_path_warns_and_names_its_new_home(old: str) -> None:
    new, names = OLD_PATHS[old]
    module, caught = _fresh_import(old)
    assert caught, f"importing {old} gave no DeprecationWarning"
    message = str(caught[0].message)
    assert old in message and new in message and "0.3" in message
    for name in names:
        assert getattr(module, name) is getattr(gsar_otel, name, None) or hasattr(module, name)


@pytest.mark.parametrize("old", ["gsar_otel.model", "gsar_otel.evaluator", "gsar_otel.scoring"])
def test_an_aliased_old_path_is_the_new_module_itself(old: str) -> None:
    module, _ = _fresh_import(old)
    assert module is importlib.import_module(OLD_PATHS[old][0])


def test_the_warning_points_at_the_users_import_line(tmp_path: Path) -> None:
    script = tmp_path / "agent.py"
    script.write_text("import os\nfrom gsar_otel.evaluator import GSAREvaluator\n")
    done = subprocess.run([sys.executable, "-W", "always::DeprecationWarning", str(script)],
                          capture_output=True, text=True, check=True)
    assert f"{script}:2: DeprecationWarning: gsar_otel.evaluator is deprecated" in done.stderr


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
