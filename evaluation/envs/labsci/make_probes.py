"""The labsci probes, written by hand as sessions; run this file to regenerate probes.jsonl.

Dr. Chen Yutong, a postdoc in a cell-biology lab, six weeks (Mon 2026-11-02 .. Sun
2026-12-13, UTC+8). Each session is what one agent heard from her in one sitting. A turn is
  R  a routine coding step that needs no memory (coding agents only; tagged ``routine``)
  C  chit-chat or a general request any agent can answer without memory
  M  a turn that needs memory: n = necessary card ids, h = helpful, x = harmful
A turn's follow-ups (judge only) are any extra words she said about it (``f``), then the
next turns of the same session, up to six. The previous turn is the prompt before it.

Language tags: an M turn gets ``lang:<prompt>-><card>``, <prompt> being en, zh or mixed
from the prompt's script, <card> the language of the necessary cards' L0 line (ZH_CARDS
below; none when they differ); other turns get ``lang:<prompt>``. ``bilingual`` marks an M
turn whose prompt is not in its card's language (mixed counts as bilingual).

Availability is by weekly snapshot: a card committed in week w is first seen by probes of
week w+1 (evaluation/harness/environment.py); the labels below follow that rule. Weeks 1-2 are dev,
weeks 3-6 test. Written before any measurement, without looking at the gate.

    .venv/bin/python evaluation/envs/labsci/make_probes.py
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from evaluation.harness.probes import Gold, Probe, Split, dump_probes
from evaluation.harness.turns import C, M, R, S, script

TZ = dt.timezone(dt.timedelta(hours=8))
DEV_UNTIL = dt.date(2026, 11, 16)  # weeks 1-2 are dev; from this Monday on, test
AGENTS = {"hermes": "full", "claude-code": "working", "pi": "working", "calendar": "personal"}
CODING = {"claude-code", "pi"}
CWD = {
    "cellquant": "/home/chen/code/cellquant",
    "rnaseq-smk": "/home/chen/code/rnaseq-smk",
    "mitoscreen": "/home/chen/code/mitoscreen",
}

# Cards whose L0 line is Chinese (a Chinese sentence with English terms counts as zh).
ZH_CARDS = {
    "reply-language",
    "stats-replicates",
    "file-naming",
    "no-rt-control",
    "lab-meeting",
    "confocal-maintenance",
    "usp7-ko-sgrna-stock",
    "usp7-ko-primers",
    "usp7-ko-ab-if",
    "usp7-ko-passage",
    "usp7-ko-puro-kill-curve",
    "usp7-ko-sanger",
    "usp7-ko-clones",
    "cellquant-tests",
    "cellquant-qpcr-export",
    "cellquant-ref-geomean",
    "rnaseq-smk-slurm",
    "rnaseq-smk-star-mem",
    "rnaseq-smk-strandedness",
    "mitoscreen-data",
    "mitoscreen-primers",
    "life-swim",
    "life-parents-saturday",
    "life-flight-chengdu",
}

# Similar cards a careless system confuses (the traps).
ENV_X = {
    "cellquant": ["mitoscreen-env", "rnaseq-smk-env"],
    "rnaseq-smk": ["cellquant-env", "mitoscreen-env"],
    "mitoscreen": ["cellquant-env", "rnaseq-smk-env"],
}
IMG_X = ["mitoscreen-data"]  # the archived screen's image folder vs the confocal raw folder
PRIMER_X = ["mitoscreen-primers"]
AB_IF_X = ["usp7-ko-ab-wb", "mitoscreen-tomm20"]
AB_WB_X = ["usp7-ko-ab-if", "mitoscreen-tomm20"]


def lang_tags(turn: dict[str, Any]) -> list[str]:
    said = script(turn["prompt"])
    if turn["kind"] != "memory":
        return [f"lang:{said}"]
    langs = {"zh" if i in ZH_CARDS else "en" for i in turn["n"]}
    if len(langs) != 1:
        return []
    card = langs.pop()
    return [f"lang:{said}->{card}", *(["bilingual"] if said != card else [])]


SESSIONS = [
    # ------------------------------------------------------------ week 1 (dev), snapshot 01
    S(
        "claude-code",
        "2026-11-02 09:50",
        project="cellquant",
        turns=[
            M(
                "环境装一下，装完跑个测试看看",
                n=["cellquant-env"],
                h=["cellquant-tests"],
                x=ENV_X["cellquant"],
                tags=("env", "cross_project"),
            ),
            R("ModuleNotFoundError: No module named 'tifffile' — add it to environment.yml"),
            R("add a unit test for normalise_ct with a tiny fake plate, 2 genes x 3 wells"),
            R("把 read_plate 里写死的路径去掉，改成参数"),
            M("ok commit", n=["commit-style"], tags=("convention",)),
        ],
    ),
    S(
        "hermes",
        "2026-11-02 13:20",
        turns=[
            C("下午好！今天先把 HeLa 复苏了"),
            M(
                "USP7 做 western 一抗稀释多少",
                n=["usp7-ko-ab-wb"],
                x=AB_WB_X,
                tags=("antibody", "cross_project"),
            ),
            C("thx. 顺便算一下 50 ml 5% BSA 要称多少"),
            M(
                "明天想约 confocal 下午 2 点到 6 点",
                n=["confocal-booking"],
                tags=("instrument", "no_cue"),
                f=("那就 2 点到 5 点吧",),
            ),
        ],
    ),
    S(
        "pi",
        "2026-11-02 16:05",
        project="rnaseq-smk",
        turns=[
            M(
                "dry-run the whole workflow on the cluster",
                n=["rnaseq-smk-slurm"],
                h=["rnaseq-smk-env"],
                x=["cellquant-env"],
                tags=("cluster",),
            ),
            R("MissingInputException for results/qc/fastqc — looks like a typo in the rule output"),
            R("add a multiqc rule that collects all the fastqc zips"),
            R("把 config.yaml 里的 threads 按 rule 分开写"),
            R("再 dry-run 一次"),
        ],
    ),
    S(
        "calendar",
        "2026-11-03 08:10",
        turns=[
            M(
                "friend wants hotpot this Fri 7pm, put it in",
                n=["life-swim"],
                tags=("conflict", "no_cue"),
                f=("oh right, swimming",),
            ),
            C("ok then make it Saturday 6pm instead"),
        ],
    ),
    S(
        "hermes",
        "2026-11-03 10:05",
        turns=[
            M("sgRNA 的 stock 放在哪", n=["usp7-ko-sgrna-stock"], tags=("location",)),
            M(
                "I'll thaw one Cas9 tube and use it for today's and tomorrow's "
                "nucleofection, fine?",
                n=["cas9-single-thaw"],
                tags=("pitfall", "no_cue"),
                f=("ugh ok, I'll thaw two",),
            ),
            C("besides TIDE, what else can quantify indels from Sanger traces?"),
        ],
    ),
    S(
        "claude-code",
        "2026-11-03 14:30",
        project="cellquant",
        turns=[
            R("plot_ddct 的 legend 挡住数据点了，挪到下面去"),
            R("the x axis labels overlap, rotate them 45 degrees"),
            M(
                "export it for the paper figure",
                n=["figure-style"],
                tags=("figure", "no_cue"),
            ),
            R("add an --out option to the CLI"),
        ],
    ),
    S(
        "hermes",
        "2026-11-03 21:40",
        turns=[
            C("今天累死了，推荐个二十分钟以内的播客"),
            C("算了，帮我写三句 lab meeting 的开场白，讲 USP7 敲除的进展"),
        ],
    ),
    S(
        "pi",
        "2026-11-04 09:30",
        project="rnaseq-smk",
        turns=[
            R("add a fastp trimming rule, paired-end"),
            R("fastp 的参数放到 config 里"),
            M(
                "now the alignment rule, point STAR at the genome index",
                n=["rnaseq-smk-reference"],
                tags=("path", "no_cue"),
            ),
            R("write the featureCounts rule"),
            R("run snakefmt on the Snakefile"),
        ],
    ),
    S(
        "hermes",
        "2026-11-04 11:00",
        turns=[
            M(
                "for the qPCR, can I count my three wells per sample as n=3?",
                n=["stats-replicates"],
                tags=("stats",),
            ),
            M(
                "and which test for WT vs KO",
                n=["stats-tests"],
                h=["stats-replicates"],
                tags=("stats",),
            ),
        ],
    ),
    S(
        "claude-code",
        "2026-11-04 15:10",
        project="mitoscreen",
        turns=[
            M(
                "need the old mito segmentation on plate 3 to compare with the new stuff, "
                "get it running",
                n=["mitoscreen-env"],
                h=["mitoscreen-data"],
                x=["cellquant-env", "cellquant-confocal-raw"],
                tags=("env", "cross_project"),
            ),
            R("stardist 报 tensorflow 版本不对，看一下"),
            M(
                "读图的路径对吗？plate 3 应该在 phenix 导出的那个目录",
                n=["mitoscreen-data"],
                x=["cellquant-confocal-raw"],
                tags=("path", "cross_project"),
            ),
            R("ok, save the masks as png next to the csv"),
        ],
    ),
    S(
        "calendar",
        "2026-11-05 12:00",
        turns=[
            C("下周一下午两点提醒我交报销单"),
            M(
                "Lisa wants to video chat Sunday 8pm, ok?",
                n=["life-parents-sunday"],
                tags=("conflict", "no_cue"),
            ),
        ],
    ),
    S(
        "hermes",
        "2026-11-05 16:30",
        turns=[
            M(
                "U2OS 现在 P22，再养两周做实验可以吗",
                n=["usp7-ko-passage"],
                tags=("cells",),
            ),
            M(
                "转完之后 puro 选多少浓度、几天",
                n=["usp7-ko-puro-2ug"],
                tags=("protocol",),
            ),
            C("好吧。U2OS 倍增时间大概多少"),
            M(
                "今天 HeLa KO 克隆筛选的 WB 图，帮我起个文件名",
                n=["file-naming"],
                tags=("convention",),
            ),
        ],
    ),
    S(
        "pi",
        "2026-11-06 10:20",
        project="rnaseq-smk",
        turns=[
            R("add config schema validation with snakemake's validate()"),
            R("写个 unit test 检查 samples.tsv 的列名"),
            R("run the tests"),
            M("commit", n=["commit-style"], tags=("convention",)),
        ],
    ),
    # ------------------------------------------------------------ week 2 (dev), snapshot 03
    S(
        "claude-code",
        "2026-11-09 10:00",
        project="cellquant",
        turns=[
            M(
                "读一下这个 QuantStudio 导出的 data/qpcr/20261106_USP7_qPCR_HeLa.xls",
                n=["cellquant-qpcr-export"],
                tags=("format",),
            ),
            R("CT 列读进来是字符串，转成 numeric"),
            M(
                "now ΔΔCt for USP7, KO vs WT",
                n=["cellquant-ref-gapdh"],
                tags=("analysis", "no_cue"),
            ),
            R("add a test for the ΔΔCt function with a hand-computed example"),
            M("全部测试跑一遍", n=["cellquant-tests"], tags=("tests",)),
        ],
    ),
    S(
        "hermes",
        "2026-11-09 14:00",
        turns=[
            M("Sanger 送样找谁，几点前要送到", n=["usp7-ko-sanger"], tags=("core",)),
            M(
                "how concentrated should the PCR product be for them",
                n=["usp7-ko-sanger"],
                tags=("core",),
            ),
        ],
    ),
    S(
        "pi",
        "2026-11-10 09:40",
        project="rnaseq-smk",
        turns=[
            M(
                "star_align 在集群上挂了，log 最后就一行 Killed",
                n=["rnaseq-smk-star-mem"],
                tags=("pitfall",),
            ),
            R("add a benchmark directive to star_align"),
            R("把所有 rule 的 log 统一放到 logs/{rule}/{sample}.log"),
            R("dry-run again"),
        ],
    ),
    S(
        "hermes",
        "2026-11-10 11:30",
        turns=[
            M(
                "明天 U2OS 做 RNP nucleofection，用哪个 program",
                n=["usp7-ko-nucleofection"],
                tags=("protocol",),
            ),
            M("and how many cells per well", n=["usp7-ko-nucleofection"], tags=("protocol",)),
            M(
                "Cas9 我打算把昨天剩的那管也用掉",
                n=["cas9-single-thaw"],
                tags=("pitfall", "no_cue"),
            ),
            M(
                "want to image the IF slides on the 980 Thursday afternoon",
                n=["confocal-maintenance"],
                h=["confocal-booking"],
                tags=("instrument", "expiry_valid"),
            ),
            C("ok, draft a short WeChat message asking for Thursday 2-5pm"),
        ],
    ),
    S(
        "claude-code",
        "2026-11-11 10:30",
        project="cellquant",
        turns=[
            R("refactor plot_ddct into prepare_ddct_data and draw_ddct"),
            R("把 read_plate 拆成两个函数：读文件和清洗分开"),
            R("the snapshot test for draw_ddct should use vdiffr"),
            M(
                "commit and push to a new branch qpcr-refactor",
                n=["commit-style"],
                tags=("convention",),
            ),
        ],
    ),
    S(
        "claude-code",
        "2026-11-12 14:00",
        project="mitoscreen",
        turns=[
            M(
                "把这个 repo 的环境激活一下，我要导出 plate 3 的 mask 跟新的分割比",
                n=["mitoscreen-env"],
                x=["cellquant-env"],
                tags=("env", "cross_project"),
            ),
            R("write a script that computes IoU between two mask folders"),
            R("add a tqdm progress bar"),
        ],
    ),
    S(
        "hermes",
        "2026-11-13 09:20",
        turns=[
            C("早。帮我把这段 methods 翻成英文：细胞用 4% 多聚甲醛固定 15 分钟，PBS 洗三次。"),
            M(
                "再补一句 USP7 一抗的浓度和孵育条件，IF 的",
                n=["usp7-ko-ab-if"],
                x=AB_IF_X,
                tags=("antibody", "cross_project"),
            ),
            M("and the secondary?", n=["usp7-ko-ab-if"], tags=("antibody",)),
        ],
    ),
    S(
        "calendar",
        "2026-11-13 18:30",
        turns=[
            M(
                "下周二晚上 7 点半 seminar 的晚饭，帮我接受",
                n=["life-swim"],
                tags=("conflict", "no_cue"),
            ),
            C("还是去吧，这次不游了"),
        ],
    ),
    S(
        "hermes",
        "2026-11-14 15:00",
        turns=[
            C("周六还在实验室，讲个笑话"),
            M(
                "the -20 with my qPCR primers, which one is it",
                n=["usp7-ko-primers"],
                x=PRIMER_X,
                tags=("location", "cross_project"),
            ),
        ],
    ),
    # ------------------------------------------------------------ week 3 (test), snapshot 05
    S(
        "hermes",
        "2026-11-16 09:30",
        turns=[
            M(
                "帮我查一下 qPCR 的 primer 存在哪个 -20 冰箱",
                n=["usp7-ko-primers"],
                x=PRIMER_X,
                tags=("location", "cross_project", "archived"),
            ),
            M(
                "U2OS 转完之后 puro 加多少",
                n=["usp7-ko-puro-kill-curve"],
                x=["usp7-ko-puro-2ug"],
                tags=("protocol", "superseded"),
            ),
            C("ok 谢谢"),
        ],
    ),
    S(
        "claude-code",
        "2026-11-16 11:00",
        project="cellquant",
        turns=[
            M(
                "segment the nuclei in the new confocal set from 11-13",
                n=["cellquant-cellpose"],
                h=["cellquant-confocal-raw"],
                x=[*IMG_X, "mitoscreen-env"],
                tags=("imaging", "cross_project", "archived"),
            ),
            R("集群节点没 GPU 的时候 cellpose 要 fallback 到 CPU"),
            R("add a --diameter flag that defaults to the config value"),
            R("write the nucleus count per image to a tsv"),
            M(
                "where should the output go",
                n=["cellquant-confocal-raw"],
                x=IMG_X,
                tags=("path", "archived"),
            ),
        ],
    ),
    S(
        "pi",
        "2026-11-16 15:00",
        project="rnaseq-smk",
        turns=[
            R(
                "fastq for the USP7 run arrived, generate config/samples.tsv from "
                "/data/wanglab/seq/2026_usp7_rnaseq/raw_fastq/"
            ),
            R("检查一下 md5"),
            M(
                "then submit the full run",
                n=["rnaseq-smk-slurm"],
                h=["rnaseq-smk-star-mem"],
                tags=("cluster", "no_cue"),
            ),
            R("tell me when star_align starts running in the queue"),
        ],
    ),
    S(
        "hermes",
        "2026-11-17 10:15",
        turns=[
            M("Novogene 那边的订单号多少，我要催数据", n=["usp7-ko-rnaseq-order"], tags=("core",)),
            C("帮我写封邮件问 QC 报告什么时候发"),
        ],
    ),
    S(
        "calendar",
        "2026-11-18 08:00",
        turns=[
            M("猫打疫苗是哪天", n=["life-cat-vaccine"], tags=("date",)),
            C("提前一天提醒我"),
        ],
    ),
    S(
        "hermes",
        "2026-11-18 13:00",
        turns=[
            M(
                "can I get the 980 tomorrow 10 to 12",
                n=["confocal-maintenance"],
                h=["confocal-booking"],
                tags=("instrument", "expiry_valid"),
            ),
            C("fine, SP8 then"),
            C("今天 WB 又花了，心累"),
            C("what usually causes a smeared western"),
            M("准备组会 slides 了，几点前要发给老师", n=["lab-meeting"], tags=("habit",)),
        ],
    ),
    S(
        "pi",
        "2026-11-19 10:00",
        project="rnaseq-smk",
        turns=[
            R("featureCounts failed with 'No such file', the path has a double slash"),
            R("把 featureCounts 的输出合并成一个 count matrix"),
            R("add a small R script that loads the matrix into a DESeqDataSet"),
            M("commit these", n=["commit-style"], tags=("convention",)),
        ],
    ),
    S(
        "claude-code",
        "2026-11-20 15:00",
        project="cellquant",
        turns=[
            R("the boxplot shows outlier points twice with the jitter on top, hide the outliers"),
            M(
                "pick colours for WT / KO in plot_ddct",
                n=["palette-viridis"],
                h=["figure-style"],
                tags=("figure", "no_cue"),
            ),
            R("facet by cell line"),
            M("加上 error bar", n=["stats-tests"], tags=("stats", "no_cue")),
        ],
    ),
    S(
        "calendar",
        "2026-11-21 11:00",
        turns=[
            C("下周三下午 3 点约了 HR，加到日历"),
            C("remind me 30 min before"),
        ],
    ),
    S(
        "hermes",
        "2026-11-22 21:00",
        turns=[
            C("明天要早起，帮我列个周一 to-do：传代、提 RNA、写 methods"),
            M("传代那个，U2OS 今天 P24 了", n=["usp7-ko-passage"], tags=("cells", "no_cue")),
        ],
    ),
    # ------------------------------------------------------------ week 4 (test), snapshot 07
    S(
        "claude-code",
        "2026-11-23 09:45",
        project="cellquant",
        turns=[
            M(
                "rerun the ΔΔCt on the 11-20 plate",
                n=["cellquant-ref-geomean"],
                h=["cellquant-qpcr-export"],
                x=["cellquant-ref-gapdh"],
                tags=("analysis", "superseded"),
            ),
            R("the geometric mean returns NaN when one Ct is NA, handle that"),
            R("add a test for the NA case"),
            R("looks good, push"),
        ],
    ),
    S(
        "pi",
        "2026-11-23 14:00",
        project="rnaseq-smk",
        turns=[
            M("featureCounts 的 strandedness 设成什么", n=["rnaseq-smk-strandedness"]),
            R("make -s a config value instead of hard-coding it"),
            R("rerun featureCounts and everything downstream with --forcerun"),
            R("the multiqc report has no featureCounts section, fix the search path"),
        ],
    ),
    S(
        "hermes",
        "2026-11-23 17:30",
        turns=[
            M(
                "which KO clones are confirmed? writing the summary for Prof. Wang",
                n=["usp7-ko-clones"],
                tags=("result",),
            ),
            M("U2OS 的那个呢", n=["usp7-ko-clones"], tags=("result",)),
            M(
                "U2OS 要重做的话 puro 用多少",
                n=["usp7-ko-puro-kill-curve"],
                x=["usp7-ko-puro-2ug"],
                tags=("protocol", "superseded"),
            ),
            C("润色一下：We generated USP7 knockout HeLa cells using CRISPR/Cas9 RNP."),
        ],
    ),
    S(
        "hermes",
        "2026-11-24 10:00",
        turns=[
            M(
                "约 confocal 周四上午",
                n=["confocal-booking"],
                x=["confocal-maintenance"],
                tags=("instrument", "expired"),
            ),
            C("what's the difference between Airyscan and normal confocal mode on the 980"),
        ],
    ),
    S(
        "calendar",
        "2026-11-23 19:00",
        turns=[
            M(
                "周日晚上八点同学聚会，加上",
                n=["life-parents-sunday"],
                tags=("conflict", "no_cue"),
            ),
            C("那改到周日中午吧"),
        ],
    ),
    S(
        "claude-code",
        "2026-11-25 10:30",
        project="cellquant",
        turns=[
            R("写个函数，用 Cellpose 的 mask 算每个细胞的 USP7 荧光强度"),
            R("background subtraction with a rolling ball, radius 50"),
            M(
                "now point it at the raw confocal images from 11-20",
                n=["cellquant-confocal-raw"],
                x=IMG_X,
                tags=("path", "no_cue", "archived"),
            ),
            R("parallelise over images with joblib"),
            M("commit", n=["commit-style"], tags=("convention",)),
        ],
    ),
    S(
        "pi",
        "2026-11-25 15:30",
        project="rnaseq-smk",
        turns=[
            M(
                "add a check rule that every fastq in samples.tsv exists under the raw data folder",
                n=["rnaseq-smk-fastq"],
                x=["cellquant-confocal-raw"],
                tags=("path", "cross_project"),
            ),
            R("make it fail with a clear message listing the missing files"),
            R("写个 test 覆盖这个 rule"),
        ],
    ),
    S(
        "hermes",
        "2026-11-26 12:30",
        turns=[
            M(
                "ΔΔCt 我们现在用什么内参？审稿人问了",
                n=["cellquant-ref-geomean"],
                x=["cellquant-ref-gapdh"],
                tags=("analysis", "superseded"),
            ),
            C("write one sentence justifying two reference genes instead of one"),
        ],
    ),
    S(
        "hermes",
        "2026-11-26 21:00",
        turns=[
            C("晚上吃什么，冰箱只有鸡蛋和番茄"),
            C("ok 番茄炒蛋 recipe pls"),
        ],
    ),
    S(
        "calendar",
        "2026-11-27 09:00",
        turns=[
            M(
                "lab farewell dinner for 小李 tonight 7:30, add it",
                n=["life-swim"],
                tags=("conflict", "no_cue"),
            ),
            C("yes keep it, I'll skip the pool"),
        ],
    ),
    S(
        "claude-code",
        "2026-11-27 14:00",
        project="cellquant",
        turns=[
            R("R CMD check fails on CI because of a missing Suggests entry"),
            R("bump the version to 0.4.0 and update NEWS.md"),
            R("tag the release"),
        ],
    ),
    # ------------------------------------------------------------ week 5 (test), snapshot 09
    S(
        "claude-code",
        "2026-11-30 10:00",
        project="cellquant",
        turns=[
            R("plot_intensity 的 y 轴改成 log10"),
            M(
                "colours for WT / KO / rescue",
                n=["palette-okabe-ito"],
                x=["palette-viridis"],
                tags=("figure", "superseded", "no_cue"),
            ),
            R("put n per group as text above each group"),
            M("存成论文用的图", n=["figure-style"], tags=("figure",)),
        ],
    ),
    S(
        "pi",
        "2026-11-30 14:30",
        project="rnaseq-smk",
        turns=[
            M("write the DESeq2 rule", n=["rnaseq-smk-deseq-design"], tags=("analysis",)),
            R("export the results as tsv with gene symbols from the GTF"),
            R("volcano plot, label the top 20 genes"),
            M(
                "颜色按我的习惯来，up / down / ns",
                n=["palette-okabe-ito"],
                x=["palette-viridis"],
                tags=("figure", "superseded"),
            ),
            R("dry-run, then run it"),
        ],
    ),
    S(
        "calendar",
        "2026-12-01 08:30",
        turns=[
            M(
                "周六上午十点约个理发可以吗",
                n=["life-parents-saturday", "life-cat-vaccine"],
                x=["life-parents-sunday"],
                tags=("conflict", "superseded"),
            ),
            C("那下午两点"),
        ],
    ),
    S(
        "hermes",
        "2026-12-01 11:00",
        turns=[
            M("去成都是几号，航班几点", n=["life-flight-chengdu"], tags=("personal",)),
            C("成都 12 月大概多冷"),
            M(
                "USP7 IF 一抗稀释多少",
                n=["usp7-ko-ab-if"],
                x=AB_IF_X,
                tags=("antibody", "cross_project"),
            ),
            M(
                "co-stain with TOMM20, what dilution did I use in the mito screen",
                n=["mitoscreen-tomm20"],
                x=["usp7-ko-ab-if"],
                tags=("antibody", "archived"),
            ),
            C("thanks"),
        ],
    ),
    S(
        "claude-code",
        "2026-12-02 10:00",
        project="cellquant",
        turns=[
            R("add a function that merges qPCR and imaging results by sample id"),
            R("sample id 格式不统一，有的带日期有的不带，写个 normalise_sample_id"),
            R("unit test for normalise_sample_id"),
            M("ok run the whole test suite", n=["cellquant-tests"], tags=("tests",)),
            R("both green, push"),
        ],
    ),
    S(
        "hermes",
        "2026-12-02 20:00",
        turns=[
            C("王老师想投 JCB，帮我列一下 JCB 对 figure 的要求"),
            M("我们自己的图是 Arial 几号来着", n=["figure-style"], tags=("figure",)),
        ],
    ),
    S(
        "pi",
        "2026-12-03 10:30",
        project="rnaseq-smk",
        turns=[
            R("add GO enrichment with clusterProfiler as a new rule"),
            R("cache the OrgDb download so it doesn't fetch every run"),
            M(
                "build a salmon index next to the STAR one",
                n=["rnaseq-smk-reference"],
                tags=("path", "no_cue"),
            ),
            R("write the salmon_index rule"),
        ],
    ),
    S(
        "calendar",
        "2026-12-04 09:00",
        turns=[
            M("明天上午提醒我带猫出门", n=["life-cat-vaccine"], tags=("date", "no_cue")),
            C("ok"),
        ],
    ),
    S(
        "hermes",
        "2026-12-05 14:00",
        turns=[
            C("周末了，推荐一部电影"),
            C("something light, in English"),
        ],
    ),
    # ------------------------------------------------------------ week 6 (test), snapshot 10
    S(
        "claude-code",
        "2026-12-07 09:30",
        project="cellquant",
        turns=[
            M(
                "新的一批 confocal 20261204 跑一下 segmentation",
                n=["cellquant-cellpose"],
                h=["cellquant-confocal-raw"],
                x=[*IMG_X, "mitoscreen-env"],
                tags=("imaging", "archived"),
            ),
            R("some images are empty, skip them with a warning"),
            R("summarise per-cell intensity by genotype"),
            R("把 summary 写成 Excel，每个 genotype 一个 sheet"),
            M("commit with a sensible message", n=["commit-style"], tags=("convention",)),
        ],
    ),
    S(
        "pi",
        "2026-12-07 14:00",
        project="rnaseq-smk",
        turns=[
            M(
                "re-run on the cluster with the updated config",
                n=["rnaseq-smk-slurm"],
                h=["rnaseq-smk-env"],
                x=["cellquant-env"],
                tags=("cluster",),
            ),
            R("snakemake says the directory is locked, unlock it"),
            R("why is deseq2 rerunning? check the rerun triggers"),
            R("use --rerun-triggers mtime"),
        ],
    ),
    S(
        "hermes",
        "2026-12-08 10:00",
        turns=[
            M("rescue 的质粒放哪了", n=["usp7-ko-rescue-plasmids"], tags=("location",)),
            M(
                "which HeLa clones should get the rescue",
                n=["usp7-ko-clones"],
                tags=("result",),
            ),
            M(
                "book the 980 Thursday 9 to 5 for the rescue IF",
                n=["confocal-booking"],
                x=["confocal-maintenance"],
                tags=("instrument", "expired"),
            ),
        ],
    ),
    S(
        "hermes",
        "2026-12-09 11:00",
        turns=[
            M("19 号的飞机几点，我要叫车去机场", n=["life-flight-chengdu"], tags=("personal",)),
            C("从徐汇到虹桥 T2 一般要多久"),
        ],
    ),
    S(
        "claude-code",
        "2026-12-09 15:00",
        project="cellquant",
        turns=[
            R("the joblib workers leak memory, use processes with max_tasks_per_child"),
            R("add a --jobs option"),
            M(
                "now do the qPCR for the rescue plate, data/qpcr/20261208_USP7_rescue.xls",
                n=["cellquant-qpcr-export", "cellquant-ref-geomean"],
                x=["cellquant-ref-gapdh"],
                tags=("analysis", "superseded", "no_cue"),
            ),
            R("plot it next to the imaging summary"),
        ],
    ),
    S(
        "pi",
        "2026-12-10 10:00",
        project="rnaseq-smk",
        turns=[
            R("add a rule for a PCA plot from the vst counts"),
            R("colour the PCA by genotype, shape by batch"),
            M(
                "which extraction day is batch A",
                n=["rnaseq-smk-deseq-design"],
                tags=("analysis",),
            ),
            M("commit", n=["commit-style"], tags=("convention",)),
        ],
    ),
    S(
        "hermes",
        "2026-12-11 10:00",
        turns=[
            M(
                "new Cas9 lot arrived, how should I aliquot and store it",
                n=["cas9-single-thaw"],
                tags=("pitfall",),
            ),
            M(
                "sgRNA stocks in the same freezer?",
                n=["usp7-ko-sgrna-stock"],
                h=["cas9-single-thaw"],
                tags=("location",),
            ),
        ],
    ),
    S(
        "calendar",
        "2026-12-12 10:00",
        turns=[
            M(
                "下周五晚上给我空出来收拾行李",
                n=["life-swim"],
                h=["life-flight-chengdu"],
                tags=("conflict", "no_cue"),
            ),
            C("游泳那天就不去了"),
        ],
    ),
]


def build() -> list[Probe]:
    probes: list[Probe] = []
    ordered = sorted(SESSIONS, key=lambda s: s["start"])
    for number, session in enumerate(ordered, 1):
        agent, project = session["agent"], session["project"]
        if (agent in CODING) != (project is not None):
            raise ValueError(f"session {session['start']}: coding agents (only) name a project")
        start = dt.datetime.strptime(session["start"], "%Y-%m-%d %H:%M").replace(tzinfo=TZ)
        sid = f"{agent}-{start:%m%d-%H%M}"
        turns = session["turns"]
        at = start
        for i, turn in enumerate(turns):
            kind = turn["kind"]
            if kind == "routine" and agent not in CODING:
                raise ValueError(f"routine turn outside a coding session: {turn['prompt']!r}")
            tags = [kind, *turn.get("tags", []), *lang_tags(turn)]
            if kind == "memory" and agent in CODING:
                tags.append("first_turn" if i == 0 else "later_turn")
            probes.append(
                Probe(
                    id=f"l{number:02d}-{i + 1}",
                    session_id=sid,
                    agent=agent,
                    profile=AGENTS[agent],
                    timestamp=at,
                    prompt=turn["prompt"],
                    previous_turn=turns[i - 1]["prompt"] if i else None,
                    cwd=CWD[project] if project else None,
                    turn=i + 1,
                    split=Split.dev if at.date() < DEV_UNTIL else Split.test,
                    tags=sorted(set(tags)),
                    follow_ups=[*turn["f"], *(t["prompt"] for t in turns[i + 1 :])][:6],
                    gold=Gold(
                        needs_memory=kind == "memory",
                        necessary=turn.get("n", []),
                        helpful=turn.get("h", []),
                        harmful=turn.get("x", []),
                    ),
                )
            )
            at += dt.timedelta(minutes=3 + (5 * (i + number)) % 7)
    return probes


if __name__ == "__main__":
    out = Path(__file__).with_name("probes.jsonl")
    made = build()
    dump_probes(made, out)
    print(f"wrote {len(made)} probes to {out}")
