"""Which token and URL an agent is connected with.

Contract of ``choose_token``: ``--token`` wins; ``--issue`` keeps the token the agent is
already connected with while the store still accepts it (so connecting again changes
nothing), else issues one with the agent's default profile; with neither, ``$DOSE_MEM_TOKEN``,
then the token already in the agent's set-up; else ``ConnectError`` saying how to get one.
Tokens and URLs are checked for shape, since they are written into JSON, TOML, YAML, .env,
shell and TypeScript files.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from dose_mem.connect.model import DEFAULT_PROFILE, DEFAULT_URL, ConnectError

TOKEN_SHAPE = re.compile(r"dm_[A-Za-z0-9]+_[A-Za-z0-9_-]+")
_URL_SHAPE = re.compile(r"https?://[A-Za-z0-9._~:/?#\[\]@!$&()*+,;=%-]+")

# Stands in for a token ``--issue`` would issue, in a dry run (which issues nothing).
DRY_RUN_TOKEN = "dm_dryrun_00000000"


@dataclass(frozen=True)
class Chosen:
    """The token to write, and how it was found (for the report): ``given``, ``env``,
    ``kept`` (already in the agent's set-up), ``issued`` or ``would-issue``."""

    token: str
    source: str

    @property
    def token_id(self) -> str:
        return self.token.split("_", 2)[1]


def check_token(token: str) -> str:
    if not TOKEN_SHAPE.fullmatch(token):
        raise ConnectError(
            "that is not a dose-mem token (dm_<id>_<secret>, from `dose-mem token issue`)"
        )
    return token


def check_url(url: str) -> str:
    url = url.strip().rstrip("/")
    if not _URL_SHAPE.fullmatch(url):
        raise ConnectError(f"not an http(s) URL: {url!r}")
    return url


def choose_url(given: str | None, env: Mapping[str, str]) -> str:
    return check_url(given or env.get("DOSE_MEM_URL") or DEFAULT_URL)


def _accepted(store_path: Path, token: str) -> bool:
    from recall_api.tokens import TokenError, TokenStore

    try:
        TokenStore(store_path).verify(token)
    except TokenError:
        return False
    return True


def issue(store_path: Path, profiles_dir: Path, agent: str) -> str:
    """A new token for ``agent`` with its default profile, all projects."""
    from profiles.model import load_profiles
    from recall_api.tokens import TokenStore

    profile = DEFAULT_PROFILE[agent]
    if profile not in load_profiles(profiles_dir):
        raise ConnectError(f"profile {profile!r} is not defined; cannot issue a token")
    token, _ = TokenStore(store_path).issue(agent, profile, None)
    return token


def choose_token(
    agent: str,
    *,
    given: str | None,
    issue_new: bool,
    env: Mapping[str, str],
    current: str | None,
    store_path: Path,
    issuer: Callable[[], str],
    dry_run: bool,
) -> Chosen:
    """See the module contract. ``current`` is the token in the agent's set-up (if any);
    ``issuer`` issues one (called only when needed, never in a dry run)."""
    if given and issue_new:
        raise ConnectError("give --token or --issue, not both")
    if given:
        return Chosen(check_token(given.strip()), "given")
    if issue_new:
        if current and TOKEN_SHAPE.fullmatch(current) and _accepted(store_path, current):
            return Chosen(current, "kept")
        if dry_run:
            return Chosen(DRY_RUN_TOKEN, "would-issue")
        return Chosen(issuer(), "issued")
    if env.get("DOSE_MEM_TOKEN"):
        return Chosen(check_token(env["DOSE_MEM_TOKEN"].strip()), "env")
    if current and TOKEN_SHAPE.fullmatch(current):
        return Chosen(current, "kept")
    raise ConnectError(
        f"no token for {agent}: pass --issue (a new {DEFAULT_PROFILE[agent]}-profile token), "
        "--token dm_... (one from `dose-mem token issue`), or set DOSE_MEM_TOKEN"
    )
