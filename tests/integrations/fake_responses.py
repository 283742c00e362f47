"""A fake OpenAI Responses API on 127.0.0.1, scripted by the test, for agents that speak
it (Codex: ``wire_api = "responses"``).

``POST /v1/responses`` with ``stream: true`` is answered with the server-sent events
Codex 0.171.0 reads (openai/codex ``codex-rs/codex-api/src/sse/responses.rs``):
``response.created``, per output item ``response.output_item.added``, its deltas
(``response.output_text.delta`` or ``response.function_call_arguments.delta``/``.done``)
and ``response.output_item.done``, then ``response.completed`` with the response id and
its usage. Each request's JSON body is recorded; each one is answered by the next step of
the script (the last step repeats), a function of the request giving the output items
(``message`` or ``function_call``). Any other request is recorded and answered 404.
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

Item = dict[str, Any]
Step = Callable[[dict[str, Any]], list[Item]]


def message(text: str) -> Item:
    """An assistant message output item."""
    content = [{"type": "output_text", "text": text, "annotations": []}]
    return {"type": "message", "role": "assistant", "status": "completed", "content": content}


def function_call(name: str, arguments: dict[str, Any], call_id: str = "call_1") -> Item:
    """A function call output item (a tool the request offered, by its name there)."""
    args = json.dumps(arguments, ensure_ascii=False)
    return {
        "type": "function_call",
        "status": "completed",
        "name": name,
        "arguments": args,
        "call_id": call_id,
    }


def sse(items: list[Item], response_id: str) -> str:
    """The event stream of one response whose output is ``items``."""
    events: list[dict[str, Any]] = []
    response = {"id": response_id, "object": "response", "status": "in_progress", "output": []}
    events.append({"type": "response.created", "response": response})
    done_items = []
    for index, item in enumerate(items):
        item = {"id": f"{response_id}_item{index}", **item}
        item_id = item["id"]
        added = dict(item)
        at = {"output_index": index, "item_id": item_id}
        if item["type"] == "message":
            added["content"] = []
            events.append(
                {"type": "response.output_item.added", "output_index": index} | {"item": added}
            )
            for part, content in enumerate(item["content"]):
                events.append(
                    {"type": "response.output_text.delta", **at, "content_index": part}
                    | {"delta": content["text"]}
                )
        elif item["type"] == "function_call":
            added["arguments"] = ""
            events.append(
                {"type": "response.output_item.added", "output_index": index} | {"item": added}
            )
            events.append(
                {"type": "response.function_call_arguments.delta", **at, "delta": item["arguments"]}
            )
            events.append(
                {"type": "response.function_call_arguments.done", **at}
                | {"arguments": item["arguments"]}
            )
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
        done_items.append(item)
    usage = {
        "input_tokens": 100,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 10,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 110,
    }
    completed = response | {"status": "completed", "output": done_items, "usage": usage}
    events.append({"type": "response.completed", "response": completed})
    return "".join(
        f"event: {e['type']}\ndata: {json.dumps(e, ensure_ascii=False)}\n\n" for e in events
    )


@dataclass
class ResponsesServer:
    url: str = ""  # the base URL, ending in /v1 (a provider's base_url)
    script: list[Step] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)  # /v1/responses bodies
    others: list[str] = field(default_factory=list)  # "METHOD /path" of anything else

    def answer(self, request: dict[str, Any]) -> str:
        step = self.script[min(len(self.requests) - 1, len(self.script) - 1)]
        return sse(step(request), f"resp_{len(self.requests)}")


@contextmanager
def responses_server(script: list[Step]) -> Iterator[ResponsesServer]:
    state = ResponsesServer(script=script)
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length)
            if self.path.rstrip("/") != "/v1/responses":
                self._not_found()
                return
            request = json.loads(raw or b"{}")
            with lock:
                state.requests.append(request)
                body = state.answer(request).encode("utf-8")
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def do_GET(self) -> None:
            self._not_found()

        def _not_found(self) -> None:
            state.others.append(f"{self.command} {self.path}")
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    with loopback(Handler) as base:
        state.url = f"{base}/v1"
        yield state
