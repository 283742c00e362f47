"""A JSON-RPC client of ``codex app-server`` (stdio, one JSON message per line), enough
for the tests: initialize, then requests answered in order, notifications skipped."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any


class AppServer:
    def __init__(self, command: list[str], env: dict[str, str], cwd: Path) -> None:
        self.process = subprocess.Popen(
            [*command, "app-server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=cwd,
        )
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._id = 0
        self.notes: list[dict[str, Any]] = []

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)

    def request(self, method: str, params: dict[str, Any], timeout_s: float = 60) -> Any:
        """The result of ``method``; raises AssertionError with the error or on timeout."""
        self._id += 1
        self._send({"jsonrpc": "2.0", "id": self._id, "method": method, "params": params})
        while True:
            message = json.loads(self._lines.get(timeout=timeout_s))
            if message.get("id") != self._id:
                self.notes.append(message)
                continue
            assert "error" not in message, f"{method}: {message['error']}"
            return message["result"]

    def start(self) -> None:
        self.request("initialize", {"clientInfo": {"name": "dose-mem-tests", "version": "0"}})
        self._send({"jsonrpc": "2.0", "method": "initialized"})

    def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def close(self) -> None:
        self.process.kill()
        self.process.wait(10)
