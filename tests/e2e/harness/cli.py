"""Running the real Claude Code CLI, offline, against the scripted model,
with real browser MCP servers on Debian's Chromium, and ending every
process a run starts, by its id."""

import ctypes
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
# What Chromium needs as root on a closed network: no sandbox (set by each
# server's own option), no GPU, no QUIC, no background traffic of its own.
CHROMIUM_ARGS = [
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * 127.0.0.1",
]
MATCHER = "mcp__.*|WebFetch|WebSearch|^Bash$"
HOOK_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure")


class Pieces:
    """Where the pinned pieces are."""

    def __init__(self, repo, bin_path):
        self.repo = Path(repo)
        self.modules = self.repo / "tests/e2e/node_modules"
        self.claude = self.modules / "@anthropic-ai/claude-code/bin/claude.exe"
        self.playwright = self.modules / "@playwright/mcp/cli.js"
        self.devtools = self.modules / "chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js"
        self.pace_hook = Path(bin_path)
        self.wrapper = self.repo / "tests/e2e/harness/hook-wrap"

    def missing(self):
        return [str(p) for p in (self.claude, self.playwright, self.devtools, self.pace_hook, Path(CHROMIUM)) if not p.exists()]


def playwright_server(pieces, workdir):
    config = {
        "browser": {
            "browserName": "chromium",
            "isolated": True,
            "launchOptions": {
                "headless": True,
                "executablePath": CHROMIUM,
                "chromiumSandbox": os.geteuid() != 0,
                "args": CHROMIUM_ARGS,
            },
        },
        "outputDir": str(workdir / "playwright-out"),
    }
    path = workdir / "playwright.json"
    path.write_text(json.dumps(config, indent=1))
    return {"command": "node", "args": [str(pieces.playwright), "--config", str(path)]}


def devtools_server(pieces, workdir):
    args = [
        str(pieces.devtools),
        "--executablePath",
        CHROMIUM,
        "--headless",
        "--isolated",
        "--no-usage-statistics",
        "--no-performance-crux",
    ]
    if os.geteuid() == 0:
        args.append("--chromeArg=--no-sandbox")
    args += ["--chromeArg=" + a for a in CHROMIUM_ARGS]
    return {
        "command": "node",
        "args": args,
        "env": {"CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS": "1"},
    }


def hook_settings(command):
    group = {"matcher": MATCHER, "hooks": [{"type": "command", "command": command, "timeout": 120}]}
    return {"hooks": {e: [group] for e in HOOK_EVENTS}}


class Cli:
    """One Claude Code CLI: its own HOME and project directory, the
    scripted model at `model_url`, the MCP servers named in `servers`
    (`playwright`, `chrome-devtools`), and a hook per `hook`:
    `wrapped` (pace-hook through a wrapper that notes each exit code),
    `installed` (whatever `pace-hook install` wrote; the caller runs it) or
    `none` (the baseline)."""

    def __init__(self, pieces, workdir, name, model_url, servers, hook, gate_env, ca_cert, limit=240):
        self.pieces = pieces
        self.name = name
        self.dir = Path(workdir) / name
        self.home = self.dir / "home"
        self.project = self.dir / "project"
        self.hook_log = self.dir / "hooks.log"
        self.limit = limit
        for d in (self.home / ".claude", self.project / ".claude", self.dir / "events"):
            d.mkdir(parents=True, exist_ok=True)
        (self.home / ".claude/settings.json").write_text(
            json.dumps({"skipWebFetchPreflight": True, "autoUpdates": False}, indent=1)
        )
        mcp = {}
        if "playwright" in servers:
            mcp["playwright"] = playwright_server(pieces, self.dir)
        if "chrome-devtools" in servers:
            mcp["chrome-devtools"] = devtools_server(pieces, self.dir)
        self.mcp_config = self.dir / "mcp.json"
        self.mcp_config.write_text(json.dumps({"mcpServers": mcp}, indent=1))
        self.allowed = ["mcp__%s__*" % s for s in servers] + ["WebFetch", "Agent", "Bash"]
        if hook == "wrapped":
            (self.project / ".claude/settings.json").write_text(
                json.dumps(hook_settings(str(pieces.wrapper)), indent=1)
            )
        self.env = {
            "PATH": "%s:/usr/local/bin:/usr/bin:/bin" % Path(shutil.which("node") or "/usr/bin/node").parent,
            "HOME": str(self.home),
            "LANG": "C.UTF-8",
            # Short: Chromium puts Unix sockets here, whose paths must fit in
            # 108 bytes (a deep TMPDIR made every browser die at launch).
            "TMPDIR": tempfile.mkdtemp(prefix="e2e-%s-" % name, dir="/tmp"),
            "ANTHROPIC_BASE_URL": model_url,
            "ANTHROPIC_API_KEY": "sk-ant-e2e-not-a-key",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS": "1",
            "NODE_EXTRA_CA_CERTS": str(ca_cert),
            "E2E_HOOK_LOG": str(self.hook_log),
            "E2E_HOOK_EVENTS": str(self.dir / "events"),
            "PACE_HOOK_BIN": str(pieces.pace_hook),
            "MCP_TIMEOUT": "60000",
        }
        self.env.update(gate_env)
        self.proc = None

    def start(self, prompt="Follow the plan."):
        cmd = [
            str(self.pieces.claude),
            prompt,
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--model",
            "claude-sonnet-4-5",
            "--max-turns",
            "60",
            "--mcp-config",
            str(self.mcp_config),
            "--strict-mcp-config",
            "--allowedTools",
            *self.allowed,
        ]
        return self.launch(cmd)

    def launch(self, cmd):
        """Start the CLI in the project, its output in files."""
        self.started = time.time()
        self.proc = subprocess.Popen(
            cmd,
            cwd=self.project,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=open(self.dir / "stdout.jsonl", "wb"),
            stderr=open(self.dir / "stderr.txt", "wb"),
            start_new_session=True,
        )
        return self

    def wait(self):
        """Wait for the CLI up to its time limit; True when it ended by itself."""
        try:
            self.proc.wait(timeout=max(1, self.limit - (time.time() - self.started)))
            self.timed_out = False
        except subprocess.TimeoutExpired:
            self.timed_out = True
            kill_tree(self.proc.pid)
            self.proc.wait()
        self.elapsed = time.time() - self.started
        return not self.timed_out

    def hooks(self):
        """Each hook run the wrapper saw: its event, tool, call, exit code
        and how long it took."""
        out = []
        if not self.hook_log.exists():
            return out
        for line in self.hook_log.read_text().splitlines():
            start, end, code, path = line.split(" ", 3)
            try:
                event = json.loads(Path(path).read_text())
            except (OSError, ValueError):
                event = {}
            out.append(
                {
                    "start": int(start) / 1000,
                    "end": int(end) / 1000,
                    "code": int(code),
                    "event": event.get("hook_event_name"),
                    "tool": event.get("tool_name"),
                    "input": event.get("tool_input"),
                    "call": event.get("tool_use_id"),
                }
            )
        return out

    def result(self):
        """The CLI's closing `result` record, if it wrote one."""
        path = self.dir / "stdout.jsonl"
        for line in reversed(path.read_bytes().decode("utf-8", "replace").splitlines()):
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if rec.get("type") == "result":
                return rec
        return None


def become_subreaper():
    """Orphans of the processes this run starts (browsers whose server
    died) come back to this process, so they can be found and ended."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except OSError:
        pass


def descendants(root):
    parents = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path("/proc/%s/stat" % entry).read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        parents[int(entry)] = ppid
    out = []
    for pid in parents:
        p = parents.get(pid)
        seen = 0
        while p and seen < 64:
            if p == root:
                out.append(pid)
                break
            p = parents.get(p)
            seen += 1
    return out


def kill_tree(root):
    """End `root` and every process under it, by id: TERM, then KILL."""
    pids = descendants(root) + [root]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.time() + 3
        while time.time() < deadline and any(alive(p) for p in pids):
            reap()
            time.sleep(0.05)
    reap()


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path("/proc/%d/stat" % pid).read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def end_everything():
    """End every process this run started that is still there."""
    for pid in descendants(os.getpid()):
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.time() + 3
    while time.time() < deadline and descendants(os.getpid()):
        reap()
        time.sleep(0.05)
    for pid in descendants(os.getpid()):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    reap()
