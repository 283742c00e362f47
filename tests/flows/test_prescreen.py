"""The deterministic pre-screen: six bad kinds plus secrets rejected, real memory let through."""

from __future__ import annotations

import pytest

from flows.facts import Candidate, Fact
from flows.prescreen import screen
from memory_repo.models import CardType


def _candidate(
    statement: str, quote: str | None = None, kind: CardType = CardType.preference
) -> Candidate:
    fact = Fact(statement=statement, type=kind, confidence=0.8, quote=quote or statement)
    return Candidate(fact=fact, agent="codex", session="s", by_user=True)


REJECT = [
    ("Python is a programming language created by Guido van Rossum.", "generic knowledge"),
    ("HTTP 404 means the resource was not found.", "generic knowledge"),
    (
        "At 14:02 the API went down, at 14:10 we restarted it and at 14:30 it recovered.",
        "timestamped incident timeline",
    ),
    (
        "2026-11-02 09:14 deploy failed; 2026-11-02 09:40 rolled back.",
        "timestamped incident timeline",
    ),
    (
        "Ran pip install -U numpy, then re-ran the tests and it fixed the import error.",
        "command-repair log",
    ),
    ("$ chmod +x run.sh fixed the permission problem.", "command-repair log"),
    ("The project is currently on prefect 3.9.1.", "version snapshot"),
    ("We upgraded to lancedb 0.40.0 yesterday.", "version snapshot"),
    ("项目当前版本是 2.3.1。", "version snapshot"),
    (
        "Created the design document docs/ingest.md for the write path.",
        "record of creating a document",
    ),
    ("我创建了一个周报文档。", "record of creating a document"),
    ("Please fix the failing test in parser.py.", "one-off task instruction"),
    ("帮我把这个函数重命名一下。", "one-off task instruction"),
    ("Always use the deploy token ghp_A1b2C3d4E5f6G7h8I9j0K1l2 for staging.", "secret"),
    ("The staging password is hunter2hunter2.", "secret"),
    ("Use the key sk-proj-abcdefghijklmnopqrstuvwx for the embeddings.", "secret"),
    ("以后数据库密码是 Xy7!kP2q，别忘了。", "secret"),
    ("Call it with Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc", "secret"),
    ("Always export HF_TOKEN=hf_abcdefgh123 before training.", "secret"),
    ("Hermes connects with dm_a1b2c3_abcdefghijklmnop1234 on the laptop.", "secret"),
    # persistence words around a bad kind do not switch it off
    (
        "It worked after I ran uv pip install -U torch and cleared the cache, don't ask me why.",
        "command-repair log",
    ),
    ("我已经生成了这周的实验报告 reports/week45.md，以后可以参考。", "creating a document"),
    ("I created docs/setup.md with the install steps, always check it.", "creating a document"),
    ("For this PR only, don't touch the CI config.", "one-off task instruction"),
    ("Don't push anything to main today.", "one-off task instruction"),
    ("先不要提交，等我看完 diff 再说。", "one-off task instruction"),
    ("记住，BM25 是一种基于词频和逆文档频率的排序函数。", "generic knowledge"),
    ("以后记住 lumen 当前版本是 0.9.2。", "version snapshot"),
    ("我把 README 更新了一下，加了安装步骤，以后新人看这个就行。", "creating a document"),
    ("Use postgres://ada:Hunter2Staging@db.internal:5432/atlas for smoke tests.", "secret"),
    (
        "AWS key AKIAQ3EXAMPLEZ7KD2WX with secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
        "secret",
    ),
    ("以后 HuggingFace 令牌：hf_QbVnRtYuIoPaSdFgHjKlZxCvBnMq12", "secret"),
    ("Always pass AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7 to the maps client.", "secret"),
]
KEEP = [
    "Always mark unverified entries in amber.",
    "From now on, use teal instead of amber for unverified entries.",
    "以后周报一律用中文写，技术名词保留英文。",
    "Never run the migrations on Friday afternoons.",
    "Always pin exact versions in pyproject.toml.",
    "I prefer uv over conda for every Python project.",
    "Always set TOKENIZERS_PARALLELISM=false in the benchmark environment.",
    "Never use a token budget above 4096 per request.",
    "lumen 的实验结果统一放在 /data/lumen/results 下面，按日期分目录。",
]


@pytest.mark.parametrize(("statement", "reason"), REJECT)
def test_bad_kinds_are_rejected_with_their_reason(statement: str, reason: str) -> None:
    assert reason in (screen(_candidate(statement)) or "")


def test_a_task_typed_fact_is_a_one_off() -> None:
    assert screen(_candidate("Rename the column to year.", kind=CardType.task))


@pytest.mark.parametrize("statement", KEEP)
def test_explicit_preferences_pass(statement: str) -> None:
    assert screen(_candidate(statement)) is None
