"""The public API is what users call: the names ``gsar_otel`` hands on are exactly the ones
docs/reference/api.md lists, each from the module the page names; a name it no longer hands on
says where it lives."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import gsar_otel

PAGE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "api.md"
ROW = re.compile(r"^\| `(\w+)` \| .* \| `(gsar_otel[\w.]*)` \|$", re.MULTILINE)


def documented() -> dict[str, str]:
    return dict(ROW.findall(PAGE.read_text(encoding="utf-8")))


def test_the_package_hands_on_exactly_the_documented_names() -> None:
    assert sorted(gsar_otel.__all__) == sorted(documented())


@pytest.mark.parametrize(("name", "module"), sorted(documented().items()))
def test_each_public_name_comes_from_the_module_the_page_names(name: str, module: str) -> None:
    value = getattr(gsar_otel, name)
    assert getattr(__import__(module, fromlist=[name]), name) is value


@pytest.mark.parametrize("name", ["safe_default_judge_output", "RecordingJudge", "load_settings"])
def test_a_name_no_longer_handed_on_says_where_it_lives(name: str) -> None:
    with pytest.raises(AttributeError, match=r"import it from gsar_otel\."):
        getattr(gsar_otel, name)


def test_an_unknown_name_is_a_plain_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'nothing_here'$"):
        gsar_otel.nothing_here  # noqa: B018
