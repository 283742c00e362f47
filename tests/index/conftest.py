"""A small real memory repository (git), the local embedder, an embeddings server."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_repo.index.embedders import Embedder
from memory_repo.index.minilm_embedder import MiniLMEmbedder
from tests.index.helpers import EmbeddingsServer

REGISTRY = """\
projects:
  - {id: alpha, name: Alpha Tables, kind: research, status: active}
  - {id: beta, name: Beta Site, kind: research, status: active}
  - {id: oldproj, name: Old Project, kind: research, status: archived}
"""

CARDS: dict[str, str] = {
    "global/cards/uv-python-env.md": """\
---
id: uv-python-env
type: preference
project: global
conclusion: 用 uv 管理 Python 环境，不用 conda。
created: 2026-01-10
---

所有项目都用 uv 创建虚拟环境和锁定依赖。

## 原因

conda 太慢，而且锁文件不可复现。
""",
    "projects/alpha/cards/parse-table-header.md": """\
---
id: parse-table-header
type: pitfall
project: alpha
conclusion: parse_table drops the header row when a CSV has more than 1,200 columns.
created: 2026-02-01
---

Pass `keep_header=True` to parse_table for wide CSV files.
""",
    "projects/alpha/cards/batch-size-v1.md": """\
---
id: batch-size-v1
type: convention
project: alpha
conclusion: Training batch size is 16.
created: 2025-10-01
---

We train with a batch size of 16 on the shared GPU.
""",
    "projects/alpha/cards/batch-size-v2.md": """\
---
id: batch-size-v2
type: convention
project: alpha
conclusion: Training batch size is 32.
created: 2025-12-01
supersedes: [batch-size-v1]
---

We moved to a batch size of 32 after the memory upgrade.
""",
    "projects/alpha/cards/batch-size-v3.md": """\
---
id: batch-size-v3
type: convention
project: alpha
conclusion: Training batch size is 64 with gradient accumulation.
created: 2026-03-01
supersedes: [batch-size-v2]
---

Batch size 64, accumulate gradients over 2 steps.
""",
    "projects/alpha/cards/old-benchmark.md": """\
---
id: old-benchmark
type: result
project: alpha
conclusion: The tokenizer benchmark ran at 5,000 documents per second.
created: 2020-01-01
---

Measured on the old laptop.
""",
    "projects/alpha/cards/retired-deploy.md": """\
---
id: retired-deploy
type: convention
project: alpha
conclusion: Deploy alpha with the rsync script.
created: 2026-01-05
status: archived
---

The rsync deploy script is retired.
""",
    "projects/oldproj/cards/legacy-cron.md": """\
---
id: legacy-cron
type: fact
project: oldproj
conclusion: The legacy cron job deploys every night at 02:00.
created: 2026-01-05
---

Cron on the old server.
""",
    "projects/beta/cards/beta-separator.md": """\
---
id: beta-separator
type: fact
project: beta
conclusion: In beta, parse_table reads tab-separated files.
created: 2026-02-02
---

Beta exports TSV, so parse_table uses tabs there.
""",
    "projects/alpha/brief.md": """\
# Alpha

## Goal

Alpha turns messy spreadsheets into clean parquet tables.

## 数据来源

数据来自财务部门的每月导出。
""",
    "global/cards/broken.md": "---\nid: broken\ntype: nonsense\ncreated: 2026-01-01\n---\n\nBad.\n",
}


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
    )


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    root.mkdir()
    (root / "registry.yaml").write_text(REGISTRY, encoding="utf-8")
    for rel, text in CARDS.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "fixture")
    return root


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return MiniLMEmbedder()


@pytest.fixture
def embeddings_server() -> Iterator[EmbeddingsServer]:
    with EmbeddingsServer() as server:
        yield server
