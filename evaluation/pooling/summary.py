"""What one user shares: an evaluation summary that carries no text.

A ``Summary`` holds counts, numbers and a fixed vocabulary only:

- per profile, the evaluation's column sums (``metrics.COLUMNS``) of the shipped system;
- per (profile, language pair, prompt kind) bucket, the same sums;
- per turn that recall judged, each candidate's relevance features
  (``recall_api.relevance.FEATURES``, rounded) and its label, with the turn's profile,
  kind, language pair and position, and whether the shipped system served it;
- per profile, histograms of the best candidate's relevance by prompt kind;
- from a recall log, the implicit signals' counts (misses, used, unused, routine).

No prompt, card, id, path, project or agent name is in it: every string field takes its
value from a closed vocabulary (``KINDS``, ``LANG_PAIRS``, ``PROFILES``, ``SOURCES``),
and ``check_vocabulary`` refuses anything else. A bucket (a profile's sums, a failure
bucket, a histogram bin, a signal count) counting fewer than ``MIN_BUCKET`` turns is
suppressed: written as ``None`` and named in ``suppressed``. The ``manifest`` lists every
field with what it holds, so the user can read the whole file before it leaves.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from evaluation.harness.metrics import COLUMNS

FORMAT = "dose-mem-eval-summary/1"
MIN_BUCKET = 5
KINDS = ("memory", "routine", "chat", "quiet")
LANG_PAIRS = ("en->en", "zh->zh", "zh->en", "en->zh", "mixed->en", "mixed->zh", "en", "zh", "mixed")
# The shipped profiles; a user's own profile name could say something, so it is
# reported as "other".
PROFILES = ("full", "working", "personal", "other")
SOURCES = ("environment", "recall_log")
BINS = 10
DIGITS = 3

Kind = Literal["memory", "routine", "chat", "quiet"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SharedTurn(Strict):
    """One turn recall judged: its candidates' features and labels, and its fate under
    the shipped profile. ``labels[i]``: 1 the candidate helps, -1 it is harmful here
    (superseded, expired, another project's look-alike), 0 otherwise."""

    profile: str
    kind: Kind
    lang: str | None = None
    later: bool = False
    served: bool = False
    candidates: list[list[float]]
    labels: list[int]


class Bucket(Strict):
    """The column sums of the turns of one (profile, language pair, kind); ``sums`` is
    None when fewer than ``MIN_BUCKET`` turns fell in it."""

    profile: str
    lang: str | None
    kind: Kind
    sums: list[float] | None


class Histogram(Strict):
    """Turns of one profile and kind by their best candidate's relevance, in ``BINS``
    equal bins of [0, 1]; a bin under ``MIN_BUCKET`` is None."""

    profile: str
    kind: Kind
    counts: list[int | None]


class Signals(Strict):
    """A recall log's implicit labels for one profile (``log_signals``)."""

    profile: str
    recalls: int | None
    misses: int | None
    used: int | None
    unused_items: int | None
    routine: int | None


class Summary(Strict):
    format: Literal["dose-mem-eval-summary/1"] = FORMAT
    source: Literal["environment", "recall_log"]
    created: dt.date
    min_bucket: int = MIN_BUCKET
    columns: list[str] = Field(default_factory=lambda: list(COLUMNS))
    features: list[str]
    profiles: dict[str, list[float] | None]
    buckets: list[Bucket] = Field(default_factory=list)
    turns: list[SharedTurn] = Field(default_factory=list)
    histograms: list[Histogram] = Field(default_factory=list)
    signals: list[Signals] = Field(default_factory=list)
    suppressed: list[str] = Field(default_factory=list)
    manifest: dict[str, str] = Field(default_factory=dict)


MANIFEST: dict[str, str] = {
    "format": "the summary format's name and version",
    "source": "'environment' (a labelled evaluation) or 'recall_log' (this machine's log)",
    "created": "the day the summary was written",
    "min_bucket": "buckets counting fewer turns than this are suppressed (None)",
    "columns": "the names of the count columns every 'sums' list holds, in order",
    "features": "the names of the relevance features every candidate row holds, in order",
    "profiles": "per shipped profile name ('other' for any other): the count columns "
    "summed over its turns, under the profiles as shipped",
    "buckets": "the same sums per (profile, language pair, prompt kind)",
    "turns": "per judged turn: profile, kind, language pair, later (turn > 1), served "
    "(by the shipped profile), each candidate's features (rounded to 3 digits) and "
    "label (1 helps, -1 harmful, 0 neither); no text, id or path",
    "histograms": "per profile and kind: turns by the best candidate's relevance, 10 bins",
    "signals": "per profile, from a recall log: recalls, misses (a search or read after "
    "a recall), used items (injected then read), unused injected items, routine recalls",
    "suppressed": "which buckets were suppressed, by their vocabulary labels",
    "manifest": "this list",
}


class VocabularyError(ValueError):
    """A string in a summary outside its closed vocabulary."""


def profile_label(name: str) -> str:
    return name if name in PROFILES else "other"


def check_vocabulary(summary: Summary) -> None:
    """Raise ``VocabularyError`` for any string field outside the closed vocabulary; a
    summary that passes carries no free text."""
    strings: list[tuple[str, str | None, tuple[str, ...]]] = [("source", summary.source, SOURCES)]
    strings += [("profiles", p, PROFILES) for p in summary.profiles]
    for b in summary.buckets:
        strings += [("bucket.profile", b.profile, PROFILES), ("bucket.lang", b.lang, LANG_PAIRS)]
    for t in summary.turns:
        strings += [("turn.profile", t.profile, PROFILES), ("turn.lang", t.lang, LANG_PAIRS)]
    strings += [("histogram.profile", h.profile, PROFILES) for h in summary.histograms]
    strings += [("signals.profile", s.profile, PROFILES) for s in summary.signals]
    for where, value, allowed in strings:
        if value is not None and value not in allowed:
            raise VocabularyError(f"{where}: {value!r} is not one of {allowed}")


def histogram(values: list[float]) -> list[int]:
    counts = [0] * BINS
    for v in values:
        counts[min(int(v * BINS), BINS - 1)] += 1
    return counts


def suppress_counts(counts: list[int]) -> list[int | None]:
    return [c if c >= MIN_BUCKET else None for c in counts]


def render_markdown(summary: Summary) -> str:
    """One page a person reads before sharing: every field, with the numbers."""
    lines = [
        f"# Evaluation summary ({summary.source}, {summary.created})",
        "",
        "Nothing below names a prompt, card, id, path, project or agent. Buckets of "
        f"fewer than {summary.min_bucket} turns are suppressed (shown as -).",
        "",
        "## Per profile (shipped)",
        "",
        "| profile | turns | memory turns | served | routine | routine injected | "
        "harmful items | items |",
        "|---|---|---|---|---|---|---|---|",
    ]
    col = {name: i for i, name in enumerate(summary.columns)}
    for name, sums in sorted(summary.profiles.items()):
        if sums is None:
            lines.append(f"| {name} | - | - | - | - | - | - | - |")
            continue
        cells = [
            sums[col[c]]
            for c in (
                "turns",
                "need",
                "need_hit",
                "routine",
                "routine_injected",
                "harmful_items",
                "items",
            )
        ]
        lines.append(f"| {name} | " + " | ".join(f"{c:g}" for c in cells) + " |")
    lines += [
        "",
        "## Buckets (profile, language pair, kind)",
        "",
        "| profile | language | kind | turns | served |",
        "|---|---|---|---|---|",
    ]
    for b in summary.buckets:
        if b.sums is None:
            lines.append(f"| {b.profile} | {b.lang or '-'} | {b.kind} | - | - |")
        else:
            lines.append(
                f"| {b.profile} | {b.lang or '-'} | {b.kind} | {b.sums[col['turns']]:g} "
                f"| {b.sums[col['need_hit']]:g} |"
            )
    lines += [
        "",
        "## Candidates",
        "",
        f"{len(summary.turns)} turns, {sum(len(t.labels) for t in summary.turns)} candidate "
        f"rows of {len(summary.features)} numbers each ({', '.join(summary.features)}).",
        "",
        "## Histograms of the best candidate's relevance (10 bins of 0.1)",
        "",
    ]
    for h in summary.histograms:
        shown = " ".join("-" if c is None else str(c) for c in h.counts)
        lines.append(f"- {h.profile} / {h.kind}: {shown}")
    if summary.signals:
        lines += ["", "## Recall log signals", ""]
        for s in summary.signals:
            lines.append(
                f"- {s.profile}: recalls {s.recalls}, misses {s.misses}, used {s.used}, "
                f"unused items {s.unused_items}, routine {s.routine}"
            )
    lines += ["", "## Fields", ""]
    lines += [f"- `{k}`: {v}" for k, v in summary.manifest.items()]
    if summary.suppressed:
        lines += ["", f"Suppressed: {', '.join(summary.suppressed)}."]
    return "\n".join(lines) + "\n"
