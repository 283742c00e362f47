"""The dataeng environment's probes, written by hand as sessions; run to regenerate probes.jsonl.

Ho Ka-yan (何嘉欣), a data engineer at a small payments-reconciliation fintech, between
Shenzhen and Hong Kong (UTC+8), over six weeks (Mon 2026-11-02 .. Sun 2026-12-13). Each
session is what one agent heard from her in one sitting. A turn is one of
  R  a routine step of coding work that needs no memory (tagged "routine")
  C  chit-chat or a general question that needs no memory (hermes and calendar)
  M  a turn that needs memory: n = necessary card ids, h = helpful, x = harmful
A turn's follow-ups (judge only) are the extra words in ``f``, then the next turns of the
session, up to six. The previous turn is the prompt before it.

Tags, besides the kind: ``lang:<prompt>-><card>`` on memory turns, where <prompt> is the
prompt's script (en, zh, or mixed when it has both Han and Latin letters) and <card> the
language of the necessary cards' conclusions (zh when a fifth or more of its letters are
Han); none when the necessary cards are in both languages. Other turns get
``lang:<prompt>``. Derived from the cards: ``cross_project`` (a harmful card of another
project), ``superseded`` (a harmful card that a card of the snapshot supersedes),
``expired`` (a harmful card past its ``expires`` date), ``first_turn`` / ``later_turn`` (a
memory turn of a coding session at turn 1 / turn 3 or later). By hand: ``cue`` (the prompt
says "as usual", "照旧" or the like), ``archived`` (work in the archived settle-legacy
project).

A card committed in week w is first seen by probes of week w+1 (evaluation/harness/environment.py);
the labels follow that, and ``check_snapshot`` below refuses a label that breaks it. Weeks
1-2 are dev, weeks 3-6 test.

    .venv/bin/python evaluation/envs/dataeng/make_probes.py
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import yaml

from evaluation.harness.probes import Gold, Probe, Split, dump_probes
from evaluation.harness.turns import C, M, R, script

HERE = Path(__file__).parent
TZ = dt.timezone(dt.timedelta(hours=8))
DEV_UNTIL = dt.date(2026, 11, 16)
AGENTS = {"hermes": "full", "claude-code": "working", "codex": "working", "calendar": "personal"}
CODING = {"claude-code", "codex"}
CODE = "/home/kayan/code"


def S(
    agent: str,
    start: str,
    turns: list[dict[str, Any]],
    project: str | None = None,
    cwd: str | None = None,
) -> dict[str, Any]:
    if agent in CODING:
        cwd = f"{CODE}/{project}"
    return {"agent": agent, "start": start, "project": project, "cwd": cwd, "turns": turns}


# fmt: off
SESSIONS = [
    # ------------------------------------------------------------ week 1 (dev), 11-02 .. 11-08
    S("claude-code", "2026-11-02 09:20", project="recon-pipeline", turns=[
        M("new mac, get recon running locally pls", n=["recon-dev-setup"],
          h=["python-uv-ruff", "secrets-kms"], x=["fx-gradle-jdk17", "settle-legacy-run"],
          f=("uv sync ok, dbt debug passes",)),
        R("dbt compile: ref('int_recon_match') not found, it's int_recon__match now, fix the refs"),
        R("add accepted_values on stg_acquirer_a__settlements.status"),
        R("跑一下 dbt build -s stg_acquirer_a__settlements+"),
        M("commit, ticket PAY-418", n=["commit-style"]),
    ]),
    S("codex", "2026-11-02 14:00", project="fx-rates-service", turns=[
        R("add GET /v1/rates/{pair}/history?from=&to=, reuse RateDto"),
        R("写个 MockMvc test"),
        M("rate comes back as 7.8123000000000001 in the json, sort it out", n=["money-decimal"]),
        R("ktlint: wildcard import in RateService.kt"),
        M("put it on staging so Rajesh can try", n=["fx-deploy-argocd"],
          h=["fx-treasury-contact"], x=["recon-deploy-dags"]),
    ]),
    S("calendar", "2026-11-03 08:10", turns=[
        M("Rajesh wants a call thu 9am, ok?", n=["home-commute-hk-days"]),
        C("10:30 then"),
        M("周四晚同 Tsz-hin 食饭得唔得", n=["home-running-club"]),
    ]),
    S("claude-code", "2026-11-03 10:30", project="infra", turns=[
        R("add a var for the ACK node pool size, default 3"),
        R("terraform fmt + validate"),
        M("plan looks ok, apply it", n=["infra-terraform-atlantis"],
          x=["recon-deploy-dags", "fx-deploy-argocd"]),
        R("tflint: unused variable vpc_cidr in modules/rds"),
    ]),
    S("codex", "2026-11-03 15:00", project="recon-pipeline", turns=[
        M("开始写 acquirer B 嘅 settlement model，新 model 叫咩名", n=["recon-dbt-naming"],
          h=["sql-style"]),
        R("source freshness for acquirer_b.settlements, warn after 26h"),
        M("make it incremental, table's 40M rows", n=["recon-incremental-lookback"]),
        R("dbt test 挂咗两个，睇下"),
        M("want to paste some sample rows in the PR description, ok?", n=["pii-masking"]),
    ]),
    S("claude-code", "2026-11-04 11:00", project="recon-pipeline", turns=[
        R("recon_nightly: the task prints the whole dataframe to the log, drop that"),
        M("txns between 00:00 and 08:00 land on the previous business_date, 点解",
          n=["utc-hkt-business-date"]),
        R("add a test for that, one txn at 2026-10-31T16:30:00Z"),
        M("backfill fct_recon_breaks for all of October", n=["recon-airflow-pools"],
          h=["recon-incremental-lookback"]),
        M("merge it, can it go out today?", n=["recon-freeze-oct-close"],
          h=["recon-deploy-dags"]),
    ]),
    S("codex", "2026-11-05 10:00", project="fx-rates-service", turns=[
        M("need a source col on fx_fix, varchar(16) not null default 'REFINITIV'",
          n=["fx-flyway-migrations"]),
        R("expose source in RateDto"),
        R("./gradlew test 挂咗，FixSchedulerTest"),
        M("provider gives me 401 locally, where's the key supposed to come from",
          n=["fx-env-secrets"], h=["secrets-kms"]),
    ]),
    S("codex", "2026-11-06 14:30", project="recon-pipeline", turns=[
        M("dbt 跑完 fct 表去咗边个 db？metabase 搵唔到", n=["recon-marts-postgres"],
          h=["recon-dev-setup"]),
        R("帮 fct_recon_breaks 补个 docs block"),
        R("accepted_values on status fails, REVERSED showed up, add it"),
        M("PR up, Tsz-hin's off today, can I just merge", n=["code-review-one-approval"]),
    ]),
    S("calendar", "2026-11-07 09:00", turns=[
        C("今日落唔落雨"),
        M("朋友約我今朝十點半飲茶，得唔得", n=["home-opera-saturday"]),
        C("咁改聽日"),
    ]),
    S("hermes", "2026-11-08 16:00", turns=[
        C("recommend a payments-infra podcast, ~30min episodes"),
        M("next week anything fixed I should know about, esp wed morning",
          n=["home-mum-hospital"], h=["oncall-rota-nov"]),
        C("draft a slack msg to the team saying I'm out wed morning"),
    ]),
    # ------------------------------------------------------------ week 2 (dev), 11-09 .. 11-15
    S("claude-code", "2026-11-09 09:30", project="recon-pipeline", turns=[
        M("pagerduty: recon_nightly SLA miss. how long have I got before finance notices",
          n=["recon-sla"], h=["recon-finance-contact"]),
        R("寻晚边几个 task 最慢"),
        R("int_recon__match: filter before the join, it scans all of raw"),
        M("some txn_ids show up twice in raw.gateway_events, dedupe in the model?",
          n=["recon-clickhouse-pitfalls"]),
        M("ok ship the fix", n=["recon-deploy-dags"],
          x=["recon-freeze-oct-close", "fx-deploy-argocd"]),
    ]),
    S("codex", "2026-11-09 14:00", project="fx-rates-service", turns=[
        R("provider timeout 5s -> 3s, one retry"),
        R("micrometer counter for provider errors"),
        M("Rajesh says friday's fix doesn't match what he sees, which snapshot do we take?",
          n=["fx-rates-fix-1600"], h=["utc-hkt-business-date"]),
        R("retry 改用 resilience4j，唔好自己写 loop"),
    ]),
    S("hermes", "2026-11-09 20:00", turns=[
        M("on call this week right? anything I missed at handover", n=["oncall-rota-nov"]),
        C("how do I stop pagerduty ringing for low-urgency stuff at night"),
        C("ok and for high urgency only between 23:00 and 07:00?"),
    ]),
    S("codex", "2026-11-10 10:00", project="recon-pipeline", turns=[
        R("add a seed for acquirer codes, csv with code,name"),
        M("pull some prod rows into my dev schema so I can test matching",
          n=["prod-access-bastion"], h=["pii-masking"]),
        R("dbt seed 失败，type 推断错咗，force varchar"),
        M("fee_amount sum is 0.01 off vs the bank file", n=["money-decimal"],
          h=["recon-clickhouse-pitfalls"]),
    ]),
    S("claude-code", "2026-11-11 14:00", project="infra", turns=[
        R("move the SG rules into security_groups.tf"),
        M("rotate the clickhouse admin password, where does the new one go",
          n=["secrets-kms"], h=["infra-terraform-atlantis"], x=["fx-env-secrets"]),
        R("terraform validate"),
        R("tflint: deprecated interpolation in modules/ack/main.tf"),
    ]),
    S("hermes", "2026-11-11 21:00", turns=[
        C("阿媽今日覆診話血壓偏高，有咩低鹽餸推介"),
        M("稅單要幾時交？幾多錢", n=["home-tax-hk"]),
        C("PPS 點交，step by step"),
    ]),
    S("claude-code", "2026-11-13 10:00", project="recon-pipeline", turns=[
        R("rename merchant_ref to merchant_reference in the stg and int models"),
        R("dbt docs generate errors on a missing description, fix"),
        R("run the tests for everything downstream of stg_wallet__transactions"),
        M("照旧 commit, PAY-425", n=["commit-style"], tags=("cue",)),
    ]),
    S("calendar", "2026-11-14 09:00", turns=[
        M("阿美約我今朝十點去試瑜伽堂", n=["home-opera-saturday"]),
        C("remind me to buy 戲服布料 after class"),
    ]),
    S("hermes", "2026-11-15 19:00", turns=[
        C("ClickHouse 同 Postgres 嘅 window function 有咩分别"),
        M("Rajesh asked which rate we use for daily recon, the 4pm or EOD?",
          n=["fx-rates-fix-1600"], h=["fx-treasury-contact"]),
        C("thx"),
    ]),
    # ------------------------------------------------------------ week 3 (test), 11-16 .. 11-22
    S("claude-code", "2026-11-16 09:30", project="recon-pipeline", turns=[
        M("fct_recon_breaks 而家 build 去边？target 用边个", n=["recon-marts-clickhouse"],
          x=["recon-marts-postgres"]),
        R("dbt-clickhouse: engine config missing on fct_recon_breaks, "
          "MergeTree order by (business_date, merchant_id)"),
        R("跑 dbt build -s fct_recon_breaks --target dev"),
        M("amount_hkd sum differs between pg and ch by a few cents", n=["money-decimal"],
          h=["recon-clickhouse-pitfalls"]),
        M("PR 描述用中文写得唔得？Wing 都要睇", n=["reply-language"]),
        M("Tsz-hin approved, merge?", n=["code-review-two-approvals"],
          x=["code-review-one-approval"]),
    ]),
    S("hermes", "2026-11-16 20:00", turns=[
        M("下個禮拜我係咪 on call", n=["oncall-rota-swap"], x=["oncall-rota-nov"]),
        C("帮我整个 on-call handover checklist template"),
        C("shorter"),
    ]),
    S("codex", "2026-11-17 10:00", project="fx-rates-service", turns=[
        R("RateController: 404 not 500 for an unknown pair"),
        R("补 test"),
        M("this PR changes the rounding in FixCalculator, who do I add as reviewers",
          n=["code-review-two-approvals"], h=["money-decimal"],
          x=["code-review-one-approval"]),
        M("tag 1.8.0 and release to prod", n=["fx-deploy-argocd"],
          x=["recon-deploy-dags", "infra-terraform-atlantis"]),
    ]),
    S("calendar", "2026-11-17 12:00", turns=[
        M("thu 7:30pm call with the Shanghai vendor ok?", n=["home-running-club"]),
        C("move to 9pm"),
        M("下星期三朝早同 Karen 食早餐", n=["home-mum-hospital"]),
    ]),
    S("claude-code", "2026-11-17 15:00", project="infra", turns=[
        M("the new clickhouse node for marts, which cloud/region", n=["infra-regions"],
          h=["infra-tagging"]),
        R("instance type as a var, default ecs.r7.2xlarge"),
        R("data disk as its own resource, 500GB ESSD"),
        M("plan is clean locally, just apply it", n=["infra-terraform-atlantis"]),
    ]),
    S("codex", "2026-11-18 10:00", project="recon-pipeline", turns=[
        R("add is_late to int_recon__match: settled_at - captured_at > 2 days"),
        R("dbt docs generate 报错，睇下"),
        M("backfill is_late for the last 90 days", n=["recon-airflow-pools"],
          h=["recon-incremental-lookback"]),
        M("marts DAG task needs the CH password, where do I wire it from", n=["secrets-kms"],
          h=["recon-marts-clickhouse"], x=["fx-env-secrets"]),
    ]),
    S("hermes", "2026-11-18 21:30", turns=[
        C("有冇好啲嘅 dbt course 推介"),
        M("Wing 话 Metabase 睇唔到新数，dashboard 而家连去边", n=["recon-marts-clickhouse"],
          h=["recon-finance-contact"], x=["recon-marts-postgres"]),
        C("帮我回 Wing，话中午前搞掂，中文"),
    ]),
    S("claude-code", "2026-11-19 10:00", project="recon-pipeline", turns=[
        R("test for is_late"),
        R("add it to _models.yml with a unique test on txn_id"),
        M("今日上唔上得 prod", n=["recon-deploy-dags"], h=["recon-sla"],
          x=["recon-freeze-oct-close"]),
    ]),
    S("codex", "2026-11-20 10:00", project="fx-rates-service", turns=[
        M("treasury asks what we do on 12-25, no provider fix that day",
          n=["fx-rates-fix-1600"]),
        R("log carried-forward fixes at INFO"),
        R("./gradlew ktlintFormat"),
        M("run it locally", n=["fx-gradle-jdk17"], x=["recon-dev-setup"]),
    ]),
    S("calendar", "2026-11-21 08:30", turns=[
        M("今朝有咩要去", n=["home-opera-saturday"]),
        C("remind me to bring the 水袖"),
    ]),
    # ------------------------------------------------------------ week 4 (test), 11-23 .. 11-29
    S("claude-code", "2026-11-23 09:30", project="recon-pipeline", turns=[
        M("recon_nightly died at int_recon__match 04:10, how long have I got", n=["recon-sla"],
          h=["recon-finance-contact"]),
        R("Memory limit exceeded in int_recon__match, set max_bytes_before_external_group_by"),
        R("clear that task and downstream"),
        M("push the fix straight to prod, finance is waiting", n=["recon-deploy-dags"],
          h=["recon-freeze-nov-close"], x=["fx-deploy-argocd"]),
    ]),
    S("hermes", "2026-11-23 10:30", turns=[
        M("handover at 10 — is this my week?", n=["oncall-rota-swap"], x=["oncall-rota-nov"]),
        C("turn these into a handover note: nightly OOM, fx provider 502s, CH disk 80%"),
    ]),
    S("codex", "2026-11-24 10:00", project="fx-rates-service", turns=[
        M("fix job cron — check it matches what treasury wants now",
          n=["fx-rates-fix-1700"], x=["fx-rates-fix-1600"]),
        R("test for the cron expression"),
        R("跑测试"),
        M("get it to prod today", n=["fx-deploy-argocd"], h=["code-review-two-approvals"],
          x=["recon-deploy-dags"]),
    ]),
    S("claude-code", "2026-11-24 14:00", project="infra", turns=[
        M("acquirer raw files bucket on OSS, add a lifecycle rule to clean up after a year",
          n=["infra-oss-retention"], h=["infra-regions"]),
        R("terraform fmt"),
        M("tflint says cost-centre missing on the bucket, which one", n=["infra-tagging"]),
        R("output for the bucket arn"),
    ]),
    S("codex", "2026-11-25 10:00", project="settle-legacy", turns=[
        M("auditor wants the Oct settlement file for acquirer A regenerated from the old "
          "scripts, run it for 2026-10-31", n=["settle-legacy-run"],
          x=["python-uv-ruff", "recon-dev-setup"], tags=("archived",)),
        R("diff the output against /mnt/audit/2026-10-31_A.csv"),
        R("有 3 行唔同，边几个 merchant"),
        M("should I save it as utf-8 before sending it over", n=["settle-legacy-run"],
          tags=("archived",)),
    ]),
    S("calendar", "2026-11-25 18:00", turns=[
        M("this sat morning free? Mei wants to hike", n=["home-opera-sunday"],
          x=["home-opera-saturday"]),
        C("ok book 8am hike"),
        M("and sunday afternoon?", n=["home-opera-sunday"], x=["home-opera-saturday"]),
    ]),
    S("claude-code", "2026-11-26 10:00", project="recon-pipeline", turns=[
        R("add int_recon__unmatched: unmatched rows older than 3 days"),
        R("fix the jinja whitespace in it"),
        M("query raw.gateway_events, latest version of each txn only",
          n=["recon-clickhouse-pitfalls"]),
        M("these breaks have customer emails in them, ok to paste into the ticket?",
          n=["pii-masking"]),
        R("dbt test on it"),
    ]),
    S("hermes", "2026-11-26 21:00", turns=[
        C("香港報稅 vs 深圳個稅，跨境打工一般點計？簡單講"),
        M("marathon 拎 bib 係幾時", n=["home-race-shenzhen"]),
    ]),
    S("codex", "2026-11-27 10:00", project="recon-pipeline", turns=[
        R("acquirer B file header changed, add fee_type to stg_acquirer_b__settlements"),
        R("dbt build -s stg_acquirer_b__settlements+"),
        M("good, merge + deploy", n=["recon-freeze-nov-close"],
          h=["recon-deploy-dags", "code-review-two-approvals"]),
    ]),
    S("codex", "2026-11-27 15:00", project="fx-rates-service", turns=[
        R("bump spring boot to 3.2.11"),
        R("./gradlew build, fix whatever breaks"),
        M("deploy to prod, month end so check it's allowed", n=["fx-deploy-argocd"],
          x=["recon-freeze-nov-close"]),
    ]),
    S("hermes", "2026-11-28 11:00", turns=[
        C("帝女花《香夭》有冇好嘅版本推介"),
        M("what time's opera tmr", n=["home-opera-sunday"], x=["home-opera-saturday"]),
        C("remind me 1h before"),
    ]),
    # ------------------------------------------------------------ week 5 (test), 11-30 .. 12-06
    S("claude-code", "2026-11-30 09:30", project="recon-pipeline", turns=[
        M("finance wants acquirer name on fct_recon_breaks, add it and get it live today",
          n=["recon-freeze-nov-close"], h=["recon-marts-clickhouse"]),
        R("join dim_acquirer on acquirer_code"),
        R("_models.yml 嘅描述都更新埋"),
        M("new col is null for txns on 10-31 after 16:00 UTC", n=["utc-hkt-business-date"]),
        M("PR ready, PAY-455, write the commit msg", n=["commit-style"],
          h=["code-review-two-approvals"]),
    ]),
    S("hermes", "2026-11-30 10:15", turns=[
        M("I'm on call this week right? 交接喺边", n=["oncall-rota-swap"],
          x=["oncall-rota-nov"]),
        C("ok draft a msg reminding Tsz-hin it's his week"),
    ]),
    S("codex", "2026-12-01 10:00", project="fx-rates-service", turns=[
        M("load next year's HK holidays", n=["fx-hk-holidays"]),
        R("parse the ics with ical4j, add the dependency"),
        R("test that 2027-01-01 comes out as a holiday"),
        M("flyway migration for the 2027 rows or just a loader?",
          n=["fx-flyway-migrations"], h=["fx-hk-holidays"]),
    ]),
    S("calendar", "2026-12-01 12:00", turns=[
        M("Rajesh 想約今晚 7:45 call", n=["home-running-club"]),
        C("咁改聽日中午"),
        M("星期五晚有咩要做", n=["home-race-shenzhen"]),
    ]),
    S("hermes", "2026-12-03 09:00", turns=[
        C("早晨，今日使唔使带遮"),
        M("今日可唔可以 deploy recon，月結搞掂未", n=["recon-freeze-nov-close"],
          h=["recon-finance-contact"]),
    ]),
    S("claude-code", "2026-12-04 10:00", project="recon-pipeline", turns=[
        R("int_recon__unmatched takes 20 min, add a partition filter"),
        M("backfill it from 2026-09-01, as usual", n=["recon-airflow-pools"],
          h=["recon-incremental-lookback"], tags=("cue",)),
        R("log row counts per day in the backfill task"),
    ]),
    S("calendar", "2026-12-04 18:00", turns=[
        C("今晚食乜好，清淡啲"),
        M("sunday's plan?", n=["home-race-shenzhen", "home-opera-sunday"]),
        C("alarm 5:45 sunday"),
    ]),
    S("hermes", "2026-12-05 11:00", turns=[
        C("race tmr, what should I eat tonight"),
        M("阿妈下次覆诊係几号", n=["home-mum-hospital"]),
    ]),
    # ------------------------------------------------------------ week 6 (test), 12-07 .. 12-13
    S("claude-code", "2026-12-07 09:30", project="recon-pipeline", turns=[
        M("auto-match tiny diffs as rounding, what threshold did finance agree",
          n=["recon-break-tolerance"]),
        R("test: 0.05 diff matches, 0.06 doesn't"),
        R("跑 dbt build -s int_recon__match+ --target dev"),
        M("deploy to prod", n=["recon-deploy-dags"], x=["recon-freeze-nov-close"]),
    ]),
    S("hermes", "2026-12-07 10:00", turns=[
        M("break report today, anything changed in what counts as a break?",
          n=["recon-break-tolerance"], h=["recon-break-report"]),
        C("draft the summary for Wing, 中文"),
    ]),
    S("codex", "2026-12-08 10:00", project="fx-rates-service", turns=[
        R("add /v1/fix/{date} returning all pairs"),
        R("用 caffeine cache 十分钟"),
        M("what time is the fix taken, for the api docs", n=["fx-rates-fix-1700"],
          x=["fx-rates-fix-1600"]),
        M("commit, PAY-470", n=["commit-style"]),
    ]),
    S("claude-code", "2026-12-08 14:00", project="infra", turns=[
        M("CH backups, how far back can we restore?", n=["infra-clickhouse-backup"],
          x=["infra-oss-retention"]),
        R("var for backup retention days"),
        M("bump retention to 30d and apply", n=["infra-terraform-atlantis"],
          h=["infra-clickhouse-backup"]),
    ]),
    S("hermes", "2026-12-09 21:00", turns=[
        M("阿妈啲医院收据要留嚟做咩", n=["home-tax-hk"]),
        C("點樣整理收據最方便，用咩 app"),
        C("remind me sunday to scan them"),
    ]),
    S("codex", "2026-12-10 10:00", project="recon-pipeline", turns=[
        R("dbt exposure for the finance dashboard"),
        M("dashboard counts doubled since the re-insert fix, it reads raw.gateway_events",
          n=["recon-clickhouse-pitfalls"]),
        R("fix the exposure owner email"),
        M("release it", n=["recon-deploy-dags"], x=["recon-freeze-nov-close", "fx-deploy-argocd"]),
    ]),
    S("hermes", "2026-12-12 10:00", turns=[
        C("weekend hike in Sai Kung, not too hard"),
        M("係咪今日下晝有粵劇堂", n=["home-opera-sunday"], x=["home-opera-saturday"]),
    ]),
    S("calendar", "2026-12-13 09:00", turns=[
        C("what's on today"),
        M("下週二晚同舊同學食飯", n=["home-running-club"]),
        C("ok 改星期三"),
    ]),
]
# fmt: on


def load_cards() -> dict[str, dict[str, Any]]:
    """Front matter of every card in history/, by id, with the day of its commit."""
    cards = {}
    for path in sorted((HERE / "history").rglob("cards/*.md")):
        meta = yaml.safe_load(path.read_text(encoding="utf-8").split("---\n")[1])
        commit_dir = path.relative_to(HERE / "history").parts[0]
        meta["committed"] = dt.date.fromisoformat(commit_dir.split("_")[1])
        if meta["id"] in cards:
            raise ValueError(f"card id {meta['id']} twice in history/")
        cards[meta["id"]] = meta
    return cards


def card_language(conclusion: str) -> str:
    han = sum("\u4e00" <= ch <= "\u9fff" for ch in conclusion)
    latin = sum("a" <= ch.lower() <= "z" for ch in conclusion)
    return "zh" if han >= 0.2 * (han + latin) else "en"


def derived_tags(turn: dict[str, Any], no: int, agent: str, day: dt.date, cards) -> list[str]:
    """Language and trap tags from the cards the turn names."""
    if turn["kind"] != "memory":
        return [f"lang:{script(turn['prompt'])}"]
    tags = []
    langs = {card_language(cards[i]["conclusion"]) for i in turn["n"]}
    if len(langs) == 1:
        tags.append(f"lang:{script(turn['prompt'])}->{langs.pop()}")
    own = {cards[i]["project"] for i in turn["n"]}
    monday = day - dt.timedelta(days=day.weekday())  # only cards of the probe's snapshot
    superseded = {
        s for c in cards.values() if c["committed"] < monday for s in c.get("supersedes") or []
    }
    for i in turn["x"]:
        if cards[i]["project"] not in own | {"global"}:
            tags.append("cross_project")
        if i in superseded:
            tags.append("superseded")
        if cards[i].get("expires") and cards[i]["expires"] < day:
            tags.append("expired")
    if agent in CODING:
        tags += ["first_turn"] if no == 1 else ["later_turn"] if no >= 3 else []
    return tags


def check_scope(session: dict[str, Any], turn: dict[str, Any], cards) -> None:
    """Coding agents need only their project's cards or global preference/pitfall/convention
    cards; the calendar only personal (home) cards."""
    agent = session["agent"]
    for i in turn.get("n", []) + turn.get("h", []):
        card = cards[i]
        if agent in CODING:
            ok = card["project"] == session["project"] or (
                card["project"] == "global"
                and card["type"] in ("preference", "pitfall", "convention")
            )
        else:
            ok = agent != "calendar" or card["project"] == "home"
        if not ok:
            raise ValueError(f"{agent} turn {turn['prompt']!r} names {i}")
    if turn["kind"] == "routine" and agent not in CODING:
        raise ValueError(f"routine turn outside a coding session: {turn['prompt']!r}")
    if turn["kind"] == "memory" and not turn["n"]:
        raise ValueError(f"memory turn without a necessary card: {turn['prompt']!r}")


def check_snapshot(turn: dict[str, Any], day: dt.date, cards) -> None:
    """Every card a turn names was committed before the Monday of the turn's week; a
    necessary card is neither superseded in that snapshot nor expired on that day."""
    monday = day - dt.timedelta(days=day.weekday())
    superseded = {
        s for c in cards.values() if c["committed"] < monday for s in c.get("supersedes") or []
    }
    for i in turn.get("n", []) + turn.get("h", []) + turn.get("x", []):
        if cards[i]["committed"] >= monday:
            raise ValueError(f"{turn['prompt']!r} ({day}) names {i}, not in its snapshot")
    for i in turn.get("n", []):
        expires = cards[i].get("expires")
        if i in superseded or (expires and expires <= day):
            raise ValueError(f"{turn['prompt']!r} ({day}) needs {i}, stale by then")


def build() -> list[Probe]:
    cards = load_cards()
    probes = []
    for number, session in enumerate(SESSIONS, 1):
        agent, turns = session["agent"], session["turns"]
        start = dt.datetime.strptime(session["start"], "%Y-%m-%d %H:%M").replace(tzinfo=TZ)
        at = start
        for i, turn in enumerate(turns):
            check_scope(session, turn, cards)
            check_snapshot(turn, at.date(), cards)
            tags = [turn["kind"], *turn.get("tags", [])]
            tags += derived_tags(turn, i + 1, agent, at.date(), cards)
            probes.append(
                Probe(
                    id=f"d{number:02d}-{i + 1}",
                    session_id=f"{agent}-{start:%m%d-%H%M}",
                    agent=agent,
                    profile=AGENTS[agent],
                    timestamp=at,
                    prompt=turn["prompt"],
                    previous_turn=turns[i - 1]["prompt"] if i else None,
                    cwd=session["cwd"],
                    turn=i + 1,
                    split=Split.dev if at.date() < DEV_UNTIL else Split.test,
                    tags=sorted(set(tags)),
                    follow_ups=[*turn["f"], *(t["prompt"] for t in turns[i + 1 :])][:6],
                    gold=Gold(
                        needs_memory=turn["kind"] == "memory",
                        necessary=turn.get("n", []),
                        helpful=turn.get("h", []),
                        harmful=turn.get("x", []),
                    ),
                )
            )
            at += dt.timedelta(minutes=3 + (5 * i + number) % 7)
    if len({p.session_id for p in probes}) != len(SESSIONS):
        raise ValueError("two sessions share an agent and a start time")
    return probes


if __name__ == "__main__":
    made = build()
    out = HERE / "probes.jsonl"
    dump_probes(made, out)
    print(f"wrote {len(made)} probes in {len({p.session_id for p in made})} sessions to {out}")
