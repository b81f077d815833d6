""":class:`GroundedOptions`: ``@grounded``'s keyword arguments in one frozen object, validated
once when ``grounded()`` builds it, with the messages ``grounded()`` has always given."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path
from typing import Any

import pytest

from gsar_otel import grounded
from gsar_otel.core import model
from gsar_otel.core.model import GSARThresholds
from gsar_otel.decorator import options as options_module
from gsar_otel.decorator.options import GroundedOptions
from tests.telemetry.helpers import ScriptedJudge
from tests.telemetry.test_on_low import BAD_OPTIONS


def test_its_fields_are_groundeds_keyword_arguments_with_their_defaults() -> None:
    parameters = inspect.signature(grounded).parameters
    fields = {field.name: field.default for field in dataclasses.fields(GroundedOptions)}
    assert list(fields) == list(parameters)
    assert fields == {name: parameter.default for name, parameter in parameters.items()}


@pytest.mark.parametrize(("given", "message"), BAD_OPTIONS,
                         ids=[m.split(" ")[0] + "-" + str(i) for i, (_, m) in
                              enumerate(BAD_OPTIONS)])
def test_it_refuses_what_grounded_refuses_with_the_same_message(
        given: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as from_grounded:
        grounded(**given)
    with pytest.raises(ValueError) as from_options:
        GroundedOptions(**given)
    assert message in str(from_options.value)
    assert str(from_options.value) == str(from_grounded.value)


def test_grounded_validates_its_options_once(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[GroundedOptions] = []
    original = GroundedOptions.__post_init__

    def counting(self: GroundedOptions) -> None:
        built.append(self)
        original(self)

    monkeypatch.setattr(GroundedOptions, "__post_init__", counting)
    decorate = grounded(judge=ScriptedJudge(), thresholds={"proceed": 0.9}, k_max=1)
    decorate(lambda: "first")
    decorate(lambda: "second")
    grounded(lambda: "bare")
    assert len(built) == 2  # one per grounded() call, none per decorated function


def test_a_checked_thresholds_mapping_is_built_without_validating_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    orders: list[tuple[float, float]] = []
    monkeypatch.setattr(model, "check_threshold_order",
                        lambda proceed, regenerate: orders.append((proceed, regenerate)))
    options = GroundedOptions(thresholds={"regenerate": 0.5})
    assert options.thresholds_model() == GSARThresholds(proceed=0.8, regenerate=0.5)
    assert orders == [(0.8, 0.5)]  # GSARThresholds(...) above, not thresholds_model()
    given = GSARThresholds(0.9, 0.7)
    assert GroundedOptions(thresholds=given).thresholds_model() is given
    assert GroundedOptions().thresholds_model() is None


def test_values_are_held_as_checked_and_the_object_is_frozen(tmp_path: Path) -> None:
    options = GroundedOptions(sample_rate=1, contradiction_penalty=0, deadline_s=5,
                              capture=tmp_path / "cases", thresholds={"proceed": 1})
    assert (options.sample_rate, options.contradiction_penalty, options.deadline_s) == (
        1.0, 0.0, 5.0)
    assert all(type(value) is float for value in (
        options.sample_rate, options.contradiction_penalty, options.deadline_s))
    assert options.capture == str(tmp_path / "cases") and (tmp_path / "cases").is_dir()
    assert dict(options.thresholds or {}) == {"proceed": 1.0}
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.k_max = 3  # type: ignore[misc]


def test_the_decorators_policy_names_are_the_scorings() -> None:
    from gsar_otel.core.scoring import CONTRADICTION_POLICIES, DISPUTE_POLICIES

    assert options_module.CONTRADICTION_POLICIES == CONTRADICTION_POLICIES
    assert options_module.DISPUTE_POLICIES == DISPUTE_POLICIES
