"""The scenarios with the real Codex CLI (see codex.py): Codex sessions and
a Claude Code session on one gate, a Codex call pace-hook blocks, and
Codex's PostToolUse recording when a call finished.

A plan whose `client` is "codex" runs `codex exec` against the Responses
API mock; the checks are main.py's, plus a scenario's `extra` checks.
"""

import re

from model import say, use
from scenarios import SHOP, TWO_FETCHES, Call, CliPlan, Scenario, navigations, pw

# The slow page's time: a next call that waited from the start of the call
# (or for the in-flight hold, 20 s, with no Post) is told apart from one
# that waited the interval from its finish.
SLOW_MS = 4000
SLOW = "/slow?ms=%d" % SLOW_MS


def codex(name, servers, steps):
    plan = CliPlan(name, servers, steps)
    plan.client = "codex"
    return plan


def shell(cmd):
    """Codex's shell tool (its hook sees `Bash` with `command`)."""
    return use("exec_command", cmd=cmd)


def codex_and_claude():
    plans = [codex("cx1", ["playwright"], navigations("cx1", "pw")),
             codex("cx2", ["playwright"], navigations("cx2", "pw")),
             CliPlan("cc", ["playwright"], navigations("cc", "pw"))]
    sc = Scenario(
        "codex-and-claude",
        "two Codex CLI sessions and one Claude Code session started together, each with its own Playwright "
        "browser, on one site",
        plans,
        arrive=[("shop.example.com", "/%s%d" % (p.name, i)) for p in plans for i in (1, 2, 3)],
        paced=[Call(p.name, i) for p in plans for i in (0, 1, 2)],
    )
    sc.extra = [notes_reached_the_model({"cx1", "cx2"})]
    return sc


def codex_block_and_finish():
    c = "cxb"
    steps = [
        [pw("browser_navigate", url=SHOP + "/x1")],
        [pw("browser_snapshot")],
        [pw("browser_evaluate", function=TWO_FETCHES)],
        [shell("curl -s http://shop.example.com/api/3 http://shop.example.com/api/4")],
        [shell("curl -s -o /dev/null -w '%{http_code}' http://shop.example.com/sh1")],
        [pw("browser_navigate", url=SHOP + SLOW)],
        [pw("browser_navigate", url=SHOP + "/x2")],
        [say("Done.")],
    ]
    sc = Scenario(
        "codex-block-and-finish",
        "Codex CLI: a navigation, a snapshot, a two-fetch browser_evaluate and a two-URL curl (both blocked), "
        "a one-URL curl, a %d s page, then a navigation that must wait the interval from that page's finish" % (SLOW_MS // 1000),
        [codex(c, ["playwright"], steps)],
        arrive=[("shop.example.com", p) for p in ("/x1", "/sh1", SLOW, "/x2")],
        never=["/api/"],
        blocked=[Call(c, 2), Call(c, 3)],
        skipped=[Call(c, 1)],
        paced=[Call(c, 0), Call(c, 4), Call(c, 5), Call(c, 6)],
    )
    sc.extra = [notes_reached_the_model({c}),
                lambda ck, records, log, hooked, interval, models: from_the_finish(ck, records, log, hooked, interval, Call(c, 5))]
    return sc


def notes_reached_the_model(codex_clis):
    """A Codex call pace-hook made wait is answered with exit 0 and a JSON
    note (`hookSpecificOutput.additionalContext`); Codex fails a hook whose
    answer its schema or parser refuses, and then says nothing to the model.
    So each note must reach the model, in the request after the call."""
    def check(ck, records, log, hooked, interval, models):
        if hooked:
            notes_told(ck, log, models, codex_clis)

    return check


def notes_told(ck, log, models, codex_clis):
    waited = []
    for e in log:
        m = re.search(r"toolu_e2e_([a-z0-9]+)_(\d\d)_\d$", e.get("call", ""))
        if e["event"] == "admit" and e.get("waited_ms", 0) >= 1000 and m and m.group(1) in codex_clis:
            waited.append((m.group(1), int(m.group(2)), e["tool"]))
    told = {(name, t["turn"]): " ".join(t["texts"]) for name, mo in models.items() for t in mo.told}
    missing = [w for w in waited if "pace-hook paced this call: `%s` waited" % w[2].split("__")[-1] not in told.get((w[0], w[1] + 1), "")]
    ck.check(waited and not missing, "Codex took pace-hook's note on each of the %d Codex calls that waited and told the model "
             "(missing: %s)" % (len(waited), missing))


def from_the_finish(ck, records, log, hooked, interval, call):
    """The call after the slow page waited the interval from that page's
    end, not from its start (it would then go at once, the page having
    taken longer than the interval) nor for the in-flight hold (no Post)."""
    slow = [r for r in records if r["path"] == SLOW]
    after = sorted((r for r in records if r["path"] == "/x2"), key=lambda r: r["arrival"])
    if not ck.check(len(slow) == 1 and after, "the slow page and the navigation after it reached the website once"):
        return
    gap = after[0]["arrival"] - slow[0]["end"]
    if not hooked:
        ck.check(gap < interval, "baseline: the navigation after the slow page came %.3f s after it (under %.0f s)" % (gap, interval))
        return
    ck.check(interval <= gap < interval + 8,
             "the navigation after the %d s page came %.3f s after its end: the interval from the finish "
             "(at least %.0f s, well under the 20 s hold)" % (SLOW_MS // 1000, gap, interval))
    finish = [e for e in log if e["event"] == "finish" and e.get("call", "").endswith(call.id())]
    ck.check(bool(finish) and finish[0]["ts"] / 1000 >= slow[0]["end"] - 0.05,
             "Codex's PostToolUse recorded the slow call's finish after the page ended (%s)"
             % ("%.3f s after" % (finish[0]["ts"] / 1000 - slow[0]["end"]) if finish else "no finish in the gate log"))


ALL = [codex_and_claude, codex_block_and_finish]
