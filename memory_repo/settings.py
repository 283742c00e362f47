"""Settings for every part of dose-mem, read once from the environment (``DOSE_MEM_*``).

The home directory holds the memory repository (the truth) and the state directory
(everything derived: index, tokens, ledgers), so that deleting state never loses memory.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """All knobs in one place; every path can be overridden on its own."""

    model_config = SettingsConfigDict(
        env_prefix="DOSE_MEM_", env_file=None, extra="ignore", populate_by_name=True
    )

    home: Path = Field(default_factory=lambda: Path.home() / ".dose-mem")
    memory_dir: Path | None = None
    state_dir: Path | None = None
    profiles_dir: Path | None = None

    host: str = "127.0.0.1"
    port: int = 8765
    allow_remote: bool = False
    # Where the inspector (/ui, docs/inspector.md) links a flow run: <url>/runs/flow-run/<id>.
    prefect_ui_url: str = "http://127.0.0.1:4200"
    # Worker threads that run recalls: one per core. Recalls are CPU work under one GIL,
    # and every extra runnable thread adds hand-offs (measured: docs/index.md).
    request_threads: int = Field(default=2, ge=1)
    # How the service reads an index version: in a child process that hands over the
    # finished snapshot (lancedb and the load's scratch memory stay out of the service;
    # docs/index.md), or "inline" in the service itself.
    snapshot_loader: Literal["subprocess", "inline"] = "subprocess"

    # local: multilingual (Chinese and English in one space), shipped in a wheel;
    # minilm-en: the English-only model; openai: any OpenAI-compatible endpoint.
    # Switching embedders needs `dose-mem reindex --full` (docs/operations.md).
    embedder: str = "local"
    embedding_base_url: str | None = None
    embedding_model: str = "text-embedding-3-small"
    # Languages the endpoint's model aligns in one space (the gate trusts its cosine
    # only between texts in these).
    embedding_languages: list[str] = Field(default_factory=lambda: ["en", "zh"])
    embedding_api_key: str | None = Field(
        default=None,
        validation_alias=AliasChoices("DOSE_MEM_EMBEDDING_API_KEY", "OPENAI_API_KEY"),
    )

    llm_base_url: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_api_key: str | None = Field(
        default=None, validation_alias=AliasChoices("DOSE_MEM_LLM_API_KEY", "OPENAI_API_KEY")
    )
    llm_timeout_s: float = 60.0
    llm_max_retries: int = 3
    # Prefect task retries around a whole model step, after the client's own retries.
    llm_retry_delays_s: list[float] = Field(default_factory=lambda: [2.0, 8.0, 30.0])

    capture_claude_dir: Path = Field(default_factory=lambda: Path.home() / ".claude" / "projects")
    capture_codex_dir: Path = Field(default_factory=lambda: Path.home() / ".codex" / "sessions")
    capture_hermes_dir: Path = Field(default_factory=lambda: Path.home() / ".hermes")
    capture_pi_dir: Path = Field(default_factory=lambda: Path.home() / ".pi" / "agent" / "sessions")
    # Where `dose-mem import` finds each agent's own memory files (docs/capture.md,
    # "Importing what the agents already keep"); Codex and Hermes honour their own homes.
    import_claude_home: Path = Field(default_factory=lambda: Path.home() / ".claude")
    import_codex_home: Path = Field(
        default_factory=lambda: Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")
    )
    import_hermes_home: Path = Field(
        default_factory=lambda: Path(os.environ.get("HERMES_HOME") or Path.home() / ".hermes")
    )
    import_openclaw_workspace: Path = Field(
        default_factory=lambda: Path.home() / ".openclaw" / "workspace"
    )
    # Task state (docs/tasks.md): a running task with no event for this long is shown
    # as "not confirmed since"; finished tasks stay recallable this long.
    task_stale_hours: float = Field(default=6.0, gt=0)
    task_keep_days: float = Field(default=7.0, gt=0)

    # The recall log (docs/read-path.md, "The recall log"): every recall, search and
    # read under <state>/recall_log, kept this many days and at most this many MB;
    # prompts as redacted text or as hashes only ("hash": tune-profiles cannot replay).
    recall_log: bool = True
    recall_log_days: float = Field(default=30.0, gt=0)
    recall_log_mb: float = Field(default=64.0, gt=0)
    recall_log_prompts: Literal["text", "hash"] = "text"
    # tune-profiles (docs/read-path.md, "Profiles that learn"): commit its proposal
    # without `dose-mem profiles apply`.
    auto_apply: bool = False

    capture_idle_minutes: float = 30.0
    capture_min_user_turns: int = 3
    # Agents whose sessions with no project go to the personal project (docs/capture.md,
    # "Project attribution"): an agent name (``mail``) or agent:source (``hermes:telegram``).
    capture_personal_agents: list[str] = Field(default_factory=list)

    @property
    def memory_path(self) -> Path:
        return (self.memory_dir or self.home / "memory").expanduser()

    @property
    def state_path(self) -> Path:
        return (self.state_dir or self.home / "state").expanduser()

    @property
    def index_path(self) -> Path:
        return self.state_path / "index"

    @property
    def tasks_path(self) -> Path:
        """The task event journal (``memory_repo.tasks.journal``)."""
        return self.state_path / "tasks" / "events.jsonl"

    @property
    def recall_log_path(self) -> Path:
        """The recall log's folder (``memory_repo.recall_log``)."""
        return self.state_path / "recall_log"

    @property
    def inbox_path(self) -> Path:
        """Transcripts pushed by agents (``POST /v1/sessions``) wait here for the next ingest."""
        return self.state_path / "inbox"

    @property
    def profiles_path(self) -> Path:
        """User profiles override the shipped ones of the same name."""
        return (self.profiles_dir or self.home / "profiles").expanduser()


def get_settings(**overrides: object) -> Settings:
    """Fresh settings each call, so tests and the CLI's ``--home`` never share stale state."""
    return Settings(**{k: v for k, v in overrides.items() if v is not None})
