"""The demo's probes, written by hand as sessions; run this file to regenerate probes.jsonl.

Each session is what one agent heard from Lin in one sitting. A turn is one of
  R  a routine step of work that needs no memory (for coding agents: a "routine" probe)
  Q  a status question about something running ("is it done yet?")
  C  chit-chat or a general request the agent can answer without memory
  M  a turn that needs memory: n = necessary card ids, h = helpful, x = harmful
A turn's follow-ups (judge only) are any extra words Lin said about it (``f``), then the
next turns of the same session, up to six. The previous turn is the prompt before it.

Language tags (README.md): an M turn carries ``lang="<prompt>-><card>"``, written by hand,
where <prompt> is en, zh or mixed (a Chinese sentence with English words or identifiers,
or the other way round) and <card> is the language of the card text that holds what the
turn needs: its L0 line, or its body when the needed fact is only there. It becomes the tag
``lang:<prompt>-><card>``; a turn whose cards are in both languages has none. Every other
turn is tagged ``lang:en`` / ``lang:zh`` / ``lang:mixed`` from its prompt's script, and
build() checks that each hand-written <prompt> agrees with that script.

Memory availability is by weekly snapshot: a card committed during week w is first seen by
probes of week w+1 (evaluation/harness/environment.py), and the labels below follow that rule.
Weeks 1-2 are the dev split, weeks 3-5 the test split.

    .venv/bin/python evaluation/envs/demo/make_probes.py
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from evaluation.harness.probes import Gold, Probe, Split, dump_probes
from evaluation.harness.turns import C, M, Q, R, S, script

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


def lang_tag(turn: dict[str, Any]) -> str | None:
    """``lang:<prompt>-><card>`` on memory turns (by hand), ``lang:<prompt>`` on the rest."""
    if turn["kind"] != "memory":
        return f"lang:{script(turn['prompt'])}"
    pair = turn.get("lang")
    if pair is None:
        return None
    said, _, card = pair.partition("->")
    if said != script(turn["prompt"]) or card not in ("en", "zh"):
        raise ValueError(f"lang {pair!r} does not fit {turn['prompt']!r}")
    return f"lang:{pair}"


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
                lang="en->en",
            ),
            R("run the tests"),
            R("test_merge_cells fails with IndexError on the last row, can you fix it?"),
            R("add a docstring to extract_table"),
            R("rename parse_table to extract_table everywhere"),
            M("commit this", n=["commit-style"], tags=("convention",), lang="en->en"),
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
                lang="zh->en",
            ),
            R("write a loader for the VizNet csv files in data/viznet.py"),
            R("add type hints to load_viznet"),
            M(
                "where's the annotation data again?",
                n=["tabsense-data-location"],
                x=DATA_TRAPS["tabsense"],
                tags=("data", "cross_project"),
                lang="en->en",
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
                lang="en->en",
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
                lang="en->en",
            ),
            C("make the y axis start at 0"),
            C("add value labels on top of each bar"),
            M("great, export it", n=["plots-matplotlib"], tags=("chart",), lang="en->en"),
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
                lang="en->en",
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
                lang="en->en",
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
                lang="en->en",
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
                lang="en->en",
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
            M(
                "what do I need to do this morning?",
                n=["home-groceries"],
                tags=("habit",),
                lang="en->zh",
            ),
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
                lang="en->en",
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
                lang="en->en",
            ),
            R("pytest can't find the fixtures module, fix the import"),
            M(
                "the lattice tests fail with GhostscriptNotFound again",
                n=["tablekit-ghostscript"],
                tags=("pitfall",),
                lang="en->en",
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
                lang="en->en",
            ),
            R("the dataloader hangs with num_workers=8, debug it"),
            M(
                "it's downloading deberta into my home dir, is that ok?",
                n=["hf-cache-pitfall"],
                tags=("pitfall",),
                lang="en->en",
            ),
            Q("is it done yet?"),
            Q("how many epochs are left?"),
            M(
                "plot the loss curve from the tensorboard logs",
                n=["plots-matplotlib", "chart-colours-amber"],
                tags=("chart",),
                lang="en->en",
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
                lang="en->en",
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
            M("commit it", n=["commit-style"], tags=("convention",), lang="en->en"),
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
                lang="en->en",
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
                lang="mixed->en",
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
                lang="en->en",
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
            M(
                "weekly update time, 老样子",
                n=["weekly-update-prof-li"],
                tags=("habit", "cue"),
                lang="mixed->en",
            ),
            C("mention the 0.87 F1 from today's benchmark"),
            M(
                "attach a chart of the F1 per table type",
                n=["chart-colours-amber", "plots-matplotlib"],
                tags=("chart",),
                lang="en->en",
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
            M("周末有什么安排？", n=["home-groceries"], tags=("habit",), lang="zh->zh"),
            M(
                "add milk and eggs to the list",
                n=["home-groceries"],
                tags=("habit",),
                lang="en->zh",
            ),
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
                lang="en->en",
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
                lang="en->en",
            ),
            R("ok, add that reasoning to the docs page"),
            M("commit and push", n=["commit-style"], tags=("convention",), lang="en->en"),
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
                lang="en->en",
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
                lang="en->en",
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
                lang="en->en",
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
                lang="en->en",
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
                lang="en->en",
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
                lang="en->en",
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
                lang="en->en",
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
            M(
                "Prof. Li's weekly update please",
                n=["weekly-update-prof-li"],
                tags=("habit",),
                lang="en->en",
            ),
            M(
                "include a small chart of the training curve",
                n=["plots-matplotlib"],
                x=OLD_CHART,
                tags=("chart", "corrected"),
                lang="en->en",
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
                lang="en->en",
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
                lang="en->en",
            ),
            R("pytest -n 2 gives a pickling error on the fixture, fix it"),
            R("add __all__ to the package init"),
            M(
                "plot cell F1 per table type for the README",
                n=NEW_CHART,
                x=OLD_CHART,
                tags=("chart", "corrected"),
                lang="en->en",
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
                lang="en->en",
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
                lang="en->en",
            ),
            C("write one sentence for the abstract with that number"),
            M(
                "make a figure comparing the two backends",
                n=NEW_CHART,
                x=OLD_CHART,
                tags=("chart", "corrected"),
                lang="en->en",
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
                lang="en->zh",
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
            M("write the commit message", n=["commit-style"], tags=("convention",), lang="en->en"),
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
                lang="en->en",
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
                lang="en->zh",
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
                lang="en->en",
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
                lang="en->en",
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
                lang="en->en",
            ),
            R("write a tesseract wrapper function"),
            R("add pytesseract to the optional extras"),
            M(
                "what licence header do the new OCR files get?",
                n=["tablekit-licence"],
                x=LICENCE_TRAPS["tablekit"],
                tags=("licence", "archived", "cross_project"),
                lang="en->en",
            ),
            R("add a test that skips when tesseract is missing"),
        ],
    ),
    S(
        "calendar",
        "2026-10-04 20:00",
        turns=[
            M(
                "plan my Tuesday",
                n=["home-meetings-after-10"],
                h=["home-gym"],
                tags=("schedule",),
                lang="en->en",
            ),
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
                lang="en->en",
            ),
            M("commit", n=["commit-style"], tags=("convention",), lang="en->en"),
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
                lang="en->en",
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
                lang="en->en",
            ),
            M(
                "and tablekit's?",
                n=["tablekit-f1-pubtabnet-v2"],
                x=["tablekit-f1-pubtabnet"],
                tags=("result", "corrected"),
                lang="en->en",
            ),
            M(
                "make a slide-ready chart comparing them",
                n=NEW_CHART,
                x=OLD_CHART,
                tags=("chart", "corrected"),
                lang="en->en",
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
                lang="en->en",
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
                lang="en->en",
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
                lang="en->en",
            ),
            Q("跑完了吗"),
        ],
    ),
    S(
        "hermes",
        "2026-10-08 16:00",
        turns=[
            M(
                "draft the weekly update for Prof. Li",
                n=["weekly-update-prof-li"],
                tags=("habit",),
                lang="en->en",
            ),
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
                lang="en->en",
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
                lang="en->zh",
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
                lang="mixed->en",
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
    # ------------------------------------------- weeks 1-5: Chinese and mixed sittings
    # Bilingual probes (issue: recall across Chinese and English), written from the card
    # texts before any tuning: Chinese prompts for English cards, English prompts for
    # the Chinese cards and Chinese card bodies, mixed sentences with identifiers, and
    # Chinese routine turns that must stay quiet. Split by date like the rest.
    S(
        "claude-code",
        "2026-09-08 17:20",
        project="tablekit",
        turns=[
            M(
                "按老样子把这个仓库的环境配一下",
                n=["tablekit-env-uv"],
                h=["no-system-pip"],
                x=ENV_TRAPS["tablekit"],
                tags=("env", "cue", "cross_project"),
                lang="zh->en",
            ),
            R("给 extract_table 加上类型注解"),
            R("把 merge_cells 里的 for 循环改成列表推导式"),
            M(
                "这个仓库的源文件头要写什么许可证？",
                n=["tablekit-licence"],
                x=["hanzi-ocr-licence"],  # tabsense-licence is committed in week 2
                tags=("licence", "cross_project"),
                lang="zh->en",
            ),
            M(
                "uv sync 之后用什么命令跑 pytest？",
                n=["tablekit-env-uv"],
                x=ENV_TRAPS["tablekit"],
                tags=("env",),
                lang="mixed->en",
            ),
        ],
    ),
    S(
        "codex",
        "2026-09-09 19:00",
        project="tabsense",
        turns=[
            M(
                "评测脚本里主指标用哪个？直接报准确率可以吗？",
                n=["tabsense-macro-f1-metric"],
                tags=("metric",),
                lang="zh->en",
            ),
            R("把 build_features 拆成三个小函数"),
            M(
                "标注文件在哪个目录？",
                n=["tabsense-data-location"],
                x=DATA_TRAPS["tabsense"],
                tags=("data", "cross_project"),
                lang="zh->en",
            ),
            Q("测试跑完了吗？"),
        ],
    ),
    S(
        "calendar",
        "2026-09-10 08:15",
        turns=[
            M(
                "下周三早上九点帮我约个电话",
                n=["home-meetings-after-10"],
                tags=("schedule",),
                lang="zh->en",
            ),
            M(
                "is Saturday morning free for a hike with Mei?",
                n=["home-groceries"],
                tags=("habit",),
                lang="en->zh",
            ),
        ],
    ),
    S(
        "hermes",
        "2026-09-12 20:40",
        turns=[
            M(
                "what resolution are the old hanzi scans? I need to match it",
                n=["hanzi-ocr-data"],
                tags=("data",),
                lang="en->zh",
            ),
            M(
                "给李老师的周报是什么格式来着？",
                n=["weekly-update-prof-li"],
                tags=("habit",),
                lang="zh->en",
            ),
            C("好的，谢谢"),
        ],
    ),
    S(
        "claude-code",
        "2026-09-15 19:30",
        project="tablekit",
        turns=[
            R("把 detect_headers 里的嵌套 if 改成提前 return"),
            M(
                "lattice 模式又报 GhostscriptNotFound 了",
                n=["tablekit-ghostscript"],
                tags=("pitfall",),
                lang="mixed->en",
            ),
            M(
                "这个库的语料一共有多少篇文档？",
                n=["tablekit-data-location"],
                x=DATA_TRAPS["tablekit"],
                tags=("data",),
                lang="zh->zh",
            ),
            R("把没用到的导入删掉"),
            Q("跑完了没？"),
        ],
    ),
    S(
        "codex",
        "2026-09-16 18:30",
        project="tabsense",
        turns=[
            M(
                "模型下载到家目录里了，会不会有问题？",
                n=["hf-cache-pitfall"],
                tags=("pitfall",),
                lang="zh->en",
            ),
            M(
                "完整的训练应该放在哪台服务器上跑？",
                n=["tabsense-gpu-server"],
                h=["hf-cache-pitfall"],
                tags=("server",),
                lang="zh->en",
            ),
            M(
                "tmux 的 session 叫什么来着？",
                n=["tabsense-gpu-server"],
                tags=("server",),
                lang="mixed->en",
            ),
            R("给 train.py 加一个 --fp16 参数"),
            R("把 collate 函数挪到 data/utils.py 里"),
        ],
    ),
    S(
        "hermes",
        "2026-09-17 21:30",
        turns=[
            M(
                "why do we never pip install into the system Python? I forgot what happened",
                n=["no-system-pip"],
                tags=("pitfall",),
                lang="en->zh",
            ),
            M(
                "roughly how many PDFs are in the tablekit corpus?",
                n=["tablekit-data-location"],
                x=["tabsense-data-location", "hanzi-ocr-data"],
                tags=("data",),
                lang="en->zh",
            ),
            C("ok, thanks"),
        ],
    ),
    S(
        "calendar",
        "2026-09-18 19:00",
        turns=[
            M("where's my gym again?", n=["home-gym"], tags=("habit",), lang="en->zh"),
            M("明天上午有什么安排？", n=["home-groceries"], tags=("habit",), lang="zh->zh"),
            M(
                "groceries 清单记在哪个 app 里？",
                n=["home-groceries"],
                tags=("habit",),
                lang="mixed->zh",
            ),
        ],
    ),
    S(
        "claude-code",
        "2026-09-22 18:00",
        project="tablekit",
        turns=[
            M(
                "现在默认用哪个解析后端？camelot 还是 pdfplumber？",
                n=["tablekit-pdfplumber"],
                tags=("decision",),
                lang="mixed->en",
            ),
            R("给 cells 模块补上类型注解"),
            M(
                "PubTabNet 上现在的 F1 是多少？",
                n=["tablekit-f1-pubtabnet"],
                tags=("result",),
                lang="mixed->en",
            ),
            R("把 bbox 的计算挪到 utils/geometry.py"),
            M("提交一下", n=["commit-style"], tags=("convention",), lang="zh->en"),
        ],
    ),
    S(
        "codex",
        "2026-09-23 17:00",
        project="tabsense",
        turns=[
            M(
                "新加的源文件头部要写哪个许可证？",
                n=["tabsense-licence"],
                x=LICENCE_TRAPS["tabsense"],
                tags=("licence", "cross_project"),
                lang="zh->en",
            ),
            M(
                "标注数据能给合作的公司商用吗？",
                n=["tabsense-licence"],
                x=LICENCE_TRAPS["tabsense"],
                tags=("licence", "cross_project"),
                lang="zh->en",
            ),
            M("NAS 每晚几点备份？", n=["tabsense-data-location"], tags=("data",), lang="mixed->zh"),
            R("把 tokenizer 的单元测试改成确定性的"),
            Q("还在跑？"),
        ],
    ),
    S(
        "calendar",
        "2026-09-24 07:40",
        turns=[
            M("what's the dentist's address?", n=["home-dentist"], tags=("habit",), lang="en->zh"),
            M("下次洗牙是哪天？", n=["home-dentist"], tags=("habit",), lang="zh->en"),
            M(
                "周四早上七点半约个电话",
                n=["home-gym", "home-meetings-after-10"],
                tags=("schedule",),
                lang="zh->en",
            ),
        ],
    ),
    S(
        "hermes",
        "2026-09-24 21:00",
        turns=[
            M(
                "明天要给李老师发周报，先帮我起个草",
                n=["weekly-update-prof-li"],
                tags=("habit",),
                lang="zh->en",
            ),
            M(
                "附一张这周训练曲线的图",
                n=["plots-matplotlib"],
                x=OLD_CHART,
                tags=("chart", "corrected"),
                lang="zh->en",
            ),
            C("先存草稿"),
        ],
    ),
    S(
        "claude-code",
        "2026-09-29 17:30",
        project="tablekit",
        turns=[
            M(
                "画一张各类表格 F1 的柱状图放进 README",
                n=NEW_CHART,
                x=OLD_CHART,
                tags=("chart", "corrected"),
                lang="mixed->en",
            ),
            M(
                "现在 PubTabNet 上最好的 cell F1 是多少？",
                n=["tablekit-f1-pubtabnet-v2"],
                x=["tablekit-f1-pubtabnet"],
                tags=("result", "corrected"),
                lang="mixed->en",
            ),
            R("把 PNG 压缩一下"),
            R("给 merge_cells 加一个 3x3 合并块的测试"),
            Q("跑完了吗？"),
        ],
    ),
    S(
        "codex",
        "2026-09-30 18:30",
        project="tabsense",
        turns=[
            M(
                "老的标注文件读出来中文列名全是乱码",
                n=["tabsense-gbk-labels"],
                tags=("pitfall",),
                lang="zh->en",
            ),
            M(
                "encoding='gbk' 只有哪个目录下的文件要用？",
                n=["tabsense-gbk-labels"],
                tags=("pitfall",),
                lang="mixed->en",
            ),
            R("给 predict 命令加一个 --format json 选项"),
            R("把读取函数里重复的代码抽出来"),
        ],
    ),
    S(
        "hermes",
        "2026-10-01 21:00",
        turns=[
            M(
                "why did we drop amber for charts?",
                n=["chart-colours-teal"],
                x=OLD_CHART,
                tags=("chart", "corrected"),
                lang="en->zh",
            ),
            M(
                "when is mom's birthday again?",
                n=["home-mom-birthday"],
                tags=("habit",),
                lang="en->zh",
            ),
            M(
                "妈妈生日的花一般在哪家订？",
                n=["home-mom-birthday"],
                tags=("habit",),
                lang="zh->zh",
            ),
            C("好，13 号提醒我"),
        ],
    ),
    S(
        "calendar",
        "2026-10-03 09:00",
        turns=[
            M("plan my Saturday morning", n=["home-groceries"], tags=("habit",), lang="en->zh"),
            M("妈妈喜欢什么花来着？", n=["home-mom-birthday"], tags=("habit",), lang="zh->en"),
        ],
    ),
    S(
        "claude-code",
        "2026-10-06 17:00",
        project="tablekit",
        turns=[
            M(
                "提交前先把代码格式化、检查一遍，按我们的惯例",
                n=["ruff-lint"],
                h=["commit-style"],
                tags=("convention", "cue"),
                lang="zh->en",
            ),
            M(
                "这个修复要发个补丁版本，流程跟上次一样",
                n=["tablekit-release"],
                h=["commit-style"],
                tags=("release", "cue"),
                lang="zh->en",
            ),
            M(
                "PyPI 的 token 放在哪来着？",
                n=["tablekit-release"],
                tags=("release",),
                lang="mixed->en",
            ),
            R("把 TableGrid.cells 改成只读属性"),
            Q("上传完了吗？"),
        ],
    ),
    S(
        "codex",
        "2026-10-07 18:00",
        project="tabsense",
        turns=[
            M(
                "目前 tabsense 最好的 macro-F1 是多少？用的哪个模型？",
                n=["tabsense-macro-f1-result"],
                h=["tabsense-macro-f1-metric"],
                x=["tablekit-f1-pubtabnet", "tablekit-f1-pubtabnet-v2"],
                tags=("result", "cross_project"),
                lang="mixed->en",
            ),
            M(
                "在新的训练节点上把环境装好",
                n=["tabsense-env-conda"],
                h=["hf-cache-pitfall", "tabsense-gpu-server", "no-system-pip"],
                x=ENV_TRAPS["tabsense"],
                tags=("env", "cross_project"),
                lang="zh->en",
            ),
            R("把导出 ONNX 的代码单独放一个文件"),
            Q("训练开始了吗？"),
        ],
    ),
    S(
        "calendar",
        "2026-10-08 07:20",
        turns=[
            M(
                "what's my running route these days?",
                n=["home-running"],
                x=["home-gym"],
                tags=("habit", "corrected"),
                lang="en->zh",
            ),
            M(
                "周四早上能约个早饭会吗？",
                n=["home-running", "home-meetings-after-10"],
                x=["home-gym"],
                tags=("schedule", "corrected"),
                lang="zh->en",
            ),
            M("dentist 的地址发我一下", n=["home-dentist"], tags=("habit",), lang="mixed->zh"),
        ],
    ),
    S(
        "hermes",
        "2026-10-09 16:30",
        turns=[
            M(
                "what do I keep my mornings free for?",
                n=["home-meetings-after-10"],
                h=["home-running"],
                tags=("habit",),
                lang="en->zh",
            ),
            M(
                "tabsense 的 NAS 每天几点备份？",
                n=["tabsense-data-location"],
                x=["tablekit-data-location", "hanzi-ocr-data"],
                tags=("data",),
                lang="mixed->zh",
            ),
            M(
                "下模型之前要设什么？家目录配额是多少来着？",
                n=["hf-cache-pitfall"],
                tags=("pitfall",),
                lang="zh->en",
            ),
        ],
    ),
    S(
        "hermes",
        "2026-09-27 10:00",
        turns=[
            M(
                "为什么不能往系统自带的解释器里装包？",
                n=["no-system-pip"],
                tags=("pitfall",),
                lang="zh->zh",
            ),
            M(
                "tablekit 的语料是只读的吗？一共多少篇？",
                n=["tablekit-data-location"],
                x=["tabsense-data-location", "hanzi-ocr-data"],
                tags=("data",),
                lang="mixed->zh",
            ),
            C("明白了"),
        ],
    ),
    S(
        "hermes",
        "2026-09-30 20:30",
        turns=[
            M(
                "为啥图不用 amber 了？",
                n=["chart-colours-teal"],
                x=OLD_CHART,
                tags=("chart", "corrected"),
                lang="mixed->zh",
            ),
            C("懂了"),
        ],
    ),
    S(
        "calendar",
        "2026-10-10 08:30",
        turns=[
            M("今天上午去哪儿买菜？", n=["home-groceries"], tags=("habit",), lang="zh->zh"),
            M(
                "跑步的路线是哪条来着？",
                n=["home-running"],
                x=["home-gym"],
                tags=("habit", "corrected"),
                lang="zh->zh",
            ),
            M("牙医诊所在哪栋楼？", n=["home-dentist"], tags=("habit",), lang="zh->zh"),
        ],
    ),
]


# ---------------------------------------------------------- week 6 (test): task state
# Lin turned on the task-state hooks on Monday 2026-10-12 (docs/integrations.md): from then
# on claude-code and codex report their shell commands and final messages, hermes and the
# calendar agent report through MCP task_update. The events are TASK_EVENTS below, written
# to task_events.jsonl; a probe sees those strictly before its own time. Earlier weeks have
# no task events, so their "is it done yet?" turns stay what they were (no memory could
# answer them). A T turn is a status follow-up: ``tasks`` are the keys of the tasks it needs
# (all of them), ``[]`` when the right answer is silence (a run that never existed, another
# project's task under a working token, a research task asked of the personal agent);
# ``x`` are tasks that would mislead; ``trap`` names what it tests. Written before any
# measurement; the engine was not tuned on them.
TK, TS = "/home/lin/code/tablekit", "/home/lin/code/tabsense"


def T(
    prompt: str,
    tasks: list[str],
    *,
    trap: str,
    at: str,
    x: tuple[str, ...] = (),
    f: tuple[str, ...] = (),
) -> dict[str, Any]:
    return {
        "kind": "task",
        "prompt": prompt,
        "tasks": tasks,
        "xt": list(x),
        "trap": trap,
        "at": at,
        "f": list(f),
    }


def R6(prompt: str, at: str) -> dict[str, Any]:
    return {**R(prompt), "at": at}


def C6(prompt: str, at: str) -> dict[str, Any]:
    return {**C(prompt), "at": at}


def _at(day: str, clock: str) -> str:
    return f"2026-10-{day}T{clock}:00+08:00"


def _line(agent: str, at: str, report: dict[str, Any], key: str | None) -> dict[str, Any]:
    line: dict[str, Any] = {"at": at, "agent": agent}
    if key:
        line["key"] = key
    line["report"] = report
    return line


def bash(
    agent: str,
    day: str,
    clock: str,
    cwd: str,
    session: str,
    command: str,
    stdout: str = "",
    *,
    key: str | None = None,
    background: bool = False,
) -> dict[str, Any]:
    """A PostToolUse hook (claude-code, or codex hooks in the same layout) for one Bash call."""
    tool_input: dict[str, Any] = {"command": command}
    if background:
        tool_input["run_in_background"] = True
    payload = {
        "session_id": session,
        "cwd": cwd,
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": tool_input,
        "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False},
    }
    report = {"source": agent, "event": "PostToolUse", "payload": payload}
    return _line(agent, _at(day, clock), report, key)


def stop(
    day: str,
    clock: str,
    cwd: str,
    session: str,
    message: str | None = None,
    background_tasks: list[dict[str, str]] | None = None,
    *,
    key: str | None = None,
) -> dict[str, Any]:
    """Claude Code's Stop hook: the last message, and background_tasks where sent."""
    payload: dict[str, Any] = {"session_id": session, "cwd": cwd, "hook_event_name": "Stop"}
    if message:
        payload["last_assistant_message"] = message
    if background_tasks:
        payload["background_tasks"] = background_tasks
    report = {"source": "claude-code", "event": "Stop", "payload": payload}
    return _line("claude-code", _at(day, clock), report, key)


def notify(
    day: str, clock: str, cwd: str, session: str, message: str, *, key: str | None = None
) -> dict[str, Any]:
    """Codex's notify program after a turn (agent-turn-complete)."""
    payload = {
        "type": "agent-turn-complete",
        "thread-id": session,
        "turn-id": f"{session}-{clock}",
        "cwd": cwd,
        "input-messages": [],
        "last-assistant-message": message,
    }
    report = {"source": "codex", "event": "agent-turn-complete", "payload": payload}
    return _line("codex", _at(day, clock), report, key)


def mcp(
    agent: str, day: str, clock: str, *, key: str | None = None, **fields: Any
) -> dict[str, Any]:
    """MCP task_update: a title starts a task; with a known key, an update of that task."""
    report = {"source": "mcp", "event": "task_update", **fields}
    return _line(agent, _at(day, clock), report, key)


TRAIN_TK_R3 = "nohup uv run python train.py --config r3 > logs/r3.log 2>&1 &"
TRAIN_TS_R3 = "nohup python train.py --config configs/r3.yaml > logs/r3.log 2>&1 &"
TRAIN_TS_R4 = "nohup python train.py --config configs/r4.yaml > logs/r4.log 2>&1 &"
SWEEP = "python sweep.py --grid lr > logs/sweep_lr.log 2>&1"
EVAL_VIZNET = "sbatch -o logs/eval_viznet.out scripts/eval_viznet.sh"
PR_URL = "https://github.com/lin/tablekit/pull/42"

TASK_EVENTS = [
    # Mon 12: tablekit benchmark (foreground, done at once), then r3 in the background.
    bash(
        "claude-code",
        "12",
        "09:04",
        TK,
        "claude-code-1012-0900",
        "make bench",
        "running 412 pages ...\nbench: 412 pages, 3.8 pages/s, cell F1 0.912\n",
        key="tk-bench",
    ),
    bash(
        "claude-code",
        "12",
        "09:22",
        TK,
        "claude-code-1012-0900",
        TRAIN_TK_R3,
        "[1] 48211\n",
        key="tk-r3",
    ),
    # Mon 12: tabsense has an r3 too, and its log has the same relative path.
    bash("codex", "12", "14:03", TS, "codex-1012-1400", TRAIN_TS_R3, "[1] 50123\n", key="ts-r3"),
    bash(
        "codex",
        "12",
        "18:31",
        TS,
        "codex-1012-1830",
        "tail -n 2 logs/r3.log",
        "epoch 6/20 step 1800 loss 0.412\nepoch 7/20 step 2100 loss 0.398\n",
        key="ts-r3",
    ),
    # Tue 13: tablekit r3 ends; codex looks at tabsense r3 but says nothing finishing.
    bash(
        "claude-code",
        "13",
        "09:09",
        TK,
        "claude-code-1013-0905",
        "tail -n 3 logs/r3.log",
        "epoch 30/30 dev F1 0.915\nsaved checkpoints/r3/best.pt\ntraining finished\n",
        key="tk-r3",
    ),
    stop(
        "13",
        "09:10",
        TK,
        "claude-code-1013-0905",
        "r3 跑完了：dev F1 0.915，最好的 checkpoint 在 checkpoints/r3/best.pt。",
        key="tk-r3",
    ),
    notify("13", "11:10", TS, "codex-1013-1100", "r3 还在跑，gpu03 上 epoch 12/20，loss 0.351。"),
    # Tue 13: the lr sweep, started in the background and killed half an hour later.
    bash(
        "claude-code",
        "13",
        "15:07",
        TK,
        "claude-code-1013-1500",
        SWEEP,
        background=True,
        key="tk-sweep",
    ),
    stop(
        "13",
        "15:32",
        TK,
        "claude-code-1013-1500",
        "Killed the sweep; the grid was wrong.",
        [{"id": "bash_2", "command": SWEEP, "status": "killed"}],
        key="tk-sweep",
    ),
    # Tue 13: the calendar agent books the dentist (no cwd: a personal agent has none).
    mcp(
        "calendar",
        "13",
        "16:02",
        key="home-dentist",
        title="约周六上午的牙医（李医生）",
        status="waiting",
        next_step="等诊所回电确认时间",
    ),
    # Wed 14: a PR in tablekit; the VizNet evaluation on the tabsense cluster.
    bash(
        "claude-code",
        "14",
        "10:33",
        TK,
        "claude-code-1014-1000",
        'gh pr create --title "Fix merged-cell spans in lattice mode" --body "Fixes #41"',
        f"Creating pull request for lin:fix-merged-cells into main in lin/tablekit\n\n{PR_URL}\n",
        key="tk-pr",
    ),
    bash(
        "codex",
        "14",
        "14:03",
        TS,
        "codex-1014-1400",
        EVAL_VIZNET,
        "Submitted batch job 88123\n",
        key="ts-eval",
    ),
    notify(
        "14",
        "20:05",
        TS,
        "codex-1014-2000",
        "eval_viznet 失败了：gpu03 上 CUDA OOM，batch size 要减半。",
        key="ts-eval",
    ),
    # Thu 15: the evaluation again (a new task, same command), r4, and an ablation by hermes.
    bash(
        "codex",
        "15",
        "10:02",
        TS,
        "codex-1015-1000",
        EVAL_VIZNET,
        "Submitted batch job 88190\n",
        key="ts-eval2",
    ),
    bash("codex", "15", "10:07", TS, "codex-1015-1000", TRAIN_TS_R4, "[2] 51877\n", key="ts-r4"),
    mcp(
        "hermes",
        "15",
        "11:00",
        key="ts-ablation",
        title="ablation: train without GBK labels",
        cwd=TS,
        status="running",
    ),
    # r4's end is reported at the very second of the probe asking about it (not yet seen).
    notify(
        "15",
        "16:00",
        TS,
        "codex-1015-1558",
        "r4 finished: macro-F1 0.781 on the dev split.",
        key="ts-r4",
    ),
    # Fri 16: the ablation is dropped; the clinic confirms.
    mcp(
        "hermes",
        "16",
        "09:05",
        key="ts-ablation",
        status="abandoned",
        result="Prof. Li said to skip the GBK ablation for now.",
    ),
    mcp(
        "calendar",
        "16",
        "11:30",
        key="home-dentist",
        status="done",
        result="周六 10:30，李医生，牙科诊所 3 楼",
    ),
]

TASK_SESSIONS = [
    S(
        "claude-code",
        "2026-10-12 09:00",
        project="tablekit",
        turns=[
            R6("run the benchmark on the 400-page set", "09:00"),
            T("benchmark finished?", ["tk-bench"], trap="just_finished", at="09:06"),
            R6("now start r3 training in the background, log to logs/r3.log", "09:20"),
            T("still running?", ["tk-r3"], trap="unnamed", at="09:30"),
            R6("while it trains, add a test for the lattice fallback", "09:35"),
        ],
    ),
    S(
        "hermes",
        "2026-10-12 13:30",
        turns=[
            C6("中午好", "13:30"),
            T(
                "tablekit 的 benchmark 跑完了吗？结果怎么样",
                ["tk-bench"],
                trap="finished_hours_ago",
                at="13:32",
            ),
            C6("不错，比上周好", "13:36"),
        ],
    ),
    S(
        "codex",
        "2026-10-12 14:00",
        project="tabsense",
        turns=[
            R6("把 r3 的配置改成 lr 3e-4，然后后台开训", "14:00"),
            R6("顺便把 VizNet loader 的单测补上", "14:10"),
            T("r3 跑起来了吗？", ["ts-r3"], trap="phrasing", at="14:20"),
            T("tablekit 的 benchmark 跑完了吗？", [], trap="other_project", at="14:25"),
        ],
    ),
    S(
        "hermes",
        "2026-10-12 16:00",
        turns=[
            T(
                "tabsense 的 r3 进度怎么样了？",
                ["ts-r3"],
                x=("tk-r3",),
                trap="two_projects",
                at="16:00",
            ),
            C6("好，晚上再看", "16:03"),
        ],
    ),
    S(
        "codex",
        "2026-10-12 18:30",
        project="tabsense",
        turns=[
            R6("tail 一下 r3 的日志", "18:30"),
            T("还在跑吧？loss 降得怎么样", ["ts-r3"], trap="unnamed", at="18:35"),
        ],
    ),
    S(
        "claude-code",
        "2026-10-13 09:05",
        project="tablekit",
        turns=[
            T("r3 跑完了吗？", ["tk-r3"], trap="stale", at="09:05"),
            R6("看一下 logs/r3.log 最后几行", "09:08"),
            R6("把 r3 的结果写进 RESULTS.md", "09:14"),
        ],
    ),
    S(
        "hermes",
        "2026-10-13 09:40",
        turns=[
            T("r3 跑完了吗？", ["tk-r3", "ts-r3"], trap="two_projects", at="09:40"),
            T("tabsense 的 r3 还在跑吗？", ["ts-r3"], x=("tk-r3",), trap="stale", at="09:45"),
            C6("好的", "09:48"),
        ],
    ),
    S(
        "codex",
        "2026-10-13 11:00",
        project="tabsense",
        turns=[
            T("is r3 still running?", ["ts-r3"], trap="stale", at="11:00"),
            R6("去 gpu03 上 nvidia-smi 看一下", "11:05"),
        ],
    ),
    S(
        "claude-code",
        "2026-10-13 15:00",
        project="tablekit",
        turns=[
            T("r3 done?", ["tk-r3"], trap="finished_hours_ago", at="15:00"),
            R6("start the lr sweep in the background: python sweep.py --grid lr", "15:05"),
            R6("actually the grid is wrong, kill the sweep", "15:30"),
            R6("fix the grid in sweep.py: 1e-4 to 1e-3, five points", "15:34"),
        ],
    ),
    S(
        "calendar",
        "2026-10-13 16:00",
        turns=[
            R6("周六上午帮我约一下李医生的牙科", "16:00"),
            C6("好的谢谢", "16:03"),
        ],
    ),
    S(
        "hermes",
        "2026-10-13 20:00",
        turns=[
            T("tablekit 的 lr sweep 跑完了吗？", ["tk-sweep"], trap="abandoned", at="20:00"),
        ],
    ),
    S(
        "claude-code",
        "2026-10-14 10:00",
        project="tablekit",
        turns=[
            T("is the sweep done?", ["tk-sweep"], trap="abandoned", at="10:00"),
            R6("leave it for now. Rename Cell.span to Cell.extent", "10:04"),
            R6("open a PR for the merged-cell fix", "10:30"),
            T("PR link?", ["tk-pr"], trap="pr_link", at="10:40"),
        ],
    ),
    S(
        "codex",
        "2026-10-14 14:00",
        project="tabsense",
        turns=[
            R6("把 VizNet 的评测提交到集群上", "14:00"),
            T("eval_viznet 的进度怎么样？", ["ts-eval"], trap="running", at="14:30"),
        ],
    ),
    S(
        "hermes",
        "2026-10-14 16:00",
        turns=[
            T("tablekit 的 PR 链接发我一下", ["tk-pr"], trap="pr_link", at="16:00"),
            T("where are we on the VizNet eval?", ["ts-eval"], trap="running", at="16:05"),
            T("any news on the viznet eval?", ["ts-eval"], trap="phrasing", at="16:10"),
        ],
    ),
    S(
        "hermes",
        "2026-10-15 09:30",
        turns=[
            T("viznet 的 eval 结果出来了吗？", ["ts-eval"], trap="failed", at="09:30"),
            T("r9 跑完了吗？", [], trap="never_existed", at="09:35"),
            C6("那先这样", "09:38"),
        ],
    ),
    S(
        "codex",
        "2026-10-15 10:00",
        project="tabsense",
        turns=[
            R6("batch size 减半，重新提交 eval", "10:00"),
            R6("同时用 r4 配置后台开训", "10:05"),
            T("都还在跑吧？", ["ts-eval2", "ts-r4"], trap="unnamed", at="10:15"),
            T("test_grid 的结果出来了吗？", [], trap="never_existed", at="10:20"),
        ],
    ),
    S(
        "codex",
        "2026-10-15 16:00",
        project="tabsense",
        turns=[
            T("r4 跑完了吗？", ["ts-r4"], trap="same_second", at="16:00"),
            R6("看看 r4 日志最后一行", "16:02"),
            T("r4 finished?", ["ts-r4"], trap="just_finished", at="16:04"),
        ],
    ),
    S(
        "hermes",
        "2026-10-15 16:30",
        turns=[
            T(
                "tabsense 的 r4 和 eval 都跑完了吗？",
                ["ts-r4", "ts-eval2"],
                trap="retry",
                at="16:30",
            ),
        ],
    ),
    S(
        "claude-code",
        "2026-10-15 18:00",
        project="tablekit",
        turns=[
            T("tabsense 那边的 r4 跑完了吗？", [], trap="other_project", at="18:00"),
            T("is the viznet eval done?", [], trap="other_project", at="18:03"),
            R6("bump the version to 0.4.1", "18:06"),
        ],
    ),
    S(
        "hermes",
        "2026-10-15 20:00",
        turns=[
            T("GBK ablation 什么状态？", ["ts-ablation"], trap="stale", at="20:00"),
        ],
    ),
    S(
        "codex",
        "2026-10-16 10:00",
        project="tabsense",
        turns=[
            T("ablation 跑完了吗？", ["ts-ablation"], trap="abandoned", at="10:00"),
            R6("把 GBK 标签的清洗脚本删掉", "10:05"),
        ],
    ),
    S(
        "claude-code",
        "2026-10-16 14:00",
        project="tablekit",
        turns=[
            R6("the PR got a review comment about the test name, fix it and push", "14:00"),
            T("where are we on the PR?", ["tk-pr"], trap="waiting", at="14:05"),
            T("is r7 done?", [], trap="never_existed", at="14:10"),
        ],
    ),
    S(
        "calendar",
        "2026-10-16 18:00",
        turns=[
            T("牙医预约好了吗？", ["home-dentist"], trap="personal", at="18:00"),
            T("训练跑完了吗？", [], trap="personal", at="18:05"),
        ],
    ),
    S(
        "hermes",
        "2026-10-16 18:30",
        turns=[
            T("牙医约好了没？", ["home-dentist"], trap="personal", at="18:30"),
        ],
    ),
    S(
        "hermes",
        "2026-10-17 10:00",
        turns=[
            T("数据增强那个实验跑完了吗？", [], trap="never_existed", at="10:00"),
            T("hanzi-ocr 的重训练跑完了吗？", [], trap="never_existed", at="10:03"),
            T("where are we on the v2 annotation export?", [], trap="never_existed", at="10:06"),
            T("is eval-7 finished?", [], trap="never_existed", at="10:09"),
        ],
    ),
    S(
        "claude-code",
        "2026-10-18 20:00",
        project="tablekit",
        turns=[
            T("r3 finished?", ["tk-r3"], trap="finished_days_ago", at="20:00"),
        ],
    ),
    S(
        "codex",
        "2026-10-18 21:00",
        project="tabsense",
        turns=[
            T("r3 还在跑吗？", ["ts-r3"], trap="stale", at="21:00"),
        ],
    ),
]
SESSIONS.extend(TASK_SESSIONS)


def build() -> list[Probe]:
    probes: list[Probe] = []
    for number, session in enumerate(SESSIONS, 1):
        agent, project = session["agent"], session["project"]
        start = dt.datetime.strptime(session["start"], "%Y-%m-%d %H:%M").replace(tzinfo=TZ)
        sid = f"{agent}-{start:%m%d-%H%M}"
        turns = session["turns"]
        at = start
        for i, turn in enumerate(turns):
            if "at" in turn:  # week 6: each turn's own clock time, next to the task events
                at = dt.datetime.combine(start.date(), dt.time.fromisoformat(turn["at"]), TZ)
            later = [t["prompt"] for t in turns[i + 1 :]]
            kind = turn["kind"]
            tags = [kind, *turn.get("tags", [])]
            if (lang := lang_tag(turn)) is not None:
                tags.append(lang)
            if kind == "task":
                tags.append(f"trap:{turn['trap']}")
            if agent in CODING and (kind == "status" or (kind == "task" and not turn["tasks"])):
                tags.append("routine")  # "is it done yet?" is routine for a coding agent
            gold = Gold(
                needs_memory=kind == "memory" or bool(turn.get("tasks")),
                necessary=turn.get("n", []),
                helpful=turn.get("h", []),
                harmful=turn.get("x", []),
                necessary_tasks=turn.get("tasks"),
                harmful_tasks=turn.get("xt") or None,
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


def write_task_events(path: Path) -> int:
    lines = sorted(TASK_EVENTS, key=lambda e: e["at"])
    path.write_text(
        "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in lines), encoding="utf-8"
    )
    return len(lines)


if __name__ == "__main__":
    out = Path(__file__).with_name("probes.jsonl")
    made = build()
    dump_probes(made, out)
    print(f"wrote {len(made)} probes to {out}")
    events = write_task_events(Path(__file__).with_name("task_events.jsonl"))
    print(f"wrote {events} task events")
