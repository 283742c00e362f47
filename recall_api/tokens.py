"""Identity tokens: issued once, stored only as a hash, checked in constant time.

A token reads ``dm_<id>_<secret>``; the id finds the record, the secret's SHA-256 is
compared with ``hmac.compare_digest``. The store is a small JSON file under state,
rewritten atomically, and re-read when it changes so a revocation takes effect at once.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import os
import secrets
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from memory_repo.errors import DoseMemError

if TYPE_CHECKING:
    from memory_repo.settings import Settings

PREFIX = "dm"
# The profile field of an admin token: not a recall profile.
ADMIN_PROFILE = "admin"


def tokens_path(settings: Settings) -> Path:
    """The token store's file. Here rather than in ``recall_api.app`` so ``dose-mem token``
    and the MCP server's start-up check open it without importing the service."""
    return settings.state_path / "tokens.json"


class TokenError(DoseMemError):
    """A token that is missing, malformed, unknown or revoked."""


class TokenRecord(BaseModel):
    id: str
    agent: str
    profile: str
    projects: list[str] | None
    sha256: str
    created: dt.datetime
    revoked: bool = False
    # An admin token opens the inspector (/ui) and nothing else: the agent routes answer
    # it 403, and it has no recall profile (docs/inspector.md).
    admin: bool = False


class TokenFile(BaseModel):
    tokens: list[TokenRecord] = Field(default_factory=list)


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


_UNKNOWN = _digest("no token has this id")


class TokenStore:
    """Stateful: caches the file and notices when another process changed it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._mtime: tuple[int, int] | None = None
        self._data = TokenFile()
        self._lock = threading.Lock()

    def _load(self) -> TokenFile:
        try:
            st = self.path.stat()
            mtime: tuple[int, int] | None = (st.st_mtime_ns, st.st_ino)  # a rename is a new inode
        except FileNotFoundError:
            mtime = None
        if mtime != self._mtime:
            data = (
                TokenFile.model_validate_json(self.path.read_text(encoding="utf-8"))
                if mtime is not None
                else TokenFile()
            )
            self._data, self._mtime = data, mtime
        return self._data

    def _save(self, data: TokenFile) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(data.model_dump_json(indent=2), encoding="utf-8")
        os.chmod(tmp, 0o600)
        os.replace(tmp, self.path)
        self._mtime = None

    def issue(
        self, agent: str, profile: str, projects: list[str] | None, *, admin: bool = False
    ) -> tuple[str, TokenRecord]:
        """Create a token; the plain token is returned once and never stored."""
        token_id = secrets.token_hex(4)
        secret = secrets.token_urlsafe(24)
        record = TokenRecord(
            id=token_id,
            agent=agent,
            profile=profile,
            projects=projects,
            sha256=_digest(secret),
            created=dt.datetime.now(dt.UTC),
            admin=admin,
        )
        with self._lock:
            data = self._load().model_copy(deep=True)
            data.tokens.append(record)
            self._save(data)
        return f"{PREFIX}_{token_id}_{secret}", record

    def revoke(self, token_id: str) -> bool:
        with self._lock:
            data = self._load().model_copy(deep=True)
            found = False
            for record in data.tokens:
                if record.id == token_id and not record.revoked:
                    record.revoked = found = True
            if found:
                self._save(data)
        return found

    def list(self) -> list[TokenRecord]:
        with self._lock:
            return list(self._load().tokens)

    def verify(self, token: str) -> TokenRecord:
        """The record for a valid token; every failure is the same TokenError to the caller."""
        parts = token.split("_", 2)
        if len(parts) != 3 or parts[0] != PREFIX:
            raise TokenError("malformed token")
        _, token_id, secret = parts
        with self._lock:
            records = [r for r in self._load().tokens if r.id == token_id]
        given = _digest(secret)
        match = None
        # An unknown id still costs one comparison, so timing tells a wrong id from a wrong
        # secret no better than it tells either from a right one.
        for record in records or [None]:
            expected = record.sha256 if record is not None else _UNKNOWN
            if hmac.compare_digest(expected, given) and record is not None and not record.revoked:
                match = record
        if match is None:
            raise TokenError("unknown or revoked token")
        return match
