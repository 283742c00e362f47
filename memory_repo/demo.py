"""The demo memory: four projects, every card type, and eight weeks of git history.

The README quick start, the recall-service tests and the evaluation demos all run on
this repository, so its shape is fixed here: ``DEMO_IDS`` names the cards tests point
at, and every date is derived from ``today`` (``DEMO_TODAY`` by default) so that a demo
built on any day has the same lifecycle (one expired result, live decisions ...).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from memory_repo.bootstrap import MEMORY_README
from memory_repo.cards import render_card
from memory_repo.history import commit, init_repo
from memory_repo.models import (
    GLOBAL,
    Card,
    CardStatus,
    CardType,
    Evidence,
    Project,
    ProjectKind,
    ProjectStatus,
    Registry,
    Source,
)
from memory_repo.registry import REGISTRY_FILE, render_registry

DEMO_TODAY = dt.date(2026, 11, 30)

DEMO_PROJECTS = ("tablekit", "tabsense", "ocr-legacy", "life")

DEMO_IDS: dict[str, str] = {
    "uv": "uv-for-python-envs",
    "amber": "unverified-entries-amber",
    "teal": "unverified-entries-teal",
    "xdist_pitfall": "pytest-xdist-lancedb-tmpdir",
    "reply_chinese": "reply-in-chinese",
    "commit_english": "commit-messages-english-imperative",
    "dataframes_decision": "parse-table-returns-dataframes",
    "table_objects_decision": "parse-table-returns-table-objects",
    "expired_result": "parse-table-f1-spring-benchmark",
    "tablekit_fact": "tablekit-parse-pipeline",
    "tablekit_convention": "tablekit-test-layout",
    "pdfplumber_pitfall": "pdfplumber-011-rotated-pages",
    "tablekit_task": "detect-cells-merged-cells",
    "archived_status": "tablekit-ci-python39",
    "tabsense_result": "tabsense-v2-accuracy",
    "tabsense_licence": "tabsense-dataset-licence",
    "tabsense_data": "tabsense-data-location",
    "tabsense_convention": "tabsense-dev-test-split",
    "archived_card": "tesseract4-invoice-config",
    "archived_pitfall": "deskew-before-ocr",
    "no_meetings": "no-meetings-before-10",
    "weekly_review": "weekly-review-sunday-evening",
    "family_mail": "reply-family-mail-within-a-day",
}


@dataclass(frozen=True)
class DemoCommit:
    when: dt.datetime
    message: str
    files: dict[str, str]


@dataclass(frozen=True)
class _Clock:
    """Shifts the demo's calendar so that ``DEMO_TODAY`` lands on the requested today."""

    shift: dt.timedelta

    def day(self, iso: str) -> dt.date:
        return dt.date.fromisoformat(iso) + self.shift

    def at(self, iso: str) -> dt.datetime:
        return dt.datetime.fromisoformat(iso).replace(tzinfo=dt.UTC) + self.shift


def demo_registry() -> Registry:
    return Registry(
        projects=[
            Project(
                id="tablekit",
                name="TableKit",
                aliases=["table-kit"],
                nicknames=["TK"],
                paths=["/home/demo/code/tablekit"],
                kind=ProjectKind.research,
            ),
            Project(
                id="tabsense",
                name="TabSense",
                aliases=["tab-sense"],
                paths=["/home/demo/research/tabsense"],
                kind=ProjectKind.research,
            ),
            Project(
                id="ocr-legacy",
                name="OCR legacy pipeline",
                aliases=["ocr legacy"],
                paths=["/home/demo/old/ocr-legacy"],
                kind=ProjectKind.research,
                status=ProjectStatus.archived,
            ),
            Project(
                id="life",
                name="Life",
                nicknames=["personal"],
                kind=ProjectKind.personal,
            ),
        ]
    )


def card_path(card: Card) -> str:
    folder = "global" if card.project == GLOBAL else f"projects/{card.project}"
    return f"{folder}/cards/{card.id}.md"


def _files(*cards: Card) -> dict[str, str]:
    return {card_path(card): render_card(card) for card in cards}


def _auto(clock: _Clock, *quotes: tuple[str, str, str, str]) -> dict[str, object]:
    """Fields of a card the ingest flow wrote: source auto and the evidence it quoted."""
    return {
        "source": Source.auto,
        "confidence": 0.9,
        "evidence": [
            Evidence(agent=agent, session=session, at=clock.at(at), quote=quote)
            for agent, session, at, quote in quotes
        ],
    }


def _global_cards(c: _Clock) -> dict[str, Card]:
    return {
        "uv": Card(
            id=DEMO_IDS["uv"],
            type=CardType.convention,
            created=c.day("2026-10-05"),
            conclusion="Use uv to manage Python environments; never conda or bare pip.",
            body=(
                "Every Python project gets its environment from uv: the lock file is the "
                "truth, and `uv run` makes sure commands see exactly that environment. "
                "Conda and bare `pip install` leave environments nobody can rebuild.\n\n"
                "## Commands\n\n```bash\n# create or refresh .venv from uv.lock\nuv sync\n"
                "# run the tests inside it\nuv run pytest\n# add a pinned dependency\n"
                "uv add 'httpx==0.28.1'\n```\n"
            ),
        ),
        "amber": Card(
            id=DEMO_IDS["amber"],
            type=CardType.preference,
            created=c.day("2026-10-05"),
            conclusion="Mark unverified entries in amber.",
            body=(
                "In tables and reports, highlight any number or entry that has not been "
                "checked against its source in amber, so it stands out from verified ones.\n"
            ),
            **_auto(
                c,
                (
                    "hermes",
                    "hermes-2026-10-03-a1",
                    "2026-10-03T09:14:00",
                    "please mark anything unverified in amber",
                ),
            ),
        ),
        "teal": Card(
            id=DEMO_IDS["teal"],
            type=CardType.preference,
            created=c.day("2026-11-02"),
            conclusion="Mark unverified entries in teal (not amber any more).",
            supersedes=[DEMO_IDS["amber"]],
            body=(
                "Unverified entries are now highlighted in teal: amber was too close to the "
                "warning colour of the dashboards.\n\n## Why\n\nAmber cells were read as "
                "errors in the weekly report; teal reads as 'to check'.\n"
            ),
            **_auto(
                c,
                (
                    "hermes",
                    "hermes-2026-10-31-c7",
                    "2026-10-31T16:40:00",
                    "from now on use teal for unverified entries, amber looks like an error",
                ),
            ),
        ),
        "xdist_pitfall": Card(
            id=DEMO_IDS["xdist_pitfall"],
            type=CardType.pitfall,
            created=c.day("2026-11-02"),
            conclusion="With pytest-xdist, give every LanceDB test its own tmp_path.",
            body=(
                "Two xdist workers writing one LanceDB directory corrupt the table's "
                "manifest, and the failure shows up later as a missing fragment file.\n\n"
                "## Fix\n\nUse the `tmp_path` fixture per test; never a module-level temp "
                "dir shared by workers.\n"
            ),
            **_auto(
                c,
                (
                    "claude_code",
                    "cc-2026-10-30-91f2",
                    "2026-10-30T11:05:00",
                    "the flaky failure was two xdist workers sharing one lancedb dir",
                ),
            ),
        ),
        "reply_chinese": Card(
            id=DEMO_IDS["reply_chinese"],
            type=CardType.preference,
            created=c.day("2026-10-05"),
            conclusion="回复请用中文，代码注释用英文。",
            body=(
                "和我对话时用中文回复；代码里的注释、docstring 和日志信息一律用英文，"
                "方便开源和 code review。\n"
            ),
        ),
        "commit_english": Card(
            id=DEMO_IDS["commit_english"],
            type=CardType.convention,
            created=c.day("2026-10-05"),
            conclusion="提交信息用英文祈使句（例如 Add parser for rotated pages）。",
            body=(
                "Git commit message 用英文祈使句，首行不超过 72 个字符，例如 "
                "`Fix detect_cells on empty pages`。正文可以用中文解释原因。\n"
            ),
        ),
    }


def _tablekit_cards(c: _Clock) -> dict[str, Card]:
    p = "tablekit"
    return {
        "dataframes_decision": Card(
            id=DEMO_IDS["dataframes_decision"],
            type=CardType.decision,
            project=p,
            created=c.day("2026-10-05"),
            conclusion="parse_table returns pandas DataFrames.",
            body="The first API returned one pandas DataFrame per detected table.\n",
        ),
        "table_objects_decision": Card(
            id=DEMO_IDS["table_objects_decision"],
            type=CardType.decision,
            project=p,
            created=c.day("2026-10-12"),
            supersedes=[DEMO_IDS["dataframes_decision"]],
            conclusion="parse_table returns a list of Table objects, not DataFrames.",
            body=(
                "A Table keeps cell geometry, spans and the page number, which a DataFrame "
                "drops; `Table.to_pandas()` converts when a caller wants a frame.\n\n"
                "## Consequence\n\npandas becomes an optional dependency "
                "(`tablekit[pandas]`).\n"
            ),
            **_auto(
                c,
                (
                    "claude_code",
                    "cc-2026-10-12-4b1d",
                    "2026-10-12T10:22:00",
                    "parse_table should return Table objects, not DataFrames",
                ),
            ),
        ),
        "expired_result": Card(
            id=DEMO_IDS["expired_result"],
            type=CardType.result,
            project=p,
            created=c.day("2026-04-20"),
            conclusion="parse_table reached F1 0.87 on the spring PDF benchmark (412 tables).",
            body=(
                "Cell-level F1 of parse_table on the spring benchmark was 0.87; rotated "
                "pages were excluded. Imported from the old lab notebook.\n"
            ),
        ),
        "tablekit_fact": Card(
            id=DEMO_IDS["tablekit_fact"],
            type=CardType.fact,
            project=p,
            created=c.day("2026-10-12"),
            conclusion="parse_table calls detect_cells first, then groups cells into rows.",
            body=(
                "`detect_cells(page)` finds ruling lines and text boxes and returns Cell "
                "objects; `parse_table(pdf_path)` runs it on every page and groups the cells "
                "into rows and columns.\n\n## Entry points\n\n- `tablekit.parse_table`\n"
                "- `tablekit.cells.detect_cells`\n"
            ),
        ),
        "tablekit_convention": Card(
            id=DEMO_IDS["tablekit_convention"],
            type=CardType.convention,
            project=p,
            created=c.day("2026-10-05"),
            conclusion="TableKit tests live in tests/unit; PDF fixtures in tests/data.",
            body="Unit tests go under `tests/unit`, sample PDFs under `tests/data`.\n",
        ),
        "pdfplumber_pitfall": Card(
            id=DEMO_IDS["pdfplumber_pitfall"],
            type=CardType.pitfall,
            project=p,
            created=c.day("2026-10-19"),
            conclusion="pdfplumber 0.11 breaks rotated pages; pin pdfplumber 0.10.",
            body=(
                "pdfplumber 0.11 returns swapped x/y coordinates for pages with /Rotate 90, "
                "so detect_cells finds no ruling lines.\n\n## Workaround\n\nPin "
                "`pdfplumber==0.10.4` in pyproject.toml until upstream fixes it.\n"
            ),
            **_auto(
                c,
                (
                    "codex",
                    "codex-2026-10-18-77aa",
                    "2026-10-18T15:31:00",
                    "pin pdfplumber to 0.10, 0.11 breaks rotated pages",
                ),
            ),
        ),
        "tablekit_task": Card(
            id=DEMO_IDS["tablekit_task"],
            type=CardType.task,
            project=p,
            created=c.day("2026-11-23"),
            conclusion="Add merged-cell support to detect_cells.",
            body="Cells spanning two columns are split today; detect spans from ruling gaps.\n",
        ),
        "archived_status": Card(
            id=DEMO_IDS["archived_status"],
            type=CardType.fact,
            project=p,
            created=c.day("2026-10-05"),
            status=CardStatus.archived,
            conclusion="TableKit CI tests Python 3.9 and 3.10.",
            body="The CI matrix before the move to Python 3.11.\n",
        ),
    }


def _tabsense_cards(c: _Clock) -> dict[str, Card]:
    p = "tabsense"
    return {
        "tabsense_result": Card(
            id=DEMO_IDS["tabsense_result"],
            type=CardType.result,
            project=p,
            created=c.day("2026-11-09"),
            conclusion="TabSense v2: cell accuracy 84.2%, table exact match 61.3% on test.",
            body=(
                "Evaluation of the v2 table-understanding benchmark on the test split: "
                "cell-level accuracy 84.2%, table-level exact match 61.3%, 1,200 tables.\n\n"
                "## Setup\n\nScored with `tabsense eval --split test`; the baseline parser "
                "was TableKit's parse_table.\n"
            ),
            **_auto(
                c,
                (
                    "hermes",
                    "hermes-2026-11-08-e2",
                    "2026-11-08T20:12:00",
                    "v2 gets 84.2% cell accuracy and 61.3% exact match on test",
                ),
            ),
        ),
        "tabsense_licence": Card(
            id=DEMO_IDS["tabsense_licence"],
            type=CardType.decision,
            project=p,
            created=c.day("2026-10-26"),
            conclusion="The released TabSense dataset is licensed CC-BY-4.0.",
            body="Annotations and tables are released under CC-BY-4.0; code under MIT.\n",
        ),
        "tabsense_data": Card(
            id=DEMO_IDS["tabsense_data"],
            type=CardType.fact,
            project=p,
            created=c.day("2026-10-26"),
            conclusion="数据放在 /data/tabsense，不要提交到 git。",
            body=(
                "原始 PDF 和标注都在 /data/tabsense（约 40 GB）。仓库里只保留 "
                "`data/README.md` 和下载脚本。\n"
            ),
            **_auto(
                c,
                (
                    "hermes",
                    "hermes-2026-10-25-b9",
                    "2026-10-25T13:48:00",
                    "数据放在 /data/tabsense，不要提交到 git",
                ),
            ),
        ),
        "tabsense_convention": Card(
            id=DEMO_IDS["tabsense_convention"],
            type=CardType.convention,
            project=p,
            created=c.day("2026-11-09"),
            conclusion="调参只用 dev 划分，论文只报告 test 划分的结果。",
            body=(
                "阈值和超参数只在 dev split 上调；test split 只在最终评测时跑一次。\n\n"
                "## 原因\n\n避免在 test 上过拟合，审稿人会问。\n"
            ),
        ),
    }


def _ocr_cards(c: _Clock) -> dict[str, Card]:
    p = "ocr-legacy"
    return {
        "archived_card": Card(
            id=DEMO_IDS["archived_card"],
            type=CardType.convention,
            project=p,
            created=c.day("2026-10-05"),
            conclusion="Tesseract 4 config for scanned invoices: --oem 1 --psm 6 at 300 dpi.",
            body="Scanned invoices OCR best with the LSTM engine and a single text block.\n",
        ),
        "archived_pitfall": Card(
            id=DEMO_IDS["archived_pitfall"],
            type=CardType.pitfall,
            project=p,
            created=c.day("2026-10-05"),
            conclusion="Deskew scans before OCR: Tesseract 4 misreads invoices tilted over 2°.",
            body="Run the deskew step first; tilted scans lose whole columns of amounts.\n",
        ),
    }


def _life_cards(c: _Clock) -> dict[str, Card]:
    p = "life"
    return {
        "no_meetings": Card(
            id=DEMO_IDS["no_meetings"],
            type=CardType.habit,
            project=p,
            created=c.day("2026-10-05"),
            conclusion="No meetings before 10:00; mornings are for deep work.",
            body="Decline or move calendar invites that start before 10:00.\n",
        ),
        "weekly_review": Card(
            id=DEMO_IDS["weekly_review"],
            type=CardType.habit,
            project=p,
            created=c.day("2026-11-16"),
            conclusion="周日晚上做每周回顾（weekly review on Sunday evening）。",
            body=(
                "每周日 20:00 留一个小时：回顾本周日历和待办，定下周三件最重要的事。\n\n"
                "## Checklist\n\n- inbox zero\n- 下周日历\n- habits tracker\n"
            ),
            **_auto(
                c,
                (
                    "calendar",
                    "cal-2026-11-15-03",
                    "2026-11-15T21:02:00",
                    "每周日晚上帮我留出时间做每周回顾",
                ),
            ),
        ),
        "family_mail": Card(
            id=DEMO_IDS["family_mail"],
            type=CardType.preference,
            project=p,
            created=c.day("2026-11-16"),
            conclusion="Reply to family mail within a day.",
            body="Mail from family gets flagged and answered within 24 hours, even briefly.\n",
            **_auto(
                c,
                (
                    "mail",
                    "mail-2026-11-14-5e",
                    "2026-11-14T08:30:00",
                    "always remind me to answer family mail within a day",
                ),
            ),
        ),
    }


def _briefs(c: _Clock) -> dict[str, str]:
    d = c.day
    return {
        "projects/tablekit/brief.md": (
            "# TableKit\n\n## Goal\n\nA Python library that parses tables out of PDFs: "
            "`parse_table` returns Table objects with cell geometry, built on "
            "`detect_cells`.\n\n## Data location\n\nThe PDF corpus lives on /data/tablekit "
            "(about 3,000 files). The PDFs are licensed for research use only, so they are "
            "never committed or redistributed.\n\n## Users\n\nThe TabSense benchmark uses "
            "TableKit as its baseline parser.\n"
        ),
        "projects/tabsense/brief.md": (
            "# TabSense\n\n## Goal\n\nA research benchmark for table understanding: parsing, "
            "structure recognition and question answering over tables, with an evaluation "
            "harness.\n\n## Data location\n\n数据放在 /data/tabsense；标注格式见 "
            "`docs/annotation.md`。\n\n## Evaluation\n\nMetrics are cell accuracy and table "
            "exact match; dev for tuning, test for the paper.\n"
        ),
        "projects/tablekit/decisions.md": (
            "# TableKit decisions\n\n"
            f"## {d('2026-10-12')} parse_table returns Table objects\n\n"
            "DataFrames drop spans and geometry; `Table.to_pandas()` covers frame users.\n\n"
            f"## {d('2026-10-19')} Pin pdfplumber to 0.10\n\n"
            "0.11 breaks rotated pages; revisit when upstream ships a fix.\n"
        ),
    }


def _sidecar(c: _Clock) -> str:
    ev = Evidence(
        agent="claude_code",
        session="cc-2026-11-16-0c3e",
        at=c.at("2026-11-16T14:10:00"),
        quote="rotated pages are broken again with pdfplumber 0.11, keep the pin",
    )
    return json.dumps(ev.model_dump(mode="json"), ensure_ascii=False) + "\n"


def demo_commits(today: dt.date = DEMO_TODAY) -> list[DemoCommit]:
    """The demo's history, one commit per week from eight weeks before ``today``."""
    c = _Clock(today - DEMO_TODAY)
    g, tk, ts = _global_cards(c), _tablekit_cards(c), _tabsense_cards(c)
    ocr, life, briefs = _ocr_cards(c), _life_cards(c), _briefs(c)
    decisions = briefs.pop("projects/tablekit/decisions.md")
    first_decision = decisions.split(f"## {c.day('2026-10-19')}")[0].rstrip() + "\n"
    sidecar = card_path(tk["pdfplumber_pitfall"]).replace(".md", ".evidence.jsonl")
    plan: list[tuple[str, str, dict[str, str]]] = [
        (
            "2026-10-05",
            "Import memory: registry, global conventions, tablekit, ocr-legacy",
            {
                REGISTRY_FILE: render_registry(demo_registry()),
                "README.md": MEMORY_README,
                "projects/tablekit/brief.md": briefs["projects/tablekit/brief.md"],
                **_files(
                    g["uv"],
                    g["amber"],
                    g["reply_chinese"],
                    g["commit_english"],
                    tk["dataframes_decision"],
                    tk["expired_result"],
                    tk["tablekit_convention"],
                    tk["archived_status"],
                    *ocr.values(),
                    life["no_meetings"],
                ),
            },
        ),
        (
            "2026-10-12",
            "ingest: parse_table returns Table objects",
            {
                "projects/tablekit/decisions.md": first_decision,
                **_files(tk["table_objects_decision"], tk["tablekit_fact"]),
            },
        ),
        (
            "2026-10-19",
            "ingest: pdfplumber 0.11 pitfall",
            {
                "projects/tablekit/decisions.md": decisions,
                **_files(tk["pdfplumber_pitfall"]),
            },
        ),
        (
            "2026-10-26",
            "ingest: tabsense brief, data location and licence",
            {
                "projects/tabsense/brief.md": briefs["projects/tabsense/brief.md"],
                **_files(ts["tabsense_data"], ts["tabsense_licence"]),
            },
        ),
        (
            "2026-11-02",
            "ingest: unverified entries are teal now; xdist pitfall",
            _files(g["teal"], g["xdist_pitfall"]),
        ),
        (
            "2026-11-09",
            "ingest: tabsense v2 accuracy and split convention",
            _files(ts["tabsense_result"], ts["tabsense_convention"]),
        ),
        (
            "2026-11-16",
            "ingest: weekly review, family mail; merge pdfplumber evidence",
            {
                sidecar: _sidecar(c),
                **_files(life["weekly_review"], life["family_mail"]),
            },
        ),
        ("2026-11-23", "ingest: merged-cell task for detect_cells", _files(tk["tablekit_task"])),
    ]
    return [
        DemoCommit(when=c.at(f"{day}T18:00:00"), message=message, files=files)
        for day, message, files in plan
    ]


def build_demo(root: Path, today: dt.date = DEMO_TODAY) -> list[str]:
    """Write the demo memory into ``root`` as a git repository; returns the commit shas."""
    init_repo(root)
    return [_apply(root, step) for step in demo_commits(today)]


def _apply(root: Path, step: DemoCommit) -> str:
    _write(root, step.files.items())
    return commit(root, step.files, step.message, step.when)


def _write(root: Path, files: Iterable[tuple[str, str]]) -> None:
    for rel, text in files:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
