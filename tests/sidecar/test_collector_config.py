"""The Collector configuration shipped for scale-out (docs/sidecar-collector.yaml, and the same
YAML on docs/sidecar.md) has what the ``loadbalancing`` exporter's documentation asks for:
``routing_key: traceID`` (whole traces, spans and log records, reach one sidecar), an OTLP
template under ``protocol.otlp`` without ``endpoint`` (the exporter fills it in per backend),
exactly one resolver (``static``/``dns``/``k8s``/``aws_cloud_map``) pointing at the sidecars'
gRPC port; and every pipeline names components that are defined. (No Collector binary is run
here: the checks are on the structure the exporter's README documents.)"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "docs" / "sidecar-collector.yaml"
RESOLVERS = {"static", "dns", "k8s", "aws_cloud_map"}
SIDECAR_GRPC_PORT = 4317


def _page_config() -> dict[str, Any]:
    text = (ROOT / "docs" / "sidecar.md").read_text()
    section = text.split("<!-- section:sidecar -->", 1)[1].split("<!-- /section:sidecar -->")[0]
    blocks = re.findall(r"```yaml\n(.*?)```", section, flags=re.DOTALL)
    assert len(blocks) == 1, "docs/sidecar.md shows one Collector config"
    loaded: dict[str, Any] = yaml.safe_load(blocks[0])
    return loaded


def _shipped() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(SHIPPED.read_text())
    return loaded


def _kind(component_id: str) -> str:
    """``loadbalancing/gsar`` -> ``loadbalancing`` (the Collector's ``type[/name]`` ids)."""
    return component_id.split("/", 1)[0]


def test_the_sidecar_page_shows_the_shipped_config() -> None:
    assert _page_config() == _shipped()


@pytest.mark.parametrize("load", [_shipped, _page_config], ids=["yaml", "page"])
def test_the_loadbalancing_exporter_has_what_its_documentation_requires(load: Any) -> None:
    config = load()
    balancers = {k: v for k, v in config["exporters"].items() if _kind(k) == "loadbalancing"}
    assert len(balancers) == 1
    ((name, exporter),) = balancers.items()
    assert exporter["routing_key"] == "traceID"
    assert set(exporter["protocol"]) == {"otlp"}
    template = exporter["protocol"]["otlp"]
    assert isinstance(template, dict) and "endpoint" not in template
    assert template["headers"]["authorization"] == "Bearer ${env:GSAR_SIDECAR_TOKEN}"
    resolver = exporter["resolver"]
    assert len(set(resolver) & RESOLVERS) == 1 and set(resolver) <= RESOLVERS
    if "dns" in resolver:
        assert resolver["dns"]["hostname"]
        assert resolver["dns"].get("port", SIDECAR_GRPC_PORT) == SIDECAR_GRPC_PORT
    if "static" in resolver:
        assert all(h.endswith(f":{SIDECAR_GRPC_PORT}") for h in resolver["static"]["hostnames"])
    pipelines = config["service"]["pipelines"]
    for signal in ("traces", "logs"):  # log records must follow their traces to one sidecar
        assert name in pipelines[signal]["exporters"], signal


@pytest.mark.parametrize("load", [_shipped, _page_config], ids=["yaml", "page"])
def test_every_pipeline_names_defined_components(load: Any) -> None:
    config = load()
    for pipeline_id, pipeline in config["service"]["pipelines"].items():
        assert _kind(pipeline_id) in {"traces", "logs", "metrics"}
        for section in ("receivers", "processors", "exporters"):
            for component in pipeline.get(section, []):
                assert component in (config.get(section) or {}), (pipeline_id, component)
    assert config["receivers"]["otlp"]["protocols"]["grpc"]
