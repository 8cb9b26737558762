"""The scenarios: each is one or more CLIs, each playing a script of
assistant turns, and what must be seen at the website, in what the model
was told and in the hook's answers.

A step is the list of blocks of one assistant turn, or a function of the
previous turn (what the tools answered) returning it: refs, uids and page
ids are learnt from the servers' own answers, as a model would.
"""

import re

from model import say, use

PW = "mcp__playwright__"
DT = "mcp__chrome-devtools__"

SHOP = "http://shop.example.com"
WWW_SHOP = "http://www.shop.example.com"
NEWS = "http://news.example.org"

TWO_FETCHES = "async () => { await fetch('/api/1'); await fetch('/api/2'); return 'ok'; }"
GOTO_LOOP = (
    "async (page) => { for (const p of ['/loop/1', '/loop/2', '/loop/3']) "
    "{ await page.goto('http://shop.example.com' + p); } return 'ok'; }"
)


def pw(tool, **kw):
    return use(PW + tool, **kw)


def dt(tool, **kw):
    return use(DT + tool, **kw)


def ref(turn, label):
    """The Playwright snapshot ref of the link named `label`."""
    m = re.search(r'link "%s" \[ref=([^\]]+)\]' % re.escape(label), turn.text())
    if not m:
        raise LookupError("no ref for link %r in %r" % (label, turn.text()[:400]))
    return m.group(1)


def uid(turn, label):
    """The DevTools snapshot uid of the link named `label`."""
    m = re.search(r'uid=(\S+) link "%s"' % re.escape(label), turn.text())
    if not m:
        raise LookupError("no uid for link %r in %r" % (label, turn.text()[:400]))
    return m.group(1)


def page_ids(turn):
    """DevTools page ids in a `## Pages` listing, in order."""
    ids = [int(m) for m in re.findall(r"^(\d+): ", turn.text(), re.M)]
    if not ids:
        raise LookupError("no page ids in %r" % turn.text()[:400])
    return ids


class Call:
    """Names one scripted tool call: CLI, turn and position in the turn."""

    def __init__(self, cli, turn, i=0):
        self.cli, self.turn, self.i = cli, turn, i

    def id(self):
        return "toolu_e2e_%s_%02d_%d" % (self.cli, self.turn, self.i)


class CliPlan:
    def __init__(self, name, servers, steps, subagents=None):
        self.name, self.servers, self.steps = name, servers, steps
        self.subagents = subagents or {}


class Scenario:
    """`arrive`: (host, path) pairs that must reach the website. `never`:
    path prefixes that must not (calls the hook blocks). `blocked`,
    `failed`, `skipped`, `paced`: scripted calls and what the hook must
    have made of them."""

    def __init__(self, name, what, clis, arrive=(), never=(), blocked=(), failed=(), skipped=(), paced=(), install=False, plugin=False):
        self.name = name
        self.what = what
        self.clis = clis
        self.arrive = list(arrive)
        self.never = list(never)
        self.blocked = list(blocked)
        self.failed = list(failed)
        self.skipped = list(skipped)
        self.paced = list(paced)
        self.install = install
        self.plugin = plugin


def playwright():
    steps = [
        [pw("browser_navigate", url=SHOP + "/")],
        # Two navigations in one turn: Claude Code runs them one after the
        # other; the second is on a subdomain of the same site.
        [pw("browser_navigate", url=SHOP + "/a"), pw("browser_navigate", url=WWW_SHOP + "/b")],
        [pw("browser_snapshot")],
        lambda t: [pw("browser_click", target=ref(t, "Next page"), element="Next page link")],
        [pw("browser_navigate", url=NEWS + "/")],
        [pw("browser_navigate_back")],
        [pw("browser_navigate", url=SHOP + "/broken")],
        [pw("browser_navigate", url=SHOP + "/c")],
        [pw("browser_evaluate", function=TWO_FETCHES)],
        [pw("browser_run_code_unsafe", code=GOTO_LOOP)],
        [pw("browser_tabs", action="new", url=NEWS + "/n2")],
        [pw("browser_navigate", url=NEWS + "/slow?ms=4000")],
        [pw("browser_navigate", url=NEWS + "/d")],
        # Read-only in 0.0.83, and missing from the profile before issue 17.
        [pw("browser_emulate_media", colorScheme="dark")],
        [say("Done.")],
    ]
    c = "pw"
    return Scenario(
        "playwright",
        "Playwright MCP: navigate, two navigations in one turn, snapshot, click a link, another site, back, "
        "a failing navigation, a two-fetch evaluate, a page.goto loop, a new tab with a URL, a slow page, emulate_media",
        [CliPlan(c, ["playwright"], steps)],
        arrive=[
            ("shop.example.com", "/"),
            ("shop.example.com", "/a"),
            ("www.shop.example.com", "/b"),
            ("news.example.org", "/"),
            ("shop.example.com", "/broken"),
            ("shop.example.com", "/c"),
            ("news.example.org", "/n2"),
            ("news.example.org", "/slow?ms=4000"),
            ("news.example.org", "/d"),
        ],
        never=["/api/", "/loop/"],
        blocked=[Call(c, 8), Call(c, 9)],
        failed=[Call(c, 6)],
        skipped=[Call(c, 2), Call(c, 13)],
        paced=[Call(c, 0), Call(c, 1, 0), Call(c, 1, 1), Call(c, 3), Call(c, 4), Call(c, 5), Call(c, 7), Call(c, 10), Call(c, 11), Call(c, 12)],
    )


def devtools():
    first = {}

    def remember(t):
        first["id"] = page_ids(t)[0]
        return [dt("navigate_page", pageId=first["id"], type="url", url=SHOP + "/")]

    steps = [
        [dt("list_pages")],
        remember,
        lambda t: [dt("navigate_page", pageId=first["id"], type="url", url=SHOP + "/a")],
        lambda t: [dt("take_snapshot", pageId=first["id"])],
        lambda t: [dt("click", pageId=first["id"], uid=uid(t, "Other page"))],
        [dt("new_page", url=NEWS + "/")],
        lambda t: [dt("navigate_page", pageId=max(page_ids(t)), type="url", url=NEWS + "/b")],
        lambda t: [dt("navigate_page", pageId=first["id"], type="url", url=SHOP + "/c")],
        lambda t: [dt("evaluate_script", pageId=first["id"], function=TWO_FETCHES)],
        lambda t: [dt("take_snapshot", pageId=first["id"])],
        # Read-only in 1.11.0, and missing from the profile before issue 17.
        lambda t: [dt("get_css_styles", pageId=first["id"], uid=uid(t, "Next page"))],
        [say("Done.")],
    ]
    c = "dt"
    return Scenario(
        "devtools",
        "Chrome DevTools MCP with pageId: navigate_page twice, a snapshot, a click on a link, new_page on another "
        "site, navigate_page there, another on the first page, a two-fetch evaluate_script, get_css_styles",
        [CliPlan(c, ["chrome-devtools"], steps)],
        arrive=[
            ("shop.example.com", "/"),
            ("shop.example.com", "/a"),
            ("shop.example.com", "/b"),
            ("news.example.org", "/"),
            ("news.example.org", "/b"),
            ("shop.example.com", "/c"),
        ],
        never=["/api/"],
        blocked=[Call(c, 8)],
        skipped=[Call(c, 0), Call(c, 3), Call(c, 9), Call(c, 10)],
        paced=[Call(c, 1), Call(c, 2), Call(c, 4), Call(c, 5), Call(c, 6), Call(c, 7)],
    )


def webfetch():
    steps = [
        [use("WebFetch", url="https://news.example.org/w1", prompt="What does it say?")],
        [use("WebFetch", url="https://news.example.org/w2", prompt="What does it say?")],
        [use("WebFetch", url="https://shop.example.com/w3", prompt="What does it say?")],
        [use("WebFetch", url="https://www.shop.example.com/w4", prompt="What does it say?")],
        [say("Done.")],
    ]
    c = "wf"
    return Scenario(
        "webfetch",
        "WebFetch over HTTPS (the throwaway CA): two fetches on one site, two on another (one on a subdomain)",
        [CliPlan(c, [], steps)],
        arrive=[("news.example.org", "/w1"), ("news.example.org", "/w2"), ("shop.example.com", "/w3"), ("www.shop.example.com", "/w4")],
        paced=[Call(c, 0), Call(c, 1), Call(c, 2), Call(c, 3)],
    )


def navigations(prefix, tool):
    if tool == "pw":
        return [[pw("browser_navigate", url=SHOP + "/%s%d" % (prefix, i))] for i in (1, 2, 3)] + [[say("Done.")]]
    first = {}

    def go(i):
        def step(t):
            if "id" not in first:
                first["id"] = page_ids(t)[0]
            return [dt("navigate_page", pageId=first["id"], type="url", url=SHOP + "/%s%d" % (prefix, i))]

        return step

    return [[dt("list_pages")]] + [go(i) for i in (1, 2, 3)] + [[say("Done.")]]


def two_clis():
    return Scenario(
        "two-clis",
        "two Claude Code CLIs started together, each with its own Playwright browser, on one site",
        [CliPlan("a", ["playwright"], navigations("a", "pw")), CliPlan("b", ["playwright"], navigations("b", "pw"))],
        arrive=[("shop.example.com", "/%s%d" % (p, i)) for p in "ab" for i in (1, 2, 3)],
        paced=[Call(p, i) for p in "ab" for i in (0, 1, 2)],
    )


def mixed():
    return Scenario(
        "playwright-and-devtools",
        "one CLI on Playwright and one on DevTools at once, on one site",
        [CliPlan("p", ["playwright"], navigations("p", "pw")), CliPlan("d", ["chrome-devtools"], navigations("d", "dt"))],
        arrive=[("shop.example.com", "/%s%d" % (p, i)) for p in "pd" for i in (1, 2, 3)],
        paced=[Call("p", i) for i in (0, 1, 2)] + [Call("d", i) for i in (1, 2, 3)],
    )


def installed():
    steps = [
        [pw("browser_navigate", url=SHOP + "/i1")],
        [pw("browser_navigate", url=SHOP + "/i2")],
        [pw("browser_snapshot")],
        [pw("browser_evaluate", function=TWO_FETCHES)],
        [pw("browser_navigate", url=SHOP + "/i3")],
        [say("Done.")],
    ]
    c = "in"
    return Scenario(
        "install",
        "the hook as `pace-hook install` writes it in the project's .claude/settings.json, doctor before and after",
        [CliPlan(c, ["playwright"], steps)],
        arrive=[("shop.example.com", "/i1"), ("shop.example.com", "/i2"), ("shop.example.com", "/i3")],
        never=["/api/"],
        blocked=[Call(c, 3)],
        skipped=[Call(c, 2)],
        paced=[Call(c, 0), Call(c, 1), Call(c, 4)],
        install=True,
    )


def plugin():
    steps = [
        [pw("browser_navigate", url=SHOP + "/g1")],
        [pw("browser_navigate", url=SHOP + "/g2")],
        [pw("browser_evaluate", function=TWO_FETCHES)],
        [pw("browser_navigate", url=SHOP + "/g3")],
        [say("Done.")],
    ]
    c = "pl"
    return Scenario(
        "plugin",
        "the hook as the plugin brings it (`claude plugin marketplace add` this repository, `claude plugin install`)",
        [CliPlan(c, ["playwright"], steps)],
        arrive=[("shop.example.com", "/g1"), ("shop.example.com", "/g2"), ("shop.example.com", "/g3")],
        never=["/api/"],
        blocked=[Call(c, 2)],
        paced=[Call(c, 0), Call(c, 1), Call(c, 3)],
        plugin=True,
    )


def subagents():
    """The main agent navigates, hands a task to a subagent (run in the
    foreground) that navigates the same site in the same browser, and
    navigates again: one gate for both agents."""
    main = [
        [pw("browser_navigate", url=SHOP + "/m1")],
        [use("Agent", description="Visit two pages", subagent_type="general-purpose", run_in_background=False,
             prompt="SUBAGENT-sa: visit the two pages of the plan.")],
        [pw("browser_navigate", url=SHOP + "/m2")],
        [say("Done.")],
    ]
    sub = [
        [pw("browser_navigate", url=SHOP + "/t1")],
        [pw("browser_navigate", url=SHOP + "/t2")],
        [say("Visited both.")],
    ]
    return Scenario(
        "subagents",
        "a subagent (the Agent tool) navigating the site its main agent is on, between the main agent's navigations",
        [CliPlan("ma", ["playwright"], main, {"SUBAGENT-sa": sub})],
        arrive=[("shop.example.com", p) for p in ("/m1", "/t1", "/t2", "/m2")],
        paced=[Call("ma", 0), Call("ma", 2), Call("SUBAGENT-sa", 0), Call("SUBAGENT-sa", 1)],
    )


def slow_click():
    """A click on a link whose page answers after 15 s: Playwright's click
    gives up after 5 s (a PostToolUseFailure), DevTools' answers after
    about 6 s as if done; the browser goes on loading, and the next
    navigation would cut that load short at the site."""
    first = {}

    def remember(t):
        first["id"] = page_ids(t)[0]
        return [dt("navigate_page", pageId=first["id"], type="url", url=NEWS + "/s1")]

    pw_steps = [
        [pw("browser_navigate", url=SHOP + "/s1")],
        [pw("browser_snapshot")],
        lambda t: [pw("browser_click", target=ref(t, "Slow page"), element="Slow page link")],
        [pw("browser_navigate", url=SHOP + "/s2")],
        [say("Done.")],
    ]
    dt_steps = [
        [dt("list_pages")],
        remember,
        lambda t: [dt("take_snapshot", pageId=first["id"])],
        lambda t: [dt("click", pageId=first["id"], uid=uid(t, "Slow page"))],
        lambda t: [dt("navigate_page", pageId=first["id"], type="url", url=NEWS + "/s2")],
        [say("Done.")],
    ]
    slow = "/slow?ms=%d" % SLOW_LINK_MS
    return Scenario(
        "slow-click",
        "a click on a link whose page takes 15 s, on Playwright (shop) and DevTools (news) at once, then a navigation",
        [CliPlan("ps", ["playwright"], pw_steps), CliPlan("ds", ["chrome-devtools"], dt_steps)],
        arrive=[(h, p) for h in ("shop.example.com", "news.example.org") for p in ("/s1", slow, "/s2")],
        skipped=[Call("ps", 1), Call("ds", 0), Call("ds", 2)],
        paced=[Call("ps", 0), Call("ps", 2), Call("ps", 3), Call("ds", 1), Call("ds", 3), Call("ds", 4)],
    )


def shell():
    """Claude Code's own shell: two single curls to one site in a row are
    spaced by the interval; a loop of curls is blocked before any of them
    runs; a command that fetches nothing passes; a curl to the other site
    is paced on that site alone."""
    steps = [
        [use("Bash", command="curl -s http://shop.example.com/sh1 | head -c 200", description="Fetch the first page")],
        [use("Bash", command="curl -sS -o /dev/null -w '%{http_code}\\n' 'http://shop.example.com/sh2'", description="Status of the second")],
        [use("Bash", command="for p in 1 2 3; do curl -s \"http://shop.example.com/loop/$p\"; done", description="Fetch three pages")],
        [use("Bash", command="ls -la && echo done", description="List files")],
        [use("Bash", command="wget -q -O - http://news.example.org/sh3 | wc -c", description="Fetch the news page")],
        [use("Bash", command="curl -s http://shop.example.com/sh4 -o page.html && wc -c page.html", description="Save a page")],
        [say("Done.")],
    ]
    c = "sh"
    return Scenario(
        "shell",
        "Claude Code's Bash tool: two curls to one site in a row, a for loop of curls, a command that fetches "
        "nothing, a wget to another site, a curl saving a page",
        [CliPlan(c, [], steps)],
        arrive=[("shop.example.com", "/sh1"), ("shop.example.com", "/sh2"), ("news.example.org", "/sh3"), ("shop.example.com", "/sh4")],
        never=["/loop/"],
        blocked=[Call(c, 2)],
        paced=[Call(c, 0), Call(c, 1), Call(c, 4), Call(c, 5)],
    )


# The "Slow page" link on every page answers after this long.
SLOW_LINK_MS = 15000

ALL = [playwright, devtools, webfetch, shell, two_clis, mixed, subagents, installed, plugin, slow_click]
