""":mod:`gsar_otel.environment`: each variable's good and bad values, read from a given mapping
or the process's environment, with errors that name the variable and the value."""

from __future__ import annotations

from typing import Any

import pytest

from gsar_otel import environment, semconv
from gsar_otel.config import _ENV_FIELDS, _SCALARS, THRESHOLD_KEYS, SettingsError
from gsar_otel.errors import GSARError

# (a good value, what it reads as, a bad value or None when every non-blank text is good,
#  a fragment of the bad value's message)
Case = tuple[str, Any, str | None, str | None]
UNIT: Case = (" 0.5 ", 0.5, "1.5", "must be a number in [0, 1], got '1.5'")
BOOL: Case = ("Yes", True, "maybe", "must be true or false (also 1/0, yes/no, on/off), "
                                    "got 'maybe'")
INT0: Case = ("0", 0, "-1", "must be an integer >= 0, got '-1'")
INT1: Case = ("3", 3, "0", "must be an integer >= 1, got '0'")
PORT: Case = ("4318", 4318, "65536", "must be an integer in [0, 65535], got '65536'")
SECONDS: Case = ("2.5", 2.5, "-1", "must be a number of seconds >= 0, got '-1'")
POSITIVE_SECONDS: Case = ("0.5", 0.5, "0", "must be a number of seconds >= 0.001, got '0'")
NAME: Case = ("  some name ", "some name", None, None)
SECRET: Case = ("s3cret-value", "s3cret-value", None, None)
POLICY: Case = (" Score ", "score", "strict", "must be one of cap, score, got 'strict'")
PROTOCOL: Case = ("GRPC", "grpc", "http/json",
                  "'http/json' is not supported; allowed: http/protobuf, grpc")

CASES: dict[str, Case] = {
    semconv.ENV_CONFIG: (" gsar.toml ", "gsar.toml", None, None),
    semconv.ENV_JUDGE: (" Staged ", "staged", None, None),
    semconv.ENV_JUDGE_MODEL: NAME,
    semconv.ENV_SAMPLE_RATE: UNIT,
    semconv.ENV_CAPTURE_CONTENT: BOOL,
    semconv.ENV_OTEL_GENAI_CAPTURE_CONTENT: ("span_only", True, None, None),
    semconv.ENV_DISABLED: BOOL,
    semconv.ENV_CAPTURE_DIR: NAME,
    semconv.ENV_BACKGROUND_QUEUE_SIZE: INT1,
    semconv.ENV_PROCEED: UNIT,
    semconv.ENV_REGENERATE: ("1", 1.0, "nan", "must be a number in [0, 1], got 'nan'"),
    semconv.ENV_CONTRADICTION_PENALTY: ("0", 0.0, "-0.1", "got '-0.1'"),
    semconv.ENV_K_MAX: INT0,
    semconv.ENV_CONCLUSION_POLICY: POLICY,
    semconv.ENV_CONTRADICTION_POLICY: ("cap", "cap", "none", "must be one of cap, score"),
    semconv.ENV_DISPUTE_POLICY: ("CAP", "cap", "score", "must be one of flag, cap, got 'score'"),
    semconv.ENV_MAX_ESCALATED_CLAIMS: INT0,
    semconv.ENV_EXIT_FLUSH_S: SECONDS,
    semconv.ENV_CONSOLE: ("Spans", "spans", "loud", "GSAR_CONSOLE='loud': allowed: summary, "
                                                    "spans, off"),
    semconv.ENV_TRACES_EXPORTER: ("otlp, Console,otlp", ("otlp", "console"), "jaeger",
                                  "OTEL_TRACES_EXPORTER='jaeger': unknown exporter 'jaeger'; "
                                  "allowed: otlp, console, none (comma-separated)"),
    semconv.ENV_METRICS_EXPORTER: ("prometheus", ("prometheus",), "none,otlp",
                                   "'none' cannot be combined with other exporters"),
    semconv.ENV_PROMETHEUS_HOST: ("0.0.0.0", "0.0.0.0", None, None),
    semconv.ENV_PROMETHEUS_PORT: PORT,
    semconv.ENV_OTLP_ENDPOINT: ("http://localhost:4318", "http://localhost:4318", None, None),
    semconv.ENV_OTLP_TRACES_ENDPOINT: ("localhost:4317", "localhost:4317", None, None),
    semconv.ENV_OTLP_METRICS_ENDPOINT: ("http://m/v1/metrics", "http://m/v1/metrics", None,
                                        None),
    semconv.ENV_OTLP_PROTOCOL: PROTOCOL,
    semconv.ENV_OTLP_TRACES_PROTOCOL: PROTOCOL,
    semconv.ENV_OTLP_METRICS_PROTOCOL: ("http/protobuf", "http/protobuf", "grpc-web",
                                        "is not supported"),
    semconv.ENV_OTLP_HEADERS: ("x-team=KEY", "x-team=KEY", None, None),
    semconv.ENV_OTLP_TRACES_HEADERS: ("a=1,b=2", "a=1,b=2", None, None),
    semconv.ENV_OTEL_SERVICE_NAME: NAME,
    semconv.ENV_ANTHROPIC_API_KEY: SECRET,
    semconv.ENV_ANTHROPIC_AUTH_TOKEN: SECRET,
    semconv.ENV_SIDECAR_HOST: ("0.0.0.0", "0.0.0.0", None, None),
    semconv.ENV_SIDECAR_HTTP_PORT: PORT,
    semconv.ENV_SIDECAR_GRPC_PORT: ("0", 0, "port", "must be an integer in [0, 65535], "
                                                    "got 'port'"),
    semconv.ENV_SIDECAR_FORWARD: ("https://c:4318/v1/traces", "https://c:4318/v1/traces",
                                  "ftp://c", "must be an http(s) URL such as "
                                  "http://collector:4318/v1/traces, got 'ftp://c'"),
    semconv.ENV_SIDECAR_TOKEN: SECRET,
    semconv.ENV_SIDECAR_DECISION_WAIT: SECONDS,
    semconv.ENV_SIDECAR_MAX_TRACE_AGE: ("600", 600.0, "inf", "got 'inf'"),
    semconv.ENV_SIDECAR_MAX_TRACES: INT1,
    semconv.ENV_SIDECAR_MAX_SPANS_PER_TRACE: INT1,
    semconv.ENV_SIDECAR_MAX_HELD_BYTES: ("1048576", 1048576, "1.5", "integer >= 1, got '1.5'"),
    semconv.ENV_SIDECAR_QUEUE_SIZE: INT1,
    semconv.ENV_SIDECAR_CONCURRENCY: INT1,
    semconv.ENV_SIDECAR_JUDGE_PROCESSES: INT0,
    semconv.ENV_SIDECAR_MALLOC_ARENAS: INT0,
    semconv.ENV_SIDECAR_MAX_BODY_BYTES: INT1,
    semconv.ENV_SIDECAR_MAX_GRPC_INFLIGHT: INT1,
    semconv.ENV_SIDECAR_HEADER_TIMEOUT: POSITIVE_SECONDS,
    semconv.ENV_SIDECAR_MIN_BODY_RATE: INT1,
    semconv.ENV_SIDECAR_HEALTH_RESERVE: INT0,
    semconv.ENV_SIDECAR_JUDGE_CONCURRENCY: INT1,
    semconv.ENV_SIDECAR_JUDGE_QUEUE: INT0,
    semconv.ENV_SIDECAR_MAX_INFLIGHT_BYTES: INT1,
    semconv.ENV_SIDECAR_FORWARD_MAX_BYTES: INT1,
    semconv.ENV_SIDECAR_GRPC_RECEIVE_TIMEOUT: POSITIVE_SECONDS,
    semconv.ENV_SIDECAR_VERDICT_BUFFER: INT1,
    semconv.ENV_SIDECAR_DECODE_PROCESS_BYTES: INT0,
    semconv.ENV_SIDECAR_INCLUDE_UNVERIFIED: ("off", False, "2", "must be true or false"),
    semconv.ENV_SIDECAR_MAX_JUDGE_PAIRS: INT0,
    semconv.ENV_SIDECAR_MODEL_TOKEN_BUDGET: INT0,
    semconv.ENV_SIDECAR_SHUTDOWN_GRACE: POSITIVE_SECONDS,
    semconv.ENV_SIDECAR_LOG_VERDICTS: BOOL,
    semconv.ENV_SIDECAR_CAPTURE_CASES: ("/var/cases", "/var/cases", None, None),
    semconv.ENV_SIDECAR_CAPTURE_RATE: UNIT,
}
SECRETS = {semconv.ENV_ANTHROPIC_API_KEY, semconv.ENV_ANTHROPIC_AUTH_TOKEN,
           semconv.ENV_SIDECAR_TOKEN, semconv.ENV_OTLP_HEADERS, semconv.ENV_OTLP_TRACES_HEADERS}


def test_every_variable_has_a_case_and_a_meaning() -> None:
    names = [variable.name for variable in environment.VARIABLES]
    assert len(names) == len(set(names)), "a variable is in two rows"
    assert sorted(set(names) ^ set(CASES)) == []
    assert all(variable.meaning.strip() for variable in environment.VARIABLES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_good_value_reads_as_its_value(name: str) -> None:
    good, expected, _, _ = CASES[name]
    assert environment.read(name, {name: good}) == expected
    assert environment.raw(name, {name: good}) == good.strip()


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("blank", [None, "", "   "])
def test_unset_or_blank_reads_as_none(name: str, blank: str | None) -> None:
    env = {} if blank is None else {name: blank}
    assert environment.read(name, env) is None
    assert environment.raw(name, env) is None


@pytest.mark.parametrize("name", sorted(name for name, case in CASES.items() if case[2]))
def test_a_bad_value_is_a_settings_error_naming_the_variable_and_the_value(name: str) -> None:
    _, _, bad, fragment = CASES[name]
    with pytest.raises(SettingsError) as raised:
        environment.read(name, {name: f" {bad} "})
    message = str(raised.value)
    assert isinstance(raised.value, GSARError) and isinstance(raised.value, ValueError)
    assert message.startswith(name) and repr(bad) in message
    assert fragment in message


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_a_secret_is_never_shown(name: str) -> None:
    row = environment.BY_NAME[name]
    assert CASES[name][2] is None  # any non-blank text is good: nothing to echo
    with pytest.raises(SettingsError) as raised:
        row.parse(name, 42)
    assert "42" not in str(raised.value)


def test_the_genai_capture_variable_reads_its_dialect_and_ignores_others() -> None:
    name = semconv.ENV_OTEL_GENAI_CAPTURE_CONTENT
    read = {value: environment.read(name, {name: value})
            for value in ("true", "event_only", "span_and_event", "false", "NO_CONTENT", "all")}
    assert read == {"true": True, "event_only": True, "span_and_event": True, "false": False,
                    "NO_CONTENT": False, "all": None}


def test_commas_alone_read_as_no_exporter_list() -> None:
    assert environment.read("OTEL_TRACES_EXPORTER", {"OTEL_TRACES_EXPORTER": " , ,"}) is None


def test_without_a_mapping_the_process_environment_is_read_at_the_call(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(semconv.ENV_K_MAX, "4")
    assert environment.read(semconv.ENV_K_MAX) == 4
    monkeypatch.setenv(semconv.ENV_K_MAX, "five")
    with pytest.raises(SettingsError, match="GSAR_K_MAX must be an integer >= 0, got 'five'"):
        environment.read(semconv.ENV_K_MAX)
    monkeypatch.delenv(semconv.ENV_K_MAX)
    assert environment.read(semconv.ENV_K_MAX) is None


def test_a_name_outside_the_table_is_refused() -> None:
    with pytest.raises(KeyError, match="GSAR_NOPE is not a variable gsar-otel reads"):
        environment.read("GSAR_NOPE", {"GSAR_NOPE": "1"})
    with pytest.raises(KeyError):
        environment.raw("HOME", {})


def test_a_settings_file_key_and_its_variable_share_one_parser() -> None:
    for variable, field in _ENV_FIELDS.items():
        if field not in THRESHOLD_KEYS:
            assert _SCALARS[field] is environment.parser(variable), field
    assert _SCALARS["capture_content"] is environment.parser(semconv.ENV_CAPTURE_CONTENT)


def test_the_sidecar_settings_parse_with_their_variables_rows() -> None:
    from gsar_otel.sidecar.settings import SETTINGS

    for setting in SETTINGS:
        assert setting.parse is environment.BY_NAME[setting.variable].parse, setting.key
