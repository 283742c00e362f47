"""Admin tokens: `dose-mem token issue --admin`, and the one `make up` prints."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from dose_mem.cli.main import app
from dose_mem.up import DEMO_ADMIN, _tokens
from memory_repo.settings import Settings
from recall_api.tokens import TokenStore, tokens_path


def test_cli_issues_an_admin_token_stored_hashed(tmp_path: Path) -> None:
    runner = CliRunner()
    out = runner.invoke(app, ["--home", str(tmp_path), "token", "issue", "--admin"])
    assert out.exit_code == 0, out.output
    token = out.output.strip()
    stored = tokens_path(Settings(home=tmp_path)).read_text()
    assert token.split("_", 2)[2] not in stored  # the secret is never written
    record = TokenStore(tokens_path(Settings(home=tmp_path))).verify(token)
    assert record.admin and record.projects is None
    listed = runner.invoke(app, ["--home", str(tmp_path), "token", "list"])
    assert "/ui only" in listed.output
    bare = runner.invoke(app, ["--home", str(tmp_path), "token", "issue"])
    assert bare.exit_code == 2 and "--admin" in bare.output


def test_make_up_reissues_one_admin_token(tmp_path: Path) -> None:
    cfg = Settings(home=tmp_path)
    first = _tokens(cfg)[DEMO_ADMIN]
    second = _tokens(cfg)[DEMO_ADMIN]
    store = TokenStore(tokens_path(cfg))
    assert store.verify(second).admin
    live = [r for r in store.list() if r.agent == DEMO_ADMIN and not r.revoked]
    assert len(live) == 1 and first != second
