"""A real Arize Phoenix server for end-to-end telemetry tests.

Phoenix pins ``anthropic<2``, so it runs from a virtual environment of its own: the python named
by ``GSAR_PHOENIX_PYTHON``, else ``<repo>/.venv-phoenix/bin/python`` (what ``make setup-servers``
builds). The session-scoped ``phoenix`` fixture starts one server on free loopback ports with a
throw-away working directory (its SQLite database lives there), waits until both the HTTP port
(UI, REST API and OTLP http/protobuf on ``/v1/traces``) and the OTLP gRPC port answer, and stops
it at the end of the session.

Phoenix files spans under the project named by the ``openinference.project.name`` resource
attribute (else its ``default`` project), and ingests them through a queue: a span exported
successfully shows up in the REST API a moment later, so :meth:`PhoenixServer.wait_for_spans`
polls.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.support.servers import free_port, stop_process, unavailable, wait_for_http

ENV_PHOENIX_PYTHON = "GSAR_PHOENIX_PYTHON"
REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PHOENIX_PYTHON = REPO_ROOT / ".venv-phoenix" / "bin" / "python"
PROJECT_RESOURCE_ATTRIBUTE = "openinference.project.name"
"""Resource attribute that picks the Phoenix project a span is filed under."""
STARTUP_TIMEOUT_S = 120.0
"""Phoenix runs its database migrations on start; on a slow CI machine that takes a while."""


@dataclass
class PhoenixServer:
    """A running Phoenix server and a small client for its REST API."""

    base_url: str
    otlp_http_endpoint: str
    otlp_grpc_endpoint: str
    working_dir: Path
    process: subprocess.Popen[bytes] = field(repr=False)
    log_path: Path = field(repr=False)

    def get_json(self, path: str, params: Sequence[tuple[str, str]] = ()) -> Any:
        """GET ``path`` (e.g. ``/v1/projects``) from the REST API and decode the JSON body."""
        query = f"?{urllib.parse.urlencode(list(params))}" if params else ""
        with urllib.request.urlopen(f"{self.base_url}{path}{query}", timeout=10) as response:
            return json.load(response)

    def spans(
        self,
        project: str = "default",
        *,
        name: str | None = None,
        trace_id: str | None = None,
        span_kind: str | None = None,
        attributes: Mapping[str, str | int | float | bool] | None = None,
        otlp: bool = False,
    ) -> list[dict[str, Any]]:
        """Spans of ``project`` as the REST API returns them, oldest first.

        Uses ``GET /v1/projects/{project}/spans`` (Phoenix's span form: ``span_kind`` holds
        ``openinference.span.kind``, ``attributes`` is a flat dict, ``events`` a list of
        ``{name, timestamp, attributes}``), or with ``otlp=True``
        ``GET /v1/projects/{project}/spans/otlpv1`` (OTLP JSON form, attributes as key/value
        lists, ``openinference.span.kind`` kept as an attribute). Filters run on the server.
        A project that does not exist yet has no spans.
        """
        params: list[tuple[str, str]] = [("limit", "1000")]
        if name is not None:
            params.append(("name", name))
        if trace_id is not None:
            params.append(("trace_id", trace_id))
        if span_kind is not None and not otlp:
            params.append(("span_kind", span_kind))
        for key, value in (attributes or {}).items():
            params.append(("attribute", f"{key}:{json.dumps(value)}"))
        path = f"/v1/projects/{urllib.parse.quote(project, safe='')}/spans"
        if otlp:
            path += "/otlpv1"
        found: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            page_params = [*params, ("cursor", cursor)] if cursor else params
            try:
                body = self.get_json(path, page_params)
            except urllib.error.HTTPError as error:
                if error.code == 404:
                    return []
                raise
            found.extend(body["data"])
            cursor = body.get("next_cursor")
            if not cursor:
                break
        return list(reversed(found))

    def filter_span_ids(self, project: str, condition: str) -> list[str]:
        """Ids of the spans of ``project`` matching a Phoenix filter ``condition`` — the
        expression typed into the search bar of Phoenix's span table, e.g.
        ``span_kind == 'EVALUATOR' and gsar.score < 0.8`` (runs ``POST /v1/spans``)."""
        body = json.dumps({"queries": [{"filter": {"condition": condition},
                                        "select": {"span_id": {"key": "context.span_id"}}}]})
        request = urllib.request.Request(
            f"{self.base_url}/v1/spans?{urllib.parse.urlencode({'project_name': project})}",
            data=body.encode(), method="POST",
            headers={"Content-Type": "application/json", "Accept": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            boundary = response.headers.get_param("boundary")
            text = response.read().decode()
        ids: list[str] = []
        # A multipart/mixed body with one JSON part (a pandas "table" frame) per query.
        for part in text.split(f"--{boundary}"):
            head, _, payload = part.partition("\r\n\r\n")
            if "application/json" not in head:
                continue
            for row in json.loads(payload)["data"]:
                ids.extend(str(v) for k, v in row.items() if k.endswith("context.span_id"))
        return list(dict.fromkeys(ids))

    def wait_for_spans(
        self, project: str, *, count: int, timeout_s: float = 30.0, **filters: Any
    ) -> list[dict[str, Any]]:
        """Poll :meth:`spans` until at least ``count`` spans match, then return them all.

        Raises:
            AssertionError: fewer than ``count`` spans arrived in time (the message shows how
                many did, and the server log's tail).
        """
        deadline = time.monotonic() + timeout_s
        found: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            found = self.spans(project, **filters)
            if len(found) >= count:
                return found
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError(
            f"Phoenix project {project!r} has {len(found)} span(s) matching {filters}, "
            f"expected {count} within {timeout_s}s\n{self.log_tail()}"
        )

    def log_tail(self, lines: int = 40) -> str:
        """The last lines of the server's output, for failure messages."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no Phoenix log)"
        return "\n".join(text.splitlines()[-lines:])


def phoenix_python() -> Path | None:
    """The python of the Phoenix virtual environment, or None when there is none."""
    configured = os.environ.get(ENV_PHOENIX_PYTHON, "").strip()
    candidate = Path(configured) if configured else DEFAULT_PHOENIX_PYTHON
    return candidate if candidate.is_file() and os.access(candidate, os.X_OK) else None


def _has_phoenix(python: Path) -> bool:
    check = "import importlib.util, sys; sys.exit(importlib.util.find_spec('phoenix') is None)"
    return subprocess.run([str(python), "-c", check], capture_output=True,
                          timeout=60).returncode == 0


def _server_env(working_dir: Path, http_port: int, grpc_port: int) -> dict[str, str]:
    # Inherited OTEL_* / PHOENIX_* settings would point Phoenix's own instrumentation or
    # database somewhere else; the server gets a clean slate plus its loopback ports.
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PHOENIX_", "OTEL_"))}
    env.update({
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(http_port),
        "PHOENIX_GRPC_PORT": str(grpc_port),
        "PHOENIX_WORKING_DIR": str(working_dir),
        "PHOENIX_TELEMETRY_ENABLED": "false",
        "PYTHONUNBUFFERED": "1",
    })
    return env


def _wait_until_serving(
    health_url: str, grpc_port: int, process: subprocess.Popen[bytes], timeout_s: float
) -> None:
    """Wait for ``/healthz`` to answer 200 and the gRPC port to accept, while the process lives."""
    deadline = time.monotonic() + timeout_s
    healthy = grpc_open = False
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"Phoenix exited with code {process.returncode}")
        if not healthy:
            try:
                wait_for_http(health_url, timeout_s=0.5)
                healthy = True
            except TimeoutError:
                pass
        if healthy and not grpc_open:
            try:
                with socket.create_connection(("127.0.0.1", grpc_port), timeout=1):
                    grpc_open = True
            except OSError:
                time.sleep(0.1)
        if healthy and grpc_open:
            return
    raise TimeoutError(f"Phoenix did not serve within {timeout_s}s "
                       f"(health check {'ok' if healthy else 'failing'}, "
                       f"gRPC port {'open' if grpc_open else 'closed'})")


def start_phoenix(python: Path, working_dir: Path) -> PhoenixServer:
    """Start Phoenix from ``python`` with its data in ``working_dir`` and wait until it serves.

    Raises:
        RuntimeError: the server exited or did not come up; the message carries its log.
    """
    http_port, grpc_port = free_port(), free_port()
    while grpc_port == http_port:
        grpc_port = free_port()
    log_path = working_dir / "phoenix.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [str(python), "-m", "phoenix.server.main", "serve"],
            env=_server_env(working_dir, http_port, grpc_port), cwd=working_dir,
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
        )
    base_url = f"http://127.0.0.1:{http_port}"
    server = PhoenixServer(
        base_url=base_url, otlp_http_endpoint=f"{base_url}/v1/traces",
        otlp_grpc_endpoint=f"http://127.0.0.1:{grpc_port}", working_dir=working_dir,
        process=process, log_path=log_path,
    )
    try:
        _wait_until_serving(f"{base_url}/healthz", grpc_port, process, STARTUP_TIMEOUT_S)
    except (TimeoutError, RuntimeError) as error:
        stop_process(process)
        raise RuntimeError(f"Phoenix did not start: {error}\n{server.log_tail()}") from error
    return server


@pytest.fixture(scope="session")
def phoenix() -> Iterator[PhoenixServer]:
    """One real Phoenix server for the whole test session (it takes seconds to start)."""
    python = phoenix_python()
    if python is None:
        unavailable(f"no Phoenix python: set {ENV_PHOENIX_PYTHON} or run `make setup-servers` "
                    f"(looked for {os.environ.get(ENV_PHOENIX_PYTHON) or DEFAULT_PHOENIX_PYTHON})")
        raise AssertionError("unreachable")  # unavailable() skips or fails
    if not _has_phoenix(python):
        unavailable(f"{python} cannot import phoenix: pip install arize-phoenix into it")
    working_dir = Path(tempfile.mkdtemp(prefix="gsar-phoenix-"))
    try:
        try:
            server = start_phoenix(python, working_dir)
        except RuntimeError:
            # A port taken between choosing and binding it is the likely cause: try once more.
            retry_dir = working_dir / "retry"
            retry_dir.mkdir()
            server = start_phoenix(python, retry_dir)
        try:
            yield server
        finally:
            stop_process(server.process)
    finally:
        shutil.rmtree(working_dir, ignore_errors=True)
