"""GSAR_* settings and the settings file: loading, precedence and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from gsar_otel.config import (
    GSARSettings,
    SettingsError,
    get_settings,
    load_settings,
    reset_settings,
)
from gsar_otel.core.model import EvidenceType, GSARThresholds

FULL_JSON = """{
  "thresholds": {"proceed": 0.75, "regenerate": 0.55},
  "contradiction_penalty": 0.4,
  "weight_map": {"tool_match": 0.9, "inference": 0.5},
  "k_max": 3,
  "max_regenerations": 1,
  "judge": "Lexical",
  "judge_model": null,
  "sample_rate": 0.25,
  "capture_content": true
}"""

FULL_TOML = """
contradiction_penalty = 0.4
k_max = 3
max_regenerations = 1
judge = "Lexical"
sample_rate = 0.25
capture_content = true

[thresholds]
proceed = 0.75
regenerate = 0.55

[weight_map]
tool_match = 0.9
inference = 0.5
"""


def test_defaults_without_any_variable() -> None:
    settings = load_settings({})
    assert settings == GSARSettings()
    assert settings.thresholds_model() == GSARThresholds(proceed=0.8, regenerate=0.65)
    assert (settings.sample_rate, settings.capture_content, settings.disabled,
            settings.background_queue_size, settings.k_max, settings.contradiction_penalty,
            settings.judge) == (1.0, False, False, 1000, 2, 0.5, None)


def test_every_variable_is_read() -> None:
    settings = load_settings({
        "GSAR_JUDGE": " Anthropic ", "GSAR_JUDGE_MODEL": "claude-x", "GSAR_SAMPLE_RATE": "0.1",
        "GSAR_CAPTURE_CONTENT": "yes", "GSAR_DISABLED": "1", "GSAR_BACKGROUND_QUEUE_SIZE": "50",
        "GSAR_PROCEED": "0.9", "GSAR_REGENERATE": "0.7", "GSAR_CONTRADICTION_PENALTY": "0.25",
        "GSAR_K_MAX": "0",
    })
    assert (settings.judge, settings.judge_model, settings.sample_rate, settings.capture_content,
            settings.disabled, settings.background_queue_size, settings.proceed,
            settings.regenerate, settings.contradiction_penalty, settings.k_max) == (
        "anthropic", "claude-x", 0.1, True, True, 50, 0.9, 0.7, 0.25, 0)


@pytest.mark.parametrize(("value", "expected"), [
    ("true", True), ("SPAN_ONLY", True), ("event_only", True), ("false", False),
    ("NO_CONTENT", False), ("something-else", False)])
def test_the_otel_genai_capture_variable_is_understood(value: str, expected: bool) -> None:
    env = {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": value}
    assert load_settings(env).capture_content is expected


@pytest.mark.parametrize(("env", "message"), [
    ({"GSAR_SAMPLE_RATE": "often"}, "GSAR_SAMPLE_RATE must be a number in [0, 1], got 'often'"),
    ({"GSAR_SAMPLE_RATE": "1.5"}, "GSAR_SAMPLE_RATE must be a number in [0, 1], got '1.5'"),
    ({"GSAR_SAMPLE_RATE": "nan"}, "GSAR_SAMPLE_RATE must be a number in [0, 1], got 'nan'"),
    ({"GSAR_DISABLED": "maybe"},
     "GSAR_DISABLED must be true or false (also 1/0, yes/no, on/off), got 'maybe'"),
    ({"GSAR_CAPTURE_CONTENT": "2"}, "GSAR_CAPTURE_CONTENT must be true or false"),
    ({"GSAR_BACKGROUND_QUEUE_SIZE": "0"},
     "GSAR_BACKGROUND_QUEUE_SIZE must be an integer >= 1, got '0'"),
    ({"GSAR_K_MAX": "-1"}, "GSAR_K_MAX must be an integer >= 0, got '-1'"),
    ({"GSAR_K_MAX": "two"}, "GSAR_K_MAX must be an integer >= 0, got 'two'"),
    ({"GSAR_PROCEED": "0.6"},
     "thresholds.regenerate (0.65) must be <= thresholds.proceed (0.6)"),
    ({"GSAR_CONFIG": "/nonexistent/gsar.json"},
     "cannot read settings file '/nonexistent/gsar.json' (named by GSAR_CONFIG)"),
    ({"GSAR_CONFIG": "/etc/gsar.yaml"},
     "settings file '/etc/gsar.yaml' must end in .json or .toml"),
])
def test_invalid_variables_raise_an_error_naming_the_variable(
        env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError) as raised:
        load_settings(env)
    assert message in str(raised.value)


@pytest.mark.parametrize(("name", "text"), [("gsar.json", FULL_JSON), ("gsar.toml", FULL_TOML)])
def test_a_settings_file_in_json_or_toml_is_read(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    settings = load_settings({"GSAR_CONFIG": str(path)})
    assert settings.thresholds_model() == GSARThresholds(proceed=0.75, regenerate=0.55)
    assert (settings.contradiction_penalty, settings.k_max, settings.max_regenerations,
            settings.judge, settings.judge_model, settings.sample_rate,
            settings.capture_content) == (0.4, 3, 1, "lexical", None, 0.25, True)
    weights = settings.weight_map_model()
    assert (weights[EvidenceType.TOOL_MATCH], weights[EvidenceType.INFERENCE],
            weights[EvidenceType.DOMAIN]) == (0.9, 0.5, 0.6)
    assert settings.config_file == str(path)


def test_environment_variables_beat_the_file(tmp_path: Path) -> None:
    path = tmp_path / "gsar.json"
    path.write_text(FULL_JSON)
    settings = load_settings({"GSAR_CONFIG": str(path), "GSAR_K_MAX": "1",
                              "GSAR_CAPTURE_CONTENT": "false", "GSAR_PROCEED": "0.85"})
    assert (settings.k_max, settings.capture_content, settings.proceed, settings.regenerate) == (
        1, False, 0.85, 0.55)


@pytest.mark.parametrize(("text", "message"), [
    ('{"treshold": 0.8}', "unknown key(s) 'treshold'; allowed: thresholds, contradiction_penalty, "
                          "weight_map, k_max, max_regenerations, judge, judge_model, sample_rate, "
                          "capture_content, disabled, background_queue_size"),
    ('{"thresholds": {"proceed": 0.8, "replan": 0.2}}',
     "unknown key(s) 'replan' in thresholds; allowed: proceed, regenerate"),
    ('{"thresholds": 0.8}', "thresholds must be a table with keys proceed, regenerate"),
    ('{"thresholds": {"proceed": "high"}}', "thresholds.proceed must be a number in [0, 1]"),
    ('{"weight_map": {"hunch": 0.3}}', "weight_map key 'hunch' is not an evidence type; "
                                       "allowed: tool_match, specific_data"),
    ('{"weight_map": {"domain": 3}}', "weight_map.domain must be a number in [0, 1], got 3"),
    ('{"k_max": 1.5}', "k_max must be an integer >= 0, got 1.5"),
    ('{"capture_content": "sometimes"}', "capture_content must be true or false"),
    ('{"judge": 7}', "judge must be a string, got 7"),
    ('[1, 2]', "must hold a table of settings"),
    ('{"k_max": ', "is not valid JSON"),
])
def test_a_bad_settings_file_raises_an_error_naming_the_key(
        tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "gsar.json"
    path.write_text(text)
    with pytest.raises(SettingsError) as raised:
        load_settings({"GSAR_CONFIG": str(path)})
    assert message in str(raised.value)
    assert str(path) in str(raised.value)


def test_a_bad_toml_file_says_it_is_not_valid_toml(tmp_path: Path) -> None:
    path = tmp_path / "gsar.toml"
    path.write_text("k_max = = 2")
    with pytest.raises(SettingsError, match="is not valid TOML"):
        load_settings({"GSAR_CONFIG": str(path)})


def test_settings_are_loaded_once_until_reset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GSAR_K_MAX", "4")
    first = get_settings()
    monkeypatch.setenv("GSAR_K_MAX", "5")
    assert get_settings() is first
    assert first.k_max == 4
    reset_settings()
    assert get_settings().k_max == 5


def test_settings_are_frozen() -> None:
    settings = load_settings({})
    with pytest.raises(ValueError, match="frozen"):
        settings.k_max = 3  # type: ignore[misc]
    weighted = GSARSettings(weight_map={"domain": 0.1})
    with pytest.raises(TypeError):
        weighted.weight_map["domain"] = 0.9  # type: ignore[index]
    assert weighted.weight_map == {"domain": 0.1}


def test_a_settings_file_that_is_not_utf8_is_a_settings_error(tmp_path: Path) -> None:
    path = tmp_path / "gsar.json"
    path.write_bytes(b'{"judge": "lexical\xff"}')
    with pytest.raises(SettingsError, match="is not UTF-8 text"):
        load_settings({"GSAR_CONFIG": str(path)})


def test_a_broken_settings_file_turns_grounding_off_and_never_breaks_the_call(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gsar_otel import grounded

    path = tmp_path / "gsar.json"
    path.write_bytes(b"\xff\xfe not text")
    monkeypatch.setenv("GSAR_CONFIG", str(path))
    answer = "".join(["CPU reached ", "97%."])

    @grounded
    def agent() -> str:
        return answer

    assert agent() is answer
