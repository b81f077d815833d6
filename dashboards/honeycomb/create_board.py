#!/usr/bin/env python3
"""Create the GSAR grounding board and its alert triggers in Honeycomb.

For each query in gsar-grounding-board.json: ``POST /1/queries/{dataset}`` (the Query
Specification), then ``POST /1/query_annotations/{dataset}`` (its name and description); then
``POST /1/boards`` with one query panel per query. Then, for each trigger in
gsar-alert-triggers.json (the alerts of docs/alerts.md that the spans show),
``POST /1/triggers/{dataset}`` (``--no-triggers`` skips them). Standard library only, so it runs
with any Python 3.9+.

The API key is read from ``HONEYCOMB_API_KEY`` (a configuration key with the "Manage Queries and
Columns", "Manage Public Boards" and "Manage Triggers" permissions); it is sent as the
``X-Honeycomb-Team`` header and never printed.

Usage::

    HONEYCOMB_API_KEY=... python3 dashboards/honeycomb/create_board.py --dataset my-agent
    python3 dashboards/honeycomb/create_board.py --dataset my-agent --recipient-id abc123
    python3 dashboards/honeycomb/create_board.py --dataset my-agent --dry-run  # print only
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

DEFAULT_BOARD_FILE = Path(__file__).with_name("gsar-grounding-board.json")
DEFAULT_TRIGGERS_FILE = Path(__file__).with_name("gsar-alert-triggers.json")
TRIGGER_KEYS = ("name", "description", "query", "threshold", "frequency", "alert_type")
"""What a trigger entry sends; its other keys (``alert``: the Prometheus alert it mirrors) stay
in the file."""
DEFAULT_API_URL = "https://api.honeycomb.io"
API_KEY_ENV = "HONEYCOMB_API_KEY"


class HoneycombError(RuntimeError):
    """The Honeycomb API refused a request."""


def load_board(path: Path) -> dict[str, Any]:
    """Read and minimally validate a board file (``board`` + ``queries``)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or "board" not in data or "queries" not in data:
        raise ValueError(f"{path}: expected an object with 'board' and 'queries'")
    for index, entry in enumerate(data["queries"]):
        missing = {"name", "query"} - set(entry)
        if missing:
            raise ValueError(f"{path}: queries[{index}] lacks {sorted(missing)}")
    return data


def load_triggers(path: Path) -> list[dict[str, Any]]:
    """Read and minimally validate a triggers file (``triggers``: name, query, threshold and
    frequency each, one calculation per query, as Honeycomb requires)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("triggers"), list):
        raise ValueError(f"{path}: expected an object with a 'triggers' list")
    for index, entry in enumerate(data["triggers"]):
        missing = {"name", "query", "threshold", "frequency"} - set(entry)
        if missing:
            raise ValueError(f"{path}: triggers[{index}] lacks {sorted(missing)}")
        if len(entry["query"].get("calculations", [])) != 1:
            raise ValueError(f"{path}: triggers[{index}]: a trigger's query has one calculation")
    triggers: list[dict[str, Any]] = data["triggers"]
    return triggers


class Client:
    """A tiny JSON client for Honeycomb's v1 API."""

    def __init__(self, api_url: str, api_key: str, *, dry_run: bool = False) -> None:
        self.api_url = api_url.rstrip("/")
        self._api_key = api_key
        self.dry_run = dry_run
        self._fake_ids = 0

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST ``body`` as JSON to ``path``; the decoded JSON answer."""
        if self.dry_run:
            print(f"POST {self.api_url}{path}\n{json.dumps(body, indent=2)}")
            self._fake_ids += 1
            return {"id": f"dry-run-{self._fake_ids}", "links": {}}
        request = urllib.request.Request(
            f"{self.api_url}{path}",
            data=json.dumps(body).encode("utf-8"),
            method="POST",
            headers={"X-Honeycomb-Team": self._api_key, "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                answer: dict[str, Any] = json.load(response)
                return answer
        except urllib.error.HTTPError as error:
            detail = error.read().decode("utf-8", "replace")[:500]
            raise HoneycombError(f"POST {path}: HTTP {error.code}: {detail}") from error


def create_board(client: Client, board_file: dict[str, Any], dataset: str) -> dict[str, Any]:
    """Create every query, its annotation and the board; the board as Honeycomb returns it."""
    slug = urllib.parse.quote(dataset, safe="")
    panels: list[dict[str, Any]] = []
    for entry in board_file["queries"]:
        query = client.post(f"/1/queries/{slug}", entry["query"])
        annotation = client.post(
            f"/1/query_annotations/{slug}",
            {
                "name": entry["name"],
                "description": entry.get("description", ""),
                "query_id": query["id"],
            },
        )
        panel: dict[str, Any] = {
            "type": "query",
            "query_panel": {
                "query_id": query["id"],
                "query_annotation_id": annotation["id"],
                "query_style": entry.get("query_style", "graph"),
            },
        }
        if "position" in entry:
            panel["position"] = entry["position"]
        panels.append(panel)
    board = dict(board_file["board"])
    board.setdefault("type", "flexible")
    board["panels"] = panels
    if any("position" in panel for panel in panels):
        board["layout_generation"] = "manual"
    return client.post("/1/boards", board)


def create_triggers(client: Client, triggers: list[dict[str, Any]], dataset: str,
                    recipients: list[str]) -> list[dict[str, Any]]:
    """Create every trigger on ``dataset``, each notifying the recipients of the given ids; the
    triggers as Honeycomb returns them."""
    slug = urllib.parse.quote(dataset, safe="")
    created = []
    for entry in triggers:
        body = {key: entry[key] for key in TRIGGER_KEYS if key in entry}
        body["disabled"] = False
        body["recipients"] = [{"id": recipient} for recipient in recipients]
        created.append(client.post(f"/1/triggers/{slug}", body))
    return created


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", required=True,
                        help="dataset slug holding the spans (usually the service.name)")
    parser.add_argument("--board-file", type=Path, default=DEFAULT_BOARD_FILE)
    parser.add_argument("--triggers-file", type=Path, default=DEFAULT_TRIGGERS_FILE)
    parser.add_argument("--no-triggers", action="store_true",
                        help="create the board only")
    parser.add_argument("--recipient-id", action="append", default=[], metavar="ID",
                        help="an existing Honeycomb recipient the triggers notify (repeatable; "
                             "none: the triggers show in Honeycomb and notify nobody)")
    parser.add_argument("--api-url", default=os.environ.get("HONEYCOMB_API_URL", DEFAULT_API_URL),
                        help="API base URL; https://api.eu1.honeycomb.io for EU teams")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the requests instead of sending them")
    args = parser.parse_args(argv)
    api_key = os.environ.get(API_KEY_ENV, "").strip()
    if not api_key and not args.dry_run:
        print(f"set {API_KEY_ENV} to a Honeycomb configuration key", file=sys.stderr)
        return 2
    client = Client(args.api_url, api_key, dry_run=args.dry_run)
    try:
        board_file = load_board(args.board_file)
        triggers = [] if args.no_triggers else load_triggers(args.triggers_file)
        board = create_board(client, board_file, args.dataset)
        url = board.get("links", {}).get("board_url") or board.get("id")
        print(f"created board: {url}")
        created = create_triggers(client, triggers, args.dataset, args.recipient_id)
        for index, trigger in enumerate(created):
            print(f"created trigger: {triggers[index]['name']} ({trigger.get('id')})")
    except (OSError, ValueError, HoneycombError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
