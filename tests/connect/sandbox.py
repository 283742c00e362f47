"""A sandbox of agents' homes, each found through the agent's own variable, and helpers
to connect, disconnect and compare every file byte for byte. No mocks: real files, the
real token store, and (in the test modules) the real agents reading the result."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dose_mem.connect import run
from dose_mem.connect.files import BACKUP_SUFFIX
from dose_mem.connect.run import Result

TOKEN = "dm_c0ffee01_S3cretS3cretS3cretS3cret"
OTHER_TOKEN = "dm_beef0002_An0therAn0therAn0ther"


@dataclass
class Box:
    """One sandbox: ``root`` holds every agent's home, ``env`` points the agents at it."""

    root: Path
    env: dict[str, str]
    cwd: Path

    @property
    def store(self) -> Path:
        return self.root / "dose-home" / "state" / "tokens.json"

    def connect(self, agent: str, **options: object) -> Result:
        options.setdefault("token", TOKEN)
        return run.connect(
            agent,
            env=self.env,
            cwd=self.cwd,
            home=self.root / "home",
            store_path=self.store,
            profiles_dir=self.root / "dose-home" / "profiles",
            **options,  # type: ignore[arg-type]
        )

    def disconnect(self, agent: str, **options: object) -> Result:
        return run.disconnect(
            agent,
            env=self.env,
            cwd=self.cwd,
            home=self.root / "home",
            **options,  # type: ignore[arg-type]
        )

    def files(self, *, backups: bool = False) -> dict[str, bytes]:
        """Every file under the agents' homes and the project directory, by relative path
        (``.dose-mem.bak`` files left out unless asked for; the token store is not here)."""
        found = {}
        for path in sorted(self.root.rglob("*")):
            rel = path.relative_to(self.root).as_posix()
            if not path.is_file() or rel.startswith("dose-home/"):
                continue
            if path.name.endswith(BACKUP_SUFFIX) and not backups:
                continue
            found[rel] = path.read_bytes()
        return found


def make_box(tmp_path: Path) -> Box:
    root = tmp_path / "box"
    env = {
        "HOME": str(root / "home"),
        "PATH": "/usr/bin:/bin",
        "CLAUDE_CONFIG_DIR": str(root / "claude"),
        "CODEX_HOME": str(root / "codex"),
        "HERMES_HOME": str(root / "hermes"),
        "PI_CODING_AGENT_DIR": str(root / "pi"),
        "OPENCLAW_STATE_DIR": str(root / "openclaw"),
    }
    cwd = root / "project"
    for folder in (root / "home", cwd):
        folder.mkdir(parents=True)
    return Box(root, env, cwd)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777
