"""The firmware environment's probes, written by hand as sessions; run to regenerate probes.jsonl.

Tomasz Wiśniewski, an embedded firmware engineer in Kraków (UTC+1) working for an e-bike
start-up with a contract manufacturer in Dongguan (Huaxin) and a chip vendor in Hsinchu
(Hanwei), over six weeks (Mon 2026-11-02 .. Sun 2026-12-13). Each session is what one
agent heard from him in one sitting. A turn is one of
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
project), ``superseded`` (a harmful card that a card of the probe's snapshot supersedes),
``expired`` (a harmful card past its ``expires`` date), ``first_turn`` / ``later_turn`` (a
memory turn of a coding session at turn 1 / turn 3 or later). By hand: ``cue`` (the prompt
says "as usual", "照旧" or the like), ``archived`` (work in the archived ota-bootloader).

A card committed in week w is first seen by probes of week w+1 (evaluation/harness/environment.py);
the labels follow that and ``check_snapshot`` below checks it. Weeks 1-2 are dev, weeks 3-6
test.

    .venv/bin/python evaluation/envs/firmware/make_probes.py
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

from evaluation.harness.probes import Gold, Probe, Split, dump_probes
from evaluation.harness.turns import C, M, R, script

HERE = Path(__file__).parent
TZ = dt.timezone(dt.timedelta(hours=1))
FIRST_DAY = dt.date(2026, 11, 2)
DEV_UNTIL = dt.date(2026, 11, 16)
LAST_DAY = dt.date(2026, 12, 13)
AGENTS = {"hermes": "full", "claude-code": "working", "pi": "working", "calendar": "personal"}
CODING = {"claude-code", "pi"}
CODING_PROJECTS = {"ebike-controller", "bms-firmware", "factory-test", "ota-bootloader"}
FW = "/home/tomasz/fw"


def S(
    agent: str,
    start: str,
    turns: list[dict[str, Any]],
    project: str | None = None,
    cwd: str | None = None,
) -> dict[str, Any]:
    if agent in CODING:
        cwd = f"{FW}/{project}"
    return {"agent": agent, "start": start, "project": project, "cwd": cwd, "turns": turns}


# fmt: off
SESSIONS = [
    # ------------------------------------------------------------ week 1 (dev), 11-02 .. 11-08
    S("claude-code", "2026-11-02 08:50", project="ebike-controller", turns=[
        M("flash current main onto the rev B on my bench",
          n=["ebike-build-flash", "bench-current-limit"], h=["debug-probe-rs"],
          x=["bms-west-build", "otaboot-build"], f=("supply set, go",)),
        R("hardfault right after init, backtrace ends in embassy_stm32::adc::Adc::new. look"),
        R("ADC clock isnt enabled before calibration, fix the RCC setup"),
        R("print vrefint once at boot"),
        M("throttle ramp feels jumpy, want to see iq_ref every cycle while I ride it on the stand",
          n=["ebike-defmt"], x=["bms-logging"]),
    ]),
    S("pi", "2026-11-02 13:30", project="factory-test", turns=[
        M("阿伟说 hall test 偶尔误判，加个 retry，顺便把 types 写全 list[int] 那种",
          n=["factory-python38"]),
        R("retry count from the limits csv, default 3"),
        R("pytest tests/test_hall.py"),
        M("打包发给阿伟", n=["factory-deploy-jig"], h=["factory-contact-awei"]),
    ]),
    S("hermes", "2026-11-02 20:40", cwd="/home/tomasz", turns=[
        C("zosia wants a hamster. talk me out of it"),
        M("when can I call Hsinchu tmrw? need to ask about the AFE",
          n=["factory-call-window"], h=["bms-vendor-fae"]),
        C("ok 谢谢"),
    ]),
    S("calendar", "2026-11-03 07:45", turns=[
        M("put a call with Marek tue 19:30", n=["home-climbing-tue-thu"]),
        C("then wed 18:00"),
        M("周五下午三点半跟华信开个会", n=["home-zosia-school"]),
    ]),
    S("claude-code", "2026-11-03 09:30", project="bms-firmware", turns=[
        M("clean build for the rev b bms board pls", n=["bms-west-build"],
          x=["ebike-build-flash"]),
        R("warning: unused variable 'cell_idx' in balance.c, clean up"),
        R("balancing threshold 15 mV -> make it a Kconfig option"),
        M("zephyr 4.0 has the new sensor api, bump us", n=["bms-west-manifest"]),
        R("revert that, keep only the Kconfig change"),
    ]),
    S("pi", "2026-11-03 15:00", project="ebike-controller", turns=[
        R("PAS cadence from the 12-magnet sensor, rpm"),
        R("host unit test for cadence"),
        M("now hook up the assist level from the display", n=["ebike-can-ids-v1"],
          x=["bms-can-ids", "factory-test-limits"]),
        M("commit", n=["commit-style"], h=["pre-commit-hooks"]),
    ]),
    S("hermes", "2026-11-04 08:15", cwd="/home/tomasz", turns=[
        M("写条微信给阿伟，问下替代料那批板子的固件他们现在烧的是哪个build",
          n=["ebike-mosfet-sub"], h=["factory-contact-awei", "reply-language"]),
        C("短一点"),
        C("translate it back to english so I can double check"),
    ]),
    S("claude-code", "2026-11-04 10:00", project="factory-test", turns=[
        M("new EOL step: read fw version over CAN and check it", n=["factory-fw-version-format"],
          h=["factory-test-limits"]),
        R("put the step after the hall test in eol.py"),
        R("mock the PCAN bus in the test"),
        M("can I use match here? the if chain is ugly", n=["factory-python38"]),
        R("ok dict dispatch then"),
    ]),
    S("calendar", "2026-11-04 17:00", turns=[
        C("what's on tomorrow"),
        M("thu 19:30 dinner w/ Kasia's parents?", n=["home-climbing-tue-thu"]),
    ]),
    S("pi", "2026-11-05 09:00", project="ebike-controller", turns=[
        M("给华信这批编个固件", n=["ebike-mosfet-sub"],
          h=["ebike-build-flash", "release-tagging"]),
        R("print .text and .bss sizes"),
        R("add the git hash to the boot banner"),
        M("board resets every time I halt in the debugger, just turn the iwdg off for now",
          n=["watchdog-debug-freeze"], h=["ebike-watchdog"]),
    ]),
    S("hermes", "2026-11-05 21:00", turns=[
        C("flux residue w/o IPA? ran out"),
        M("draft it: asking for the HW3218 errata sheet + A2 sample dates",
          n=["reply-language"], h=["bms-vendor-fae"]),
    ]),
    S("claude-code", "2026-11-06 10:00", project="bms-firmware", turns=[
        R("shell cmd `bms cells` that prints all 13 cell voltages"),
        R("sort them by cell index not by value"),
        M("add pack temp to the 10 Hz frame", n=["bms-can-ids", "units-in-names"],
          x=["ebike-can-ids-v1"]),
        M("log when balancing starts/stops", n=["bms-logging"], x=["ebike-defmt"]),
    ]),
    S("hermes", "2026-11-07 10:30", turns=[
        C("resoling climbing shoes in kraków, where"),
        C("ok and for the edge rubber, how long does it take usually"),
    ]),
    S("calendar", "2026-11-08 18:00", turns=[
        C("下周安排给我看看"),
        M("wed 15:00 call with the Sowa board?", n=["home-zosia-school"]),
    ]),
    # ------------------------------------------------------------ week 2 (dev), 11-09 .. 11-15
    S("claude-code", "2026-11-09 09:15", project="ebike-controller", turns=[
        M("board #17 reads 38 A at standstill, offset looks wrong", n=["ebike-adc-cal-revb"]),
        R("dump the cal page with defmt at boot"),
        R("page is all 0xFF -> fall back to 2048 and warn"),
        R("cargo clippy"),
        R("add a host test for the fallback"),
    ]),
    S("pi", "2026-11-09 14:00", project="factory-test", turns=[
        M("jig can't find the PCAN after reboot, it's on COM5 now", n=["factory-com-port"]),
        R("add --list-ports"),
        R("跑一下 pytest"),
        M("ok 发新版", n=["factory-deploy-jig"], h=["factory-contact-awei"],
          x=["release-tagging"]),
    ]),
    S("hermes", "2026-11-09 20:00", turns=[
        M("rev C shunt - what did we settle on? Marek asks", n=["hwc-current-sense"]),
        C("explain INA240 PWM rejection to him in 3 lines"),
        C("less jargon, he's mechanical"),
    ]),
    S("claude-code", "2026-11-10 09:30", project="bms-firmware", turns=[
        M("OV 门槛写进 AFE 没生效，读回来还是默认值", n=["bms-afe-errata"]),
        R("readback check after config, LOG_ERR on mismatch"),
        R("run twister for the afe tests"),
        M("wdt fires during the long afe init, bump it?", n=["bms-watchdog-2s"],
          h=["watchdog-debug-freeze"], x=["ebike-watchdog"]),
    ]),
    S("calendar", "2026-11-10 17:30", turns=[
        M("parents meeting at Zosia's school tue 18:30, does that clash with anything",
          n=["home-climbing-tue-thu"]),
        C("remind me to bring the signed form"),
    ]),
    S("hermes", "2026-11-11 11:00", turns=[
        C("święto niepodległości, what's open in kraków today"),
        M("ZUS this month, when's the deadline", n=["home-tax"]),
        C("thx"),
    ]),
    S("claude-code", "2026-11-12 09:00", project="factory-test", turns=[
        R("hall test: say which of the 6 states failed"),
        R("CSV report is missing the serial column"),
        M("what are the idle current limits for rev B? put them in the docstring",
          n=["factory-test-limits"]),
        M("rewrite the report writer with the walrus + f\"{x=}\" debug prints, whatever's cleanest",
          n=["factory-python38"]),
        R("run the tests"),
    ]),
    S("pi", "2026-11-12 14:00", project="bms-firmware", turns=[
        R("SOC: coulomb counting from the shunt, reset at full charge"),
        R("ztest for it"),
        M("which can id do I use for SOC", n=["bms-can-ids"], x=["ebike-can-ids-v1"]),
        R("SOC 和充电器读数差 3%，对比一下 log"),
    ]),
    S("hermes", "2026-11-13 09:00", turns=[
        M("阿伟问替代料那批什么时候换回原料", n=["ebike-mosfet-sub"],
          h=["factory-contact-awei"]),
        C("帮我回他：下周确认"),
    ]),
    S("claude-code", "2026-11-13 15:00", project="ebike-controller", turns=[
        R("regen: ramp Iq down over 200 ms when the brake input goes high"),
        R("host test"),
        M("flash it, power stage connected this time", n=["bench-current-limit"],
          h=["ebike-build-flash"]),
        M("rtt shows nothing but the banner", n=["ebike-defmt"]),
    ]),
    # ------------------------------------------------------------ week 3 (test), 11-16 .. 11-22
    S("claude-code", "2026-11-16 09:00", project="ebike-controller", turns=[
        M("KD display shows no speed, they say they never see our status frames",
          n=["ebike-can-ids-v2"], x=["ebike-can-ids-v1", "bms-can-ids"]),
        R("rx timeout: no assist cmd for 500 ms -> assist 0"),
        R("host test for the timeout"),
    ]),
    S("hermes", "2026-11-16 20:30", turns=[
        M("华信问 rev C 上 MOSFET 还用不用 Toshiba 那颗", n=["hwc-mosfet-choice"],
          h=["ebike-mosfet-sub"]),
        C("帮我回一条，简短"),
    ]),
    S("pi", "2026-11-17 09:30", project="bms-firmware", turns=[
        M("charger trips OV at 4.15 on cell 7", n=["bms-cell-ov-uv"]),
        R("log the hysteresis state"),
        R("ztest for the release threshold"),
        M("写个 errata 说明发给林志豪", n=["bms-vendor-fae", "reply-language"],
          h=["bms-afe-errata"]),
    ]),
    S("claude-code", "2026-11-18 10:00", project="factory-test", turns=[
        M("EOL should flash the ebc hex itself before testing", n=["debug-probe-rs"],
          h=["bench-current-limit", "factory-test-limits"]),
        R("60 s timeout on the flash step"),
        M("load the hex with importlib.resources.files, fine?", n=["factory-python38"]),
        R("pytest"),
        M("打包给华信", n=["factory-deploy-jig"], x=["release-tagging"]),
    ]),
    S("hermes", "2026-11-18 21:00", turns=[
        C("冰箱里只有 pierogi 和白菜, dinner?"),
        C("teatr słowackiego, anything good on in december? kasia's bday"),
    ]),
    S("pi", "2026-11-19 09:00", project="ebike-controller", turns=[
        R("field weakening: Id ref table vs speed"),
        R("clamp Id at -10 A"),
        R("interpolate linearly between the table points"),
        M("周一那批的固件编一下", n=["ebike-mosfet-sub"],
          h=["ebike-build-flash"]),
    ]),
    S("claude-code", "2026-11-19 14:00", project="bms-firmware", turns=[
        R("move the monitor thread into its own file"),
        R("clang-format complains about include order, fix"),
        M("git commit -n, hooks take forever", n=["pre-commit-hooks"]),
    ]),
    S("hermes", "2026-11-20 08:10", turns=[
        M("Lin 今天能通话吗，几点合适", n=["factory-call-window"], h=["bms-vendor-fae"]),
        C("call agenda: A2 errata timing, sample stock, price"),
        C("shorter"),
    ]),
    # ------------------------------------------------------------ week 4 (test), 11-23 .. 11-29
    S("claude-code", "2026-11-23 09:00", project="ebike-controller", turns=[
        M("rev C boards are here, current reads ~25% high", n=["ebike-adc-cal-revc"],
          x=["ebike-adc-cal-revb"]),
        R("boot check that the board-id strap matches the feature"),
        R("cargo test on host"),
        R("log the board id at boot"),
        M("release build for huaxin's batch tomorrow", n=["ebike-mosfet-sub"],
          h=["release-tagging"]),
    ]),
    S("pi", "2026-11-23 14:00", project="factory-test", turns=[
        M("fw version check needs to handle rev C", n=["factory-fw-version-hwrev"],
          x=["factory-fw-version-format"]),
        R("test vectors for rev B and rev C strings"),
        R("跑一下"),
        M("照旧发给阿伟", n=["factory-deploy-jig"], h=["factory-contact-awei"],
          tags=("cue",)),
    ]),
    S("hermes", "2026-11-23 20:00", turns=[
        M("华信要 rev C 的生产文件，列个清单给我", n=["hwc-fab-outputs"]),
        C("写成微信，简体"),
        M("which kicad do I export with", n=["hwc-kicad8"]),
    ]),
    S("claude-code", "2026-11-24 10:00", project="ota-bootloader", turns=[
        M("rev A bike from Gdańsk needs the bootloader CRC fix, set up the build",
          n=["otaboot-build"], x=["ebike-build-flash"], tags=("archived",)),
        R("CRC32 over the app must skip the last 4 bytes, fix crc_check()"),
        R("build it"),
        M("flash it on the rev A here", n=["otaboot-build", "bench-current-limit"],
          x=["ebike-build-flash"], tags=("archived",)),
    ]),
    S("calendar", "2026-11-24 18:00", turns=[
        M("去深圳那周周三周五谁接 Zosia，帮我记上", n=["home-shenzhen-trip-dec"],
          h=["home-zosia-school"]),
        C("reminder to get HKD cash"),
    ]),
    S("pi", "2026-11-25 09:30", project="bms-firmware", turns=[
        R("expose OV/UV thresholds in the shell"),
        M("掉电重启以后门槛又丢了，重新初始化一下", n=["bms-afe-errata"]),
        R("ztest"),
        R("twister 有个 flaky test, 看看是不是 timing"),
    ]),
    S("hermes", "2026-11-26 12:00", turns=[
        C("kraków christmas market opening date?"),
        M("flights for the dongguan trip, what do I usually book",
          n=["home-china-travel"], h=["home-shenzhen-trip-dec"]),
        M("visa this time?", n=["home-china-travel"]),
    ]),
    S("claude-code", "2026-11-27 09:30", project="ebike-controller", turns=[
        R("speed limit 25 km/h, taper from 23"),
        R("wheel circumference as a config value"),
        M("替代料最后一批今天出货，编固件", n=["ebike-mosfet-sub"],
          h=["release-tagging"]),
        R("changelog since the last tag, bullet list"),
    ]),
    # ------------------------------------------------------------ week 5 (test), 11-30 .. 12-06
    S("claude-code", "2026-11-30 09:00", project="ebike-controller", turns=[
        M("hex for this week's huaxin batch, usual way", n=["ebike-build-flash"],
          h=["release-tagging"], x=["ebike-mosfet-sub"], tags=("cue",)),
        R("bump embassy-stm32 to 0.2"),
        R("Timer API changed, fix foc.rs"),
        M("仪表要在助力那帧里加个推行模式的标志位", n=["ebike-can-ids-v2"],
          x=["ebike-can-ids-v1", "bms-can-ids"]),
        M("iwdg resets after the embassy bump", n=["ebike-watchdog"],
          h=["watchdog-debug-freeze"], x=["bms-watchdog-500ms", "bms-watchdog-2s"]),
    ]),
    S("pi", "2026-11-30 14:00", project="bms-firmware", turns=[
        M("set up the watchdog for the new supervisor thread", n=["bms-watchdog-500ms"],
          x=["bms-watchdog-2s", "ebike-watchdog"]),
        R("each monitor thread sets its bit in a check-in mask"),
        R("test: one thread stalls -> reset"),
        M("提交，老规矩", n=["commit-style"], tags=("cue",)),
    ]),
    S("calendar", "2026-11-30 18:00", turns=[
        M("put this week's climbing in", n=["home-climbing-mon-thu"],
          x=["home-climbing-tue-thu"]),
        C("remind me to take the chalk bag"),
    ]),
    S("hermes", "2026-12-01 08:30", turns=[
        M("阿伟说 IPT015 到货了，下批 firmware 怎么烧", n=["ebike-build-flash"],
          h=["hwc-mosfet-choice", "factory-contact-awei"], x=["ebike-mosfet-sub"]),
        C("回他一条"),
    ]),
    S("claude-code", "2026-12-01 10:00", project="factory-test", turns=[
        R("EOL: regen check with the dyno driving the motor"),
        M("f\"{row[\"sn\"]}\" style nested quotes are fine right", n=["factory-python38"]),
        R("run tests"),
        M("jig rejects SOWA-EBC-1.2.0-C-0042", n=["factory-fw-version-hwrev"],
          x=["factory-fw-version-format"]),
    ]),
    S("pi", "2026-12-02 09:30", project="ebike-controller", turns=[
        R("derate phase current above 90 °C"),
        R("NTC lookup table for the FET temp"),
        M("temps as f32 deg C in the status frame, simpler", n=["units-in-names"],
          h=["ebike-can-ids-v2"]),
        M("rev C test board: same scale as B?", n=["ebike-adc-cal-revc"],
          x=["ebike-adc-cal-revb"]),
    ]),
    S("hermes", "2026-12-02 20:00", turns=[
        C("mikołajki gift for an 8yo who draws a lot"),
        M("climbing this week, which days again", n=["home-climbing-mon-thu"],
          x=["home-climbing-tue-thu"]),
        M("did I invoice Sowa yet? when was I supposed to", n=["invoice-monthly"]),
    ]),
    S("calendar", "2026-12-03 12:00", turns=[
        M("下周一晚上七点约牙医行吗", n=["home-climbing-mon-thu"],
          x=["home-climbing-tue-thu"]),
        C("那周二"),
    ]),
    S("claude-code", "2026-12-03 14:00", project="bms-firmware", turns=[
        M("twister is red since someone ran west update", n=["bms-west-manifest"]),
        R("pin hal_stm32 back"),
        M("Lin sent the A2 errata, do we still need the unlock?", n=["bms-afe-errata"],
          h=["bms-vendor-fae"]),
        R("drop the dead A0 code path"),
    ]),
    S("hermes", "2026-12-04 09:00", turns=[
        M("志豪約 10:30 通話，OK 嗎", n=["factory-call-window"]),
        C("agenda in 繁體"),
        C("加一條：A2 樣品什麼時候到"),
    ]),
    S("calendar", "2026-12-05 10:00", turns=[
        C("what's on monday"),
        M("JPK this month when? remind me", n=["home-tax"]),
    ]),
    # ------------------------------------------------------------ week 6 (test), 12-07 .. 12-13
    S("hermes", "2026-12-07 08:30", turns=[
        M("PVT 良率多少，周报要写", n=["factory-pvt-yield"]),
        C("3 bullets, english"),
        M("and the FOC timing from the HIL run?", n=["ebike-foc-timing"]),
    ]),
    S("claude-code", "2026-12-07 10:00", project="ebike-controller", turns=[
        R("diagnostic counters for FOC overruns"),
        M("move the PAS update into the FOC isr? is there headroom", n=["ebike-foc-timing"]),
        R("ok keep it in the task"),
        R("clippy 有两个 warning, fix"),
        M("release 1.0.0 for the rev C start", n=["release-tagging"],
          h=["ebike-build-flash", "ebike-adc-cal-revc"], x=["ebike-mosfet-sub"]),
    ]),
    S("pi", "2026-12-08 09:30", project="factory-test", turns=[
        M("hall 反接那个失败，报错写清楚点", n=["factory-pvt-yield"],
          h=["factory-test-limits"]),
        R("CAN terminator check: 60 Ω between CANH/CANL"),
        R("pytest"),
        M("deploy it like last time", n=["factory-deploy-jig"], h=["factory-contact-awei"],
          x=["release-tagging", "ebike-build-flash"], tags=("cue",)),
    ]),
    S("calendar", "2026-12-09 17:00", turns=[
        M("周日晚上的航班排上去", n=["home-shenzhen-trip-dec"], h=["home-china-travel"]),
        C("remind me saturday to pack the ESD bag and the J-Link"),
    ]),
    S("claude-code", "2026-12-10 09:30", project="bms-firmware", turns=[
        R("cell imbalance fault above 80 mV"),
        M("put that fault on CAN", n=["bms-can-ids"], x=["ebike-can-ids-v2"]),
        M("docs still say 2 s for the wdt, update", n=["bms-watchdog-500ms"],
          x=["bms-watchdog-2s"]),
        R("regenerate the docs"),
    ]),
    S("hermes", "2026-12-11 20:00", turns=[
        C("gift for the Huaxin team from kraków?"),
        M("Zosia's pickup next week is sorted right? who", n=["home-shenzhen-trip-dec"],
          h=["home-zosia-school"]),
        C("ok"),
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


def monday_of(day: dt.date) -> dt.date:
    return day - dt.timedelta(days=day.weekday())


def derived_tags(turn: dict[str, Any], no: int, agent: str, day: dt.date, cards) -> list[str]:
    """Language and trap tags from the cards the turn names."""
    if turn["kind"] != "memory":
        return [f"lang:{script(turn['prompt'])}"]
    tags = []
    langs = {card_language(cards[i]["conclusion"]) for i in turn["n"]}
    if len(langs) == 1:
        tags.append(f"lang:{script(turn['prompt'])}->{langs.pop()}")
    own = {cards[i]["project"] for i in turn["n"]}
    monday = monday_of(day)  # only cards of the probe's snapshot
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
    cards; the calendar only personal (home) cards; routine turns only in coding sessions."""
    agent = session["agent"]
    if agent in CODING and session["project"] not in CODING_PROJECTS:
        raise ValueError(f"{agent} session in {session['project']}")
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
    if turn["kind"] == "chat" and agent in CODING:
        raise ValueError(f"chat turn in a coding session: {turn['prompt']!r}")
    if turn["kind"] == "memory" and not turn["n"]:
        raise ValueError(f"memory turn without a necessary card: {turn['prompt']!r}")


def check_snapshot(turn: dict[str, Any], day: dt.date, cards) -> None:
    """Every named card is committed before the probe's Monday; a necessary card is neither
    past its expiry nor superseded in that snapshot; a harmful card is never also useful."""
    monday = monday_of(day)
    named = turn.get("n", []) + turn.get("h", []) + turn.get("x", [])
    for i in named:
        if cards[i]["committed"] >= monday:
            raise ValueError(f"{turn['prompt']!r} ({day}) names {i}, not yet in its snapshot")
    superseded = {
        s for c in cards.values() if c["committed"] < monday for s in c.get("supersedes") or []
    }
    for i in turn.get("n", []):
        if i in superseded or (cards[i].get("expires") and cards[i]["expires"] < day):
            raise ValueError(f"{turn['prompt']!r} ({day}) needs the stale card {i}")
    if set(turn.get("x", [])) & set(turn.get("n", []) + turn.get("h", [])):
        raise ValueError(f"{turn['prompt']!r} names a card as both useful and harmful")


def build() -> list[Probe]:
    cards = load_cards()
    probes = []
    for number, session in enumerate(SESSIONS, 1):
        agent, turns = session["agent"], session["turns"]
        start = dt.datetime.strptime(session["start"], "%Y-%m-%d %H:%M").replace(tzinfo=TZ)
        if not FIRST_DAY <= start.date() <= LAST_DAY:
            raise ValueError(f"session {number} starts outside the six weeks")
        at = start
        for i, turn in enumerate(turns):
            check_scope(session, turn, cards)
            check_snapshot(turn, at.date(), cards)
            tags = [turn["kind"], *turn.get("tags", [])]
            tags += derived_tags(turn, i + 1, agent, at.date(), cards)
            probes.append(
                Probe(
                    id=f"f{number:02d}-{i + 1}",
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
        raise ValueError("two sessions share a session id")
    return probes


def summary(probes: list[Probe]) -> str:
    """The counts the README reports."""
    kinds = Counter((_kind(p), p.split.value) for p in probes)
    lines = [f"{len(probes)} probes in {len({p.session_id for p in probes})} sessions"]
    for kind in ("memory", "routine", "chat"):
        dev, test = kinds[(kind, "dev")], kinds[(kind, "test")]
        lines.append(f"  {kind}: dev {dev}, test {test}, all {dev + test}")
    pairs = Counter(
        (t, p.split.value) for p in probes if _kind(p) == "memory" for t in p.tags if "->" in t
    )
    for pair in sorted({t for t, _ in pairs}):
        dev, test = pairs[(pair, "dev")], pairs[(pair, "test")]
        lines.append(f"  {pair}: dev {dev}, test {test}, all {dev + test}")
    tags = Counter(t for p in probes for t in p.tags if ":" not in t)
    lines.append("  tags: " + ", ".join(f"{t} {n}" for t, n in sorted(tags.items())))
    agents = Counter((p.agent, _kind(p)) for p in probes)
    lines.append("  agents: " + ", ".join(f"{a}/{k} {n}" for (a, k), n in sorted(agents.items())))
    prompts = Counter(script(p.prompt) for p in probes)
    lines.append("  prompts: " + ", ".join(f"{s} {n}" for s, n in sorted(prompts.items())))
    lines.append(f"  with harmful labels: {sum(bool(p.gold and p.gold.harmful) for p in probes)}")
    return "\n".join(lines)


def _kind(probe: Probe) -> str:
    return next(k for k in ("memory", "routine", "chat") if k in probe.tags)


if __name__ == "__main__":
    made = build()
    out = HERE / "probes.jsonl"
    dump_probes(made, out)
    print(f"wrote {len(made)} probes in {len({p.session_id for p in made})} sessions to {out}")
    print(summary(made))
