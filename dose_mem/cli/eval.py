"""``dose-mem eval``: run an evaluation environment, or draft probes from captured sessions."""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from dose_mem.cli.context import settings
from memory_repo.errors import DoseMemError

eval_app = typer.Typer(
    help="Evaluate recall against probes with gold or LLM judges.", no_args_is_help=True
)


def register(app: typer.Typer) -> None:
    app.add_typer(eval_app, name="eval")


@eval_app.command("run")
def run(
    env_dir: Annotated[
        Path, typer.Argument(help="Environment directory (env.yaml, history/, probes.jsonl).")
    ],
    judge: Annotated[str, typer.Option(help="gold (labels in probes.jsonl) or llm.")] = "gold",
    out: Annotated[Path | None, typer.Option(help="Report directory.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON summary.")] = False,
    second_model: Annotated[
        str | None,
        typer.Option(help="With --judge llm: a second model re-judges 20% for Cohen's kappa."),
    ] = None,
    workdir: Annotated[
        Path | None,
        typer.Option(
            help="Keep the built memory repository, snapshots and indexes here (an empty or "
            "new folder) instead of a temporary one removed at the end."
        ),
    ] = None,
) -> None:
    """Tune thresholds on dev, report on test; writes report.md, results.json, PNGs."""
    from evaluation.harness.report import summary_json, write_report
    from evaluation.harness.run import run_evaluation

    if judge not in ("gold", "llm"):
        typer.echo(f"unknown judge {judge!r} (use gold or llm)", err=True)
        raise typer.Exit(2)
    if not (env_dir / "env.yaml").is_file():
        typer.echo(f"{env_dir} is not an evaluation environment (no env.yaml)", err=True)
        raise typer.Exit(2)
    if workdir is not None and (workdir.is_file() or (workdir.is_dir() and any(workdir.iterdir()))):
        typer.echo(f"--workdir {workdir} must be an empty or new folder", err=True)
        raise typer.Exit(2)
    cfg = settings()
    target = out or cfg.state_path / "eval" / env_dir.resolve().name
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        transient=True,
        disable=as_json,
    ) as bar:

        def progress(total: int) -> Callable[[str], None]:
            task = bar.add_task("evaluating", total=total)
            return lambda name: bar.update(task, advance=1, description=name)

        try:
            result = run_evaluation(
                env_dir,
                cfg,
                judge=judge,
                second_model=second_model,
                workdir=workdir,
                progress=progress,
            )
        except DoseMemError as exc:
            typer.echo(f"evaluation failed: {exc}", err=True)
            raise typer.Exit(1) from exc
    files = write_report(result, target)
    if as_json:
        typer.echo(json.dumps(summary_json(result), ensure_ascii=False))
    else:
        typer.echo((target / "report.md").read_text(encoding="utf-8"))
        typer.echo(f"wrote {', '.join(str(f) for f in files)}", err=True)


@eval_app.command("probes-from-sessions")
def probes_from_sessions(
    transcripts: Annotated[
        Path, typer.Argument(help="JSONL of captured transcripts, or a folder of them.")
    ],
    out: Annotated[Path, typer.Option(help="Probe file to write.")] = Path("probes.jsonl"),
    profile: Annotated[
        list[str] | None, typer.Option(help="AGENT=PROFILE, repeatable (default: working).")
    ] = None,
    dev_until: Annotated[
        str | None,
        typer.Option(help="Probes before this date are dev (default: earliest 40% of weeks)."),
    ] = None,
) -> None:
    """Turn captured sessions into an unlabelled probe file to label by hand."""
    from evaluation.harness.from_sessions import probes_from_transcripts, read_transcripts
    from evaluation.harness.probes import dump_probes

    if not transcripts.exists():
        typer.echo(f"no such file or folder: {transcripts}", err=True)
        raise typer.Exit(2)
    try:
        profiles = dict(p.split("=", 1) for p in profile or [])
        cut = dt.date.fromisoformat(dev_until) if dev_until else None
        probes = probes_from_transcripts(read_transcripts(transcripts), profiles, cut)
    except ValueError as exc:
        typer.echo(f"cannot read {transcripts}: {str(exc).splitlines()[0]}", err=True)
        raise typer.Exit(1) from exc
    dump_probes(probes, out)
    typer.echo(f"wrote {len(probes)} unlabelled probes to {out}")


@eval_app.command("write")
def write(
    set_dir: Annotated[
        Path, typer.Argument(help="Write-quality set (sessions/, seed.yaml, labels.yaml).")
    ],
    out: Annotated[Path | None, typer.Option(help="Also write report.md and report.json.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON report.")] = False,
    oracle: Annotated[
        bool,
        typer.Option(
            "--oracle",
            help="Distil with a labelled-facts oracle filing everything as global "
            "(measures filing on every labelled fact).",
        ),
    ] = False,
) -> None:
    """Ingest a labelled set into a fresh seeded home; print precision, recall, slipped
    kinds, supersede/merge correctness, L0 checks and secrets found on disk, and for a
    capture set, filing under projects, held facts, harness text and every session."""
    if not (set_dir / "labels.yaml").is_file() or not (set_dir / "seed.yaml").is_file():
        typer.echo(f"{set_dir} is not a write-quality set (labels.yaml, seed.yaml)", err=True)
        raise typer.Exit(2)
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    from evaluation.sets.write_quality import load_set, render, run_write_eval

    try:
        report = run_write_eval(load_set(set_dir), oracle=oracle)
    except (DoseMemError, ValueError) as exc:
        typer.echo(f"write evaluation failed: {str(exc).splitlines()[0]}", err=True)
        raise typer.Exit(1) from exc
    text = report.model_dump_json(indent=1)
    if out:
        out.mkdir(parents=True, exist_ok=True)
        (out / "report.json").write_text(text, encoding="utf-8")
        (out / "report.md").write_text(render(report), encoding="utf-8")
    typer.echo(
        json.dumps(report.model_dump(mode="json"), ensure_ascii=False)
        if as_json
        else render(report)
    )


@eval_app.command("share")
def share(
    env_dir: Annotated[
        Path | None,
        typer.Argument(help="An evaluation environment; without it, this machine's recall log."),
    ] = None,
    days: Annotated[float, typer.Option(help="Recall log: the last N days.")] = 30.0,
    out: Annotated[
        Path, typer.Option(help="Summary to write (FILE.json, and FILE.md beside it).")
    ] = Path("dose-mem-summary.json"),
) -> None:
    """Write a summary with no text in it (counts, features, labels) to share and pool."""
    import tempfile

    from evaluation.pooling.share import share_environment, share_log
    from evaluation.pooling.summary import render_markdown
    from memory_repo.index.embedders import make_embedder
    from profiles.model import load_profiles

    cfg = settings()
    try:
        if env_dir is not None:
            if not (env_dir / "env.yaml").is_file():
                typer.echo(f"{env_dir} is not an evaluation environment (no env.yaml)", err=True)
                raise typer.Exit(2)
            with tempfile.TemporaryDirectory(prefix="dose-mem-share-") as tmp:
                summary = share_environment(
                    env_dir,
                    make_embedder(cfg),
                    load_profiles(cfg.profiles_path),
                    Path(tmp),
                    cfg,
                )
        else:
            summary = share_log(cfg, days)
    except DoseMemError as exc:
        typer.echo(f"share failed: {exc}", err=True)
        raise typer.Exit(1) from exc
    out.parent.mkdir(parents=True, exist_ok=True)
    markdown = out.with_suffix(".md")
    out.write_text(summary.model_dump_json(indent=1), encoding="utf-8")
    markdown.write_text(render_markdown(summary), encoding="utf-8")
    typer.echo(
        f"wrote {out} ({len(summary.turns)} turns, {len(summary.suppressed)} buckets "
        f"suppressed) and {markdown}: read them before they leave this machine"
    )


@eval_app.command("pool")
def pool_summaries(
    summaries: Annotated[list[Path], typer.Argument(help="Summaries from `dose-mem eval share`.")],
    out: Annotated[Path, typer.Option(help="Report folder (pooled.json, pooled.md).")] = Path(
        "dose-mem-pooled"
    ),
    propose: Annotated[
        bool,
        typer.Option(
            "--propose",
            help="Store the pooled calibration as proposals for `dose-mem profiles apply`.",
        ),
    ] = False,
) -> None:
    """Pool many users' summaries: metrics with user-clustered CIs, failures, calibration."""
    from pydantic import ValidationError

    from evaluation.pooling.pool import pool, render_report
    from evaluation.pooling.propose import propose as store_proposals
    from evaluation.pooling.summary import Summary, VocabularyError, check_vocabulary
    from profiles.model import load_profiles

    cfg = settings()
    loaded = []
    for path in summaries:
        try:
            summary = Summary.model_validate_json(path.read_bytes())
            check_vocabulary(summary)
        except (OSError, ValidationError, VocabularyError) as exc:
            reason = str(exc).splitlines()[0]
            typer.echo(f"{path}: not a dose-mem summary: {reason}", err=True)
            raise typer.Exit(2) from exc
        loaded.append(summary)
    try:
        report = pool(loaded, load_profiles(cfg.profiles_path))
    except ValueError as exc:
        typer.echo(f"pool failed: {exc}", err=True)
        raise typer.Exit(1) from exc
    out.mkdir(parents=True, exist_ok=True)
    (out / "pooled.json").write_text(report.model_dump_json(indent=1), encoding="utf-8")
    (out / "pooled.md").write_text(render_report(report), encoding="utf-8")
    typer.echo(f"wrote {out / 'pooled.json'} and {out / 'pooled.md'} ({report.users} users)")
    if propose:
        run = store_proposals(cfg, report.calibration)
        typer.echo(
            f"stored {len(run.proposals)} proposals as {run.run_id}: `dose-mem profiles apply` "
            f"commits them, `dose-mem rollback {run.run_id}` undoes them"
        )
