"""How a hand-written environment's ``make_probes.py`` writes what a person said, as
sessions of turns (``evaluation/envs/*/make_probes.py``; README.md "Environment format").

A turn is one of
  R  a routine step of work that needs no memory (for coding agents: a "routine" probe)
  Q  a status question about something running ("is it done yet?")
  C  chit-chat or a general request the agent can answer without memory
  M  a turn that needs memory: n = necessary card ids, h = helpful, x = harmful,
     tags, f = extra words said about it (judge only), lang = "<prompt>-><card>"
and ``S`` groups an agent's turns from one start time. Each environment's script turns
them into ``Probe``s in its own way (dates, splits, tags).
"""

from __future__ import annotations

from typing import Any

Turn = dict[str, Any]


def R(prompt: str, *follow: str) -> Turn:
    return {"kind": "routine", "prompt": prompt, "f": list(follow)}


def Q(prompt: str, *follow: str) -> Turn:
    return {"kind": "status", "prompt": prompt, "f": list(follow)}


def C(prompt: str, *follow: str) -> Turn:
    return {"kind": "chat", "prompt": prompt, "f": list(follow)}


def M(
    prompt: str,
    n: list[str] | None = None,
    h: list[str] | None = None,
    x: list[str] | None = None,
    tags: tuple[str, ...] = (),
    f: tuple[str, ...] = (),
    lang: str | None = None,
) -> Turn:
    return {
        "kind": "memory",
        "prompt": prompt,
        "n": n or [],
        "h": h or [],
        "x": x or [],
        "tags": list(tags),
        "f": list(f),
        "lang": lang,
    }


def S(agent: str, start: str, turns: list[Turn], project: str | None = None) -> dict[str, Any]:
    return {"agent": agent, "start": start, "project": project, "turns": turns}


def script(prompt: str) -> str:
    """en, zh or mixed, from the characters of the prompt (digits and punctuation aside)."""
    han = any("\u4e00" <= ch <= "\u9fff" for ch in prompt)
    latin = any("a" <= ch.lower() <= "z" for ch in prompt)
    return "mixed" if han and latin else "zh" if han else "en"
