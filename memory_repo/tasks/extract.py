"""Agents' reports -> task events, deterministically, for the common shapes.

A ``Report`` is what an agent sends (``POST /v1/tasks/events``, the hooks, MCP
``task_update``): its own hook payload unchanged, or explicit fields. ``extract`` turns
it into zero or more ``TaskEvent`` against the tasks known so far:

* a shell command sent to the background (``nohup``, a trailing ``&``, ``setsid``,
  ``tmux new -d``, ``screen -dm``, ``sbatch``, ``docker run -d``, Claude Code's
  ``run_in_background``) starts a running task, with its log path and job id;
* ``gh pr create`` starts a task waiting on review, with the PR's URL;
* a test or benchmark run in the foreground (``pytest``, ``make bench``, ``cargo test``
  ...) is a task finished at once, its output's final line quoted as the result; a
  command that reads a running task's log (``tail logs/r3.log``) records the log's last
  line on that task;
* Claude Code's ``Stop`` ``background_tasks`` (where the version sends it) finishes the
  task started by the same command;
* a sentence of an agent's message that says a known unfinished task finished or failed
  ("r3 finished: dev CER 11.2%", "r3 跑完了", "训练失败") finishes it, the sentence quoted
  verbatim as its result. A task is "known" in the sentence when one of its distinctive
  words (from its title: ``r3``, ``train``; not ``python`` or ``config``) is there.

Nothing else changes a status: free text that names no task, or names one without a
finishing word, is ignored. Every text is redacted (``memory_repo.secrets``) first.
"""

from __future__ import annotations

import datetime as dt
import re
import secrets
import shlex
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, Field

from memory_repo.secrets import redact
from memory_repo.tasks.model import Task, TaskEvent, TaskStatus

MAX_RESULT = 300
MAX_TEXT = 2000

_BACKGROUND = re.compile(
    r"(^|[;&|(]\s*)(nohup|setsid)\s|\btmux\s+new(-session)?\b[^;&|]*\s-d\b|"
    r"\bscreen\s+-d?m|\bsbatch\s|\bdocker\s+(run|compose\s+up)\b[^;&|]*\s(-d|--detach)\b|"
    r"(?<![&|>])&\s*(disown\s*)?$"
)
_PR_CREATE = re.compile(r"\bgh\s+pr\s+create\b")
_PR_URL = re.compile(r"https?://[^\s\"'<>]+/pull/\d+")
_REDIRECT = re.compile(r"(?<![0-9&])(?:[12]?>>?)\s*(?!&)([^\s;&|'\"]+)")
_TEE = re.compile(r"\btee\s+(?:-a\s+)?([^\s;&|'\"]+)")
_SBATCH_OUT = re.compile(r"\s(?:-o|--output)[= ]\s*([^\s;&|]+)")
_JOB = re.compile(r"Submitted batch job (\d+)|^\[\d+\]\s+(\d+)\s*$|^([0-9a-f]{64})\s*$", re.M)
_ENV = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_LAUNCHERS = {"nohup", "setsid", "env", "time", "exec", "sbatch", "srun", "uv", "run"}
_DONE = re.compile(
    r"\b(finished|finish|completed|complete|done|succeeded|passed|ended)\b|"
    r"跑完|完成|结束|跑好|搞定|出结果",
    re.I,
)
_FAILED = re.compile(r"\b(failed|crashed|errored|died|killed|OOM)\b|失败|报错|崩溃|挂了", re.I)
_NOT = re.compile(r"\b(not|isn't|hasn't|haven't|still)\b|没|未|还在", re.I)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*[A-Za-z0-9]|[A-Za-z]\d+|\d+[A-Za-z]+\d*")
# Words too common in commands to tell two tasks apart.
_GENERIC = frozenset(
    {"python", "python3", "py", "sh", "bash", "node", "npm", "uv", "run", "config", "cfg"}
    | {"nohup", "setsid", "log", "logs", "out", "err", "dev", "null", "tmp", "the", "and"}
    | {"for", "with", "main", "script", "scripts", "train.py", "eval.py"}
)
_TEST_OR_BENCH = re.compile(
    r"\b(pytest|tox|nox|cargo\s+(test|bench)|go\s+test|(npm|pnpm|yarn)\s+(run\s+)?test|"
    r"make\s+(test|check|bench|eval)|[\w./-]*(bench|eval)[\w-]*\.(py|sh))\b"
)
_FAILED_RUN = re.compile(r"\b(failed|failures?|errors?|FAIL)\b|失败", re.I)
_BG_STATUS = {
    "completed": TaskStatus.done,
    "done": TaskStatus.done,
    "failed": TaskStatus.failed,
    "killed": TaskStatus.abandoned,
    "cancelled": TaskStatus.abandoned,
    "running": TaskStatus.running,
}
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?<=\.)\s+|\n+")


class Report(BaseModel):
    """One report from an agent: its hook payload as sent, or explicit fields, or both."""

    source: str = Field(default="api", pattern=r"^[a-z0-9-]{1,32}$")
    event: str | None = Field(default=None, max_length=64)
    payload: dict[str, Any] = Field(default_factory=dict)
    cwd: str | None = Field(default=None, max_length=4096)
    session: str | None = Field(default=None, max_length=256)
    host: str | None = Field(default=None, max_length=256)
    task: str | None = Field(default=None, max_length=128)
    title: str | None = Field(default=None, max_length=300)
    status: TaskStatus | None = None
    command: str | None = Field(default=None, max_length=MAX_TEXT)
    job: str | None = Field(default=None, max_length=128)
    log_path: str | None = Field(default=None, max_length=1024)
    links: list[str] = Field(default_factory=list, max_length=20)
    result: str | None = Field(default=None, max_length=MAX_TEXT)
    next_step: str | None = Field(default=None, max_length=MAX_TEXT)
    text: str | None = Field(default=None, max_length=20000, description="Free text to read.")

    def working_dir(self) -> str | None:
        """The cwd the report is about: the explicit field, else the payload's."""
        cwd = self.cwd or self.payload.get("cwd")
        return cwd if isinstance(cwd, str) and cwd else None


class UnknownTask(ValueError):
    """An explicit report names a task id the journal does not hold."""


def extract(
    report: Report,
    *,
    agent: str,
    project_of: Callable[[str | None], str | None],
    tasks: Mapping[str, Task],
    now: dt.datetime,
) -> list[TaskEvent]:
    """The events ``report`` amounts to (maybe none). ``project_of`` maps a cwd to its
    project; ``tasks`` are the tasks folded so far."""
    payload = report.payload
    cwd = report.working_dir()
    session = report.session or _str(payload.get("session_id") or payload.get("thread-id"))
    project = project_of(cwd)
    base = {
        "at": now,
        "agent": agent,
        "source": f"{report.source}:{report.event or _str(payload.get('hook_event_name')) or '-'}",
        "session": session,
        "project": project,
        "host": report.host,
        "cwd": cwd,
    }
    if report.task or report.title or report.status:
        return [_explicit(report, base, tasks)]
    events: list[TaskEvent] = []
    command = _command(payload)
    if command:
        events.extend(_from_command(command, payload, base, tasks))
    events.extend(_background_tasks(payload, base, tasks))
    text = report.text or _message(payload)
    if text:
        # a task this report already finished (Stop's background_tasks) is not
        # finished again by the message that explains it
        settled = {e.task for e in events if e.status is not None}
        open_ = {k: t for k, t in tasks.items() if k not in settled}
        events.extend(_finishes(text[:20000], base, open_, project, session))
    return events


def _explicit(report: Report, base: dict[str, Any], tasks: Mapping[str, Task]) -> TaskEvent:
    if report.task and report.task not in tasks:
        raise UnknownTask(f"no task {report.task!r}")
    task = report.task or _new_id(report.title or report.command or "task")
    fields = {
        "status": report.status,
        "title": _clean(report.title),
        "command": _clean(report.command),
        "job": _clean(report.job),
        "log_path": _clean(report.log_path),
        "links": [redact(link) for link in report.links],
        "result": _clean(report.result, MAX_RESULT),
        "next_step": _clean(report.next_step, MAX_RESULT),
    }
    if report.task:
        base = {**base, "project": None}  # an update never moves a task
    return TaskEvent(id=_event_id(), task=task, **base, **fields)


def _from_command(
    command: str, payload: Mapping[str, Any], base: dict[str, Any], tasks: Mapping[str, Task]
) -> list[TaskEvent]:
    output = _output(payload)
    tool_input = payload.get("tool_input") or {}
    if _PR_CREATE.search(command):
        url = _PR_URL.search(output)
        title = _flag(command, "--title") or (url.group(0) if url else "pull request")
        return [
            TaskEvent(
                id=_event_id(),
                task=_new_id(f"pr {title}"),
                status=TaskStatus.waiting,
                title=_clean(f"PR: {title}", 200),
                command=_clean(command),
                links=[url.group(0)] if url else [],
                next_step="review",
                **base,
            )
        ]
    background = bool(isinstance(tool_input, dict) and tool_input.get("run_in_background"))
    if not (background or _BACKGROUND.search(command)):
        return _foreground(command, output, base, tasks)
    job = _JOB.search(output)
    title = _title(command)
    return [
        TaskEvent(
            id=_event_id(),
            task=_new_id(title),
            status=TaskStatus.running,
            title=_clean(title, 200),
            command=_clean(command),
            job=next((g for g in job.groups() if g), None)[:12] if job else None,
            log_path=_log_path(command),
            **base,
        )
    ]


def _foreground(
    command: str, output: str, base: dict[str, Any], tasks: Mapping[str, Task]
) -> list[TaskEvent]:
    """A test or benchmark run in the foreground is a task finished at once, its final
    line the result (the same command in the same project updates the same task); a
    command that reads a known task's log records the log's last line on that task."""
    last = _last_line(output)
    if last is None:
        return []
    if _TEST_OR_BENCH.search(command):
        title = _title(command)
        same = [t for t in tasks.values() if t.title == title and t.project == base["project"]]
        task = max(same, key=lambda t: t.updated).id if same else _new_id(title)
        status = TaskStatus.failed if _FAILED_RUN.search(last) else TaskStatus.done
        return [
            TaskEvent(
                id=_event_id(),
                task=task,
                status=status,
                title=_clean(title, 200),
                command=_clean(command),
                result=_clean(last, MAX_RESULT),
                **base,
            )
        ]
    for task in tasks.values():
        if task.project != base["project"]:
            continue  # logs/r3.log of another project is another file
        if task.log_path and not task.finished and _reads(command, task.log_path):
            return [
                TaskEvent(
                    id=_event_id(),
                    task=task.id,
                    result=_clean(last, MAX_RESULT),
                    **{**base, "project": None},
                )
            ]
    return []


def _reads(command: str, log_path: str) -> bool:
    name = log_path.rsplit("/", 1)[-1]
    return bool(re.search(r"\b(tail|cat|less|head|grep|wc)\b", command)) and name in command


def _last_line(output: str) -> str | None:
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    return lines[-1] if lines else None


def _background_tasks(
    payload: Mapping[str, Any], base: dict[str, Any], tasks: Mapping[str, Task]
) -> list[TaskEvent]:
    """Claude Code's ``Stop`` lists the session's background tasks where the version
    sends them (``background_tasks``: id, command or description, status, output file):
    a finished one finishes the task started by the same command."""
    listed = payload.get("background_tasks")
    if not isinstance(listed, list):
        return []
    events: list[TaskEvent] = []
    for item in listed[:50]:
        if not isinstance(item, dict):
            continue
        command = _str(item.get("command")) or _str(item.get("description"))
        status = _BG_STATUS.get(str(item.get("status", "")).lower())
        if not command or status is None:
            continue
        match = [t for t in tasks.values() if t.command == _clean(command) and t.status != status]
        if not match:
            continue
        task = max(match, key=lambda t: t.updated)
        events.append(
            TaskEvent(
                id=_event_id(),
                task=task.id,
                status=status,
                **{**base, "project": None},
            )
        )
    return events


def _finishes(
    text: str,
    base: dict[str, Any],
    tasks: Mapping[str, Task],
    project: str | None,
    session: str | None,
) -> list[TaskEvent]:
    open_tasks = [t for t in tasks.values() if not t.finished]
    if project is not None:
        open_tasks = [t for t in open_tasks if t.project in (project, None)]
    if not open_tasks:
        return []
    events: list[TaskEvent] = []
    done: set[str] = set()
    for sentence in filter(None, (s.strip() for s in _SENTENCE_END.split(text))):
        failed, finished = bool(_FAILED.search(sentence)), bool(_DONE.search(sentence))
        if not (failed or finished) or _NOT.search(sentence):
            continue
        task = _named(sentence, [t for t in open_tasks if t.id not in done], session)
        if task is None:
            continue
        done.add(task.id)
        status = TaskStatus.failed if failed else TaskStatus.done
        events.append(
            TaskEvent(
                id=_event_id(),
                task=task.id,
                status=status,
                result=_clean(sentence, MAX_RESULT),
                **{**base, "project": None},
            )
        )
    return events


def _named(sentence: str, candidates: list[Task], session: str | None) -> Task | None:
    """The candidate the sentence names by the most distinctive words (the latest on a
    tie); without any, the only open task of the same session, if there is one."""
    said = {w.lower() for w in _WORD.findall(sentence)}
    scored = [(len(distinctive(t) & said), t.updated, t) for t in candidates]
    best = max(scored, key=lambda s: (s[0], s[1]), default=None)
    if best is not None and best[0] > 0:
        return best[2]
    same = [t for t in candidates if session and t.session == session]
    return same[0] if len(same) == 1 else None


def distinctive(task: Task) -> set[str]:
    """The words that name ``task`` in a sentence: its title's and their parts, minus
    the generic ones (``r3``, ``train`` from "train.py --config r3" or "train_r3.sh";
    never ``python``, ``config`` or ``sh``)."""
    words = {w.lower() for w in _WORD.findall(task.title)}
    stems = {w.rsplit(".", 1)[0] for w in words if w.endswith((".py", ".sh", ".ts", ".js"))}
    parts = {p for w in words for p in re.split(r"[_.-]", w)}  # train_r8.sh: train, r8
    return {w for w in words | stems | parts if w not in _GENERIC and len(w) >= 2}


# -- payload fields ------------------------------------------------------------------


def _command(payload: Mapping[str, Any]) -> str | None:
    for holder in (payload.get("tool_input"), payload.get("args"), payload.get("input")):
        if isinstance(holder, dict):
            value = holder.get("command") or holder.get("cmd")
            if isinstance(value, list):  # Codex: ["bash", "-lc", "..."]
                value = value[-1] if value else None
            if isinstance(value, str) and value.strip():
                return value[:MAX_TEXT]
    return None


def _output(payload: Mapping[str, Any]) -> str:
    out = payload.get("tool_response") or payload.get("result") or payload.get("output") or ""
    if isinstance(out, dict):
        out = " ".join(str(out.get(k) or "") for k in ("stdout", "stderr", "output", "content"))
    return str(out)[:20000]


def _message(payload: Mapping[str, Any]) -> str | None:
    for key in ("last_assistant_message", "last-assistant-message", "assistant", "message", "text"):
        value = payload.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _title(command: str) -> str:
    """ "nohup python train.py --config r3 > logs/r3.log 2>&1 &" -> "train.py --config r3"."""
    lexer = shlex.shlex(command.strip(), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    words: list[str] = []
    try:
        for token in lexer:
            if token and set(token) <= set("();<>|&"):
                if words and words[-1].isdigit() and ">" in token:
                    words.pop()  # 2>&1: the descriptor, not an argument
                break
            words.append(token)
    except ValueError:
        words = command.split()
    words = [w for w in words if not _ENV.match(w)]
    if words and words[0] in ("tmux", "screen") and len(words) > 1 and " " in words[-1]:
        return _title(words[-1])  # the session's own command: tmux new -d -s r4 'python ...'
    takes_values = bool(words) and words[0] in ("sbatch", "srun")
    while words and (words[0] in _LAUNCHERS or words[0].startswith("-")):
        flag = words.pop(0)
        if takes_values and flag.startswith("-") and "=" not in flag and words:
            words.pop(0)  # sbatch -o logs/x.out: the flag's value
    if len(words) > 1 and re.fullmatch(r"python3?|node|bash|sh|ruby|Rscript", words[0]):
        words.pop(0)
    return " ".join(words)[:200] or command[:200]


def _log_path(command: str) -> str | None:
    for pattern in (_SBATCH_OUT, _TEE, _REDIRECT):
        found = pattern.search(command)
        if found and found.group(1) != "/dev/null":
            return redact(found.group(1))[:1024]
    return None


def _flag(command: str, flag: str) -> str | None:
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    for i, word in enumerate(words):
        if word == flag and i + 1 < len(words):
            return words[i + 1]
        if word.startswith(flag + "="):
            return word.split("=", 1)[1]
    return None


def _clean(text: str | None, limit: int = MAX_TEXT) -> str | None:
    return redact(text.strip())[:limit] if text and text.strip() else None


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _new_id(title: str) -> str:
    slug = "-".join(re.findall(r"[a-z0-9]+", title.lower()))[:40].strip("-") or "task"
    return f"{slug}-{secrets.token_hex(2)}"


def _event_id() -> str:
    return secrets.token_hex(8)
