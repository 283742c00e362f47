"""The privacy check: does any string of a source environment appear in shared files?

``source_strings(env_dir)`` collects what a user would not want to leave the machine:
every card's id, project, tags and text (each history commit's Markdown files, front
matter included), every registry entry's id, name, aliases, nicknames and paths, and
every probe's id, session, agent, prompt, previous turn, follow-ups, cwd, project and
gold ids. ``leaks(text, strings)`` finds, in a shared file's text:

- any whole string of 4 characters or more (ids, names, paths) as a whole word;
- any run of 3 words of a prompt or card line (Latin script, case-folded), unless all
  three are numbers (a summary is made of numbers; "0 0 17" names nothing);
- any 3 Han characters in a row of one (the summaries hold no Han character at all).

Strings that are words of the summary's own fixed vocabulary (``ALLOWED``: its field
names, kinds, language pairs, profile and feature names, the manifest's wording) are not
the source's to leak; they are listed, not hidden.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from evaluation.harness.metrics import COLUMNS
from evaluation.pooling.summary import KINDS, LANG_PAIRS, MANIFEST, PROFILES, SOURCES
from recall_api.relevance import FEATURES

_WORD = re.compile(r"[a-z0-9][a-z0-9_.\-/]*")
_HAN = re.compile(r"[\u3400-\u9fff]+")
_NUMBER = re.compile(r"[0-9][0-9.]*")
MIN_STRING = 4


def _vocabulary() -> frozenset[str]:
    """The words every summary and report is made of whatever the source: the closed
    vocabularies, the models' field names and the fixed wording of both renderings."""
    import datetime as dt

    from evaluation.pooling import pool, summary
    from evaluation.pooling.calibrate import Calibration
    from recall_api.relevance import shipped_model

    texts = [*KINDS, *LANG_PAIRS, *PROFILES, *SOURCES, *COLUMNS, *FEATURES]
    texts += [*MANIFEST, *MANIFEST.values()]
    for model in (summary.Summary, summary.SharedTurn, summary.Bucket, summary.Histogram):
        texts += list(model.model_fields)
    for model in (summary.Signals, pool.PoolReport, pool.Pooled, pool.Failure, Calibration):
        texts += list(model.model_fields)
    empty = summary.Summary(
        source="recall_log", created=dt.date.today(), features=list(FEATURES), profiles={}
    )
    texts.append(summary.render_markdown(empty))
    cal = Calibration(model=shipped_model(), bars={}, users=0, turns=0)
    report = pool.PoolReport(
        users=0, turns=0, metrics={}, failures=[], calibration=cal, simulated=[]
    )
    texts.append(pool.render_report(report))
    texts += list(pool.REPORTED)
    return frozenset(w for t in texts for w in _WORD.findall(t.lower()))


ALLOWED = _vocabulary()


def _strings_of(value: object, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            _strings_of(k, out)
            _strings_of(v, out)
    elif isinstance(value, list):
        for v in value:
            _strings_of(v, out)


def source_strings(env_dir: Path) -> list[str]:
    out: list[str] = []
    for path in sorted((env_dir / "history").rglob("*")):
        if path.suffix == ".md":
            out += path.read_text(encoding="utf-8").splitlines()
            out.append(path.stem)
        elif path.name == "registry.yaml":
            _strings_of(yaml.safe_load(path.read_text(encoding="utf-8")), out)
    for line in (env_dir / "probes.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            _strings_of(json.loads(line), out)
    return [s.strip() for s in out if s.strip()]


def needles(strings: list[str]) -> tuple[set[str], set[str], set[str]]:
    """(whole strings, word 3-grams, Han 3-grams) to search for."""
    whole: set[str] = set()
    grams: set[str] = set()
    han: set[str] = set()
    for s in strings:
        low = s.lower()
        if len(low) >= MIN_STRING and low not in ALLOWED and " " not in low:
            whole.add(low)
        words = _WORD.findall(low)
        grams |= {
            " ".join(run)
            for run in (words[i : i + 3] for i in range(len(words) - 2))
            if not all(_NUMBER.fullmatch(w) for w in run)
        }
        for run in _HAN.findall(s):
            han |= {run[i : i + 3] for i in range(len(run) - 2)}
    return whole, grams, han


def leaks(text: str, strings: list[str]) -> list[str]:
    """Every source string, word 3-gram or Han 3-gram found in ``text``."""
    whole, grams, han = needles(strings)
    low = text.lower()
    tokens = _WORD.findall(low)
    found = {t for t in tokens if t in whole}
    found |= {s for s in whole if ("/" in s or not s.isalnum()) and s in low}
    runs = (tokens[i : i + 3] for i in range(len(tokens) - 2))
    found |= {g for run in runs if (g := " ".join(run)) in grams and not set(run) <= ALLOWED}
    found |= {g for run in _HAN.findall(text) for g in han if g in run}
    return sorted(found)
