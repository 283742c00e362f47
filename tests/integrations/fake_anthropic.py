"""A scripted Anthropic Messages API on 127.0.0.1, for the real Claude Code.

``POST /v1/messages`` is answered by the test's ``responder``, a function of the request
body returning a ``Turn``: text, tool calls, or both. A streamed request (``"stream":
true``, as Claude Code sends its turns) gets the server-sent events of the Messages API
(``message_start``, then per block ``content_block_start``, its delta
(``text_delta`` or ``input_json_delta``) and ``content_block_stop``, then
``message_delta`` with the stop reason and ``message_stop``); any other gets the message
as one JSON body. ``POST /v1/messages/count_tokens`` answers a small count, and anything
else an empty JSON object, so what Claude Code asks at start-up does no harm. Every
request is recorded (path and parsed body), so a test asserts what the model was sent.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from evaluation.harness.scripted_llm import loopback


@dataclass(frozen=True)
class Turn:
    """What the model answers: ``text`` (may be empty), then a ``tool_use`` block for each
    ``(name, input)`` in ``calls``."""

    text: str = ""
    calls: tuple[tuple[str, dict[str, Any]], ...] = ()


def say(text: str) -> Turn:
    return Turn(text=text)


def call(name: str, arguments: dict[str, Any]) -> Turn:
    return Turn(calls=((name, arguments),))


Responder = Callable[[dict[str, Any]], Turn]


@dataclass
class Request:
    path: str
    body: dict[str, Any]


@dataclass
class FakeAnthropic:
    url: str
    requests: list[Request] = field(default_factory=list)
    responder: Responder | None = None

    def messages(self) -> list[dict[str, Any]]:
        """The bodies of every ``POST /v1/messages``, in order."""
        return [r.body for r in self.requests if r.path == "/v1/messages"]


def _blocks(turn: Turn, number: int) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
    for i, (name, arguments) in enumerate(turn.calls):
        blocks.append(
            {"type": "tool_use", "id": f"toolu_{number:04d}_{i}", "name": name, "input": arguments}
        )
    return blocks


def _message(request: dict[str, Any], turn: Turn, number: int) -> dict[str, Any]:
    return {
        "id": f"msg_{number:04d}",
        "type": "message",
        "role": "assistant",
        "model": request.get("model", "scripted"),
        "content": _blocks(turn, number),
        "stop_reason": "tool_use" if turn.calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def _events(request: dict[str, Any], turn: Turn, number: int) -> str:
    """The message as the Messages API streams it."""
    whole = _message(request, turn, number)

    def event(name: str, data: dict[str, Any]) -> str:
        return f"event: {name}\ndata: {json.dumps(data | {'type': name}, ensure_ascii=False)}\n\n"

    start = whole | {"content": [], "stop_reason": None}
    start["usage"] = {"input_tokens": 10, "output_tokens": 1}
    out = [event("message_start", {"message": start})]
    for index, block in enumerate(whole["content"]):
        if block["type"] == "text":
            opened, delta = (
                {"type": "text", "text": ""},
                {"type": "text_delta", "text": block["text"]},
            )
        else:
            opened = {k: block[k] for k in ("type", "id", "name")} | {"input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        out.append(event("content_block_start", {"index": index, "content_block": opened}))
        out.append(event("content_block_delta", {"index": index, "delta": delta}))
        out.append(event("content_block_stop", {"index": index}))
    stop = {"stop_reason": whole["stop_reason"], "stop_sequence": None}
    out.append(event("message_delta", {"delta": stop, "usage": {"output_tokens": 5}}))
    out.append(event("message_stop", {}))
    return "".join(out)


@contextmanager
def fake_anthropic() -> Iterator[FakeAnthropic]:
    """The server, running while the block runs; its ``url`` is the base URL to give
    Claude Code (``ANTHROPIC_BASE_URL``)."""
    state = FakeAnthropic(url="")
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self, body: str, content_type: str = "application/json") -> None:
            data = body.encode("utf-8")
            try:
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.send_header("request-id", "req_fake")
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client went away: nothing to answer

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            path = self.path.split("?", 1)[0]
            with lock:
                state.requests.append(Request(path, body))
                number = len(state.requests)
            if path == "/v1/messages/count_tokens":
                self._answer(json.dumps({"input_tokens": 10}))
                return
            if path != "/v1/messages":
                self._answer("{}")
                return
            assert state.responder is not None, "the test set no responder"
            turn = state.responder(body)
            if body.get("stream"):
                self._answer(_events(body, turn, number), "text/event-stream")
            else:
                self._answer(json.dumps(_message(body, turn, number), ensure_ascii=False))

        def do_GET(self) -> None:
            with lock:
                state.requests.append(Request(self.path.split("?", 1)[0], {}))
            self._answer("{}")

        def do_HEAD(self) -> None:
            self._answer("")

        def log_message(self, *args: object) -> None:
            pass

    with loopback(Handler) as base:
        state.url = base
        yield state
