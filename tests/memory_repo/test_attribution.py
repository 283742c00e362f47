"""Project attribution (memory_repo/attribution.py): one rule for sessions and prompts,
checked on real directories, symlinks and git worktrees."""

from __future__ import annotations

import subprocess
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from memory_repo.attribution import attribute, locate, mentions, projects_named_in
from memory_repo.models import Project, ProjectKind, Registry
from memory_repo.settings import Settings
from recall_api.scoping import resolve_project

REGISTRY = Registry(
    projects=[
        Project(
            id="skyhook",
            name="Skyhook",
            aliases=["飞控"],
            nicknames=["the FC"],
            paths=["/w/skyhook"],
        ),
        Project(id="sky", name="Sky", paths=["/w/sky"]),
        Project(id="docs", name="Docs", paths=["/w/skyhook/docs"]),
        Project(id="garden", name="Allotment", kind=ProjectKind.personal),
    ]
)


def test_cwd_by_whole_components_and_the_deepest_root() -> None:
    assert locate(REGISTRY, "/w/skyhook/crates/nav").project == "skyhook"
    assert locate(REGISTRY, "/w/skyhook/docs/api").project == "docs"
    assert locate(REGISTRY, "/w/sky").project == "sky"
    assert locate(REGISTRY, "/w/skyhook-old").project is None
    assert locate(REGISTRY, "/w/skyhook/../sky/x").project == "sky"
    assert locate(REGISTRY, None).how == "none"


def test_words_then_personal_then_none() -> None:
    named = attribute(REGISTRY, cwd=None, words="飞控的 geofence 要先检查")
    assert (named.project, named.how) == ("skyhook", "named")
    assert attribute(REGISTRY, cwd=None, words="ask the FC team").project == "skyhook"
    two = attribute(REGISTRY, cwd=None, words="Skyhook and Sky both")
    assert two.project is None and "skyhook, sky" in two.why
    personal = attribute(REGISTRY, cwd=None, words="water the tomatoes", personal=True)
    assert (personal.project, personal.how) == ("garden", "personal")
    none = attribute(REGISTRY, cwd=None, words="water the tomatoes")
    assert none.project is None and "name no project" in none.why
    # the cwd wins over the words
    assert attribute(REGISTRY, cwd="/w/sky", words="Skyhook").project == "sky"


def test_names_are_whole_words_and_chinese_names_substrings() -> None:
    assert projects_named_in(REGISTRY, "skyhooks are hooks") == []
    assert projects_named_in(REGISTRY, "SKYHOOK: done") == ["skyhook"]
    assert mentions("改飞控参数", "飞控") and not mentions("sky-hook", "sky")


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_symlinks_and_git_worktrees_resolve_to_the_main_checkout(tmp_path: Path) -> None:
    main = tmp_path / "src" / "zine"
    (main / "posts").mkdir(parents=True)
    _git("init", "-q", "-b", "main", cwd=main)
    (main / "README.md").write_text("zine\n")
    _git("add", ".", cwd=main)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init", cwd=main)
    drafts = tmp_path / "drafts"
    _git("worktree", "add", "-q", str(drafts), "-b", "drafts", cwd=main)
    (drafts / "posts").mkdir(exist_ok=True)
    link = tmp_path / "z"
    link.symlink_to(main)
    registry = Registry(projects=[Project(id="zine", name="Zine", paths=[str(main)])])

    via_link = locate(registry, str(link / "posts"))
    assert (via_link.project, via_link.how) == ("zine", "symlink")
    in_tree = locate(registry, str(drafts / "posts"))
    assert (in_tree.project, in_tree.how) == ("zine", "worktree")
    assert locate(registry, str(tmp_path)).project is None
    # recall resolves the same way
    for cwd in (str(link), str(drafts / "posts")):
        where = resolve_project(registry, project=None, cwd=cwd, prompt="fix the build")
        assert (where.project, where.how) == ("zine", "cwd")


def test_a_recorded_repo_root_places_a_session_whose_cwd_is_elsewhere() -> None:
    found = locate(REGISTRY, "/tmp/scratch", repo_root="/w/skyhook")
    assert (found.project, found.how) == ("skyhook", "repo_root")


SEGMENT = st.text(alphabet="abcdefghij-_.", min_size=1, max_size=6).filter(
    lambda s: s not in (".", "..")
)


@settings(max_examples=200, deadline=None)
@given(rest=st.lists(SEGMENT, max_size=4), words=st.text(max_size=40))
def test_a_cwd_inside_a_root_is_always_that_project(rest: list[str], words: str) -> None:
    """Whatever the words say (other projects' names included), a cwd under skyhook's
    root that is not under docs' files there."""
    cwd = "/".join(["/w/skyhook", *rest])
    found = attribute(REGISTRY, cwd=cwd, words=words + " Sky docs 飞控 Allotment")
    want = "docs" if rest[:1] == ["docs"] else "skyhook"
    assert found.project == want


def test_personal_agents_setting_parses_from_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("DOSE_MEM_CAPTURE_PERSONAL_AGENTS", '["hermes:telegram", "mail"]')
    assert Settings().capture_personal_agents == ["hermes:telegram", "mail"]
