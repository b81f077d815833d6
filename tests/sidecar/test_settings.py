"""`gsar sidecar`'s own settings: a flag over its GSAR_SIDECAR_* variable over the settings
file's ``sidecar`` table over the default; every bad value names where it came from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gsar_otel import semconv as sc
from gsar_otel.cli.common import BadInput
from gsar_otel.cli.main import build_parser
from gsar_otel.cli.sidecar import build_config
from gsar_otel.config import SettingsError, load_settings
from gsar_otel.sidecar.settings import SETTINGS, sidecar_settings


def _config(*argv: str, env: dict[str, str] | None = None, file: Path | None = None) -> Any:
    args = build_parser().parse_args(["sidecar", *argv])
    settings = load_settings({sc.ENV_CONFIG: str(file)} if file else {})
    return build_config(args, settings, env=env or {})


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "gsar.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_without_flags_variables_or_file() -> None:
    values = sidecar_settings(load_settings({}), env={})
    assert values == {s.key: s.default for s in SETTINGS}
    config = _config()
    assert (config.host, config.http_port, config.grpc_port, config.token) == (
        "127.0.0.1", 4318, 4317, None)


def test_flag_over_variable_over_file(tmp_path: Path) -> None:
    file = _file(tmp_path, "[sidecar]\ndecision_wait = 3\nqueue_size = 7\nhttp_port = 9000\n"
                           'forward = "http://collector:4318/v1/traces"\ntoken = "from-file"\n')
    env = {sc.ENV_SIDECAR_DECISION_WAIT: "4.5", sc.ENV_SIDECAR_HTTP_PORT: "9100",
           sc.ENV_SIDECAR_MAX_GRPC_INFLIGHT: "8"}
    config = _config("--http-port", "9200", env=env, file=file)
    assert config.http_port == 9200  # flag
    assert config.limits.decision_wait_s == 4.5  # variable over file
    assert config.max_grpc_inflight == 8  # variable
    assert config.queue_size == 7  # file
    assert config.forward == "http://collector:4318/v1/traces"
    assert config.token == "from-file"
    assert _config(env={sc.ENV_SIDECAR_TOKEN: "from-env"}, file=file).token == "from-env"


def test_the_token_in_the_file_stays_out_of_the_settings_repr_and_dump(tmp_path: Path) -> None:
    settings = load_settings({sc.ENV_CONFIG: str(_file(tmp_path, '[sidecar]\ntoken = "s3cr3t"\n'))})
    assert "s3cr3t" not in repr(settings)
    assert "s3cr3t" not in str(settings.model_dump())


@pytest.mark.parametrize(("variable", "value"), [
    (sc.ENV_SIDECAR_HTTP_PORT, "70000"), (sc.ENV_SIDECAR_GRPC_PORT, "-1"),
    (sc.ENV_SIDECAR_DECISION_WAIT, "soon"), (sc.ENV_SIDECAR_MAX_TRACE_AGE, "nan"),
    (sc.ENV_SIDECAR_MAX_TRACES, "0"), (sc.ENV_SIDECAR_QUEUE_SIZE, "1.5"),
    (sc.ENV_SIDECAR_CONCURRENCY, "true"), (sc.ENV_SIDECAR_FORWARD, "collector:4318"),
    (sc.ENV_SIDECAR_MAX_GRPC_INFLIGHT, "0"), (sc.ENV_SIDECAR_MAX_BODY_BYTES, "-5"),
])
def test_a_bad_variable_is_bad_input_naming_it(variable: str, value: str) -> None:
    with pytest.raises(BadInput, match=variable):
        _config(env={variable: value})


@pytest.mark.parametrize(("text", "named"), [
    ("[sidecar]\nhttp_port = \"x\"\n", r"sidecar\.http_port"),
    ("[sidecar]\ndecision_wait = -2\n", r"sidecar\.decision_wait"),
    ("[sidecar]\nport = 1\n", "'port'"),
    ("sidecar = 3\n", "sidecar must be a table"),
])
def test_a_bad_file_entry_names_the_file_and_key(tmp_path: Path, text: str, named: str) -> None:
    file = _file(tmp_path, text)
    with pytest.raises((BadInput, SettingsError), match=named) as raised:
        _config(file=file)
    assert str(file) in str(raised.value)


def test_a_bad_token_is_named_without_its_value(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match=r"sidecar\.token") as raised:
        _config(file=_file(tmp_path, "[sidecar]\ntoken = 123456789\n"))
    assert "123456789" not in str(raised.value)


def test_a_bad_flag_names_the_flag() -> None:
    with pytest.raises(BadInput, match="--forward"):
        _config("--forward", "ftp://x/v1/traces")


@given(port=st.integers(0, 65535), wait=st.floats(0, 1e6, allow_nan=False))
def test_any_valid_variable_value_is_read_as_given(port: int, wait: float) -> None:
    env = {sc.ENV_SIDECAR_GRPC_PORT: f" {port} ", sc.ENV_SIDECAR_DECISION_WAIT: repr(wait)}
    values = sidecar_settings(load_settings({}), env=env)
    assert (values["grpc_port"], values["decision_wait"]) == (port, wait)


def _an_integer(text: str) -> bool:
    try:
        int(text.strip())
    except ValueError:
        return False
    return True


@given(text=st.text(min_size=1).filter(lambda t: bool(t.strip()) and not _an_integer(t)))
def test_any_non_integer_port_is_refused_naming_the_variable(text: str) -> None:
    with pytest.raises(SettingsError, match=sc.ENV_SIDECAR_HTTP_PORT):
        sidecar_settings(load_settings({}), env={sc.ENV_SIDECAR_HTTP_PORT: text})
