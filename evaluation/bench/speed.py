"""``python -m evaluation.bench`` (``make bench``): speed of the shipped code at 1k-100k cards.

Each section is one function taking the shared ``Bench`` context and returning a
JSON-able dict of rows; ``SECTIONS`` lists them in order, so a new section is one function
plus one line. Results print as rich tables and land in ``bench-results/<section>.json``;
the last table checks the speed targets (issues #6 and #12).

``BENCH_SECTIONS=query_legs,throughput`` runs only those sections; ``BENCH_SIZES=1k,10k``
picks sizes (default ``1k,10k,100k``); ``BENCH_SECONDS`` sets the throughput run (default
60); ``BENCH_WORKDIR=DIR`` keeps the synthetic homes there and reuses them on the next run
(the build is reported from the run that built it; at 100k cards it takes ~35 min of
embedding here); ``BENCH_MEM0=0`` skips mem0, ``BENCH_MEM0_MAX`` caps the sizes it runs
at (default 10k: mem0 adds memories one call at a time, so 10k costs it minutes);
``BENCH_ROUNDS`` sets the recall log section's on/off rounds (default 6).
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from evaluation.bench.mem0 import Mem0Unavailable, run_mem0
from evaluation.bench.service import (
    AGENTS,
    Service,
    alternating_recalls,
    load_test,
    percentiles,
    rss_mb,
    serve,
    timed_recalls,
)
from evaluation.bench.synthetic import synthetic_queries, write_synthetic_memory
from memory_repo.index.build import BuildReport, rebuild, refresh
from memory_repo.index.embedders import Embedder, make_embedder
from memory_repo.index.query import Index
from memory_repo.index.scope import Prefilter, ScopeClause
from memory_repo.index.tokenize import tokens
from memory_repo.models import GLOBAL
from memory_repo.recall_log import RecallLog
from memory_repo.settings import Settings, get_settings
from recall_api.engine import RecallEngine
from recall_api.models import Identity, RecallRequest
from recall_api.services import build_engine

RESULTS = Path("bench-results")
LATENCY_QUERIES = 200
CLIENTS = 8
PROFILES = ("full", "working")
MODES = ("dense", "bm25", "hybrid")
# Recalls in a row with the recall log on (or off) in the recall_log section: longer than
# the log writer's period (recall_log.BATCH_SECONDS), so its work lands inside "on" blocks.
BLOCK = 50


def parse_size(text: str) -> int:
    text = text.strip().lower()
    return int(float(text[:-1]) * 1000) if text.endswith("k") else int(text)


def label(cards: int) -> str:
    return f"{cards // 1000}k" if cards % 1000 == 0 else str(cards)


@dataclass
class Bench:
    """What sections share: the embedder, sizes, built homes and running services."""

    embedder: Embedder
    workdir: Path
    sizes: list[int]
    seconds: float = 60.0
    stack: ExitStack = field(default_factory=ExitStack)
    homes: dict[int, Settings] = field(default_factory=dict)
    services: dict[int, Service] = field(default_factory=dict)
    builds: dict[int, tuple[float, BuildReport]] = field(default_factory=dict)
    results: dict[str, dict[str, Any]] = field(default_factory=dict)

    def home(self, cards: int) -> Settings:
        """A dose-mem home with ``cards`` synthetic cards in a git repo and a built index."""
        if cards not in self.homes:
            settings = get_settings(home=self.workdir / f"home-{label(cards)}")
            record = settings.home / "bench-build.json"
            if record.exists():
                saved = json.loads(record.read_text(encoding="utf-8"))
                self.builds[cards] = (saved["writing_s"], BuildReport(**saved["report"]))
            else:
                started = time.perf_counter()
                write_synthetic_memory(settings.memory_path, cards)
                _git_commit_all(settings.memory_path, "synthetic memory")
                writing = time.perf_counter() - started
                report = rebuild(settings.memory_path, settings.index_path, self.embedder)
                self.builds[cards] = (writing, report)
                record.write_text(
                    json.dumps({"writing_s": writing, "report": report.model_dump(mode="json")}),
                    encoding="utf-8",
                )
            self.homes[cards] = settings
        return self.homes[cards]

    def service(self, cards: int) -> Service:
        """``dose-mem serve`` over that home, started once and stopped at the end."""
        if cards not in self.services:
            self.services[cards] = self.stack.enter_context(serve(self.home(cards).home))
        return self.services[cards]


def _git_commit_all(root: Path, message: str) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)

    if not (root / ".git").exists():
        git("init", "-q")
    git("add", "-A")
    git(
        "-c",
        "user.name=bench",
        "-c",
        "user.email=bench@localhost",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        message,
    )


def _du_mb(path: Path) -> float:
    return round(sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20, 1)


def build_time(bench: Bench) -> dict[str, Any]:
    """Full rebuild (parse, layers, tokenise, embed, write, FTS + scalar + vector indexes)."""
    out: dict[str, Any] = {}
    for cards in bench.sizes:
        settings = bench.home(cards)
        writing, report = bench.builds[cards]
        out[label(cards)] = {
            "chunks": report.chunks_total,
            "rebuild_s": round(report.seconds, 1),
            "chunks_per_s": round(report.chunks_total / report.seconds, 1),
            "writing_cards_and_git_s": round(writing, 1),
            "index_mb": _du_mb(settings.index_path),
            "memory_mb": _du_mb(settings.memory_path),
        }
    return out


def refresh_time(bench: Bench) -> dict[str, Any]:
    """Incremental refresh after editing 1 and then 100 cards (git diff finds them).

    jieba's dictionary is loaded first: a one-off ~0.8 s per process that a fresh
    ``dose-mem reindex`` pays once and a long-running flow worker never again.
    """
    out: dict[str, Any] = {}
    rng = random.Random(7)
    tokens("预热 warm up")
    for cards in bench.sizes:
        settings = bench.home(cards)
        files = sorted(settings.memory_path.glob("*/**/cards/*.md"))
        row: dict[str, Any] = {}
        for changed in (1, 100):
            for path in rng.sample(files, min(changed, len(files))):
                with path.open("a", encoding="utf-8") as fh:
                    fh.write(f"\n\nEdited for the bench: 第{rng.randint(1, 999)}次修改 rerun.\n")
            started = time.perf_counter()  # the whole call: meta read and write included
            report = refresh(settings.memory_path, settings.index_path, bench.embedder)
            row[f"{changed}_card_s"] = round(time.perf_counter() - started, 2)
            row[f"{changed}_card_chunks"] = report.chunks_changed
            _git_commit_all(settings.memory_path, f"bench edits {changed}")
        out[label(cards)] = row
    return out


def _engine(settings: Settings) -> RecallEngine:
    """The engine of ``dose-mem serve`` (``build_engine``) after one recall: what a
    service answers with once its first request is behind it."""
    engine = build_engine(settings)
    engine.recall(
        Identity(agent="bench", profile="full", projects=None),
        RecallRequest(prompt="预热 warm up", session_id="warm", turn=1),
    )
    return engine


def _request(prompt: str, n: int) -> RecallRequest:
    return RecallRequest(
        prompt=prompt, session_id=f"s{n}-{time.monotonic_ns()}", turn=1, project=f"p{n % 40:03d}"
    )


def query_legs(bench: Bench) -> dict[str, Any]:
    """``Index.search`` alone per mode: scope of 3 projects + global, k=10, new prompts."""
    out: dict[str, Any] = {}
    scope = Prefilter(clauses=[ScopeClause(projects=[GLOBAL, "p001", "p002", "p003"])])
    for cards in bench.sizes:
        settings = bench.home(cards)
        index = Index.open(settings.index_path, make_embedder(settings, for_queries=True))
        index.search("预热 warm up", scope, k=10)
        for seed, mode in enumerate(MODES, 300 + cards):
            times = []
            for prompt in synthetic_queries(LATENCY_QUERIES, seed=seed):
                started = time.perf_counter()
                index.search(prompt, scope, k=10, mode=mode)
                times.append((time.perf_counter() - started) * 1000)
            out[f"{label(cards)} {mode}"] = {**percentiles(times), "queries": len(times)}
    return out


def recall_in_process(bench: Bench) -> dict[str, Any]:
    """``RecallEngine.recall`` end to end (trigger, scope, embed, both legs, gate, assemble).

    ``cold``: every prompt new, so the query embedding is computed each time; ``cached``:
    the same prompts again, as when an agent re-sends a prompt.
    """
    out: dict[str, Any] = {}
    for cards in bench.sizes:
        engine = _engine(bench.home(cards))
        for seed, profile in enumerate(PROFILES, 10 + cards):
            who = Identity(agent=AGENTS[profile], profile=profile, projects=None)
            prompts = synthetic_queries(LATENCY_QUERIES, seed=seed)
            for case in ("cold", "cached"):
                times = []
                for n, prompt in enumerate(prompts):
                    started = time.perf_counter()
                    engine.recall(who, _request(prompt, n))
                    times.append((time.perf_counter() - started) * 1000)
                out[f"{label(cards)} {profile} {case}"] = {
                    **percentiles(times),
                    "queries": len(times),
                }
    return out


def recall_http(bench: Bench) -> dict[str, Any]:
    """``POST /v1/recall`` to ``dose-mem serve`` on loopback, one keep-alive client."""
    out: dict[str, Any] = {}
    for cards in bench.sizes:
        service = bench.service(cards)
        for seed, profile in enumerate(PROFILES, 100 + cards):
            prompts = synthetic_queries(LATENCY_QUERIES, seed=seed)
            for case in ("cold", "cached"):
                times = timed_recalls(service, profile, prompts)
                out[f"{label(cards)} {profile} {case}"] = {
                    **percentiles(times),
                    "queries": len(times),
                }
        out[f"{label(cards)} service"] = rss_mb(service.pid)
    return out


def recall_log(bench: Bench) -> dict[str, Any]:
    """Recall p50 with the recall log on and off, in-process and over HTTP, interleaved.

    The machine is shared, so on and off take turns within each round, on new prompts
    drawn alike: in-process, one engine whose ``recall_log`` is set or cleared every
    ``BLOCK`` recalls (the order flips each block; after an "on" block the writer is
    drained, untimed, so its work never lands in an "off" block); over HTTP, two
    services over the same home (one with ``DOSE_MEM_RECALL_LOG=false``), requests
    alternating between them. A row per round (p50s and their on/off ratio) and the
    median of each column over the rounds.
    """
    rounds = int(os.environ.get("BENCH_ROUNDS", "6"))
    out: dict[str, Any] = {}
    for cards in bench.sizes:
        settings = bench.home(cards)
        engine = _engine(settings)
        folder = bench.workdir / f"recall-log-{label(cards)}"
        log = RecallLog(folder, days=30, max_mb=64, prompts="text")
        services = {
            "on": bench.service(cards),
            "off": bench.stack.enter_context(
                serve(settings.home, settings={"DOSE_MEM_RECALL_LOG": "false"})
            ),
        }
        who = Identity(agent="bench", profile="full", projects=None)
        rows = []
        for r in range(rounds):
            prompts = synthetic_queries(LATENCY_QUERIES, seed=5000 + 10 * r + cards)
            local: dict[str, list[float]] = {"on": [], "off": []}
            for b in range(0, len(prompts), BLOCK):
                state = ("on", "off")[(b // BLOCK + r) % 2]
                engine.recall_log = log if state == "on" else None
                for n, prompt in enumerate(prompts[b : b + BLOCK], b):
                    started = time.perf_counter()
                    engine.recall(who, _request(prompt, n))
                    local[state].append((time.perf_counter() - started) * 1000)
                log.flush()
            remote = alternating_recalls(services, "full", prompts[::-1])
            row = {
                f"{where} {state} p50_ms": percentiles(times[state])["p50_ms"]
                for where, times in (("in-process", local), ("HTTP", remote))
                for state in ("off", "on")
            }
            for where in ("in-process", "HTTP"):
                on_ms, off_ms = row[f"{where} on p50_ms"], row[f"{where} off p50_ms"]
                row[f"{where} on/off"] = round(on_ms / off_ms, 3)
            rows.append(row)
            out[f"{label(cards)} round {r + 1}"] = row
        log.close()
        out[f"{label(cards)} median of rounds"] = {
            k: round(statistics.median(row[k] for row in rows), 3) for k in rows[0]
        }
        out[f"{label(cards)} log writer"] = {
            "entries": log.written,
            "cpu_us_per_entry": round(log.busy_s / max(log.written, 1) * 1e6, 1),
        }
    return out


def throughput(bench: Bench) -> dict[str, Any]:
    """8 concurrent clients (full and working tokens alternating), new prompts throughout."""
    out: dict[str, Any] = {}
    for cards in bench.sizes:
        service = bench.service(cards)
        prompts = synthetic_queries(20_000, seed=cards + 999)
        load = load_test(service, prompts, CLIENTS, bench.seconds)
        out[label(cards)] = {
            "clients": CLIENTS,
            "seconds": bench.seconds,
            "requests": load.ok + load.errors,
            "recalls_per_s": round(load.ok / bench.seconds, 1),
            "errors": load.errors,
            **percentiles(load.times or [0.0]),
            **rss_mb(service.pid),
        }
    return out


def mem0_ratio(bench: Bench) -> dict[str, Any]:
    """mem0's local search (its own qdrant, our embedder over loopback) vs dose-mem recall."""
    if os.environ.get("BENCH_MEM0", "1") == "0":
        return {"mem0": {"status": "not run (BENCH_MEM0=0)"}}
    cap = parse_size(os.environ.get("BENCH_MEM0_MAX", "10k"))
    out: dict[str, Any] = {}
    ours = bench.results.get("recall_in_process", {})
    for cards in [c for c in bench.sizes if c <= cap]:
        prompts = synthetic_queries(LATENCY_QUERIES, seed=10 + cards)
        try:
            got = run_mem0(
                bench.home(cards).memory_path,
                prompts,
                bench.embedder,
                bench.workdir / f"mem0-{label(cards)}",
            )
        except Mem0Unavailable as exc:
            return {"mem0": {"status": f"not run ({exc})"}}
        dose = ours.get(f"{label(cards)} full cold", {}).get("p50_ms")
        out[label(cards)] = {
            **got,
            "dose_mem_p50_ms": dose,
            "p50_ratio_mem0_over_dose": round(got["p50_ms"] / dose, 2) if dose else None,
        }
    return out


def targets(bench: Bench) -> dict[str, Any]:
    """The speed targets against what this run measured (only for the sizes it ran)."""
    r = bench.results
    inproc, http = r.get("recall_in_process", {}), r.get("recall_http", {})
    checks: list[tuple[str, str, float | None, float, bool]] = []

    def check(name: str, value: float | None, limit: float, low_is_good: bool = True) -> None:
        if value is not None:
            checks.append((name, "<=" if low_is_good else ">=", value, limit, low_is_good))

    for profile in PROFILES:
        check(
            f"10k {profile} in-process p50 ms",
            inproc.get(f"10k {profile} cold", {}).get("p50_ms"),
            10,
        )
        check(f"10k {profile} HTTP p50 ms", http.get(f"10k {profile} cold", {}).get("p50_ms"), 15)
        check(f"10k {profile} HTTP p99 ms", http.get(f"10k {profile} cold", {}).get("p99_ms"), 40)
        check(
            f"100k {profile} in-process p50 ms",
            inproc.get(f"100k {profile} cold", {}).get("p50_ms"),
            30,
        )
    for size, row in r.get("throughput", {}).items():
        check(f"{size} recalls/s (8 clients)", row["recalls_per_s"], 150, low_is_good=False)
        check(f"{size} errors under load", row["errors"], 0)
        check(f"{size} service RSS MB after the load", row["rss_mb"], 700)
    if "10k" in r.get("build_time", {}):
        check("10k full rebuild s", r["build_time"]["10k"]["rebuild_s"], 600)
    for size, row in r.get("refresh_time", {}).items():
        check(f"{size} refresh of 1 card s", row["1_card_s"], 1.0)
    return {
        name: {
            "want": f"{op} {limit:g}",
            "got": value,
            "met": "yes" if (value <= limit if low else value >= limit) else "NO",
        }
        for name, op, value, limit, low in checks
    }


SECTIONS: list[Callable[[Bench], dict[str, Any]]] = [
    build_time,
    refresh_time,
    query_legs,
    recall_in_process,
    recall_http,
    recall_log,
    throughput,
    mem0_ratio,
    targets,
]


def _table(name: str, result: dict[str, Any]) -> Table:
    columns = list(dict.fromkeys(k for row in result.values() for k in row))
    table = Table("", *columns, title=name.replace("_", " "))
    for row_label, row in result.items():
        table.add_row(row_label, *(str(row.get(c, "")) for c in columns))
    return table


def _sizes() -> list[int]:
    return [parse_size(s) for s in os.environ.get("BENCH_SIZES", "1k,10k,100k").split(",") if s]


def run(bench: Bench) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every section, or those named in ``BENCH_SECTIONS`` (comma-separated)."""
    wanted = [s for s in os.environ.get("BENCH_SECTIONS", "").split(",") if s]
    for section in SECTIONS:
        if wanted and section.__name__ not in wanted:
            continue
        result = section(bench)
        bench.results[section.__name__] = result
        yield section.__name__, result


def main() -> None:
    console = Console(width=160)
    RESULTS.mkdir(exist_ok=True)
    embedder = make_embedder(get_settings())
    load = os.getloadavg()
    console.print(
        f"embedder: {embedder.name} ({embedder.dim}d); cpus {os.cpu_count()}; "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    with ExitStack() as scratch:
        kept = os.environ.get("BENCH_WORKDIR")
        workdir = (
            Path(kept)
            if kept
            else Path(scratch.enter_context(tempfile.TemporaryDirectory(prefix="dose-bench-")))
        )
        bench = Bench(
            embedder=embedder,
            workdir=workdir,
            sizes=_sizes(),
            seconds=float(os.environ.get("BENCH_SECONDS", "60")),
        )
        with bench.stack:
            for name, result in run(bench):
                (RESULTS / f"{name}.json").write_text(
                    json.dumps({"embedder": embedder.name, **result}, indent=1, ensure_ascii=False),
                    encoding="utf-8",
                )
                console.print(_table(name, result))


if __name__ == "__main__":
    main()
