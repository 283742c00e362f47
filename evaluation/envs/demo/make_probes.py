"""The demo's probes, written by hand as sessions; run this file to regenerate probes.jsonl.

Each session is what one agent heard from Lin in one sitting. A turn is one of
  R  a routine step of work that needs no memory (for coding agents: a "routine" probe)
  Q  a status question about something running ("is it done yet?")
  C  chit-chat or a general request the agent can answer without memory
  M  a turn that needs memory: n = necessary card ids, h = helpful, x = harmful
A turn's follow-ups (judge only) are any extra words Lin said about it (``f``), then the
next turns of the same session, up to six. The previous turn is the prompt before it.

Memory availability is by weekly snapshot: a card committed during week w is first seen by
probes of week w+1 (evaluation/environment.py), and the labels below follow that rule.
Weeks 1-2 are the dev split, weeks 3-5 the test split.

    .venv/bin/python evaluation/envs/demo/make_probes.py
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from evaluation.probes import Gold, Probe, Split, dump_probes

TZ = dt.timezone(dt.timedelta(hours=8))
DEV_UNTIL = dt.date(2026, 9, 21)  # weeks 1-2 are dev; from this Monday on, test
AGENTS = {"hermes": "full", "claude-code": "working", "codex": "working", "calendar": "personal"}
CODING = {"claude-code", "codex"}
CWD = {"tablekit": "/home/lin/code/tablekit", "tabsense": "/home/lin/code/tabsense"}

# Cards that a careless system confuses across projects (the traps).
ENV_TRAPS = {
    "tablekit": ["tabsense-env-conda", "hanzi-ocr-env-pipenv"],
    "tabsense": ["tablekit-env-uv", "hanzi-ocr-env-pipenv"],
}
DATA_TRAPS = {
    "tablekit": ["tabsense-data-location", "hanzi-ocr-data"],
    "tabsense": ["tablekit-data-location", "hanzi-ocr-data"],
}
LICENCE_TRAPS = {
    "tablekit": ["tabsense-licence", "hanzi-ocr-licence"],
    "tabsense": ["tablekit-licence", "hanzi-ocr-licence"],
}
OLD_CHART = ["chart-colours-amber"]
NEW_CHART = ["chart-colours-teal", "plots-matplotlib"]


def R(prompt: str, *follow: str) -> dict[str, Any]:
    return {"kind": "routine", "prompt": prompt, "f": list(follow)}


def Q(prompt: str, *follow: str) -> dict[str, Any]:
    return {"kind": "status", "prompt": prompt, "f": list(follow)}


def C(prompt: str, *follow: str) -> dict[str, Any]:
    return {"kind": "chat", "prompt": prompt, "f": list(follow)}


def M(
    prompt: str,
    n: list[str] | None = None,
    h: list[str] | None = None,
    x: list[str] | None = None,
    tags: tuple[str, ...] = (),
    f: tuple[str, ...] = (),
) -> dict[str, Any]:
    return {
        "kind": "memory",
        "prompt": prompt,
        "n": n or [],
        "h": h or [],
        "x": x or [],
        "tags": list(tags),
        "f": list(f),
    }


def S(
    agent: str, start: str, turns: list[dict[str, Any]], project: str | None = None
) -> dict[str, Any]:
    return {"agent": agent, "start": start, "project": project, "turns": turns}


SESSIONS = [
    # ---------------------------------------------------------------- week 1 (dev)
    S(
        "claude-code",
        "2026-09-07 09:40",
        project="tablekit",
        turns=[
            M(
                "Set up the dev environment for this repo the usual way",
                n=["tablekit-env-uv"],
                h=["no-system-pip"],
                x=ENV_TRAPS["tablekit"],
                tags=("env", "cue", "cross_project"),
                f=("uv sync went through, thanks",),
            ),
            R("run the tests"),
            R("test_merge_cells fails with IndexError on the last row, can you fix it?"),
            R("add a docstring to extract_table"),
            R("rename parse_table to extract_table everywhere"),
            M("commit this", n=["commit-style"], tags=("convention",)),
        ],
    ),
    S(
        "codex",
        "2026-09-07 14:10",
        project="tabsense",
        turns=[
            M(
                "帮我把环境配好，按我的习惯",
                n=["tabsense-env-conda"],
                h=["no-system-pip"],
                x=ENV_TRAPS["tabsense"],
                tags=("env", "cue", "cross_project"),
            ),
            R("write a loader for the VizNet csv files in data/viznet.py"),
            R("add type hints to load_viznet"),
            M(
                "where's the annotation data again?",
                n=["tabsense-data-location"],
                x=DATA_TRAPS["tabsense"],
                tags=("data", "cross_project"),
            ),
            R("the unit test for the tokenizer is flaky, make it deterministic"),
            Q("is the pytest run finished?"),
        ],
    ),
    S(
        "hermes",
        "2026-09-07 20:30",
        turns=[
            C("晚上好，今天有点累"),
            C(
                "帮我总结一下这篇摘要：Table structure recognition remains challenging for "
                "scanned documents with irregular layouts ..."
            ),
            M(
                "what licence did we pick for tablekit?",
                n=["tablekit-licence"],
                x=["hanzi-ocr-licence"],
                tags=("licence",),
            ),
            C("thanks"),
        ],
    ),
    S(
        "claude-code",
        "2026-09-08 10:15",
        project="tablekit",
        turns=[
            R(
                "camelot lattice mode crashes with GhostscriptNotFound, what's going on?",
                "ah, sudo apt install ghostscript fixed it",
            ),
            R("ok installed ghostscript, rerun the failing test"),
            R("add a regression test for rotated tables"),
            R("make the error message clearer when the PDF is encrypted"),
            Q("did it pass?"),
        ],
    ),
    S(
        "hermes",
        "2026-09-08 16:00",
        turns=[
            M(
                "make a bar chart of the baseline numbers in results.csv",
                n=["chart-colours-amber", "plots-matplotlib"],
                tags=("chart",),
            ),
            C("make the y axis start at 0"),
            C("add value labels on top of each bar"),
            M("great, export it", n=["plots-matplotlib"], tags=("chart",)),
        ],
    ),
    S(
        "codex",
        "2026-09-09 09:50",
        project="tabsense",
        turns=[
            R("fix the failing test in tests/test_features.py"),
            R("why is this assertion off by one?"),
            R("refactor build_features into smaller functions"),
            M(
                "what metric should the eval script print?",
                n=["tabsense-macro-f1-metric"],
                tags=("metric",),
            ),
            R("add a --seed flag to train.py"),
            Q("还在跑吗？"),
        ],
    ),
    S(
        "calendar",
        "2026-09-09 08:30",
        turns=[
            M(
                "schedule a call with Anna from the Berlin lab next week",
                n=["home-meetings-after-10"],
                h=["home-gym"],
                tags=("schedule",),
            ),
            C("make it 45 minutes"),
            C("send her the invite"),
        ],
    ),
    S(
        "claude-code",
        "2026-09-10 11:00",
        project="tablekit",
        turns=[
            R("the CI job fails on Python 3.12 with a deprecation warning, silence it properly"),
            R("bump the pdfplumber pin to 0.11"),
            M(
                "how do I install the optional camelot extra again?",
                n=["tablekit-env-uv"],
                x=ENV_TRAPS["tablekit"],
                tags=("env",),
            ),
            R("write a changelog entry for this"),
            R("format the code"),
        ],
    ),
    S(
        "codex",
        "2026-09-10 15:20",
        project="tabsense",
        turns=[
            R("write the training loop with early stopping"),
            R("log the loss to tensorboard"),
            R("add gradient clipping at 1.0"),
            R("make the config a dataclass"),
            Q("is the smoke run done?"),
        ],
    ),
    S(
        "hermes",
        "2026-09-11 16:30",
        turns=[
            M(
                "draft this week's update for Prof. Li",
                n=["weekly-update-prof-li"],
                tags=("habit",),
            ),
            C("add that the tabsense loader is done"),
            C("shorter"),
            C("send it"),
        ],
    ),
    S(
        "calendar",
        "2026-09-12 09:00",
        turns=[
            M("what do I need to do this morning?", n=["home-groceries"], tags=("habit",)),
            C("remind me at 10 to call my sister"),
        ],
    ),
    S(
        "hermes",
        "2026-09-13 21:00",
        turns=[
            C("推荐一本关于表格理解的综述"),
            C(
                "translate this paragraph into English: 我们提出了一种新的表格结构识别方法，"
                "能够处理合并单元格。"
            ),
            M(
                "where did we put the hanzi-ocr scans? I want to reuse some for tablekit",
                n=["hanzi-ocr-data"],
                x=["tablekit-data-location"],
                tags=("data",),
            ),
            C("ok thanks"),
        ],
    ),
    # ---------------------------------------------------------------- week 2 (dev)
    S(
        "claude-code",
        "2026-09-14 10:00",
        project="tablekit",
        turns=[
            M(
                "new laptop — set up this repo like last time",
                n=["tablekit-env-uv"],
                h=["tablekit-ghostscript", "no-system-pip"],
                x=ENV_TRAPS["tablekit"],
                tags=("env", "cue", "cross_project"),
            ),
            R("pytest can't find the fixtures module, fix the import"),
            M(
                "the lattice tests fail with GhostscriptNotFound again",
                n=["tablekit-ghostscript"],
                tags=("pitfall",),
            ),
            R("add a progress bar to the batch converter"),
            R("remove the unused imports"),
            R("squash the last two commits"),
        ],
    ),
    S(
        "codex",
        "2026-09-14 14:00",
        project="tabsense",
        turns=[
            M(
                "kick off the full training run on the GPU server",
                n=["tabsense-gpu-server"],
                h=["hf-cache-pitfall"],
                tags=("server",),
            ),
            R("the dataloader hangs with num_workers=8, debug it"),
            M(
                "it's downloading deberta into my home dir, is that ok?",
                n=["hf-cache-pitfall"],
                tags=("pitfall",),
            ),
            Q("is it done yet?"),
            Q("how many epochs are left?"),
            M(
                "plot the loss curve from the tensorboard logs",
                n=["plots-matplotlib", "chart-colours-amber"],
                tags=("chart",),
            ),
        ],
    ),
    S(
        "hermes",
        "2026-09-15 09:30",
        turns=[
            C("早上好"),
            M(
                "remind me, which data folder is read-only for tablekit?",
                n=["tablekit-data-location"],
                x=["tabsense-data-location", "hanzi-ocr-data"],
                tags=("data",),
            ),
            C("write a short email to the sysadmin asking for 2 TB more on /data"),
            C("make it more polite"),
        ],
    ),
    S(
        "claude-code",
        "2026-09-15 15:30",
        project="tablekit",
        turns=[
            R("switch the default backend from camelot to pdfplumber"),
            R("update the tests that assumed camelot"),
            R("add a docstring explaining why camelot is optional now"),
            R("run the linter and fix what it finds"),
            M("commit it", n=["commit-style"], tags=("convention",)),
            Q("CI green?"),
        ],
    ),
    S(
        "codex",
        "2026-09-16 10:20",
        project="tabsense",
        turns=[
            R("add a confusion matrix to the eval output"),
            M(
                "which metric do we headline in the paper table?",
                n=["tabsense-macro-f1-metric"],
                tags=("metric",),
            ),
            R("the confusion matrix labels overlap, rotate them"),
            R("cache the tokenized dataset to disk"),
            R("write a test for the cache invalidation"),
        ],
    ),
    S(
        "hermes",
        "2026-09-16 20:00",
        turns=[
            M(
                "we need to put a licence on tabsense before sharing it. 之前 tablekit 用的什么？",
                n=["tablekit-licence"],
                x=["hanzi-ocr-licence"],
                tags=("licence", "cue"),
            ),
            C("what's the difference between MIT and Apache-2.0 in practice?"),
            C("ok, MIT for the code and CC BY-NC for the annotations. 记下来"),
            C("thanks"),
        ],
    ),
    S(
        "calendar",
        "2026-09-17 08:00",
        turns=[
            M(
                "book a dentist check-up sometime in October",
                n=["home-meetings-after-10"],
                h=["home-gym"],
                tags=("schedule",),
            ),
            C("Dr. Zhou at 瑞尔齿科, 20 Oct 15:00 works"),
            C("add it to my calendar"),
        ],
    ),
    S(
        "claude-code",
        "2026-09-17 11:00",
        project="tablekit",
        turns=[
            R("implement header detection for multi-row headers"),
            R("handle empty cells as NaN instead of ''"),
            R("add a benchmark script for PubTabNet val"),
            Q("how long will the benchmark take?"),
            Q("done?"),
        ],
    ),
    S(
        "hermes",
        "2026-09-18 17:00",
        turns=[
            M("weekly update time, 老样子", n=["weekly-update-prof-li"], tags=("habit", "cue")),
            C("mention the 0.87 F1 from today's benchmark"),
            M(
                "attach a chart of the F1 per table type",
                n=["chart-colours-amber", "plots-matplotlib"],
                tags=("chart",),
            ),
            C("send"),
        ],
    ),
    S(
        "codex",
        "2026-09-18 14:00",
        project="tabsense",
        turns=[
            R("add early stopping patience as a CLI flag"),
            R("rename Trainer.fit_one to train_epoch"),
            R("fix the typo in the README"),
            R("bump the version to 0.1.1"),
        ],
    ),
    S(
        "calendar",
        "2026-09-19 09:10",
        turns=[
            M("周末有什么安排？", n=["home-groceries"], tags=("habit",)),
            M("add milk and eggs to the list", n=["home-groceries"], tags=("habit",)),
        ],
    ),
    S(
        "claude-code",
        "2026-09-20 15:00",
        project="tablekit",
        turns=[
            R("write a quick script to count tables per PDF"),
            M(
                "run it over the whole corpus",
                n=["tablekit-data-location"],
                x=DATA_TRAPS["tablekit"],
                tags=("data",),
            ),
            R("parallelize it with multiprocessing"),
            Q("finished?"),
        ],
    ),
    # ---------------------------------------------------------------- week 3 (test)
    S(
        "claude-code",
        "2026-09-21 10:00",
        project="tablekit",
        turns=[
            R("the rotated-table test is flaky again, look at it"),
            R("add type hints to the cells module"),
            R("extract the bbox math into utils/geometry.py"),
            M(
                "why is camelot not the default anymore? I forgot",
                n=["tablekit-pdfplumber"],
                tags=("decision",),
            ),
            R("ok, add that reasoning to the docs page"),
            M("commit and push", n=["commit-style"], tags=("convention",)),
        ],
    ),
    S(
        "codex",
        "2026-09-21 14:00",
        project="tabsense",
        turns=[
            M(
                "add the licence header to all new source files",
                n=["tabsense-licence"],
                x=LICENCE_TRAPS["tabsense"],
                tags=("licence", "cross_project"),
            ),
            R(
                "the legacy label files show garbled Chinese column names, fix the reader",
                "they're GBK, not UTF-8",
            ),
            R("add a test with a GBK-encoded fixture"),
            Q("tests pass?"),
            R("clean up the notebook into a script"),
        ],
    ),
    S(
        "hermes",
        "2026-09-22 10:00",
        turns=[
            M(
                "make a line chart of F1 over the last three runs",
                n=["plots-matplotlib"],
                tags=("chart", "correction"),
                f=("不要再用 amber 了，以后图都用 teal", "yes, teal #008080"),
            ),
            C("label the axes in English"),
            C("save it"),
            C("谢谢"),
        ],
    ),
    S(
        "claude-code",
        "2026-09-22 15:00",
        project="tabsense",
        turns=[
            M(
                "set up the environment for this repo",
                n=["tabsense-env-conda"],
                h=["no-system-pip"],
                x=ENV_TRAPS["tabsense"],
                tags=("env", "cross_project"),
            ),
            R("add a Makefile target for training"),
            R("the import of transformers is slow, lazy-load it"),
            R("add a docstring to predict_columns"),
        ],
    ),
    S(
        "hermes",
        "2026-09-23 11:00",
        turns=[
            M(
                "what F1 does tablekit get on PubTabNet right now?",
                n=["tablekit-f1-pubtabnet"],
                tags=("result",),
            ),
            C("how does that compare with the numbers in the TableFormer paper?"),
            C("draft two sentences for the related-work section"),
            C("ok"),
        ],
    ),
    S(
        "calendar",
        "2026-09-23 08:10",
        turns=[
            M(
                "set up a 1:1 with Zhang next Tuesday morning",
                n=["home-gym", "home-meetings-after-10"],
                tags=("schedule",),
            ),
            C("make it 11:00 then"),
            C("cancel Friday's lunch with Tom"),
        ],
    ),
    S(
        "claude-code",
        "2026-09-24 09:40",
        project="tablekit",
        turns=[
            R("merged cells come out duplicated, fix merge_cells.py"),
            R("add a test for a 3x3 merged block"),
            M(
                "rerun the PubTabNet benchmark the same way as last time",
                n=["tablekit-f1-pubtabnet"],
                h=["tablekit-env-uv"],
                tags=("result", "cue"),
            ),
            Q("benchmark finished?"),
            R("write the result into CHANGELOG"),
        ],
    ),
    S(
        "codex",
        "2026-09-24 14:30",
        project="tabsense",
        turns=[
            M(
                "start another training run with the new labels, same server as before",
                n=["tabsense-gpu-server"],
                h=["hf-cache-pitfall"],
                tags=("server", "cue"),
            ),
            Q("is it running?"),
            R("add wandb logging"),
            R("reduce the batch size to 16"),
            Q("还要多久？"),
        ],
    ),
    S(
        "hermes",
        "2026-09-25 16:40",
        turns=[
            M("Prof. Li's weekly update please", n=["weekly-update-prof-li"], tags=("habit",)),
            M(
                "include a small chart of the training curve",
                n=["plots-matplotlib"],
                x=OLD_CHART,
                tags=("chart", "corrected"),
            ),
            C("send it"),
        ],
    ),
    S(
        "codex",
        "2026-09-26 10:00",
        project="tabsense",
        turns=[
            R("write the data card for the dataset in DATASET.md"),
            M(
                "what licence do the annotations have?",
                n=["tabsense-licence"],
                x=LICENCE_TRAPS["tabsense"],
                tags=("licence", "cross_project"),
            ),
            R("add a table of class counts to DATASET.md"),
        ],
    ),
    S(
        "hermes",
        "2026-09-27 20:00",
        turns=[
            C("今天跑了10公里，好累"),
            C("suggest a stretching routine"),
            C("晚安"),
        ],
    ),
    # ---------------------------------------------------------------- week 4 (test)
    S(
        "claude-code",
        "2026-09-28 10:00",
        project="tablekit",
        turns=[
            M(
                "set up this repo on the new lab server",
                n=["tablekit-env-uv"],
                h=["tablekit-ghostscript", "no-system-pip"],
                x=ENV_TRAPS["tablekit"],
                tags=("env", "cross_project"),
            ),
            R("pytest -n 2 gives a pickling error on the fixture, fix it"),
            R("add __all__ to the package init"),
            M(
                "plot cell F1 per table type for the README",
                n=NEW_CHART,
                x=OLD_CHART,
                tags=("chart", "corrected"),
            ),
            R("compress the PNG"),
            Q("is the CI done?"),
        ],
    ),
    S(
        "codex",
        "2026-09-28 14:10",
        project="tabsense",
        turns=[
            M(
                "read the legacy label files into the training set",
                n=["tabsense-gbk-labels"],
                h=["tabsense-data-location"],
                tags=("pitfall",),
            ),
            R("dedupe rows that appear in both VizNet and our annotations"),
            R("add a unit test for the dedupe"),
            R("speed up the dedupe with a hash set"),
            Q("tests passing now?"),
        ],
    ),
    S(
        "hermes",
        "2026-09-29 10:30",
        turns=[
            M(
                "what's tablekit's best F1 so far?",
                n=["tablekit-f1-pubtabnet-v2"],
                x=["tablekit-f1-pubtabnet"],
                tags=("result", "corrected"),
            ),
            C("write one sentence for the abstract with that number"),
            M(
                "make a figure comparing the two backends",
                n=NEW_CHART,
                x=OLD_CHART,
                tags=("chart", "corrected"),
            ),
            C("nice, thanks"),
        ],
    ),
    S(
        "calendar",
        "2026-09-29 07:50",
        turns=[
            M(
                "mom's birthday is coming up — what should I do and when?",
                n=["home-mom-birthday"],
                tags=("habit",),
            ),
            C("order lilies then, deliver on the 15th"),
            C("add a reminder on the 13th"),
        ],
    ),
    S(
        "claude-code",
        "2026-09-30 10:00",
        project="tablekit",
        turns=[
            R("release 0.3.0 to PyPI", "uv build, then uv publish; the token is in 1Password"),
            R("bump the version in pyproject"),
            M("write the commit message", n=["commit-style"], tags=("convention",)),
            R("tag it v0.3.0"),
            Q("upload finished?"),
            R("format everything with ruff"),
        ],
    ),
    S(
        "codex",
        "2026-09-30 15:00",
        project="tabsense",
        turns=[
            R("add a predict CLI: tabsense predict FILE.csv"),
            R("print the predictions as a rich table"),
            R("handle CSVs with a BOM"),
            M(
                "the Chinese headers in the old label dump look garbled again",
                n=["tabsense-gbk-labels"],
                tags=("pitfall",),
            ),
            R("add a --top-k option"),
        ],
    ),
    S(
        "hermes",
        "2026-10-01 11:00",
        turns=[
            M(
                "is the TabSense data backed up anywhere?",
                n=["tabsense-data-location"],
                x=["tablekit-data-location", "hanzi-ocr-data"],
                tags=("data",),
            ),
            C("what's a reasonable backup policy for 2 TB of annotations?"),
            C("write that as a short proposal"),
        ],
    ),
    S(
        "codex",
        "2026-10-01 14:00",
        project="tabsense",
        turns=[
            M(
                "evaluate the deberta-small checkpoint on the test set",
                n=["tabsense-macro-f1-metric"],
                h=["tabsense-gpu-server"],
                tags=("metric",),
            ),
            Q("is the eval done?"),
            R("save the per-class scores to results/per_class.json"),
            R("add the git hash to the results file"),
        ],
    ),
    S(
        "hermes",
        "2026-10-02 16:00",
        turns=[
            M(
                "weekly update for Prof. Li, as usual",
                n=["weekly-update-prof-li"],
                tags=("habit", "cue"),
            ),
            C("mention the tablekit 0.3.0 release and the 0.91 F1"),
            C("send"),
        ],
    ),
    S(
        "claude-code",
        "2026-10-03 10:00",
        project="tablekit",
        turns=[
            M(
                "I want to try OCR for scanned PDFs in tablekit; set up the environment for that "
                "experiment",
                n=["tablekit-env-uv"],
                h=["no-system-pip"],
                x=["hanzi-ocr-env-pipenv", "tabsense-env-conda"],
                tags=("env", "archived"),
            ),
            R("write a tesseract wrapper function"),
            R("add pytesseract to the optional extras"),
            M(
                "what licence header do the new OCR files get?",
                n=["tablekit-licence"],
                x=LICENCE_TRAPS["tablekit"],
                tags=("licence", "archived", "cross_project"),
            ),
            R("add a test that skips when tesseract is missing"),
        ],
    ),
    S(
        "calendar",
        "2026-10-04 20:00",
        turns=[
            M("plan my Tuesday", n=["home-meetings-after-10"], h=["home-gym"], tags=("schedule",)),
            C("add a 2pm slot for reading papers"),
        ],
    ),
    # ---------------------------------------------------------------- week 5 (test)
    S(
        "claude-code",
        "2026-10-05 09:30",
        project="tablekit",
        turns=[
            R("fix the failing test in test_headers.py"),
            R("add a docstring to detect_headers"),
            M(
                "format and lint before I commit, our usual way",
                n=["ruff-lint"],
                h=["commit-style"],
                tags=("convention", "cue"),
            ),
            M("commit", n=["commit-style"], tags=("convention",)),
            Q("is CI done yet?"),
            R("rename HeaderGuess to HeaderCandidate"),
        ],
    ),
    S(
        "codex",
        "2026-10-05 14:00",
        project="tabsense",
        turns=[
            M(
                "set up the repo on the new GPU node",
                n=["tabsense-env-conda"],
                h=["hf-cache-pitfall", "tabsense-gpu-server", "no-system-pip"],
                x=ENV_TRAPS["tabsense"],
                tags=("env", "cross_project"),
            ),
            R("the CUDA version check fails, print a clearer error"),
            R("add a lock file for the conda env"),
            Q("training started?"),
            Q("is it done yet?"),
        ],
    ),
    S(
        "hermes",
        "2026-10-06 10:00",
        turns=[
            M(
                "what's our best TabSense number so far?",
                n=["tabsense-macro-f1-result"],
                h=["tabsense-macro-f1-metric"],
                x=["tablekit-f1-pubtabnet", "tablekit-f1-pubtabnet-v2"],
                tags=("result", "cross_project"),
            ),
            M(
                "and tablekit's?",
                n=["tablekit-f1-pubtabnet-v2"],
                x=["tablekit-f1-pubtabnet"],
                tags=("result", "corrected"),
            ),
            M(
                "make a slide-ready chart comparing them",
                n=NEW_CHART,
                x=OLD_CHART,
                tags=("chart", "corrected"),
            ),
            C("谢谢，很好看"),
        ],
    ),
    S(
        "calendar",
        "2026-10-06 07:30",
        turns=[
            M(
                "when can I fit a call with the Berlin lab this week?",
                n=["home-meetings-after-10", "home-running"],
                x=["home-gym"],
                tags=("schedule", "corrected"),
            ),
            C("Thursday 3pm, send the invite"),
            M(
                "what's coming up this month?",
                n=["home-dentist", "home-mom-birthday"],
                tags=("habit",),
            ),
            C("order the flowers now"),
        ],
    ),
    S(
        "claude-code",
        "2026-10-07 10:00",
        project="tablekit",
        turns=[
            M(
                "cut the 0.3.1 release like last time",
                n=["tablekit-release"],
                h=["commit-style"],
                tags=("release", "cue"),
            ),
            R("update the changelog"),
            Q("is the upload done?"),
            R("add release notes on GitHub"),
        ],
    ),
    S(
        "codex",
        "2026-10-07 15:00",
        project="tabsense",
        turns=[
            R("add mixed precision training"),
            R("the loss becomes NaN after enabling fp16, fix it"),
            R("add a unit test for the loss scaling"),
            M(
                "which server am I supposed to use for the long run?",
                n=["tabsense-gpu-server"],
                tags=("server",),
            ),
            Q("跑完了吗"),
        ],
    ),
    S(
        "hermes",
        "2026-10-08 16:00",
        turns=[
            M("draft the weekly update for Prof. Li", n=["weekly-update-prof-li"], tags=("habit",)),
            C("add that the 0.3.1 release is out"),
            C("send it"),
        ],
    ),
    S(
        "claude-code",
        "2026-10-08 11:00",
        project="tablekit",
        turns=[
            R("add support for tables spanning two pages"),
            R("write a test with a two-page table fixture"),
            R("the new test is slow, mark it"),
            R("why does mypy complain about Optional here?"),
            Q("all green?"),
        ],
    ),
    S(
        "codex",
        "2026-10-09 10:00",
        project="tabsense",
        turns=[
            R("export the model to ONNX"),
            R("check the ONNX outputs match PyTorch within 1e-4"),
            M(
                "where should the exported model files go, same place as the data?",
                n=["tabsense-data-location"],
                x=DATA_TRAPS["tabsense"],
                tags=("data", "cross_project"),
            ),
            R("write a README section on the ONNX export"),
        ],
    ),
    S(
        "hermes",
        "2026-10-10 11:00",
        turns=[
            C("周末去哪儿玩比较好？"),
            C("what's the weather usually like in Beijing in October?"),
            M(
                "ok and remind me what I'm doing Saturday mornings",
                n=["home-groceries"],
                tags=("habit",),
            ),
        ],
    ),
    S(
        "hermes",
        "2026-10-11 21:00",
        turns=[
            M(
                "tabsense 的代码和标注分别是什么许可证？",
                n=["tabsense-licence"],
                x=["tablekit-licence", "hanzi-ocr-licence"],
                tags=("licence",),
            ),
            C("写一段 README 的 License 章节"),
        ],
    ),
    # -------------------------------------------- weeks 1-2 (dev): more cold starts
    # Coding sessions that open with a routine edit naming the code it touches: the
    # first-turn trigger fires, so only the gate keeps the working profile quiet. Added
    # to dev after the first tuning run showed dev had few such openings (test untouched).
    S(
        "claude-code",
        "2026-09-09 16:30",
        project="tablekit",
        turns=[
            R("write a test that extract_table keeps merged header cells"),
            R("now make merge_cells return a new list instead of mutating rows"),
        ],
    ),
    S(
        "codex",
        "2026-09-11 09:15",
        project="tabsense",
        turns=[
            R("add a unit test for load_viznet with an empty csv"),
            R("simplify the nested ifs in the tokenizer's split_cells"),
        ],
    ),
    S(
        "claude-code",
        "2026-09-12 14:00",
        project="tablekit",
        turns=[
            R("fix the failing test in tests/test_lattice.py"),
            Q("is it green now?"),
        ],
    ),
    S(
        "codex",
        "2026-09-15 11:40",
        project="tabsense",
        turns=[
            R("rename the fixture tiny_tables to sample_tables in the eval tests"),
            R("add an assertion on the column count in test_features"),
        ],
    ),
    S(
        "claude-code",
        "2026-09-16 16:10",
        project="tablekit",
        turns=[
            R("add a CHANGELOG entry for the merged cells fix in extract_table"),
        ],
    ),
    S(
        "codex",
        "2026-09-18 09:30",
        project="tabsense",
        turns=[
            R("给 load_viznet 加上类型注解，再补一个测试"),
            R("把 print 换成 logging"),
        ],
    ),
]


def build() -> list[Probe]:
    probes: list[Probe] = []
    for number, session in enumerate(SESSIONS, 1):
        agent, project = session["agent"], session["project"]
        start = dt.datetime.strptime(session["start"], "%Y-%m-%d %H:%M").replace(tzinfo=TZ)
        sid = f"{agent}-{start:%m%d-%H%M}"
        turns = session["turns"]
        at = start
        for i, turn in enumerate(turns):
            later = [t["prompt"] for t in turns[i + 1 :]]
            kind = turn["kind"]
            tags = [kind, *turn.get("tags", [])]
            if agent in CODING and kind == "status":
                tags.append("routine")  # "is it done yet?" is routine for a coding agent
            gold = Gold(
                needs_memory=kind == "memory",
                necessary=turn.get("n", []),
                helpful=turn.get("h", []),
                harmful=turn.get("x", []),
            )
            probes.append(
                Probe(
                    id=f"p{number:02d}-{i + 1}",
                    session_id=sid,
                    agent=agent,
                    profile=AGENTS[agent],
                    timestamp=at,
                    prompt=turn["prompt"],
                    previous_turn=turns[i - 1]["prompt"] if i else None,
                    cwd=CWD[project] if agent in CODING and project else None,
                    turn=i + 1,
                    split=Split.dev if at.date() < DEV_UNTIL else Split.test,
                    tags=sorted(set(tags)),
                    follow_ups=[*turn["f"], *later][:6],
                    gold=gold,
                )
            )
            at += dt.timedelta(minutes=2 + (7 * (i + number)) % 5)
    return probes


if __name__ == "__main__":
    out = Path(__file__).with_name("probes.jsonl")
    made = build()
    dump_probes(made, out)
    print(f"wrote {len(made)} probes to {out}")
