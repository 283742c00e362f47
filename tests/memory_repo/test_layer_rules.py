"""L0/L1/L2 are rule-based: conclusion or first sentence, byte-capped overview, heading split."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from memory_repo.demo import build_demo
from memory_repo.layers import l0, l1, l2
from memory_repo.models import CardType, Item
from memory_repo.store import load_memory
from memory_repo.text import utf8_len


def _item(body: str, conclusion: str | None = None) -> Item:
    return Item(
        id="x",
        type=CardType.fact,
        project="global",
        created=dt.date(2026, 10, 5),
        path="global/cards/x.md",
        title=conclusion or "x",
        conclusion=conclusion,
        body=body,
    )


def test_l0_is_the_conclusion_when_written() -> None:
    item = _item("Body first sentence. More.", conclusion="  Use uv;\n never conda. ")
    assert l0(item) == "Use uv; never conda."


def test_l0_falls_back_to_the_first_chinese_sentence() -> None:
    item = _item("## 背景\n\n数据放在 /data/tabsense；不要提交到 git。原始 PDF 很大。")
    assert l0(item) == "数据放在 /data/tabsense；不要提交到 git。"
    assert l1(item) == "原始 PDF 很大。"


def test_l1_skips_the_l0_sentence_and_keeps_whole_sentences() -> None:
    item = _item("First sentence. Second one. Third one.")
    assert l0(item) == "First sentence."
    assert l1(item) == "Second one. Third one."
    assert l1(item, max_bytes=len("Second one.")) == "Second one."


def test_l1_never_exceeds_its_cap_nor_cuts_a_character() -> None:
    body = "开头。" + "这是一个很长的中文句子没有句号" * 40 + "。结尾。"
    for cap in (5, 40, 97, 400):
        out = l1(_item(body), max_bytes=cap)
        assert utf8_len(out) <= cap
        assert out.encode("utf-8").decode("utf-8") == out
        assert "\ufffd" not in out
        assert out.startswith("这") or out == ""


def test_l2_splits_by_heading_and_ignores_comments_in_code() -> None:
    body = (
        "Overview paragraph.\n\n## Commands\n\n```bash\n# sync the env\nuv sync\n```\n\n"
        "## Why\n\nReproducible."
    )
    chunks = l2(_item(body, conclusion="Use uv."))
    assert [c.heading for c in chunks] == ["Use uv.", "Commands", "Why"]
    assert [c.chunk_no for c in chunks] == [0, 1, 2]
    assert "# sync the env" in chunks[1].text
    assert chunks[2].text == "Reproducible."


def test_l2_of_an_empty_body_is_its_l0() -> None:
    chunks = l2(_item("", conclusion="Only a conclusion."))
    assert [c.text for c in chunks] == ["Only a conclusion."]


def test_layers_are_byte_identical_across_two_loads(tmp_path: Path) -> None:
    build_demo(tmp_path / "m")

    def layers() -> list[tuple[str, str, str, list[str]]]:
        memory = load_memory(tmp_path / "m")
        return [
            (i.id, l0(i), l1(i), [c.text for c in l2(i)])
            for i in sorted(memory.items.values(), key=lambda i: i.id)
        ]

    first = layers()
    assert len(first) > 20
    assert layers() == first


def test_l1_never_flattens_a_code_fence_into_prose() -> None:
    body = (
        "Every project gets its environment from uv. The lock file is the truth.\n\n"
        "## Commands\n\n```bash\n# create .venv\nuv sync\nuv run pytest\n```\n\n"
        "Conda leaves environments nobody can rebuild.\n\n~~~\npip install x\n~~~\n"
    )
    item = _item(body, conclusion="Use uv for Python environments.")
    overview = l1(item)
    assert "uv sync" not in overview and "uv run pytest" not in overview
    assert "pip install" not in overview and "create .venv" not in overview
    assert "The lock file is the truth." in overview
    assert "Conda leaves environments nobody can rebuild." in overview
    # the code stays in the body, which an agent reads in full (L2)
    assert any("uv sync" in chunk.text for chunk in l2(item))
