"""Unlabelled probes from captured sessions: every user turn becomes a probe a person can
label, with the turns that followed it kept for the judge only.

Splits by time, as the evaluation requires: probes before ``dev_until`` are dev, the rest
test (by default the earliest 40% of the probes' weeks are dev).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from evaluation.harness.probes import Probe, Split, week_start
from memory_repo.transcripts.transcript import Transcript

MAX_FOLLOW_UPS = 6
DEV_SHARE = 0.4


def read_transcripts(path: Path) -> list[Transcript]:
    """A JSON-lines file of transcripts, or a folder of ``*.json`` / ``*.jsonl`` files."""
    files = sorted(path.glob("*.json*")) if path.is_dir() else [path]
    out: list[Transcript] = []
    for file in files:
        text = file.read_text(encoding="utf-8")
        if file.suffix == ".json":
            out.append(Transcript.model_validate_json(text))
        else:
            out.extend(
                Transcript.model_validate(json.loads(line))
                for line in text.splitlines()
                if line.strip()
            )
    return out


def probes_from_transcripts(
    transcripts: list[Transcript], profiles: dict[str, str], dev_until: dt.date | None = None
) -> list[Probe]:
    """``profiles`` maps an agent name to its recall profile (unknown agents: ``working``)."""
    drafts: list[Probe] = []
    for t in transcripts:
        said = [turn for turn in t.turns if turn.role == "user" and turn.text.strip()]
        fallback = t.started or t.ended or dt.datetime.now(dt.UTC)
        for i, turn in enumerate(said):
            drafts.append(
                Probe(
                    id=f"{t.agent}-{t.session_id}-{i + 1}",
                    session_id=t.session_id,
                    agent=t.agent,
                    profile=profiles.get(t.agent, "working"),
                    timestamp=turn.at or fallback,
                    prompt=turn.text,
                    previous_turn=said[i - 1].text if i else None,
                    cwd=t.cwd,
                    turn=i + 1,
                    split=Split.test,
                    follow_ups=[x.text for x in said[i + 1 : i + 1 + MAX_FOLLOW_UPS]],
                )
            )
    if not drafts:
        return []
    cut = dev_until or _dev_cut([p.timestamp for p in drafts])
    return [
        p.model_copy(update={"split": Split.dev if p.timestamp.date() < cut else Split.test})
        for p in sorted(drafts, key=lambda p: (p.timestamp, p.id))
    ]


def _dev_cut(times: list[dt.datetime]) -> dt.date:
    weeks = sorted({week_start(t).date() for t in times})
    n_dev = max(1, int(len(weeks) * DEV_SHARE)) if len(weeks) > 1 else 1
    return weeks[n_dev] if n_dev < len(weeks) else weeks[-1] + dt.timedelta(days=7)
