"""One redaction: every secret shape, embedded anywhere in random text, is masked."""

from __future__ import annotations

import string

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gsar_otel.core.redact import (
    REDACTED,
    contains_secret,
    redact_text,
    redact_tree,
    replace_lone_surrogates,
    secret_values,
)
from tests.support.cost import growth_exponent, module_patterns, operations, regex_hazards

ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
B64URL = ALNUM + "-_"

token = st.text(ALNUM, min_size=16, max_size=40)
"""The secret part of a shape: long enough that random prose cannot hold it by chance."""


def _mixed_case(value: str) -> str:
    # An AWS secret key has upper, lower and digits; make sure a generated one does too.
    return "aB3" + value[3:]


@st.composite
def secret_shape(draw: st.DrawFn) -> tuple[str, str]:
    """``(text holding a secret, the secret part that must not survive)``."""
    value = draw(token)
    key_name = draw(st.sampled_from([
        "password", "PASSWORD", "db_password", "passwd", "pwd", "token", "auth_token",
        "access_token", "secret", "client_secret", "api_key", "apiKey", "x-api-key",
        "aws_secret_access_key", "GITHUB_TOKEN", "SLACK_BOT_TOKEN", "private_key",
        "credentials", "sessionId", "Authorization"]))
    separator = draw(st.sampled_from(["=", ": ", " = ", ":", "=>"]))
    quote = draw(st.sampled_from(["", '"', "'"]))
    kind = draw(st.sampled_from([
        "key_value", "json", "bearer", "basic", "aws_access", "aws_secret", "anthropic", "openai",
        "private_key", "db_url", "jwt", "github", "github_pat", "slack", "slack_webhook"]))
    if kind == "key_value":
        return f"{key_name}{separator}{quote}{value}{quote}", value
    if kind == "json":
        return f'{{"{key_name}": "{value}"}}', value
    if kind == "bearer":
        return f"Authorization: Bearer {value}", value
    if kind == "basic":
        return f"Authorization: Basic {value}==", value
    if kind == "aws_access":
        tail = draw(st.text(UPPER_DIGITS, min_size=16, max_size=16))
        prefix = draw(st.sampled_from(["AKIA", "ASIA"]))
        return prefix + tail, prefix + tail
    if kind == "aws_secret":
        secret = _mixed_case(draw(st.text(ALNUM + "/+", min_size=40, max_size=40)))
        return secret, secret
    if kind == "anthropic":
        return f"sk-ant-api03-{value}", value
    if kind == "openai":
        return f"sk-proj-{value}", value
    if kind == "private_key":
        body = "\n".join(draw(st.lists(st.text(ALNUM + "+/", min_size=16, max_size=64),
                                       min_size=1, max_size=4)))
        label = draw(st.sampled_from(["", "RSA ", "EC ", "OPENSSH ", "ENCRYPTED "]))
        return (f"-----BEGIN {label}PRIVATE KEY-----\n{value}\n{body}\n"
                f"-----END {label}PRIVATE KEY-----"), value
    if kind == "db_url":
        scheme = draw(st.sampled_from(["postgres", "postgresql", "mysql", "mongodb+srv",
                                       "redis", "amqp", "https"]))
        return f"{scheme}://admin:{value}@db.internal:5432/app", value
    if kind == "jwt":
        parts = [draw(st.text(B64URL, min_size=8, max_size=30)) for _ in range(2)]
        return f"eyJ{parts[0]}.eyJ{parts[1]}.{value}", value
    if kind == "github":
        prefix = draw(st.sampled_from(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]))
        return prefix + value + "abcd", value
    if kind == "github_pat":
        return f"github_pat_{value}_{value[::-1]}", value
    if kind == "slack":
        prefix = draw(st.sampled_from(["xoxb", "xoxp", "xoxa", "xoxs"]))
        return f"{prefix}-1234567890-{value}", value
    return f"https://hooks.slack.com/services/T000/B000/{value}", value


prose = st.text(string.ascii_letters + string.digits + " .,;:()-_/\n\t%", max_size=80)


@settings(max_examples=400, deadline=None)
@given(before=prose, shape=secret_shape(), after=prose,
       gap=st.sampled_from([" ", "\n", " (", ": ", "\t"]))
def test_every_secret_shape_is_masked_inside_random_text(before: str, shape: tuple[str, str],
                                                         after: str, gap: str) -> None:
    text, secret = shape
    assume(secret not in before and secret not in after)
    redacted = redact_text(f"{before}{gap}{text} {after}")
    assert secret not in redacted
    assert REDACTED in redacted


@settings(max_examples=200, deadline=None)
@given(before=prose, shape=secret_shape(), after=prose)
def test_redaction_is_idempotent(before: str, shape: tuple[str, str], after: str) -> None:
    once = redact_text(f"{before} {shape[0]} {after}")
    assert redact_text(once) == once


@settings(max_examples=200, deadline=None)
@given(name=st.sampled_from(["ANTHROPIC_API_KEY", "MY_SERVICE_TOKEN", "DB_PASSWORD",
                             "APP_SECRET", "GCP_CREDENTIALS"]),
       value=st.text(string.printable.strip(), min_size=8, max_size=40), before=prose,
       after=prose)
def test_values_of_secret_named_variables_are_masked_wherever_they_appear(
        name: str, value: str, before: str, after: str) -> None:
    # a value inside the mask itself ("REDACTED") is masked but still reads in the mask
    assume(value.strip() == value and value not in before + after and value not in REDACTED)
    values = secret_values({name: value, "HOME": "/home/someone-else"})
    assert values == (value,)
    assert value not in redact_text(before + value + after, values)


PLAIN = [
    "CPU on host db-prod-1 reached 97% at 14:02.",
    "Request rate dropped to 12 RPS; p99 latency was 840 ms.",
    "Deployed commit 0123456789abcdef0123456789abcdef01234567 to edge-lb-3.",
    "Note: the author: Jane Doe restarted the service.",
    "See https://example.com/docs/setup for details.",
    "[tool=query_metrics row=14:02:01] host=db-prod-1 cpu_pct=97.2",
]


@pytest.mark.parametrize("text", PLAIN)
def test_ordinary_incident_text_is_left_alone(text: str) -> None:
    assert redact_text(text) == text
    assert not contains_secret(text)


def test_only_the_secret_is_masked_and_its_context_is_kept() -> None:
    assert redact_text("password=hunter2 then") == f"password={REDACTED} then"
    assert (redact_text("postgres://app:s3cret@db:5432/x")
            == f"postgres://app:{REDACTED}@db:5432/x")
    assert redact_text('{"api_key": "abc123"}') == f'{{"api_key": "{REDACTED}"}}'


def test_an_unterminated_private_key_block_is_masked_to_the_end() -> None:
    text = "before -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nmore"
    assert redact_text(text) == f"before {REDACTED}"


def test_short_environment_values_and_other_variables_are_not_secrets() -> None:
    assert secret_values({"API_KEY": "short", "HOME": "/home/user-with-long-path",
                          "SERVICE_TOKEN": "  long-enough-token  "}) == ("long-enough-token",)


def test_trees_are_redacted_in_every_string() -> None:
    tree = {"a": ["token=abcdef123", ("x", 1)], "b": {"c": "AKIAIOSFODNN7EXAMPLE"}, "d": None}
    assert redact_tree(tree) == {"a": [f"token={REDACTED}", ["x", 1]],
                                 "b": {"c": REDACTED}, "d": None}


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=40), st.lists(st.integers(0xD800, 0xDFFF), max_size=5))
def test_lone_surrogates_are_replaced_and_counted(text: str, surrogates: list[int]) -> None:
    dirty = text + "".join(chr(code) for code in surrogates)
    clean, count = replace_lone_surrogates(dirty)
    assert count == len(surrogates)
    clean.encode("utf-8")  # encodable


def test_a_value_never_hides_the_next_key() -> None:
    assert redact_text("note: password=hunter22 ok") == f"note: password={REDACTED} ok"
    assert redact_text("a:" * 50 + "secret=xyz") == "a:" * 50 + f"secret={REDACTED}"


def test_no_redaction_pattern_can_backtrack_super_linearly() -> None:
    from gsar_otel.core import redact

    hazards = {name: regex_hazards(p) for name, p in module_patterns(redact).items()}
    assert {name: found for name, found in hazards.items() if found} == {}


HOSTILE = {
    "key separators": lambda n: "a:" * n,
    "secret keys": lambda n: "password=" * n,
    "bearer words": lambda n: "bearer " * n,
    "url schemes": lambda n: "a://b:" * n,
    "unterminated key block": lambda n: "-----BEGIN PRIVATE KEY-----" + "-" * n,
    "base64 run": lambda n: "aB3+" * n,
    "jwt starts": lambda n: "eyJ." * n,
}


@pytest.mark.parametrize("shape", sorted(HOSTILE))
def test_redaction_cost_is_linear_on_hostile_text(shape: str) -> None:
    from gsar_otel.core import redact

    def cost(n: int) -> float:
        return operations(redact_text, HOSTILE[shape](n), modules=[redact])

    assert growth_exponent(cost, [500, 1000, 2000, 4000]) < 1.3


ENV_NAMES = st.sampled_from(["GSAR_TEST_API_KEY", "GSAR_TEST_TOKEN", "GSAR_TEST_PASSWORD",
                             "GSAR_TEST_HOME", "GSAR_TEST_SECRET"])
ENV_VALUES = st.one_of(st.text(ALNUM, min_size=8, max_size=24), st.sampled_from(["short", ""]))


@given(st.lists(st.tuples(ENV_NAMES, st.one_of(st.none(), ENV_VALUES)), min_size=1,
                max_size=12))
@settings(max_examples=60, deadline=None)
def test_the_process_environment_is_read_again_whenever_it_changed(
        changes: list[tuple[str, str | None]]) -> None:
    """Whatever is set, changed or removed between two calls is what the next call sees, as a
    fresh read of ``os.environ`` would (the environment is only compared between changes)."""
    import os

    try:
        for name, value in changes:
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
            assert secret_values() == secret_values(dict(os.environ))
    finally:
        for name, _ in changes:
            os.environ.pop(name, None)
    assert secret_values() == secret_values(dict(os.environ))


def test_an_unchanged_environment_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from gsar_otel.core import redact

    reads: list[int] = []
    real = redact._secret_values

    def counting(items: object) -> tuple[str, ...]:
        reads.append(1)
        return real(items)  # type: ignore[arg-type]

    monkeypatch.setattr(redact, "_secret_values", counting)
    monkeypatch.setenv("GSAR_TEST_API_KEY", "first-secret-value")
    monkeypatch.setenv("GSAR_TEST_CURRENT", "0")
    first = []
    for step in range(5):  # as pytest sets PYTEST_CURRENT_TEST for every test
        monkeypatch.setenv("GSAR_TEST_CURRENT", str(step))
        first.append(secret_values())
    monkeypatch.setenv("GSAR_TEST_API_KEY", "second-secret-value")
    second = secret_values()
    assert len(reads) == 2
    assert "first-secret-value" in first[-1] and "second-secret-value" in second
    assert "first-secret-value" not in second
