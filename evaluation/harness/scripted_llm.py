"""A real OpenAI-compatible chat-completions server on 127.0.0.1, scripted by its caller.

The LLM is the one network edge these machines cannot reach: tests script it to check
the model path, and the capture sets' oracle (``evaluation/sets/capture_sets.py``) answers
with the labelled facts, to measure filing apart from distillation.

Each request is recorded (parsed JSON) and answered by the caller's ``responder``: a
function of the request returning a ``Reply`` (a JSON body, an HTTP status, and an
optional delay to provoke client timeouts). ``tool_answer`` builds the body of a
tool-call answer for whichever tool the request offered, so a script only supplies the
arguments.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

R = TypeVar("R")


@dataclass
class Reply:
    body: dict[str, Any] | str | None = None
    status: int = 200
    delay_s: float = 0.0
    content_type: str = "application/json"


Responder = Callable[[dict[str, Any]], Reply]


@dataclass
class LLMServer:
    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    responder: Responder | None = None


def tool_answer(request: dict[str, Any], arguments: dict[str, Any] | str) -> dict[str, Any]:
    """A chat completion calling the request's first tool with ``arguments``."""
    tool = request["tools"][0]["function"]["name"]
    args = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return {
        "id": f"chatcmpl-{len(args)}",
        "object": "chat.completion",
        "created": 0,
        "model": request.get("model", "scripted"),
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": tool, "arguments": args},
                        }
                    ],
                },
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def stream_answer(
    request: dict[str, Any], text: str = "", call: dict[str, Any] | None = None
) -> Reply:
    """A streamed chat completion (server-sent events, as agents that stream expect):
    ``text``, or a call of the tool ``call["name"]`` with ``call["arguments"]``."""
    model = request.get("model", "scripted")

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        body = {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 0}
        body |= {"model": model, "choices": [choice]}
        return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"

    if call is not None:
        function = {"name": call["name"], "arguments": json.dumps(call["arguments"])}
        tool = {"index": 0, "id": "call_1", "type": "function", "function": function}
        events = [chunk({"role": "assistant", "tool_calls": [tool]}), chunk({}, "tool_calls")]
    else:
        events = [chunk({"role": "assistant", "content": text}), chunk({}, "stop")]
    return Reply("".join(events) + "data: [DONE]\n\n", content_type="text/event-stream")


def tool_name(request: dict[str, Any]) -> str:
    return request["tools"][0]["function"]["name"]


def scripted(replies: list[Callable[[dict[str, Any]], R]]) -> Callable[[dict[str, Any]], R]:
    """Answer the n-th request with the n-th entry (the last one repeats); any kind of
    answer (a ``Reply`` here, a scripted turn for the other fake model servers)."""
    count = {"n": 0}

    def respond(request: dict[str, Any]) -> R:
        step = replies[min(count["n"], len(replies) - 1)]
        count["n"] += 1
        return step(request)

    return respond


@contextmanager
def llm_server() -> Iterator[LLMServer]:
    state = LLMServer(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            request = json.loads(self.rfile.read(length) or b"{}")
            state.requests.append(request)
            assert state.responder is not None, "the test set no responder"
            reply = state.responder(request)
            if reply.delay_s:
                time.sleep(reply.delay_s)
            body = reply.body if isinstance(reply.body, str) else json.dumps(reply.body or {})
            data = body.encode("utf-8")
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test): nothing to answer

        def log_message(self, *args: object) -> None:
            pass

    with loopback(Handler) as base:
        state.url = f"{base}/v1"
        yield state


@contextmanager
def loopback(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """``handler`` served on 127.0.0.1 at an ephemeral port, on a daemon thread; yields the
    base URL (``http://127.0.0.1:PORT``) and shuts the server down on exit. The one way
    the tests' fake model servers listen."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
