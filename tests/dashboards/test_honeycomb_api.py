"""``dashboards/honeycomb/create_board.py`` against a local stand-in for Honeycomb's v1 API.

The stand-in answers like the real endpoints (``/1/queries/{dataset}``,
``/1/query_annotations/{dataset}``, ``/1/boards``, ``/1/triggers/{dataset}``) and refuses
requests without the ``X-Honeycomb-Team`` header, so the test sees exactly what the script sends
over HTTP.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.dashboards.queries import (
    DASHBOARDS,
    HONEYCOMB_FILES,
    HONEYCOMB_TRIGGER_FILES,
    load_json,
)

SCRIPT = DASHBOARDS / "honeycomb" / "create_board.py"
API_KEY = "hcaik_test_configuration_key"
TRIGGERS = load_json(HONEYCOMB_TRIGGER_FILES[0])["triggers"]


@dataclass
class FakeHoneycomb:
    url: str
    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    reject_boards_with: int | None = None
    reject_triggers_with: int | None = None


@pytest.fixture
def honeycomb() -> Iterator[FakeHoneycomb]:
    state = FakeHoneycomb(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.headers.get("X-Honeycomb-Team") != API_KEY:
                self._answer(401, {"error": "unknown API key - check your credentials"})
                return
            state.requests.append((self.path, body))
            count = len(state.requests)
            if self.path.startswith("/1/queries/"):
                self._answer(200, {"id": f"query-{count}", **body})
            elif self.path.startswith("/1/query_annotations/"):
                self._answer(201, {"id": f"annotation-{count}", **body})
            elif self.path == "/1/boards":
                if state.reject_boards_with:
                    self._answer(state.reject_boards_with, {"error": "panels: invalid position"})
                    return
                self._answer(201, {"id": "board-1", **body,
                                   "links": {"board_url": f"{state.url}/board/board-1"}})
            elif self.path.startswith("/1/triggers/"):
                if state.reject_triggers_with:
                    self._answer(state.reject_triggers_with,
                                 {"error": "query: trigger queries may not use HEATMAP"})
                    return
                self._answer(201, {"id": f"trigger-{count}", **body})
            else:
                self._answer(404, {"error": "not found"})

        def _answer(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def run_script(*args: str, api_key: str | None = API_KEY) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin"}
    if api_key is not None:
        env["HONEYCOMB_API_KEY"] = api_key
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=60
    )


def test_create_board_posts_each_query_its_annotation_and_then_the_board(
    honeycomb: FakeHoneycomb,
) -> None:
    board_file = load_json(HONEYCOMB_FILES[0])
    result = run_script("--dataset", "my agent", "--api-url", honeycomb.url)

    assert result.returncode == 0, result.stderr
    assert f"{honeycomb.url}/board/board-1" in result.stdout
    assert API_KEY not in result.stdout + result.stderr
    queries = board_file["queries"]
    assert len(honeycomb.requests) == 2 * len(queries) + 1 + len(TRIGGERS)
    honeycomb.requests[2 * len(queries) + 1:] = []  # the triggers: tested below
    panels = honeycomb.requests[-1][1]["panels"]
    for index, entry in enumerate(queries):
        (q_path, q_body), (a_path, a_body) = honeycomb.requests[2 * index: 2 * index + 2]
        assert q_path == "/1/queries/my%20agent"
        assert q_body == entry["query"]
        assert a_path == "/1/query_annotations/my%20agent"
        assert a_body == {"name": entry["name"], "description": entry["description"],
                          "query_id": f"query-{2 * index + 1}"}
        assert panels[index] == {
            "type": "query",
            "query_panel": {"query_id": f"query-{2 * index + 1}",
                            "query_annotation_id": f"annotation-{2 * index + 2}",
                            "query_style": entry["query_style"]},
            "position": entry["position"],
        }
    board_path, board_body = honeycomb.requests[-1]
    assert board_path == "/1/boards"
    assert board_body["name"] == board_file["board"]["name"]
    assert board_body["type"] == "flexible"
    assert board_body["layout_generation"] == "manual"


def test_create_board_reports_an_api_error_and_exits_non_zero(honeycomb: FakeHoneycomb) -> None:
    honeycomb.reject_boards_with = 422
    result = run_script("--dataset", "agent", "--api-url", honeycomb.url)
    assert result.returncode == 1
    assert "POST /1/boards: HTTP 422" in result.stderr
    assert "invalid position" in result.stderr


def test_create_board_without_a_key_says_which_variable_to_set(honeycomb: FakeHoneycomb) -> None:
    result = run_script("--dataset", "agent", "--api-url", honeycomb.url, api_key=None)
    assert result.returncode == 2
    assert "HONEYCOMB_API_KEY" in result.stderr
    assert honeycomb.requests == []


def test_create_board_dry_run_sends_nothing_and_prints_the_requests(
    honeycomb: FakeHoneycomb,
) -> None:
    result = run_script("--dataset", "agent", "--api-url", honeycomb.url, "--dry-run", api_key=None)
    assert result.returncode == 0, result.stderr
    assert honeycomb.requests == []
    assert result.stdout.count(f"POST {honeycomb.url}/1/queries/agent") == len(
        load_json(HONEYCOMB_FILES[0])["queries"]
    )
    assert f"POST {honeycomb.url}/1/boards" in result.stdout


def _trigger_requests(honeycomb: FakeHoneycomb) -> list[tuple[str, dict[str, Any]]]:
    return [(path, body) for path, body in honeycomb.requests if path.startswith("/1/triggers/")]


def test_create_board_then_creates_each_trigger_as_the_file_has_it(
    honeycomb: FakeHoneycomb,
) -> None:
    result = run_script("--dataset", "my agent", "--api-url", honeycomb.url)

    assert result.returncode == 0, result.stderr
    posted = _trigger_requests(honeycomb)
    assert honeycomb.requests[-len(TRIGGERS):] == posted, "the triggers come after the board"
    assert len(posted) == len(TRIGGERS)
    for (path, body), entry in zip(posted, TRIGGERS, strict=True):
        assert path == "/1/triggers/my%20agent"
        assert body == {"name": entry["name"], "description": entry["description"],
                        "query": entry["query"], "threshold": entry["threshold"],
                        "frequency": entry["frequency"], "alert_type": entry["alert_type"],
                        "disabled": False, "recipients": []}
        assert f"created trigger: {entry['name']} (trigger-" in result.stdout


def test_triggers_notify_the_recipients_given(honeycomb: FakeHoneycomb) -> None:
    result = run_script("--dataset", "agent", "--api-url", honeycomb.url,
                        "--recipient-id", "pd-oncall", "--recipient-id", "slack-grounding")
    assert result.returncode == 0, result.stderr
    posted = _trigger_requests(honeycomb)
    assert posted
    for _, body in posted:
        assert body["recipients"] == [{"id": "pd-oncall"}, {"id": "slack-grounding"}]


def test_no_triggers_creates_the_board_only(honeycomb: FakeHoneycomb) -> None:
    result = run_script("--dataset", "agent", "--api-url", honeycomb.url, "--no-triggers")
    assert result.returncode == 0, result.stderr
    assert _trigger_requests(honeycomb) == []
    assert honeycomb.requests[-1][0] == "/1/boards"
    assert "created trigger" not in result.stdout


def test_a_refused_trigger_is_reported_and_exits_non_zero(honeycomb: FakeHoneycomb) -> None:
    honeycomb.reject_triggers_with = 422
    result = run_script("--dataset", "agent", "--api-url", honeycomb.url)
    assert result.returncode == 1
    assert "POST /1/triggers/agent: HTTP 422" in result.stderr
    assert "HEATMAP" in result.stderr


def test_a_trigger_with_two_calculations_is_refused_before_anything_is_sent(
    honeycomb: FakeHoneycomb, tmp_path: Path,
) -> None:
    bad = json.loads(json.dumps(TRIGGERS[0]))
    bad["query"]["calculations"].append({"op": "COUNT"})
    path = tmp_path / "triggers.json"
    path.write_text(json.dumps({"triggers": [bad]}), encoding="utf-8")
    result = run_script("--dataset", "agent", "--api-url", honeycomb.url,
                        "--triggers-file", str(path))
    assert result.returncode == 1
    assert "triggers[0]: a trigger's query has one calculation" in result.stderr
    assert honeycomb.requests == []


def test_dry_run_prints_each_trigger_and_sends_nothing(honeycomb: FakeHoneycomb) -> None:
    result = run_script("--dataset", "agent", "--api-url", honeycomb.url, "--dry-run",
                        "--recipient-id", "pd-oncall", api_key=None)
    assert result.returncode == 0, result.stderr
    assert honeycomb.requests == []
    assert result.stdout.count(f"POST {honeycomb.url}/1/triggers/agent") == len(TRIGGERS)
    for entry in TRIGGERS:
        assert f"created trigger: {entry['name']} (dry-run-" in result.stdout
    assert '"alert":' not in result.stdout, "the file's own keys are not sent"
    assert '"id": "pd-oncall"' in result.stdout
