"""``make up``: a demo memory (or yours), its index, the recall service and Prefect, running.

Services run in the background with pid files and logs under ``<state>/run``; ``make down``
(``python -m dose_mem.up --stop``) stops them. Demo tokens are reissued on every start
(the old ones revoked), since the store keeps only hashes and cannot show them again.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import yaml

from flows.serve import PREFECT_YAML
from memory_repo.settings import Settings, get_settings

DEMO_AGENTS = {"demo-hermes": "full", "demo-claude-code": "working", "demo-calendar": "personal"}
# The inspector's admin token (docs/inspector.md), reissued with the demo tokens.
DEMO_ADMIN = "demo-admin"
PREFECT_PORT = 4200  # dose_mem/cli/prefect_api.UP_API: shell commands use this server


def _bin(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def _run_dir(cfg: Settings) -> Path:
    path = cfg.state_path / "run"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _start(cfg: Settings, name: str, argv: list[str], env: dict[str, str]) -> int:
    run = _run_dir(cfg)
    _stop_one(run / f"{name}.pid")
    log = (run / f"{name}.log").open("ab")
    proc = subprocess.Popen(
        argv,
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, **env},
        start_new_session=True,
    )
    (run / f"{name}.pid").write_text(str(proc.pid))
    return proc.pid


def _stop_one(pid_file: Path) -> None:
    if not pid_file.exists():
        return
    with contextlib.suppress(ProcessLookupError, ValueError, PermissionError):
        os.killpg(int(pid_file.read_text()), signal.SIGTERM)
    pid_file.unlink(missing_ok=True)


def _wait(url: str, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=2).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise SystemExit(f"{what} did not come up at {url} within {seconds:.0f}s; see its log")


def _cli(cfg: Settings, *args: str) -> str:
    out = subprocess.run(
        [_bin("dose-mem"), "--home", str(cfg.home), *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return (out.stdout + out.stderr).strip()


def _tokens(cfg: Settings) -> dict[str, str]:
    from recall_api.tokens import ADMIN_PROFILE, TokenStore, tokens_path

    store = TokenStore(tokens_path(cfg))
    for record in store.list():
        if (record.agent in DEMO_AGENTS or record.agent == DEMO_ADMIN) and not record.revoked:
            store.revoke(record.id)
    tokens = {agent: store.issue(agent, profile, None)[0] for agent, profile in DEMO_AGENTS.items()}
    tokens[DEMO_ADMIN] = store.issue(DEMO_ADMIN, ADMIN_PROFILE, None, admin=True)[0]
    return tokens


def up(cfg: Settings) -> None:
    if not (cfg.memory_path / "registry.yaml").exists():
        print(f"no memory at {cfg.memory_path}: creating the demo memory")
        _cli(cfg, "init", "--demo")
    else:
        print(f"using the memory at {cfg.memory_path}")
    print(_cli(cfg, "reindex"))
    tokens = _tokens(cfg)
    api = f"http://{cfg.host}:{cfg.port}"
    _start(cfg, "recall", [_bin("dose-mem"), "--home", str(cfg.home), "serve"], {})
    prefect_env = {
        "PREFECT_HOME": str(cfg.state_path / "prefect"),
        "PREFECT_API_URL": f"http://127.0.0.1:{PREFECT_PORT}/api",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "DOSE_MEM_HOME": str(cfg.home),
    }
    _start(
        cfg,
        "prefect-server",
        [_bin("prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(PREFECT_PORT)],
        prefect_env,
    )
    _wait(f"{api}/healthz", 60, "recall service")
    _wait(f"http://127.0.0.1:{PREFECT_PORT}/api/health", 120, "Prefect server")
    _start(cfg, "prefect-serve", [sys.executable, "-m", "flows.serve"], prefect_env)
    _print_summary(cfg, api, tokens)


def _deployment_names() -> str:
    """The deployments ``flows.serve`` serves, as ``prefect.yaml`` names them."""
    config = yaml.safe_load(PREFECT_YAML.read_text(encoding="utf-8"))
    return ", ".join(d["name"] for d in config["deployments"])


def _print_summary(cfg: Settings, api: str, tokens: dict[str, str]) -> None:
    run = _run_dir(cfg)
    print(f"""
dose-mem is up (memory: {cfg.memory_path}, state: {cfg.state_path})
  recall service  {api}   (OpenAPI docs: {api}/docs)
  Prefect UI      http://127.0.0.1:{PREFECT_PORT}   (deployments: {_deployment_names()})
  inspector       {api}/ui   (log in with the admin token below)
  logs            {run}/*.log        stop with: make down

demo tokens (shown once; `make up` reissues them):""")
    for agent, token in tokens.items():
        print(f"  {agent:18} {DEMO_AGENTS.get(agent, 'admin'):9} {token}")
    examples = [
        (
            "recall",
            tokens["demo-claude-code"],
            {
                "prompt": "Set up the Python environment for this project",
                "session_id": "s1",
                "turn": 1,
                "cwd": "/home/demo/code/tablekit",
            },
        ),
        (
            "recall",
            tokens["demo-hermes"],
            {"prompt": "Rename parse_table and update the tests", "session_id": "s2", "turn": 1},
        ),
        ("search", tokens["demo-hermes"], {"query": "数据放在哪里"}),
    ]
    print("\ntry:")
    for route, token, body in examples:
        print(
            f"  curl -s {api}/v1/{route} -H 'Authorization: Bearer {token}' \\\n"
            f"    -H 'Content-Type: application/json' -d '{json.dumps(body, ensure_ascii=False)}'"
        )


def down(cfg: Settings) -> None:
    run = _run_dir(cfg)
    for name in ("prefect-serve", "prefect-server", "recall"):
        _stop_one(run / f"{name}.pid")
    print("stopped dose-mem services")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stop", action="store_true")
    args = parser.parse_args()
    cfg = get_settings()
    down(cfg) if args.stop else up(cfg)


if __name__ == "__main__":
    main()
