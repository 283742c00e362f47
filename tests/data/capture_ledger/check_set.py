"""Checks the capture-ledger set itself (not dose-mem) and prints its counts.

Every file parses; every label row has a session and every session a row; every `match` is found
in exactly one session outside tool-call inputs (a sub-agent's or delegate's prompt also sits in the
parent's tool call) and, unless it is harness or sub-agent text, in the person's own words; every
secret is only in its session; every harness string is somewhere and never in the person's words;
every captured session has at least 3 turns of the person's own words.

    .venv/bin/python tests/data/capture_ledger/check_set.py
"""

import collections
import glob
import json
import os
import re
import sys

import yaml

ROOT = os.path.dirname(os.path.abspath(__file__))
S = f"{ROOT}/sessions"
INJECTED_CC = ("<command-name>", "<local-command-stdout>", "<system-reminder>")
INJECTED_CODEX = ("# AGENTS.md", "<environment_context>")


def strings(o):
    if isinstance(o, str):
        yield o
    elif isinstance(o, dict):
        for v in o.values():
            yield from strings(v)
    elif isinstance(o, list):
        for v in o:
            yield from strings(v)


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def read_yaml(path):
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


# session key -> {agent, main: texts, toolin: tool-call inputs, person: the person's own turns}
sessions = {}


def new(key, agent):
    assert key not in sessions, key
    sessions[key] = {"agent": agent, "main": [], "toolin": [], "person": []}
    return sessions[key]


def person_cc(d, b, sub):
    return (
        d["type"] == "user"
        and b["type"] == "text"
        and not d.get("isMeta")
        and not d.get("isCompactSummary")
        and not b["text"].startswith(INJECTED_CC)
        and not (sub and d["parentUuid"] is None)
    )


def load_claude_code():
    for p in glob.glob(f"{S}/claude_code/**/*.jsonl", recursive=True):
        lines = read_jsonl(p)
        rel = os.path.relpath(p, f"{S}/claude_code").split(os.sep)
        sub = "subagents" in rel
        stem = os.path.basename(p)[:-6]
        key = stem if sub else lines[0]["sessionId"]
        assert re.sub(r"[^A-Za-z0-9]", "-", lines[0]["cwd"]) == rel[0], p
        assert sub or stem == lines[0]["sessionId"], p
        s = new(key, "claude_code")
        for d in lines:
            assert d["version"] == "2.1.328" and d["timestamp"].startswith("2026-11"), p
            assert d["timestamp"].endswith("Z") and d["isSidechain"] == sub, p
            if d["type"] not in ("user", "assistant"):
                s["main"] += list(strings(d))
                continue
            c = d["message"]["content"]
            for b in [{"type": "text", "text": c}] if isinstance(c, str) else c:
                if b["type"] == "tool_use":
                    s["toolin"] += list(strings(b["input"]))
                    continue
                s["main"] += list(strings(b))
                if person_cc(d, b, sub):
                    s["person"].append(b["text"])


def load_codex():
    for p in glob.glob(f"{S}/codex/2026/*/*/rollout-*.jsonl"):
        lines = read_jsonl(p)
        meta = lines[0]["payload"]
        assert lines[0]["type"] == "session_meta" and meta["originator"] == "codex_cli_rs"
        assert meta["cli_version"] == "0.169.0" and p.endswith(f"-{meta['id']}.jsonl"), p
        s = new(meta["id"], "codex")
        for d in lines[1:]:
            pl = d["payload"]
            if d["type"] == "event_msg":  # duplicates of the messages
                continue
            if pl.get("type") == "function_call":
                s["toolin"] += list(strings(json.loads(pl["arguments"])))
            elif pl.get("type") == "function_call_output":
                s["main"] += list(strings(json.loads(pl["output"])))
            else:
                s["main"] += list(strings(pl))
                if pl.get("type") == "message" and pl["role"] == "user":
                    t = pl["content"][0]["text"]
                    if not t.startswith(INJECTED_CODEX):
                        s["person"].append(t)


def load_hermes():
    for h in read_yaml(f"{S}/hermes.yaml"):
        assert re.fullmatch(r"202611\d\d_\d{6}_[0-9a-f]{6}", h["id"]), h["id"]
        assert h["started"].startswith("2026-11")
        s = new(h["id"], "hermes")
        kept = []
        for m in h["messages"]:
            if "rewind" in m:
                del kept[-m["rewind"] :]
                continue
            kept.append(m)
            if "compact" in m:
                s["main"].append(m["compact"])
                continue
            for tc in m.get("tool_calls") or []:
                s["toolin"] += list(strings(json.loads(tc["arguments"])))
            s["main"].append(m["content"])
        if h.get("relation") != "delegate":
            s["person"] += [m["content"] for m in kept if m.get("role") == "user"]


def load_pi():
    for pi in read_yaml(f"{S}/pi.yaml"):
        assert pi["started"].startswith("2026-11")
        s = new(pi["name"], "pi")
        active = []
        for e in pi["entries"]:
            if "branch" in e:
                del active[-e["branch"] :]
                continue
            active.append(e)
            keys = ("user", "assistant", "result", "bash", "output")
            s["main"] += [str(v) for k, v in e.items() if k in keys]
        s["person"] += [e["user"] for e in active if "user" in e]


def check(labels, seed):
    projects = {p["id"] for p in seed["projects"]}
    cards = {c["id"] for c in seed["cards"]}
    errs = []
    rows = {r["session"]: r for r in labels["sessions"]}
    if len(rows) != len(labels["sessions"]):
        errs.append("duplicate session rows")
    if set(rows) != set(sessions):
        errs.append(("session rows vs session files", set(rows) ^ set(sessions)))
    for k, r in rows.items():
        if k in sessions and r["skip"] is None and len(sessions[k]["person"]) < 3:
            errs.append(("fewer than 3 turns of the person's words", k))
        if r["agent"] != sessions.get(k, {}).get("agent"):
            errs.append(("agent", k))
        if r["project"] not in projects | {"none"}:
            errs.append(("project", k))
    ids = set()
    for it in labels["items"]:
        if it["id"] in ids:
            errs.append(("duplicate item id", it["id"]))
        ids.add(it["id"])
        if it["session"] not in sessions:
            errs.append(("no such session", it["id"]))
            continue
        where = [k for k, s in sessions.items() if any(it["match"] in t for t in s["main"])]
        if where != [it["session"]]:
            errs.append(("match not in exactly its session", it["id"], where))
        if it["kind"] != "subagent" and any(
            it["match"] in t for s in sessions.values() for t in s["toolin"]
        ):
            errs.append(("match in a tool-call input", it["id"]))
        typed = it["kind"] not in ("subagent", "harness", "rewound", "abandoned")
        if typed and not any(it["match"] in t for t in sessions[it["session"]]["person"]):
            errs.append(("match not in the person's words", it["id"]))
        if it["expect"] in ("supersede", "merge") and it.get("target") not in cards:
            errs.append(("target", it["id"]))
        if it["expect"] != "none" and it.get("project") not in projects | {"global"}:
            errs.append(("item project", it["id"]))
        if "secret" in it:
            w = [
                k
                for k, s in sessions.items()
                if any(it["secret"] in t for t in s["main"] + s["toolin"])
            ]
            if w != [it["session"]]:
                errs.append(("secret", it["id"], w))
    for h in labels["harness"]:
        if not any(h in t for s in sessions.values() for t in s["main"] + s["toolin"]):
            errs.append(("harness string not found", h))
        if any(h in t for s in sessions.values() for t in s["person"]):
            errs.append(("harness string in the person's words", h))
    return errs, rows


def main():
    load_claude_code()
    load_codex()
    load_hermes()
    load_pi()
    labels = read_yaml(f"{ROOT}/labels.yaml")
    errs, rows = check(labels, read_yaml(f"{ROOT}/seed.yaml"))
    items = labels["items"]
    count = collections.Counter
    print("sessions per agent:", dict(count(r["agent"] for r in labels["sessions"])))
    print("skipped sessions:", dict(count(r["skip"] for r in labels["sessions"] if r["skip"])))
    print("items:", len(items))
    print("per kind:", dict(count(i["kind"] for i in items)))
    print("per expect:", dict(count(i["expect"] for i in items)))
    print("per language:", dict(count(i["lang"] for i in items)))
    print(
        "per project (expect != none):",
        dict(count(i["project"] for i in items if i["expect"] != "none")),
    )
    print("per agent:", dict(count(rows.get(i["session"], {}).get("agent") for i in items)))
    print("harness strings:", len(labels["harness"]))
    for e in errs:
        print("ERROR", e)
    sys.exit(1 if errs else 0)


if __name__ == "__main__":
    main()
