"""Synthetic memory repositories for benchmarks: real card files and a real registry.

Text mixes Chinese and English with identifiers, versions and numbers the way agents'
notes do, across many projects and every card type, so index build time and query
latency are measured on something shaped like a person's memory. Seeded: the same
arguments write the same bytes.
"""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path

from memory_repo.cards import render_card
from memory_repo.models import GLOBAL, Card, CardType, Project, ProjectKind, Registry
from memory_repo.registry import REGISTRY_FILE, render_registry

_TOOLS = [
    "uv",
    "pytest",
    "ruff",
    "docker",
    "lancedb",
    "fastapi",
    "prefect",
    "pandas",
    "polars",
    "numpy",
    "git",
    "make",
    "conda",
    "jieba",
    "tantivy",
    "onnxruntime",
    "pydantic",
    "typer",
]
_IDENTS = [
    "parse_table",
    "load_config",
    "build_index",
    "merge_rows",
    "fetch_page",
    "run_eval",
    "write_card",
    "split_chunks",
    "embed_batch",
    "score_hits",
    "DataLoader",
    "readCSV",
    "HttpClient",
    "retry_backoff",
    "to_parquet",
    "normalize_text",
    "rrf_fuse",
]
_ZH_SUBJECTS = [
    "环境管理",
    "数据清洗",
    "部署流程",
    "测试策略",
    "代码风格",
    "日志格式",
    "实验记录",
    "依赖版本",
    "缓存策略",
    "报告模板",
    "周会安排",
    "论文写作",
    "检索质量",
    "内存占用",
]
_ZH_VERBS = ["优先使用", "不要用", "统一改成", "总是先跑", "记得检查", "默认开启", "避免依赖"]
_EN_PHRASES = [
    "always run {tool} before committing",
    "the {ident} helper breaks on empty input",
    "prefer {tool} over the legacy script",
    "{ident} takes about {n} ms per call",
    "set the batch size to {n} for {tool}",
    "pin {tool} to version {v}",
    "the nightly job failed because {ident} timed out after {n} s",
]
_ZH_PHRASES = [
    "{subject}{verb} {tool}，因为上次 {ident} 出过问题。",
    "{subject}：结果是 {n} 条记录，比基线高 {p}%。",
    "我们决定在{subject}里{verb} {tool}，不再手动处理。",
    "{ident} 在 {subject} 中返回 {n:,} 行，需要分批处理。",
]
_HEADINGS = ["Why", "How to apply", "Details", "背景", "做法", "Evidence", "结果"]


def _sentence(rng: random.Random) -> str:
    fill = {
        "tool": rng.choice(_TOOLS),
        "ident": rng.choice(_IDENTS),
        "n": rng.randint(2, 50_000),
        "p": rng.randint(1, 40),
        "v": f"{rng.randint(0, 9)}.{rng.randint(0, 30)}",
        "subject": rng.choice(_ZH_SUBJECTS),
        "verb": rng.choice(_ZH_VERBS),
    }
    if rng.random() < 0.5:
        return rng.choice(_ZH_PHRASES).format(**fill)
    text = rng.choice(_EN_PHRASES).format(**fill)
    return text[0].upper() + text[1:] + "."


def _card(rng: random.Random, n: int, project: str, today: dt.date) -> Card:
    kind = rng.choice(list(CardType))
    lines = [" ".join(_sentence(rng) for _ in range(rng.randint(1, 3)))]
    for heading in rng.sample(_HEADINGS, rng.randint(0, 2)):
        lines.append(f"## {heading}\n\n" + " ".join(_sentence(rng) for _ in range(2)))
    return Card(
        id=f"{project}-{kind.value}-{n:06d}",
        type=kind,
        project=project,
        conclusion=_sentence(rng),
        created=today - dt.timedelta(days=rng.randint(0, 400)),
        body="\n\n".join(lines),
    )


def write_synthetic_memory(
    root: Path,
    cards: int,
    projects: int = 40,
    seed: int = 0,
    today: dt.date = dt.date(2026, 6, 1),
) -> Registry:
    """Write ``cards`` cards spread over ``projects`` projects plus global (about a tenth)."""
    rng = random.Random(seed)
    registry = Registry(
        projects=[
            Project(
                id=f"p{i:03d}",
                name=f"Project {i} {rng.choice(_ZH_SUBJECTS)}",
                kind=ProjectKind.personal if i % 7 == 0 else ProjectKind.research,
            )
            for i in range(projects)
        ]
    )
    root.mkdir(parents=True, exist_ok=True)
    (root / REGISTRY_FILE).write_text(render_registry(registry), encoding="utf-8")
    for n in range(cards):
        project = GLOBAL if rng.random() < 0.1 else f"p{rng.randrange(projects):03d}"
        card = _card(rng, n, project, today)
        folder = (
            root / "global" / "cards"
            if project == GLOBAL
            else (root / "projects" / project / "cards")
        )
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{card.id}.md").write_text(render_card(card), encoding="utf-8")
    return registry


def synthetic_queries(count: int, seed: int = 1) -> list[str]:
    """Prompts in the same mixed vocabulary, for latency measurement."""
    rng = random.Random(seed)
    return [_sentence(rng) for _ in range(count)]
