"""The format editors on their own: memory.provider as one YAML line, .env keys, which hook
commands are dose-mem's, JSON written back in the file's own style."""

from __future__ import annotations

import pytest
import yaml

from dose_mem.connect import dotenv, hookgroups, jsonfile, yamlkey
from dose_mem.connect.model import ConnectError

W = "config.yaml"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("", "memory:\n  provider: dose-mem\n"),
        ("model: x", "model: x\nmemory:\n  provider: dose-mem\n"),
        ("memory:\n  provider: ''\n", "memory:\n  provider: dose-mem\n"),
        ("memory:\r\n  provider: mem0\r\n", "memory:\r\n  provider: dose-mem\r\n"),
        (
            "memory:\n  honcho:\n    provider: x\n  limit: 3\n",
            "memory:\n  provider: dose-mem\n  honcho:\n    provider: x\n  limit: 3\n",
        ),
        (
            "memory:\n# a comment at column 0\n  provider: mem0\nnext: 1\n",
            "memory:\n# a comment at column 0\n  provider: dose-mem\nnext: 1\n",
        ),
    ],
)
def test_set_provider_changes_one_line(before: str, after: str) -> None:
    text, _ = yamlkey.set_provider(before, "dose-mem", W)
    assert text == after
    assert yaml.safe_load(text)["memory"]["provider"] == "dose-mem"
    again, replaced = yamlkey.set_provider(text, "dose-mem", W)
    assert again == text and replaced is None


def test_the_replaced_line_comes_back_exactly() -> None:
    before = 'memory:\n  provider: "honcho"   # best so far\n  x: 1\n'
    text, replaced = yamlkey.set_provider(before, "dose-mem", W)
    assert replaced == '  provider: "honcho"   # best so far\n'
    assert yamlkey.unset_provider(text, "dose-mem", replaced, W) == before


def test_unset_leaves_another_provider_alone() -> None:
    text = "memory:\n  provider: honcho\n"
    assert yamlkey.unset_provider(text, "dose-mem", None, W) == text


@pytest.mark.parametrize(
    "text", ["memory: {provider: honcho}\n", "memory: null\n", "- a list\n", "a: [unclosed\n"]
)
def test_what_one_line_cannot_change_safely_is_refused(text: str) -> None:
    with pytest.raises(ConnectError):
        yamlkey.set_provider(text, "dose-mem", W)


def test_dotenv_replaces_in_place_appends_and_removes_only_its_keys() -> None:
    before = "A=1\nexport DOSE_MEM_URL=http://old\n# note\nDOSE_MEM_URL=http://dup\nB=2"
    text = dotenv.set_keys(before, {"DOSE_MEM_URL": "http://new", "DOSE_MEM_TOKEN": "dm_a_b"})
    assert text == "A=1\nDOSE_MEM_URL=http://new\n# note\nB=2\nDOSE_MEM_TOKEN=dm_a_b\n"
    assert dotenv.get(text, "DOSE_MEM_TOKEN") == "dm_a_b"
    assert dotenv.remove_keys(text, ["DOSE_MEM_URL", "DOSE_MEM_TOKEN"]) == "A=1\n# note\nB=2\n"
    with pytest.raises(ValueError):
        dotenv.set_keys("", {"K": "has space"})


@pytest.mark.parametrize(
    ("command", "ours"),
    [
        ("dose-mem hook claude-code", True),
        ("/opt/venv/bin/dose-mem hook claude-code --timeout 3", True),
        ("DOSE_MEM_TOKEN=dm_x_y dose-mem hook claude-code", True),
        ("python3 ~/.dose-mem/dose_mem_hook.py claude-code", True),
        ("sh '/home/me/.codex/dose-mem-env.sh' hook claude-code", True),
        ("dose-mem hook codex", False),  # another agent's
        ("echo dose-mem hook claude-code", False),
        ("my-dose-mem-wrapper hook claude-code", False),
        ("unbalanced 'quote", False),
        (42, False),
    ],
)
def test_which_hook_commands_are_dose_mems(command: object, ours: bool) -> None:
    assert hookgroups.is_ours(command, "claude-code") is ours


def test_json_keeps_the_files_indentation_and_final_newline() -> None:
    four = '{\n    "a": 1\n}'
    assert (
        jsonfile.dump({"a": 1, "b": [2]}, four) == '{\n    "a": 1,\n    "b": [\n        2\n    ]\n}'
    )
    assert jsonfile.dump({"a": "é"}, None) == '{\n  "a": "é"\n}\n'
    with pytest.raises(ConnectError):
        jsonfile.load(W, "[1, 2]")  # type: ignore[arg-type]
