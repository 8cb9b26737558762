"""pace-hook's end-to-end suite: the real Claude Code CLI with real browser
MCP servers and Chromium, against a local website that logs every arrival,
with a scripted model. Run by scripts/e2e (which installs the pieces and
enters a private network namespace); see the README.

    python3 main.py --bin PATH [--work DIR] [--only NAME] [--mode hooked|baseline|both]

Every scenario runs with pace-hook (every check must pass) and again with
no hook at all, the baseline, which must fail the gap check (and let the
calls pace-hook blocks reach the website): a suite that cannot tell a
pacing hook from none proves nothing. Exits 1 on any failure.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cli
import codex
import codex_scenarios
import model
import pki
import scenarios
import tools
import web

INTERVAL = 3.0
# A short hold: a click whose page may still be loading holds its site
# that long (slow-click), and nothing else here runs without its Post.
CONFIG = 'interval = "3s"\nin_flight_hold = "20s"\nmax_wait = "100s"\n'
# A read-only call is not paced: its hook answers well inside one interval.
SKIP_LIMIT = 1.5


class Checks:
    def __init__(self, scenario, mode):
        self.scenario, self.mode = scenario, mode
        self.passed, self.failed = [], []

    def check(self, ok, what):
        (self.passed if ok else self.failed).append(what)
        mark = "ok  " if ok else "FAIL"
        print("    %s %s" % (mark, what), flush=True)
        return ok


def hook_of(hooks, call_id, event):
    return [h for h in hooks if h["call"] == call_id and h["event"] == event]


def gate_log(home):
    path = Path(home) / "gate.log"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def run_scenario(factory, mode, site, pieces, root, config_path, report):
    sc = factory()
    print("\n== %s [%s]: %s" % (sc.name, mode, sc.what), flush=True)
    work = root / mode / sc.name
    work.mkdir(parents=True)
    gate_home = work / "gate"
    gate_env = {"PACE_HOOK_HOME": str(gate_home), "PACE_HOOK_CONFIG": str(config_path)}
    ck = Checks(sc, mode)
    hooked = mode == "hooked"
    mark = site.log.mark()
    models, clis = {}, {}
    for plan in sc.clis:
        m = model.Model(plan.name, plan.steps, work / ("model-%s.jsonl" % plan.name), plan.subagents)
        hook = ("installed" if sc.install or sc.plugin else "wrapped") if hooked else "none"
        if getattr(plan, "client", "claude") == "codex":
            ep = codex.Endpoint(m)
            c = codex.Cli(pieces, work, plan.name, ep.url, plan.servers, hook, gate_env, site.ca)
            if hooked:
                ck.check(c.trust and set(c.trust.values()) == {"trusted"}, "cli %s: Codex lists its hooks as trusted %s" % (plan.name, c.trust))
        else:
            ep = model.Endpoint(m)
            c = cli.Cli(pieces, work, plan.name, ep.url, plan.servers, hook, gate_env, site.ca)
        models[plan.name], clis[plan.name] = (m, ep), c
    if sc.install and hooked:
        c = clis[sc.clis[0].name]
        env = dict(c.env, CLAUDE_PROJECT_DIR=str(c.project))
        before = subprocess.run([str(pieces.pace_hook), "doctor"], cwd=c.project, env=env, capture_output=True, text=True)
        (work / "doctor-before.txt").write_text(before.stdout + before.stderr)
        ck.check(before.returncode == 1 and "✗" in before.stdout, "doctor before install finds no hook (exit %d)" % before.returncode)
        inst = subprocess.run([str(pieces.pace_hook), "install", "--timeout", "120"], cwd=c.project, env=env, capture_output=True, text=True)
        (work / "install.txt").write_text(inst.stdout + inst.stderr)
        ck.check(inst.returncode == 0 and (c.project / ".claude/settings.json").exists(), "pace-hook install writes the project's settings (exit %d)" % inst.returncode)
        after = subprocess.run([str(pieces.pace_hook), "doctor"], cwd=c.project, env=env, capture_output=True, text=True)
        (work / "doctor-after.txt").write_text(after.stdout + after.stderr)
        ck.check(after.returncode == 0, "doctor after install finds it sound (exit %d): %s" % (after.returncode, after.stdout.strip().splitlines()[-1:]))
    if sc.plugin and hooked:
        c = clis[sc.clis[0].name]
        # The plugin's launcher runs `pace-hook` from PATH.
        bindir = c.dir / "bin"
        bindir.mkdir()
        (bindir / "pace-hook").symlink_to(pieces.pace_hook)
        c.env["PATH"] = "%s:%s" % (bindir, c.env["PATH"])
        for what, args in (
            ("marketplace add", ["plugin", "marketplace", "add", str(pieces.repo)]),
            ("install", ["plugin", "install", "pace-hook@pace-hook"]),
        ):
            r = subprocess.run([str(pieces.claude), *args], cwd=c.project, env=c.env, capture_output=True, text=True, timeout=120)
            (work / ("plugin-%s.txt" % what.replace(" ", "-"))).write_text(r.stdout + r.stderr)
            ck.check(r.returncode == 0, "claude plugin %s (exit %d): %s" % (what, r.returncode, (r.stdout + r.stderr).strip()[-160:]))
    for c in clis.values():
        c.start()
    for c in clis.values():
        c.wait()
    cli.end_everything()
    for c in clis.values():
        shutil.rmtree(c.env["TMPDIR"], ignore_errors=True)
    settled = site.log.settle(mark)
    records = site.log.since(mark)
    for m, ep in models.values():
        ep.close()

    # The CLIs played their whole scripts.
    for plan in sc.clis:
        c, (m, _) = clis[plan.name], models[plan.name]
        res = c.result() or {}
        ck.check(not c.timed_out, "cli %s ended by itself in %.0f s" % (plan.name, c.elapsed))
        for marker, sub in plan.subagents.items():
            got = max((t["turn"] for t in m.told if t.get("agent") == marker), default=-1)
            ck.check(got >= len(sub) - 1, "cli %s: subagent %s played all %d turns (last turn %d)" % (plan.name, marker, len(sub), got))
        played = max((t["turn"] for t in m.told if not t.get("agent")), default=-1)
        ck.check(not m.errors, "cli %s: the tools answered as the script expects %s" % (plan.name, m.errors))
        ck.check(played >= len(plan.steps) - 1, "cli %s played all %d turns (last turn %d, result %s)" % (plan.name, len(plan.steps), played, res.get("subtype")))

    ck.check(settled, "every request the website got in this scenario ended")
    agent = web.agent_requests(records)
    arrived = {(r["site"], r["path"]) for r in agent}
    for host, path in sc.arrive:
        ck.check((host, path) in arrived, "%s%s reached the website" % (host, path))
    gaps = web.gaps(records)
    short = [g for g in gaps if g["gap"] < INTERVAL]
    smallest = min((g["gap"] for g in gaps), default=None)
    report.append({"scenario": sc.name, "mode": mode, "gaps": gaps, "requests": len(agent)})
    results = {}
    for m, _ in models.values():
        results.update(m.results())
    hooks = [h for c in clis.values() for h in c.hooks()]
    log = gate_log(gate_home)
    reached = [r for r in agent if any(r["path"].startswith(p) for p in sc.never)]

    if hooked:
        ck.check(
            not short,
            "every gap at the website is at least %.0f s (%d gaps, smallest %s)%s"
            % (INTERVAL, len(gaps), "%.3f s" % smallest if smallest is not None else "-",
               "".join("\n         short: %s %s -> %s %.3f s" % (g["site"], g["from"], g["to"], g["gap"]) for g in short)),
        )
        ck.check(not reached, "no blocked request reached the website %s" % [r["path"] for r in reached])
        for call in sc.blocked:
            r = results.get(call.id(), {})
            ck.check(
                r.get("is_error") and "pace-hook blocked" in r.get("text", ""),
                "the model was told why %s was blocked: %r" % (r.get("name"), r.get("text", "")[:160]),
            )
        for call in sc.failed:
            r = results.get(call.id(), {})
            ck.check(bool(r.get("is_error")), "%s failed and the model got its error" % r.get("name"))
        for call in sc.skipped:
            skip = [e for e in log if e["event"] == "skip" and e.get("call", "").endswith(call.id())]
            ck.check(bool(skip), "%s passed as read-only (a skip in the gate log)" % (results.get(call.id(), {}).get("name")))
        if not (sc.install or sc.plugin):
            codes = sorted({h["code"] for h in hooks})
            ck.check(set(codes) <= {0, 2}, "every hook run exited 0 or 2 (%s; %d runs)" % (codes, len(hooks)))
            for call in sc.blocked:
                pre = hook_of(hooks, call.id(), "PreToolUse")
                ck.check([h["code"] for h in pre] == [2] and not hook_of(hooks, call.id(), "PostToolUse"), "Pre of %s exited 2, no Post" % call.id())
            for call in sc.failed:
                post = hook_of(hooks, call.id(), "PostToolUseFailure")
                ck.check([h["code"] for h in post] == [0], "PostToolUseFailure of %s reached the hook, exit 0" % call.id())
            for call in sc.paced:
                pre = hook_of(hooks, call.id(), "PreToolUse")
                post = hook_of(hooks, call.id(), "PostToolUse") + hook_of(hooks, call.id(), "PostToolUseFailure")
                ck.check([h["code"] for h in pre] == [0] and [h["code"] for h in post] == [0], "Pre and Post of %s exited 0" % call.id())
            for call in sc.skipped:
                pre = hook_of(hooks, call.id(), "PreToolUse")
                took = pre[0]["end"] - pre[0]["start"] if pre else None
                ck.check(took is not None and took < SKIP_LIMIT, "Pre of read-only %s was not delayed (%s)" % (call.id(), "%.2f s" % took if took is not None else "no Pre"))
        else:
            admits = [e for e in log if e["event"] == "admit"]
            ck.check(len(admits) >= len(sc.paced), "the installed hook admitted %d paced calls (gate log)" % len(admits))
            if sc.plugin:
                told = [results.get(call.id(), {}).get("text", "") for call in sc.blocked]
                ck.check(all("pace-hook-launcher" in t for t in told), "the blocks came through the plugin's launcher")
        g = subprocess.run([str(pieces.pace_hook), "gaps"], env=dict(os.environ, **gate_env), capture_output=True, text=True)
        (work / "gaps.txt").write_text(g.stdout + g.stderr)
        ck.check(g.returncode == 0, "pace-hook gaps finds no short gap in the gate log (exit %d)" % g.returncode)
    else:
        # The baseline must fail the same checks: no hook, no gaps.
        ck.check(bool(short), "baseline: the website saw gaps under %.0f s (%d of %d, smallest %s)"
                 % (INTERVAL, len(short), len(gaps), "%.3f s" % smallest if smallest is not None else "-"))
        if sc.never:
            ck.check(bool(reached), "baseline: the calls pace-hook blocks reached the website %s" % sorted({r["path"] for r in reached}))
        ck.check(not log, "baseline: no gate log (no hook ran)")
    for extra in getattr(sc, "extra", []):
        extra(ck, records, log, hooked, INTERVAL, {name: m for name, (m, _) in models.items()})
    return ck


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--repo", default=str(Path(__file__).resolve().parents[3]))
    ap.add_argument("--work")
    ap.add_argument("--only", action="append")
    ap.add_argument("--mode", default="both", choices=["hooked", "baseline", "both"])
    ap.add_argument("--http-port", type=int, default=80)
    ap.add_argument("--https-port", type=int, default=443)
    ap.add_argument("--report")
    ap.add_argument("--update-tools", action="store_true", help="rewrite tests/fixtures/tools/ from the pinned servers")
    args = ap.parse_args()

    cli.become_subreaper()
    pieces = cli.Pieces(args.repo, args.bin)
    missing = pieces.missing() + codex.missing(pieces)
    if missing:
        print("e2e: missing: %s (scripts/e2e installs them)" % ", ".join(missing), file=sys.stderr)
        return 1
    root = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="pace-hook-e2e-"))
    root.mkdir(parents=True, exist_ok=True)
    ca, cert, key = pki.make(root / "pki", list(web.SITES))
    site = web.Website(root / "website.jsonl", cert, key, args.http_port, args.https_port, scenarios.SLOW_LINK_MS)
    site.ca = ca
    config_path = root / "pace-hook.toml"
    config_path.write_text(CONFIG)
    factories = [f for f in scenarios.ALL + codex_scenarios.ALL if not args.only or f().name in args.only]
    modes = ["hooked", "baseline"] if args.mode == "both" else [args.mode]
    results, report = [], []
    started = time.time()
    try:
        print("\n== tools: the pinned servers' tools/list against tests/fixtures/tools/", flush=True)
        ck = Checks(type("S", (), {"name": "tools"})(), "-")
        problems = tools.check(pieces, root, pieces.repo / "tests/fixtures/tools", args.update_tools)
        ck.check(not problems, "the fixtures are what the pinned servers list%s" % "".join("\n         " + p for p in problems))
        results.append(ck)
        for mode in modes:
            for f in factories:
                results.append(run_scenario(f, mode, site, pieces, root, config_path, report))
    finally:
        cli.end_everything()
        site.close()
    passed = sum(len(r.passed) for r in results)
    failed = sum(len(r.failed) for r in results)
    print("\nscenarios:")
    for r in results:
        print("  %-8s %-26s %s" % (r.mode, r.scenario.name, "ok" if not r.failed else "FAILED (%d)" % len(r.failed)))
    print("\ngaps at the website (agent requests, same site):")
    for rep in report:
        gs = [g["gap"] for g in rep["gaps"]]
        if gs:
            print("  %-8s %-26s %3d gaps  smallest %7.3f s  largest %7.3f s" % (rep["mode"], rep["scenario"], len(gs), min(gs), max(gs)))
    if args.report:
        Path(args.report).write_text(json.dumps(report, indent=1))
    print("\nwork directory: %s; %.0f s" % (root, time.time() - started))
    print("e2e: %d passed, %d failed" % (passed, failed))
    if not args.work and failed == 0:
        shutil.rmtree(root, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
