"""The webdev environment's probes, written by hand as sessions; run to regenerate probes.jsonl.

Maya Okafor, a freelance full-stack developer in Singapore (UTC+8), over six weeks
(Mon 2026-11-02 .. Sun 2026-12-13). Each session is what one agent heard from her in one
sitting. A turn is one of
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
project), ``superseded`` (a harmful card that a later card supersedes), ``expired`` (a
harmful card past its ``expires`` date), ``first_turn`` / ``later_turn`` (a memory turn of
a coding session at turn 1 / turn 3 or later). By hand: ``cue`` (the prompt says "as
usual" or the like), ``archived`` (work in the archived folio project).

A card committed in week w is first seen by probes of week w+1 (evaluation/harness/environment.py);
the labels follow that. Weeks 1-2 are dev, weeks 3-6 test.

    .venv/bin/python evaluation/envs/webdev/make_probes.py
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
CODE = "/home/maya/code"


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
    S("claude-code", "2026-11-02 09:30", project="shopfront", turns=[
        M("new laptop, fresh clone. get this running locally",
          n=["shopfront-pnpm-node20"],
          h=["node-version-fnm", "lockfile-one-manager", "secrets-1password"],
          x=["tidy-css-npm-node18", "folio-yarn-gatsby"], f=("ok pnpm dev works",)),
        R("Module not found: Can't resolve '@/lib/cart' in app/cart/page.tsx, fix the import"),
        R("header overlaps the hero on small screens, fix"),
        R("add a spinner to the checkout button while the order is posting"),
        M("commit this", n=["commit-style"]),
    ]),
    S("codex", "2026-11-02 14:00", project="parcelhub", turns=[
        R("add GET /v1/parcels/{id}/events, same response envelope as /v1/parcels/{id}"),
        R("table-driven tests for the new handler pls"),
        R("跑一下测试"),
        R("TestParcelEvents panics on an empty slice, fix it"),
        M("now load rates_2026q4.csv into my local db with the import script",
          n=["parcelhub-go-make"], f=("uv run worked",)),
    ]),
    S("hermes", "2026-11-02 21:10", turns=[
        C("long day. quick dinner idea with eggs + spinach?"),
        M("陈晓那边的周会是周几几点来着", n=["shopfront-weekly-sync-wed"],
          h=["shopfront-client-contacts"], x=["parcelhub-client-contact"]),
        M("and do I have to send her something before it?", n=["shopfront-weekly-sync-wed"]),
        C("ok 晚安"),
    ]),
    S("calendar", "2026-11-03 08:40", turns=[
        M("put a call with Annelies on Wed at 9", n=["home-no-early-meetings"]),
        C("ok make it 15:30 then"),
        M("下周一早上帮我留出来写代码", n=["home-yoga-monday"], h=["home-no-early-meetings"]),
    ]),
    S("claude-code", "2026-11-03 10:30", project="tidy-css", turns=[
        R("add a .btn--ghost variant in src/buttons.css"),
        R("focus ring is invisible on dark bg, give it a 2px offset"),
        M("install deps and build it so I can look at dist", n=["tidy-css-npm-node18"],
          h=["lockfile-one-manager"], x=["shopfront-pnpm-node20", "folio-yarn-gatsby"]),
        R("dist/tidy.css has no .btn--ghost in it, check the postcss config"),
        R("add a storybook story for the ghost button"),
    ]),
    S("claude-code", "2026-11-04 09:45", project="shopfront", turns=[
        M("orders 表加一个 discount_code 字段，可空", n=["shopfront-prisma-migrations"]),
        R("show the discount line in OrderSummary"),
        M("order confirmation shows created_at 8h off, fix it properly", n=["utc-timestamps"]),
        R("fix the snapshot test that broke"),
        M("push it, the rebase made my branch diverge from origin", n=["no-force-push"]),
    ]),
    S("codex", "2026-11-04 14:20", project="parcelhub", turns=[
        R("cursor pagination for GET /v1/parcels, default limit 50"),
        R("golangci-lint: errcheck in pagination.go"),
        M("deploy this to staging so Annelies can poke at it", n=["parcelhub-deploy-fly"],
          x=["shopfront-deploy-vercel"]),
        M("webhook calls from Kestrel get 401 on staging, which secret var is that?",
          n=["parcelhub-env-vars"], x=["shopfront-env-vars"]),
    ]),
    S("hermes", "2026-11-05 20:00", turns=[
        M("兰亭想在 11 号前换首页横幅，能上吗", n=["shopfront-freeze-1111"],
          h=["shopfront-client-contacts"]),
        C("帮我写条微信给陈晓，说 banner 13 号上线，客气一点"),
        C("also an English version, I'll forward it to Leo"),
    ]),
    S("claude-code", "2026-11-06 10:00", project="shopfront", turns=[
        R("product grid jumps while images load, give them width/height"),
        R("重命名 ProductCard 为 ProductTile，所有引用一起改"),
        M("the new button just says 'Add to cart', 要有中文", n=["shopfront-i18n"]),
        R("跑一下 lint"),
        M("can this go live today?", n=["shopfront-freeze-1111"],
          h=["shopfront-deploy-vercel"]),
    ]),
    S("hermes", "2026-11-07 11:00", turns=[
        C("RSC vs client components, in two sentences"),
        M("month end's close, how do I bill Lanting again?", n=["invoice-monthly"]),
        C("cool thx"),
    ]),
    S("calendar", "2026-11-08 19:00", turns=[
        C("下周有什么安排？"),
        M("周一早上 7 点半能约 Jess 吃早饭吗", n=["home-yoga-monday"]),
    ]),
    # ------------------------------------------------------------ week 2 (dev), 11-09 .. 11-15
    S("claude-code", "2026-11-09 09:40", project="shopfront", turns=[
        M("支付宝沙箱付完款订单一直 pending", n=["shopfront-alipay-sandbox"],
          h=["shopfront-env-vars"]),
        R("log the notify payload (minus the sign field)"),
        R("verifySignature gets called twice in the notify route, dedupe"),
        M("ok this is a P0 and 陈晓 ok'd it, push to prod", n=["shopfront-deploy-vercel"],
          h=["shopfront-freeze-1111"], x=["parcelhub-deploy-fly"]),
    ]),
    S("codex", "2026-11-09 14:30", project="parcelhub", turns=[
        M("need a signed_by column on deliveries", n=["parcelhub-goose-migrations"],
          x=["shopfront-prisma-migrations"]),
        R("expose signed_by in the delivery JSON"),
        R("update openapi.yaml too"),
        R("make test 挂了一个，看看"),
        M("0042 already ran on staging but I typed varchar(20), just fix the file",
          n=["parcelhub-goose-migrations"], x=["shopfront-prisma-migrations"]),
    ]),
    S("claude-code", "2026-11-10 10:00", project="tidy-css", turns=[
        R("add a .stack utility with gap-1 .. gap-6"),
        R("docs page for .stack"),
        M("npm install 报 peer dep 冲突，要不把 lock 文件删了重装？",
          n=["lockfile-one-manager"], h=["tidy-css-npm-node18"]),
        M("prep a release with this", n=["tidy-css-release-changesets"],
          x=["parcelhub-deploy-fly", "shopfront-deploy-vercel"]),
    ]),
    S("calendar", "2026-11-10 17:00", turns=[
        M("今晚七点半约了个视频通话，可以吗", n=["home-mandarin-class"]),
        C("那改到九点"),
    ]),
    S("hermes", "2026-11-11 13:00", turns=[
        C("双十一，推荐个降噪耳机，1500 以内"),
        M("今晚兰亭那边要是出问题，我能做什么？",
          n=["shopfront-freeze-1111"], h=["shopfront-client-contacts"]),
        M("who's the backend guy there and what's the fastest way to reach him",
          n=["shopfront-client-contacts"], x=["parcelhub-client-contact"]),
    ]),
    S("claude-code", "2026-11-12 10:00", project="shopfront", turns=[
        R("cart total is a cent off with three 0.1 items, look at roundPrice"),
        R("add a test for that case"),
        R("跑一下测试"),
        M("commit, proper message", n=["commit-style"]),
    ]),
    S("codex", "2026-11-13 10:00", project="parcelhub", turns=[
        R("request-id middleware, and put the id in the logs"),
        R("use slog instead of log.Printf there"),
        M("export deliveries as CSV for Annelies, delivered_at in Amsterdam time",
          n=["utc-timestamps"]),
        M("what's the DSN var called? want to point local at the staging db",
          n=["parcelhub-env-vars"], h=["secrets-1password"], x=["shopfront-env-vars"]),
    ]),
    S("codex", "2026-11-13 15:00", project="shopfront", turns=[
        M("ship the banner PR to production", n=["shopfront-deploy-vercel"],
          x=["shopfront-freeze-1111", "parcelhub-deploy-fly"]),
        R("check the banner on a mobile viewport in the prod build"),
        R("add alt text to the banner image"),
    ]),
    S("hermes", "2026-11-14 10:30", turns=[
        C("周末想去 Botanic Gardens，早上还是傍晚人少？"),
        M("someone on github asks if they can use tidy in a commercial app",
          n=["tidy-css-licence"]),
        C("draft a friendly reply for the issue"),
    ]),
    # ------------------------------------------------------------ week 3 (test), 11-16 .. 11-22
    S("claude-code", "2026-11-16 09:30", project="shopfront", turns=[
        M("write unit tests for the coupon validator", n=["vitest-tests"], x=["jest-tests"]),
        R("codes should be case-insensitive, fix validateCoupon"),
        R("run them"),
        M("thumbnails on the coupon page are slow, can we just turn on the next/image optimizer?",
          n=["shopfront-images-oss"]),
        R("skeleton while the coupon list loads"),
    ]),
    S("hermes", "2026-11-16 20:30", cwd=f"{CODE}/shopfront", turns=[
        M("陈晓说备案要把 shopfront 从 Vercel 挪到阿里云，帮我列一下要改哪些东西",
          n=["shopfront-deploy-vercel"], h=["shopfront-env-vars", "shopfront-images-oss"]),
        C("大概要几天，粗估一下"),
        C("写成一条中文消息发给她"),
    ]),
    S("codex", "2026-11-17 10:00", project="parcelhub", turns=[
        M("staging 太慢了，加一台机器，放新加坡离我近点", n=["parcelhub-fly-region"],
          h=["parcelhub-deploy-fly"]),
        R("add /healthz that pings the db"),
        R("跑一下 go vet"),
    ]),
    S("calendar", "2026-11-17 12:00", turns=[
        M("Ada 婚礼那几天帮我空出来", n=["home-sister-wedding"]),
        C("also remind me next week to buy a gift"),
        M("周二晚上七点跟客户开会可以吗", n=["home-mandarin-class"],
          h=["home-no-early-meetings"]),
    ]),
    S("claude-code", "2026-11-18 10:00", project="tidy-css", turns=[
        R("respect prefers-reduced-motion in the transitions"),
        M("move the tests over to the runner we use everywhere now", n=["vitest-tests"],
          x=["jest-tests"], tags=("cue",)),
        R("fix the import paths it complains about"),
        M("这个要发个 patch", n=["tidy-css-release-changesets"]),
    ]),
    S("hermes", "2026-11-18 21:00", turns=[
        C("why do I keep getting hydration mismatch warnings in next? common causes"),
        C("第二个展开讲讲"),
        M("kestrel: slack or email for updates? forgot what we agreed",
          n=["parcelhub-client-contact"], x=["shopfront-client-contacts"]),
    ]),
    S("claude-code", "2026-11-19 10:00", project="shopfront", turns=[
        R("free shipping progress bar in the cart drawer, threshold ¥199"),
        R("turn it green once it's reached"),
        M("这个文案中英文都要", n=["shopfront-i18n"]),
        M("e2e 全挂了，'no products found'", n=["shopfront-tests"]),
        M("PR 描述用中文还是英文写？Leo 要看", n=["reply-language"], h=["commit-style"]),
    ]),
    S("codex", "2026-11-20 14:00", project="parcelhub", turns=[
        R("quotes returns 500 when weight is 0, make it a 400"),
        R("test for weight=0"),
        R("make test"),
        M("tag v1.4.0 and get it to prod", n=["parcelhub-deploy-fly"],
          h=["parcelhub-fly-region"], x=["shopfront-deploy-vercel"]),
    ]),
    S("hermes", "2026-11-21 11:00", turns=[
        C("推荐几本讲 freelancer 怎么定价的书"),
        M("哪个客户是用人民币结的来着", n=["invoice-monthly"]),
        M("兰亭那边催合同付款的事应该找谁？", n=["shopfront-client-contacts"],
          x=["parcelhub-client-contact"]),
        C("ok"),
    ]),
    S("calendar", "2026-11-22 18:00", turns=[
        M("book yoga for tomorrow morning", n=["home-yoga-monday"]),
        C("设个 6:45 的闹钟"),
    ]),
    # ------------------------------------------------------------ week 4 (test), 11-23 .. 11-29
    S("claude-code", "2026-11-23 09:30", project="shopfront", turns=[
        M("order history query is slow, add an index on orders (user_id, created_at)",
          n=["shopfront-prisma-migrations"], x=["parcelhub-goose-migrations"]),
        R("paginate order history, 20 a page"),
        R("type error in OrderHistory.tsx line 48"),
        M("deploy to staging so 陈晓 can check", n=["shopfront-deploy-aliyun"],
          x=["shopfront-deploy-vercel", "parcelhub-deploy-fly"]),
        M("what's the staging url, she's asking", n=["shopfront-deploy-aliyun"],
          x=["shopfront-deploy-vercel"]),
    ]),
    S("hermes", "2026-11-23 20:00", turns=[
        M("this week's lanting sync, which day?", n=["shopfront-weekly-sync-thu"],
          x=["shopfront-weekly-sync-wed"]),
        C("帮我列个议程：上周完成、本周计划、阻塞"),
        C("shorter pls"),
    ]),
    S("codex", "2026-11-24 10:00", project="parcelhub", turns=[
        M("add rate limiting to the public endpoints", n=["parcelhub-rate-limit"]),
        R("test that request 101 within a minute gets a 429"),
        R("test is flaky because of time.Now, inject a clock"),
        R("跑一下 lint"),
        M("add a rate_limit column to api_keys so partners can get more",
          n=["parcelhub-goose-migrations"], h=["parcelhub-rate-limit"],
          x=["shopfront-prisma-migrations"]),
    ]),
    S("claude-code", "2026-11-24 16:00", project="folio", turns=[
        M("need to swap the CV link on the old portfolio, get it building",
          n=["folio-yarn-gatsby"], h=["node-version-fnm"],
          x=["shopfront-pnpm-node20", "tidy-css-npm-node18"], tags=("archived",)),
        R("change the CV link in src/data/links.js to cv-2026.pdf"),
        R("build it"),
    ]),
    S("claude-code", "2026-11-25 10:00", project="tidy-css", turns=[
        M("加个暗色模式，跟随系统设置", n=["tidy-css-dark-mode"]),
        R("ok do the toggle then, vars --tidy-bg and --tidy-fg"),
        R("story showing both themes"),
        R("muted text fails AA contrast in dark, fix"),
    ]),
    S("hermes", "2026-11-25 21:00", turns=[
        M("someone wants to vendor tidy into a GPL project, any problem?",
          n=["tidy-css-licence"]),
        C("MIT vs Apache-2.0 for a tiny css lib, practical difference?"),
        C("makes sense, thanks"),
    ]),
    S("calendar", "2026-11-26 09:00", turns=[
        C("今天有什么安排"),
        M("Tobi wants a call friday 8am, fine?",
          n=["home-no-early-meetings", "home-yoga-monday"]),
    ]),
    S("codex", "2026-11-27 10:00", project="shopfront", turns=[
        R("move the checkout form to react-hook-form"),
        R("zod check for mainland phone numbers"),
        M("error tooltip needs styling, just pull in whatever lib is quickest",
          n=["css-no-css-in-js"], h=["shopfront-pnpm-node20", "lockfile-one-manager"]),
        M("zod's inferred type clashes with the form type, cast it to any for now",
          n=["ts-strict-no-any"]),
        R("run the tests"),
    ]),
    S("hermes", "2026-11-28 11:00", turns=[
        C("cooking for 6 tomorrow, one vegetarian, ideas?"),
        M("when's Ada's wedding exactly? need to tell Annelies I'm out",
          n=["home-sister-wedding"], h=["parcelhub-client-contact"]),
        C("draft that slack message"),
    ]),
    # ------------------------------------------------------------ week 5 (test), 11-30 .. 12-06
    S("claude-code", "2026-11-30 09:30", project="shopfront", turns=[
        R("'notify me when back in stock' button on sold-out products"),
        M("store the requests in a new back_in_stock table", n=["shopfront-prisma-migrations"],
          x=["parcelhub-goose-migrations"]),
        R("cron route /api/cron/restock that sends the emails"),
        M("mail provider key needs an env var, add it where the others live",
          n=["shopfront-env-vars"], h=["secrets-1password"], x=["parcelhub-env-vars"]),
        M("run e2e before it goes out", n=["shopfront-tests"]),
        M("ship it to prod", n=["shopfront-deploy-aliyun"],
          x=["shopfront-deploy-vercel", "shopfront-freeze-1111"]),
    ]),
    S("calendar", "2026-11-30 18:00", turns=[
        M("把这周的瑜伽排进去", n=["home-yoga-wednesday"], x=["home-yoga-monday"]),
        C("周三那节提前半小时提醒我"),
    ]),
    S("codex", "2026-12-01 10:00", project="parcelhub", turns=[
        M("quotes query seq-scans rates, add an index", n=["parcelhub-goose-migrations"],
          x=["shopfront-prisma-migrations"]),
        R("benchmark /v1/quotes before/after with hey"),
        R("write the numbers into docs/perf.md"),
        M("commit that, conventional style obviously", n=["commit-style"], tags=("cue",)),
    ]),
    S("claude-code", "2026-12-01 15:00", project="tidy-css", turns=[
        M("card hover 的时候想用 :has() 选父元素，可以吗", n=["tidy-css-browser-support"]),
        R("do it with a .card--active class instead"),
        M("set up the GH Actions matrix for the node versions we support",
          n=["tidy-css-npm-node18"], x=["shopfront-pnpm-node20"]),
        R("npm run build and tell me the gzip size of dist/tidy.css"),
    ]),
    S("hermes", "2026-12-02 20:00", turns=[
        M("parcelhub 的 rate limit 是多少来着，Annelies 在问", n=["parcelhub-rate-limit"]),
        C("她问能不能给大客户调高，你觉得怎么回"),
        C("write it in English"),
    ]),
    S("hermes", "2026-12-03 09:00", turns=[
        M("今天跟兰亭开会前要准备啥", n=["shopfront-weekly-sync-thu"],
          x=["shopfront-weekly-sync-wed"]),
        C("把上周进展整理成三条"),
        M("他们后端负责人叫什么来着？", n=["shopfront-client-contacts"],
          x=["parcelhub-client-contact"]),
    ]),
    S("claude-code", "2026-12-04 10:00", project="shopfront", turns=[
        R("bump next 14.2.3 -> 14.2.15"),
        R("fix the images.domains deprecation warning"),
        M("unit tests can't parse the ESM from next-intl after the bump", n=["vitest-tests"],
          x=["jest-tests"]),
        R("跑一下 lint 和 typecheck"),
        M("好了，推到测试环境", n=["shopfront-deploy-aliyun"], x=["shopfront-deploy-vercel"]),
    ]),
    S("hermes", "2026-12-04 21:00", turns=[
        M("Annelies needs a line for the DPA annex: where does parcelhub actually run?",
          n=["parcelhub-fly-region"], h=["parcelhub-deploy-fly"]),
        C("make it sound less stiff"),
    ]),
    S("calendar", "2026-12-05 10:00", turns=[
        C("下周五下午提醒我去取干洗的衣服"),
        M("next monday 7:30 breakfast with Jess, am I free?", n=["home-yoga-wednesday"],
          x=["home-yoga-monday"]),
    ]),
    # ------------------------------------------------------------ week 6 (test), 12-07 .. 12-13
    S("hermes", "2026-12-07 20:00", cwd="/home/maya", turns=[
        M("给 Annelies 写月度总结，性能那块数字是多少", n=["parcelhub-p95"],
          h=["parcelhub-rate-limit"]),
        C("5 bullets, English"),
        M("and the lanting side, what did lighthouse come out at?",
          n=["shopfront-lighthouse"]),
    ]),
    S("claude-code", "2026-12-08 09:30", project="shopfront", turns=[
        R("gift wrap option at checkout, +¥15"),
        M("need a gift_wrap bool on orders", n=["shopfront-prisma-migrations"],
          x=["parcelhub-goose-migrations"]),
        R("show it in the admin order detail"),
        M("gift wrap label needs translating", n=["shopfront-i18n"]),
        M("开个 PR, then put it on staging", n=["shopfront-deploy-aliyun"],
          h=["commit-style"], x=["shopfront-deploy-vercel"]),
    ]),
    S("codex", "2026-12-09 10:00", project="parcelhub", turns=[
        R("add an X-RateLimit-Remaining header"),
        R("test it"),
        M("what's the staging hostname again, want to curl /healthz",
          n=["parcelhub-deploy-fly"], x=["shopfront-deploy-aliyun"]),
        M("ok release it as v1.5.0", n=["parcelhub-deploy-fly"],
          x=["shopfront-deploy-aliyun"]),
        R("release notes from the commits since v1.4.0"),
    ]),
    S("claude-code", "2026-12-10 10:00", project="tidy-css", turns=[
        R("add a .visually-hidden utility"),
        M("有人提 issue 要支持 Safari 14，我们支持吗", n=["tidy-css-browser-support"]),
        R("close it with a polite note linking the browser section of the README"),
        M("ship 0.9.0", n=["tidy-css-release-changesets"], x=["parcelhub-deploy-fly"]),
    ]),
    S("calendar", "2026-12-11 17:00", turns=[
        M("订去拉各斯的机票前先确认一下我最晚哪天要到", n=["home-sister-wedding"]),
        C("remind me to pack on the 15th"),
        M("我不在的那两周，中文课帮我取消", n=["home-mandarin-class"],
          h=["home-sister-wedding"]),
    ]),
    S("hermes", "2026-12-12 11:00", turns=[
        C("good wedding gift from Singapore for a Lagos wedding?"),
        C("~200 SGD budget"),
        M("anything work-wise I need to do before I fly? month-end stuff",
          n=["invoice-monthly"], h=["home-sister-wedding"]),
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


def build() -> list[Probe]:
    cards = load_cards()
    probes = []
    for number, session in enumerate(SESSIONS, 1):
        agent, turns = session["agent"], session["turns"]
        start = dt.datetime.strptime(session["start"], "%Y-%m-%d %H:%M").replace(tzinfo=TZ)
        at = start
        for i, turn in enumerate(turns):
            check_scope(session, turn, cards)
            tags = [turn["kind"], *turn.get("tags", [])]
            tags += derived_tags(turn, i + 1, agent, at.date(), cards)
            probes.append(
                Probe(
                    id=f"w{number:02d}-{i + 1}",
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
    return probes


if __name__ == "__main__":
    made = build()
    out = HERE / "probes.jsonl"
    dump_probes(made, out)
    print(f"wrote {len(made)} probes in {len({p.session_id for p in made})} sessions to {out}")
