"""The recall service as the bench sees it: a real ``dose-mem serve`` subprocess on loopback,
driven by httpx clients, its memory read from ``/proc``.

Kept apart from ``evaluation/bench/speed.py`` so the sections there stay one short function each.
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from http.client import HTTPConnection, HTTPException
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from recall_api.tokens import TokenStore

# The agents whose tokens the bench uses: ones that keep their injections (the shipped
# profiles' ``kept_by``), so session-aware dose (recall_api/given.py) is on the timed path.
AGENTS = {"full": "hermes", "working": "claude-code"}


def percentiles(ms: list[float]) -> dict[str, float]:
    """p50 and p99 (nearest rank) in ms, rounded for a table."""
    ordered = sorted(ms)
    p99 = ordered[max(0, round(len(ordered) * 0.99) - 1)]
    return {"p50_ms": round(statistics.median(ordered), 1), "p99_ms": round(p99, 1)}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rss_mb(pid: int) -> dict[str, float]:
    """Resident set now and at its peak (VmHWM), in MB, from /proc/<pid>/status."""
    fields: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = round(int(value.split()[0]) / 1024, 1)
    return {"rss_mb": fields.get("VmRSS", 0.0), "peak_rss_mb": fields.get("VmHWM", 0.0)}


@dataclass
class Service:
    url: str
    pid: int
    tokens: dict[str, str] = field(default_factory=dict)


@contextmanager
def serve(
    home: Path, startup_s: float = 300.0, settings: dict[str, str] | None = None
) -> Iterator[Service]:
    """``dose-mem serve --home HOME`` on a free loopback port, with a token per profile;
    ``settings`` are ``DOSE_MEM_*`` variables for it alone (none are inherited)."""
    store = TokenStore(home / "state" / "tokens.json")
    tokens = {p: store.issue(AGENTS[p], p, None)[0] for p in ("full", "working")}
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOSE_MEM_")}
    env.update(settings or {})
    cli = Path(sys.executable).with_name("dose-mem")
    proc = subprocess.Popen(
        [str(cli), "--home", str(home), "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(proc, url, startup_s)
        yield Service(url=url, pid=proc.pid, tokens=tokens)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _wait_healthy(proc: subprocess.Popen[bytes], url: str, startup_s: float) -> None:
    deadline = time.monotonic() + startup_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            raise RuntimeError(f"dose-mem serve exited ({proc.returncode}): {err[-2000:]}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"dose-mem serve not healthy after {startup_s} s")


def recall_body(prompt: str, n: int, projects: int = 40) -> dict[str, object]:
    """A first turn of a fresh session in one of the projects: every profile triggers."""
    return {
        "prompt": prompt,
        "session_id": f"bench-{n}-{time.monotonic_ns()}",
        "turn": 1,
        "project": f"p{n % projects:03d}",
    }


def timed_recalls(service: Service, profile: str, prompts: list[str]) -> list[float]:
    """One client, one request after another: latency as an agent's hook sees it."""
    headers = {"Authorization": f"Bearer {service.tokens[profile]}"}
    times: list[float] = []
    with httpx.Client(base_url=service.url, headers=headers, timeout=10.0) as client:
        client.post("/v1/recall", json=recall_body("warm up 预热", 0)).raise_for_status()
        for n, prompt in enumerate(prompts):
            started = time.perf_counter()
            client.post("/v1/recall", json=recall_body(prompt, n)).raise_for_status()
            times.append((time.perf_counter() - started) * 1000)
    return times


def alternating_recalls(
    services: dict[str, Service], profile: str, prompts: list[str]
) -> dict[str, list[float]]:
    """One keep-alive client per service; request n goes to service ``n % len``, so every
    service sees the same moments of a noisy machine. Latency per service."""
    names = list(services)
    times: dict[str, list[float]] = {name: [] for name in names}
    with ExitStack() as stack:
        clients = {
            name: stack.enter_context(
                httpx.Client(
                    base_url=svc.url,
                    headers={"Authorization": f"Bearer {svc.tokens[profile]}"},
                    timeout=10.0,
                )
            )
            for name, svc in services.items()
        }
        for client in clients.values():
            client.post("/v1/recall", json=recall_body("warm up 预热", 0)).raise_for_status()
        for n, prompt in enumerate(prompts):
            name = names[n % len(names)]
            started = time.perf_counter()
            clients[name].post("/v1/recall", json=recall_body(prompt, n)).raise_for_status()
            times[name].append((time.perf_counter() - started) * 1000)
    return times


@dataclass
class Load:
    ok: int = 0
    errors: int = 0
    times: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def load_test(service: Service, prompts: list[str], clients: int, seconds: float) -> Load:
    """``clients`` threads, each with its own keep-alive connection, for ``seconds``.

    The clients use the standard library's ``http.client`` rather than httpx: they share
    the service's two cores, and httpx spent ~1.2 ms of CPU per request there, a tenth
    of the service's own cost. Any non-2xx answer or transport error counts as an error;
    the run stops at its deadline whatever happens (each request has a 10 s timeout).
    """
    load = Load()
    deadline = time.monotonic() + seconds
    tokens = [service.tokens["full"], service.tokens["working"]]
    where = urlsplit(service.url)

    def client(c: int) -> None:
        headers = {"Authorization": f"Bearer {tokens[c % 2]}", "Content-Type": "application/json"}
        n = c
        http = HTTPConnection(where.hostname or "127.0.0.1", where.port, timeout=10.0)
        try:
            while time.monotonic() < deadline:
                body = json.dumps(recall_body(prompts[n % len(prompts)], n))
                started = time.perf_counter()
                try:
                    http.request("POST", "/v1/recall", body=body, headers=headers)
                    response = http.getresponse()
                    response.read()
                    ok = 200 <= response.status < 300
                except (OSError, HTTPException):
                    http.close()
                    ok = False
                elapsed = (time.perf_counter() - started) * 1000
                with load.lock:
                    load.ok += ok
                    load.errors += not ok
                    load.times.append(elapsed)
                n += clients
        finally:
            http.close()

    threads = [threading.Thread(target=client, args=(c,)) for c in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 30)
    return load
