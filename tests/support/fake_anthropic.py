"""A fake Anthropic Messages API on 127.0.0.1, for tests that drive the real SDK over real HTTP.

``FakeMessagesServer`` answers ``POST /v1/messages`` from a queue of scripted responses (status,
JSON or raw body, headers such as ``retry-after-ms``, an optional delay) and, when the queue is
empty, from a default responder: a valid verdict that puts every sentence of the judged answer in
``grounded_claims`` citing its closest evidence item (as structured-output JSON text, or as a
``tool_use`` block when the request forces a tool). Every request is recorded (path, headers,
parsed JSON body) for assertions.

Use it as a context manager, through the function-scoped ``fake_anthropic`` pytest fixture
(import it into a ``conftest.py``), or standalone::

    python -m tests.support.fake_anthropic --port 8765

The helpers at the bottom build response bodies in the API's own shapes: a verdict message, a
``tool_use`` message, a refusal, a reply cut at ``max_tokens`` and error bodies (429, 529, 500).
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from gsar_otel.core.text import split_sentences
from gsar_otel.judges.anthropic.prompt import SYNTHESIS_CLOSE, SYNTHESIS_OPEN, VERDICT_TOOL_NAME

DEFAULT_MODEL_ECHO = "claude-sonnet-4-6"
"""Model named in responses when the request names none."""

_ids = itertools.count(1)


@dataclass(frozen=True)
class ScriptedResponse:
    """One scripted answer: status, body (dict/list as JSON, str/bytes as is), headers, delay."""

    status: int = 200
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received. ``headers`` keys are lower-case."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any
    raw: bytes

    @property
    def text(self) -> str:
        """The raw body, decoded."""
        return self.raw.decode("utf-8", errors="replace")

    def user_text(self) -> str:
        """All text the request's user turns carry, joined (what the judge was shown)."""
        parts: list[str] = []
        for message in (self.body or {}).get("messages", []):
            if message.get("role") != "user":
                continue
            content = message.get("content")
            if isinstance(content, str):
                parts.append(content)
            elif isinstance(content, list):
                for block in content:
                    if isinstance(block, dict):
                        text = block.get("text") or block.get("content")
                        if isinstance(text, str):
                            parts.append(text)
        return "\n".join(parts)


Responder = Callable[[RecordedRequest], ScriptedResponse]


class FakeMessagesServer:
    """A real HTTP server implementing enough of ``POST /v1/messages`` for the anthropic SDK."""

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0,
                 default: Responder | None = None) -> None:
        self._queue: deque[ScriptedResponse] = deque()
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.default: Responder = default or default_responder
        self._httpd = _QuietServer((host, port), _handler_for(self))
        self._thread: threading.Thread | None = None

    # -- lifecycle ----------------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The TCP port the server listens on."""
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """What to pass as ``base_url`` / ``ANTHROPIC_BASE_URL``."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FakeMessagesServer:
        """Serve in a background thread."""
        if self._thread is None:
            # A short poll interval keeps stop() (and so each test's teardown) fast.
            self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,),
                                            name="fake-anthropic", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; delayed responses still sleeping give up at once."""
        self._stopping.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> FakeMessagesServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- scripting ----------------------------------------------------------------------------

    def enqueue(self, *responses: ScriptedResponse | Mapping[str, Any]) -> None:
        """Answer the next requests with these, in order (a dict is a 200 JSON body)."""
        with self._lock:
            for response in responses:
                if not isinstance(response, ScriptedResponse):
                    response = ScriptedResponse(body=dict(response))
                self._queue.append(response)

    def respond_with(self, responder: Responder) -> None:
        """Answer with ``responder(request)`` whenever the queue is empty."""
        self.default = responder

    @property
    def pending(self) -> int:
        """Scripted responses not used yet."""
        with self._lock:
            return len(self._queue)

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    @property
    def message_requests(self) -> list[RecordedRequest]:
        """The ``POST /v1/messages`` requests received so far."""
        return [r for r in self.requests if r.method == "POST" and r.path == "/v1/messages"]

    @property
    def last_request(self) -> RecordedRequest:
        """The most recent ``POST /v1/messages`` request."""
        requests = self.message_requests
        if not requests:
            raise AssertionError("the fake Messages API has received no request")
        return requests[-1]

    def _next_response(self, request: RecordedRequest) -> ScriptedResponse:
        with self._lock:
            self._requests.append(request)
            scripted = self._queue.popleft() if self._queue else None
        return scripted if scripted is not None else self.default(request)


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up (its timeout fired, its loop closed) is not a server fault.
        error = sys.exc_info()[1]
        if not isinstance(error, ConnectionError):
            super().handle_error(request, client_address)


def _handler_for(server: FakeMessagesServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body leave in one segment, without Nagle's delay: a keep-alive reply
        # otherwise waits ~40 ms for the client's delayed ACK.
        disable_nagle_algorithm = True
        wbufsize = 64 * 1024

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: tests read the recorded requests instead."""

        def do_GET(self) -> None:
            # A readiness probe for wait_for_http; the SDK never GETs here.
            self._send(ScriptedResponse(body={"status": "ok"}))

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body: Any = json.loads(raw) if raw else None
            except ValueError:
                body = None
            request = RecordedRequest(
                method="POST", path=self.path.split("?", 1)[0],
                headers={k.lower(): v for k, v in self.headers.items()}, body=body, raw=raw)
            if request.path != "/v1/messages":
                response = error_response(404, "not_found_error", f"no route {request.path}")
                with server._lock:
                    server._requests.append(request)
            else:
                response = server._next_response(request)
            if response.delay_s and server._stopping.wait(response.delay_s):
                return
            self._send(response)

        def _send(self, response: ScriptedResponse) -> None:
            body = response.body
            if isinstance(body, bytes):
                payload, content_type = body, "application/octet-stream"
            elif isinstance(body, str):
                payload, content_type = body.encode(), "text/plain; charset=utf-8"
            else:
                payload, content_type = json.dumps(body).encode(), "application/json"
            try:
                self.send_response(response.status)
                headers = {"content-type": content_type, "request-id": f"req_fake_{next(_ids)}",
                           **{k.lower(): v for k, v in response.headers.items()}}
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                # The client gave up (its timeout fired): nothing left to answer.
                pass

    return Handler


# --- response bodies --------------------------------------------------------------------------


def _usage(usage: Mapping[str, int] | None) -> dict[str, int]:
    base = {"input_tokens": 1200, "output_tokens": 180, "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0}
    return {**base, **(usage or {})}


def message_body(content: Sequence[Mapping[str, Any]], *, stop_reason: str | None = "end_turn",
                 model: str = DEFAULT_MODEL_ECHO,
                 usage: Mapping[str, int] | None = None) -> dict[str, Any]:
    """A Messages API ``message`` object with these content blocks."""
    return {
        "id": f"msg_fake_{next(_ids)}", "type": "message", "role": "assistant", "model": model,
        "content": [dict(block) for block in content], "stop_reason": stop_reason,
        "stop_sequence": None, "usage": _usage(usage),
    }


def claim(text: str, type: str = "tool_match", refs: Sequence[str] = ("E1",), *,
          conclusion: bool = False) -> dict[str, Any]:
    """One claim in the wire format (every key the schema requires)."""
    return {"text": text, "type": type, "evidence_refs": list(refs), "conclusion": conclusion}


def _entries(claims: Sequence[Any]) -> list[Any]:
    return [dict(c) if isinstance(c, Mapping) else c for c in claims]


def verdict(*, grounded: Sequence[Any] = (), ungrounded: Sequence[Any] = (),
            contradicted: Sequence[Any] = (), complementary: Sequence[Any] = (),
            **fields: Any) -> dict[str, Any]:
    """A complete verdict object (every schema field present) with these claims.

    Claims are usually built with :func:`claim`; anything else is passed through as is, to
    script malformed verdicts.
    """
    total = len(grounded) + len(ungrounded) + len(contradicted) + len(complementary)
    supported = len(grounded) + len(complementary)
    data: dict[str, Any] = {
        "grounded_claims": _entries(grounded),
        "ungrounded_claims": _entries(ungrounded),
        "contradicted_claims": _entries(contradicted),
        "complementary_claims": _entries(complementary),
        "gaps": [], "contradictions": [], "verification_needed": False,
        "verification_reason": None,
        "grounding_score": round(supported / total, 3) if total else 0.5,
        "is_grounded": total > 0 and supported == total,
        "explanation": f"{supported} of {total} claims are backed by the evidence.",
        "decision_status": "resolved", "abstain_reason": None,
    }
    data.update(fields)
    return data


def verdict_message(data: Mapping[str, Any] | str, **kwargs: Any) -> dict[str, Any]:
    """A structured-output reply: the verdict as the JSON text of one text block."""
    text = data if isinstance(data, str) else json.dumps(data)
    return message_body([{"type": "text", "text": text}], **kwargs)


def tool_use_message(data: Mapping[str, Any], *, name: str = VERDICT_TOOL_NAME,
                     **kwargs: Any) -> dict[str, Any]:
    """A forced-tool reply: the verdict as the input of one ``tool_use`` block."""
    kwargs.setdefault("stop_reason", "tool_use")
    block = {"type": "tool_use", "id": f"toolu_fake_{next(_ids)}", "name": name,
             "input": dict(data)}
    return message_body([block], **kwargs)


def refusal_message(**kwargs: Any) -> dict[str, Any]:
    """A reply the model stopped with ``stop_reason: refusal``."""
    return message_body([], stop_reason="refusal", **kwargs)


def max_tokens_message(partial: str = '{"grounded_claims": [{"text": "CPU reached',
                       **kwargs: Any) -> dict[str, Any]:
    """A reply cut at ``max_tokens``: the JSON stops mid-way."""
    return message_body([{"type": "text", "text": partial}], stop_reason="max_tokens", **kwargs)


ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error",
               429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}


def error_response(status: int, error_type: str | None = None, message: str | None = None, *,
                   retry_after_ms: int | None = 5, delay_s: float = 0.0) -> ScriptedResponse:
    """An API error in the API's format; ``retry-after-ms`` keeps the SDK's backoff short."""
    kind = error_type or ERROR_TYPES.get(status, "api_error")
    body = {"type": "error", "error": {"type": kind, "message": message or kind.replace("_", " ")},
            "request_id": f"req_fake_{next(_ids)}"}
    headers = {"retry-after-ms": str(retry_after_ms)} if retry_after_ms is not None else {}
    return ScriptedResponse(status=status, body=body, headers=headers, delay_s=delay_s)


def rate_limited(**kwargs: Any) -> ScriptedResponse:
    """HTTP 429, rate_limit_error."""
    return error_response(429, **kwargs)


def overloaded(**kwargs: Any) -> ScriptedResponse:
    """HTTP 529, overloaded_error."""
    return error_response(529, **kwargs)


def server_error(**kwargs: Any) -> ScriptedResponse:
    """HTTP 500, api_error."""
    return error_response(500, **kwargs)


# --- default responder ------------------------------------------------------------------------

_ITEM_ID = re.compile(r'<item id="([^"]+)"')
_ITEM = re.compile(r'<item id="([^"]+)"[^>]*>\n(.*?)\n</item>', re.DOTALL)
_TOKEN = re.compile(r"[a-z0-9]+")


def judged_synthesis(request: RecordedRequest) -> str:
    """The answer text inside the synthesis delimiters of the request ('' when absent)."""
    text = request.user_text()
    start = text.find(SYNTHESIS_OPEN)
    end = text.find(SYNTHESIS_CLOSE, start + 1)
    if start < 0 or end < 0:
        return ""
    return text[start + len(SYNTHESIS_OPEN):end].strip()


def evidence_ids(request: RecordedRequest) -> list[str]:
    """The evidence ids the request shows the judge, in order."""
    return _ITEM_ID.findall(request.user_text())


def evidence_items(request: RecordedRequest) -> list[tuple[str, str]]:
    """``(id, content)`` of every evidence item the request shows the judge."""
    return _ITEM.findall(request.user_text())


def _closest_item(sentence: str, items: list[tuple[str, str]]) -> str:
    words = set(_TOKEN.findall(sentence.lower()))
    best = max(items, key=lambda item: len(words & set(_TOKEN.findall(item[1].lower()))))
    return best[0]


def all_grounded_verdict(request: RecordedRequest) -> dict[str, Any]:
    """Every sentence of the judged answer as a grounded tool_match claim.

    Each claim cites the evidence item sharing the most words and numbers with it (``E1`` when
    the request shows none), so plain answers pass the integrity guard's checks.
    """
    items = evidence_items(request) or [("E1", "")]
    sentences = split_sentences(judged_synthesis(request)) or ["The answer."]
    return verdict(grounded=[claim(sentence, "tool_match", [_closest_item(sentence, items)])
                             for sentence in sentences])


def forced_tool(request: RecordedRequest) -> str | None:
    """The tool name the request forces with ``tool_choice``, if any."""
    choice = (request.body or {}).get("tool_choice") or {}
    return choice.get("name") if choice.get("type") == "tool" else None


def default_responder(request: RecordedRequest) -> ScriptedResponse:
    """A valid all-grounded verdict, shaped for the output mode the request asks for."""
    data = all_grounded_verdict(request)
    model = (request.body or {}).get("model") or DEFAULT_MODEL_ECHO
    tool = forced_tool(request)
    if tool:
        return ScriptedResponse(body=tool_use_message(data, name=tool, model=model))
    return ScriptedResponse(body=verdict_message(data, model=model))


class SizedResponder:
    """:func:`default_responder` whose replies report usage from the request's size, a
    stand-in for a tokenizer that is the same for every judge compared: four bytes a token.

    Prompt caching is modelled as the API documents it: a system block marked
    ``cache_control`` is written to the cache the first time (``cache_creation_input_tokens``)
    and read from it afterwards (``cache_read_input_tokens``); ``input_tokens`` counts the rest
    of the request only.
    """

    def __init__(self) -> None:
        self._cached: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, request: RecordedRequest) -> ScriptedResponse:
        response = default_responder(request)
        cached = "".join(block.get("text", "") for block in (request.body or {}).get("system", [])
                         if isinstance(block, dict) and block.get("cache_control"))
        with self._lock:
            seen = cached in self._cached
            self._cached.add(cached)
        prefix = len(cached.encode()) // 4
        body = dict(response.body)
        body["usage"] = _usage({
            "input_tokens": max(1, len(request.raw) // 4 - prefix),
            "cache_read_input_tokens": prefix if seen else 0,
            "cache_creation_input_tokens": 0 if seen else prefix})
        return ScriptedResponse(status=response.status, body=body, headers=response.headers)


# --- pytest fixture and command line ----------------------------------------------------------


@pytest.fixture
def fake_anthropic() -> Iterator[FakeMessagesServer]:
    """A fake Messages API started for one test and stopped after it."""
    with FakeMessagesServer() as server:
        yield server


def main(argv: Sequence[str] | None = None) -> int:
    """Run the fake server in the foreground until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m tests.support.fake_anthropic",
                                     description="A fake Anthropic Messages API on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=0, help="TCP port (default: a free one)")
    args = parser.parse_args(argv)
    server = FakeMessagesServer(port=args.port)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    server.start()
    print(server.base_url, flush=True)
    try:
        done.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
