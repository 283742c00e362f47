"""The write-quality evaluation: a labelled set of sessions through the real ingest flow.

A set is a directory with ``sessions/<agent>/...`` (each agent's own history layout),
``seed.yaml`` (a registry and existing cards the sessions are ingested into) and
``labels.yaml`` (what must happen to each planted item: a new card of a type, a
supersede or merge of a seeded card, nothing; the secrets that must appear in no file).

``run_write_eval`` builds a temporary home, runs one ``ingest`` flow over it (the
configured LLM endpoint when ``DOSE_MEM_LLM_BASE_URL`` is set, else the offline rules
provider) and scores the cards on disk. Cards are matched to labels by their evidence
quote. Precision counts every new card; recall counts the items that must become a card
(new or superseding). The secret scan reads every file under the home (memory, state,
index) and Prefect's database files, byte for byte.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from evaluation.harness.scripted_llm import llm_server
from evaluation.sets import capture_sets
from evaluation.sets.capture_sets import CaptureScores, SessionLabel
from flows.verify import canonical
from memory_repo.cards import render_card
from memory_repo.history import commit
from memory_repo.layers import l1
from memory_repo.models import Card, CardType, Item, Project, Registry, Source
from memory_repo.registry import REGISTRY_FILE, render_registry
from memory_repo.secrets import redact
from memory_repo.store import evidence_sidecar, load_memory

Expect = Literal["card", "supersede", "merge", "none", "held"]
CAPTURE_VARS = {
    "claude_code": "DOSE_MEM_CAPTURE_CLAUDE_DIR",
    "codex": "DOSE_MEM_CAPTURE_CODEX_DIR",
    "hermes": "DOSE_MEM_CAPTURE_HERMES_DIR",
    "pi": "DOSE_MEM_CAPTURE_PI_DIR",
}
# What an agent-usable L0 must not contain (docs/capture.md, "Card text").
L0_CHECKS = {
    "cue or filler lead": re.compile(
        r"^\s*(remember|going forward|from now on|fyi|btw|note|ok(ay)?|also|so|actually|"
        r"please|always remember)\b|^\s*(以后|记住|另外|还有|好的|顺便|注意)",
        re.IGNORECASE,
    ),
    "first person": re.compile(r"\b(i|i'm|i've|me|my|we|we're|our|us)\b|我|咱", re.IGNORECASE),
    "session-bound words": re.compile(
        r"\b(today|yesterday|this (session|pr|week|time)|just now|in the draft|above|"
        r"last week)\b|今天|昨天|刚才|上周|这周|本次|这次",
        re.IGNORECASE,
    ),
}
_PROVENANCE = re.compile(r"\bsession\b|\boverlap\b|Said by|## Source", re.IGNORECASE)
_HAN = re.compile(r"[\u4e00-\u9fff]")


class Label(BaseModel):
    """``project``: where the item must be filed (capture sets); extra keys (``lang``)
    are kept for the set's own counts."""

    model_config = ConfigDict(extra="allow")

    id: str
    session: str
    kind: str
    expect: Expect
    match: str
    type: CardType | None = None
    target: str | None = None
    secret: str | None = None
    project: str | None = None


class SeedCard(BaseModel):
    id: str
    type: CardType
    project: str = "global"
    created: dt.date
    conclusion: str


class WriteSet(BaseModel):
    root: Path
    projects: list[Project] = Field(default_factory=list)
    cards: list[SeedCard] = Field(default_factory=list)
    splits: dict[str, list[str]] = Field(default_factory=dict)
    items: list[Label] = Field(default_factory=list)
    sessions: list[SessionLabel] = Field(default_factory=list)
    harness: list[str] = Field(default_factory=list)


class CardRow(BaseModel):
    id: str
    type: str
    l0: str
    label: str | None = None
    session: str | None = None
    l0_problems: list[str] = Field(default_factory=list)


class Scores(BaseModel):
    cards: int = 0
    good_cards: int = 0
    precision: float = 0.0
    must_write: int = 0
    written: int = 0
    recall: float = 0.0
    type_right: int = 0
    slipped: dict[str, int] = Field(default_factory=dict)
    missed: list[str] = Field(default_factory=list)
    supersede_right: list[str] = Field(default_factory=list)
    supersede_wrong: list[str] = Field(default_factory=list)
    merge_right: list[str] = Field(default_factory=list)
    merge_wrong: list[str] = Field(default_factory=list)


class WriteReport(BaseModel):
    set: str
    provider: str
    all: Scores
    splits: dict[str, Scores] = Field(default_factory=dict)
    cards: list[CardRow] = Field(default_factory=list)
    l0_problems: dict[str, int] = Field(default_factory=dict)
    l1_with_session_id: list[str] = Field(default_factory=list)
    unreadable_ids: list[str] = Field(default_factory=list)
    secrets_on_disk: list[str] = Field(default_factory=list)
    capture: CaptureScores | None = None


def load_set(root: Path) -> WriteSet:
    seed = yaml.safe_load((root / "seed.yaml").read_text("utf-8")) or {}
    labels = yaml.safe_load((root / "labels.yaml").read_text("utf-8")) or {}
    return WriteSet(root=root, **seed, **labels)


def seed_home(write_set: WriteSet, home: Path) -> None:
    """A memory holding the set's registry and seed cards, one commit."""
    from memory_repo.bootstrap import init_memory

    memory = home / "memory"
    init_memory(memory)
    files = {REGISTRY_FILE: render_registry(Registry(projects=write_set.projects))}
    for seed in write_set.cards:
        card = Card(
            id=seed.id,
            type=seed.type,
            project=seed.project,
            conclusion=seed.conclusion,
            created=seed.created,
            source=Source.human,
            body=seed.conclusion,
        )
        folder = "global" if seed.project == "global" else f"projects/{seed.project}"
        files[f"{folder}/cards/{seed.id}.md"] = render_card(card)
    for rel, text in files.items():
        (memory / rel).parent.mkdir(parents=True, exist_ok=True)
        (memory / rel).write_text(text, encoding="utf-8")
    commit(memory, list(files), "Seed the write-quality memory")


@contextmanager
def _env(values: dict[str, str]) -> Iterator[None]:
    before = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def prefect_database_files() -> list[Path]:
    """The files of Prefect's SQLite database in use (with its WAL and journal)."""
    from prefect.settings import get_current_settings

    url = get_current_settings().server.database.connection_url
    url = url.get_secret_value() if hasattr(url, "get_secret_value") else str(url or "")
    found = re.search(r"sqlite[^:]*:///(.+)$", url)
    if not found:
        return []
    db = Path(found.group(1))
    return [p for p in db.parent.glob(db.name + "*") if p.is_file()]


def secrets_on_disk(secrets: list[str], roots: list[Path], files: list[Path]) -> list[str]:
    """``path: label`` for every file that holds a planted secret byte for byte."""
    needles = [s.encode("utf-8") for s in secrets]
    paths = [p for r in roots if r.exists() for p in r.rglob("*") if p.is_file()] + files
    hits = []
    for path in paths:
        data = path.read_bytes()
        hits += [f"{path}: {i}" for i, n in enumerate(needles) if n in data]
    return hits


def run_write_eval(
    write_set: WriteSet, work: Path | None = None, oracle: bool = False
) -> WriteReport:
    """Ingest the set into a fresh seeded home and score what landed on disk; with
    ``oracle``, through the labelled-facts distiller (``capture_sets.oracle``)."""
    from flows.ingest import ingest

    tmp = Path(work or tempfile.mkdtemp(prefix="dose-mem-write-eval-"))
    home = tmp / "home"
    seed_home(write_set, home)
    env = {"DOSE_MEM_HOME": str(home), "DOSE_MEM_CAPTURE_IDLE_MINUTES": "0"}
    for agent, var in CAPTURE_VARS.items():
        src = write_set.root / "sessions" / agent
        dst = tmp / "sources" / agent
        if src.is_dir():
            shutil.copytree(src, dst)
        dst.mkdir(parents=True, exist_ok=True)
        env[var] = str(dst)
    names = capture_sets.materialise(write_set.root / "sessions", tmp / "sources")
    with ExitStack() as stack:
        if oracle:
            server = stack.enter_context(llm_server())
            server.responder = capture_sets.oracle(write_set.items)
            env["DOSE_MEM_LLM_BASE_URL"] = server.url
        stack.enter_context(_env(env))
        ingest(home=str(home))
    report = score(write_set, home, names)
    secrets = [i.secret for i in write_set.items if i.secret]
    hits = secrets_on_disk(secrets, [home], prefect_database_files())
    report.secrets_on_disk = [redact(h) for h in hits]
    report.provider = (
        "oracle" if oracle else "llm" if os.environ.get("DOSE_MEM_LLM_BASE_URL") else "rules"
    )
    return report


def _matches(label: Label, quote: str) -> bool:
    a, b = canonical(label.match), canonical(quote)
    return a in b or (len(b) >= 8 and b in a)


def _label_of(item: Item, labels: list[Label], by_quote: bool = False) -> Label | None:
    """The label of a card's first evidence: its session and quote, or (``by_quote``, for
    sets whose session names are the agents' own ids) its quote alone."""
    for ev in item.evidence[:1]:
        session = _session_name(ev.session)
        for label in labels:
            if (by_quote or label.session == session) and _matches(label, ev.quote):
                return label
    return None


def _session_name(uuid: str) -> str:
    """The set names its sessions 01..10 in the uuid's first group (``5e550101`` -> 01)."""
    return uuid[4:6]


def score(write_set: WriteSet, home: Path, names: dict[str, str] | None = None) -> WriteReport:
    memory = load_memory(home / "memory")
    by_quote = bool(write_set.sessions)
    seeds = {c.id for c in write_set.cards}
    new = [i for i in memory.items.values() if i.id not in seeds and i.path and "/cards/" in i.path]
    report = WriteReport(set=write_set.root.name, provider="rules", all=Scores())
    session_ids = {ev.session for i in new for ev in i.evidence}
    for item in sorted(new, key=lambda i: i.id):
        label = _label_of(item, write_set.items, by_quote)
        problems = [name for name, rx in L0_CHECKS.items() if rx.search(item.conclusion or "")]
        if _PROVENANCE.search(l1(item)) or any(s in item.body for s in session_ids):
            report.l1_with_session_id.append(item.id)
        if not _readable(item):
            report.unreadable_ids.append(item.id)
        report.cards.append(
            CardRow(
                id=item.id,
                type=str(item.type),
                l0=redact(item.conclusion or ""),
                label=label.id if label else None,
                session=_session_name(item.evidence[0].session) if item.evidence else None,
                l0_problems=problems,
            )
        )
    report.l0_problems = dict(Counter(p for row in report.cards for p in row.l0_problems))
    sidecars = {
        seed.id: _sidecar_quotes(home / "memory", memory.items.get(seed.id))
        for seed in write_set.cards
    }
    report.all = _scores(write_set.items, report.cards, new, sidecars)
    for name, sessions in write_set.splits.items():
        labels = [i for i in write_set.items if i.session in sessions]
        rows = [r for r in report.cards if r.session in sessions]
        report.splits[name] = _scores(labels, rows, new, sidecars)
    if write_set.sessions:
        report.capture = capture_sets.score(
            write_set.items,
            write_set.sessions,
            write_set.harness,
            report.cards,
            {i.id: i for i in new},
            home / "memory",
            home / "state",
            names or {},
            _matches,
        )
    return report


def _readable(item: Item) -> bool:
    """An id made of content words: two or more lowercase ASCII words besides type and hash."""
    words = [w for w in item.id.split("-")[1:-1] if re.fullmatch(r"[a-z][a-z0-9]*", w)]
    return len(words) >= 2


def _sidecar_quotes(root: Path, item: Item | None) -> list[tuple[str, str]]:
    if item is None or not item.path:
        return []
    side = root / evidence_sidecar(Path(item.path))
    if not side.is_file():
        return []
    out = []
    for line in side.read_text("utf-8").splitlines():
        data = yaml.safe_load(line) if line.strip() else None
        if data:
            out.append((str(data.get("session", "")), str(data.get("quote", ""))))
    return out


def _scores(
    labels: list[Label],
    rows: list[CardRow],
    new: list[Item],
    sidecars: dict[str, list[tuple[str, str]]],
) -> Scores:
    by_label = {i.id: i for i in labels}
    items = {i.id: i for i in new}
    s = Scores(cards=len(rows))
    for row in rows:
        label = by_label.get(row.label or "")
        if label and label.expect in ("card", "supersede"):
            s.good_cards += 1
            s.type_right += int(label.type is None or row.type == str(label.type))
        else:
            kind = label.kind if label else "unlabelled"
            s.slipped[kind] = s.slipped.get(kind, 0) + 1
    written = {r.label for r in rows}
    for label in labels:
        if label.expect in ("card", "supersede"):
            s.must_write += 1
            if label.id in written:
                s.written += 1
            else:
                s.missed.append(label.id)
        if label.expect == "supersede":
            ok = any(r.label == label.id and label.target in items[r.id].supersedes for r in rows)
            (s.supersede_right if ok else s.supersede_wrong).append(label.id)
        if label.expect == "merge":
            merged = any(
                _session_name(session) == label.session and _matches(label, quote)
                for session, quote in sidecars.get(label.target or "", [])
            )
            ok = merged and label.id not in written
            (s.merge_right if ok else s.merge_wrong).append(label.id)
    s.precision = round(s.good_cards / s.cards, 3) if s.cards else 0.0
    s.recall = round(s.written / s.must_write, 3) if s.must_write else 0.0
    return s


def render(report: WriteReport) -> str:
    """The human form of a report (Markdown); every text in it is already redacted."""
    lines = [f"# Write quality: {report.set} ({report.provider})", ""]
    lines += ["| split | cards | precision | recall | type right | supersede | merge |"]
    lines += ["|---|---|---|---|---|---|---|"]
    for name, s in {"all": report.all, **report.splits}.items():
        sup = len(s.supersede_right), len(s.supersede_right) + len(s.supersede_wrong)
        mer = len(s.merge_right), len(s.merge_right) + len(s.merge_wrong)
        lines.append(
            f"| {name} | {s.cards} | {s.good_cards}/{s.cards} = {s.precision:.2f} | "
            f"{s.written}/{s.must_write} = {s.recall:.2f} | {s.type_right}/{s.good_cards} | "
            f"{sup[0]}/{sup[1]} | {mer[0]}/{mer[1]} |"
        )
    a = report.all
    lines += [
        "",
        f"slipped kinds: {', '.join(f'{k} {v}' for k, v in sorted(a.slipped.items())) or 'none'}",
        f"missed: {', '.join(a.missed) or 'none'}",
        f"wrong supersedes: {', '.join(a.supersede_wrong) or 'none'}; "
        f"wrong merges: {', '.join(a.merge_wrong) or 'none'}",
        "L0 problems: "
        + (", ".join(f"{k} {v}" for k, v in sorted(report.l0_problems.items())) or "none"),
        f"L1 with provenance or a session id: {len(report.l1_with_session_id)}",
        f"unreadable ids: {', '.join(report.unreadable_ids) or 'none'}",
        f"secrets on disk: {len(report.secrets_on_disk)}",
        *[f"  - {h}" for h in report.secrets_on_disk],
        "",
        "| id | type | L0 | label |",
        "|---|---|---|---|",
        *[f"| {r.id} | {r.type} | {r.l0} | {r.label or '(none)'} |" for r in report.cards],
    ]
    if report.capture is not None:
        lines += capture_sets.render(report.capture)
    return "\n".join(lines) + "\n"
