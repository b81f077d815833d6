"""A container image's tag is a version (``registry.local/checkout-api:v1.4.2``), and the judge
reads it: the tag restated is grounded, another version never."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gsar_otel.core.anchors import extract_anchors
from gsar_otel.core.evidence import EvidenceSet
from gsar_otel.judges.staged import StagedJudge

versions = st.tuples(st.integers(0, 20), st.integers(0, 40), st.integers(0, 99))


@settings(max_examples=60)
@given(version=versions, prefix=st.sampled_from(["v", ""]),
       registry=st.sampled_from(["", "registry.local/", "ghcr.io/acme/", "123.dkr.ecr.aws/"]),
       service=st.sampled_from(["checkout-api", "auth-service", "payments"]),
       other=versions)
def test_an_image_tag_is_a_version(version: tuple[int, int, int], prefix: str, registry: str,
                                   service: str, other: tuple[int, int, int]) -> None:
    tag = f"{prefix}{'.'.join(map(str, version))}"
    image = f"{registry}{service}:{tag}"
    found = [a for a in extract_anchors(f"image={image}") if a.kind.name == "VERSION"]
    assert [a.value[:3] for a in found] == [version], image
    items = EvidenceSet.coerce([f'{{"service": "{service}", "image": "{image}"}}'])
    said = StagedJudge().explain(synthesis=f"{service} runs v{'.'.join(map(str, version))}.",
                                 evidence=items)
    assert [v.bucket for v in said] == ["grounded"], image
    if other != version:
        wrong = StagedJudge().explain(synthesis=f"{service} runs v{'.'.join(map(str, other))}.",
                                      evidence=items)
        assert [v.bucket for v in wrong] != ["grounded"], image
