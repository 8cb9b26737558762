"""The real OpenAI Codex CLI, offline: `codex exec` against a scripted mock
of the OpenAI Responses API (what a custom `model_providers` entry with
`wire_api = "responses"` speaks: one POST /v1/responses per turn, answered
as server-sent events), with the pinned Playwright MCP server and its shell
tool, and pace-hook as the project's `.codex/hooks.json`.

The mock plays the same scripts as the Claude Code mock (`model.Model`):
each Responses request is read as the conversation it carries (its
`function_call` items are the assistant's turns, its `function_call_output`
items the tools' answers), so a step is the same list of `use()`/`say()`
blocks. A tool named `mcp__<server>__<tool>` goes out as Codex calls it, a
`function_call` in namespace `mcp__<server>`; `exec_command` is Codex's
shell tool (its hook sees it as `Bash` with `command`).

What Codex 0.171.0 needs to run so, found in its source and by running it:
- a project listed as trusted (`[projects."<dir>"] trust_level`), or its
  `.codex/` is not read;
- each hook trusted: `codex exec` skips an untrusted hook without a word.
  Trust is `[hooks.state."<file>:<event>:<group>:<handler>"] trusted_hash`
  in config.toml, the hash being Codex's own (`hooks/list` on `codex
  app-server` gives it as `currentHash`), which is what the harness writes,
  then checks that `hooks/list` says `trusted`;
- the MCP server `required = true`: an optional one still starting when the
  first request is built is left out of that turn's tools ("omitting
  pending optional MCP server"), and `codex exec` has only turns like that.
"""

import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import cli
import model

# What the hook command matches: MCP tools and the shell tool (as `Bash`).
MATCHER = "mcp__.*|^Bash$"
HOOK_EVENTS = ("PreToolUse", "PostToolUse")
# How Codex 0.171.0 hands the model a hook's block, before the hook's
# stderr: an MCP tool's, and the shell tool's.
BLOCKED = ("Tool call blocked by PreToolUse hook: ", "Command blocked by PreToolUse hook: ")


def binary(pieces):
    return pieces.modules / "@openai/codex/bin/codex.js"


def missing(pieces):
    return [] if binary(pieces).exists() else [str(binary(pieces))]


def output_text(output):
    if isinstance(output, str):
        return output
    return "\n".join(p.get("text", "") for p in output or [] if isinstance(p, dict))


def as_messages(items):
    """A Responses request's `input` as the Messages conversation
    `model.Model` reads: consecutive function calls and assistant messages
    are one assistant turn; tool outputs are tool results, a hook's block
    (Codex's own words before pace-hook's) an error."""
    messages = []

    def add(role, block):
        if not messages or messages[-1]["role"] != role:
            messages.append({"role": role, "content": []})
        messages[-1]["content"].append(block)

    for it in items:
        kind = it.get("type")
        if kind == "function_call":
            add("assistant", {"type": "tool_use", "id": it.get("call_id")})
        elif kind == "message" and it.get("role") == "assistant":
            add("assistant", {"type": "text", "text": output_text(it.get("content"))})
        elif kind == "function_call_output":
            text = output_text(it.get("output"))
            add("user", {"type": "tool_result", "tool_use_id": it.get("call_id"), "is_error": text.startswith(BLOCKED),
                         "content": [{"type": "text", "text": text}]})
        elif kind == "message":
            add("user", {"type": "text", "text": output_text(it.get("content"))})
    return messages


def output_items(blocks):
    out = []
    for b in blocks:
        if b["type"] == "text":
            out.append({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": b["text"]}]})
        elif b["name"].startswith("mcp__"):
            server, tool = b["name"][len("mcp__"):].split("__", 1)
            out.append({"type": "function_call", "namespace": "mcp__" + server, "name": tool,
                        "arguments": json.dumps(b["input"]), "call_id": b["id"]})
        else:
            out.append({"type": "function_call", "name": b["name"], "arguments": json.dumps(b["input"]), "call_id": b["id"]})
    return out


def sse(items, rid):
    events = [{"type": "response.created", "response": {"id": rid}}]
    events += [{"type": "response.output_item.done", "output_index": i, "item": it} for i, it in enumerate(items)]
    events.append({"type": "response.completed",
                   "response": {"id": rid, "usage": {"input_tokens": 50, "output_tokens": 10, "total_tokens": 60}}})
    return "".join("event: %s\ndata: %s\n\n" % (e["type"], json.dumps(e)) for e in events).encode()


class Handler(model.Handler):
    def do_GET(self):
        # The model list (/v1/models): none, so Codex keeps its fallback.
        self.server.model.unknown.append("GET " + self.path)
        self.reply(200, b'{"object": "list", "data": [], "models": []}')

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        m = self.server.model
        if not self.path.split("?")[0].endswith("/responses"):
            m.unknown.append("POST " + self.path)
            return self.reply(404, b'{"error": {"message": "not here", "type": "not_found"}}')
        body = json.loads(raw or b"{}")
        # Each of Codex's turns carries its tools; one without is a side
        # request (a title, a summary) and gets a short text.
        blocks, _ = m.answer({"tools": body.get("tools"), "messages": as_messages(body.get("input") or [])})
        self.reply(200, sse(output_items(blocks), "resp_e2e_%d" % time.time_ns()), "text/event-stream")


class Endpoint(model.Endpoint):
    """The Responses API mock for one `model.Model` on 127.0.0.1."""

    def __init__(self, m):
        super().__init__(m, Handler)

    @property
    def url(self):
        return "http://127.0.0.1:%d/v1" % self.server_address[1]


def toml_str(s):
    return json.dumps(str(s))


class Cli:
    """One `codex exec`: its own CODEX_HOME, HOME and trusted project, the
    mock at `model_url`, Playwright MCP when `servers` names it, and the
    hook per `hook`: `wrapped` (pace-hook --client codex through the
    wrapper that notes exit codes, in the project's .codex/hooks.json,
    trusted) or `none` (the baseline). The same interface as `cli.Cli`."""

    def __init__(self, pieces, workdir, name, model_url, servers, hook, gate_env, ca_cert, limit=240):
        self.pieces = pieces
        self.name = name
        self.dir = Path(workdir) / name
        self.home = self.dir / "home"
        self.codex_home = self.dir / "codex-home"
        self.project = self.dir / "project"
        self.hook_log = self.dir / "hooks.log"
        self.limit = limit
        self.trust = {}
        for d in (self.home, self.codex_home, self.project / ".codex", self.dir / "events"):
            d.mkdir(parents=True, exist_ok=True)
        config = [
            'model = "mock-model"',
            'model_provider = "e2e"',
            "[model_providers.e2e]",
            'name = "e2e mock"',
            "base_url = %s" % toml_str(model_url),
            'wire_api = "responses"',
            "[projects.%s]" % toml_str(self.project),
            'trust_level = "trusted"',
        ]
        if "playwright" in servers:
            server = cli.playwright_server(pieces, self.dir)
            config += [
                "[mcp_servers.playwright]",
                "command = %s" % toml_str(server["command"]),
                "args = [%s]" % ", ".join(toml_str(a) for a in server["args"]),
                "required = true",
                "startup_timeout_sec = 60",
                "tool_timeout_sec = 120",
            ]
        self.config = self.codex_home / "config.toml"
        self.config.write_text("\n".join(config) + "\n")
        self.env = {
            "PATH": "%s:/usr/local/bin:/usr/bin:/bin" % Path(shutil.which("node") or "/usr/bin/node").parent,
            "HOME": str(self.home),
            "CODEX_HOME": str(self.codex_home),
            "LANG": "C.UTF-8",
            "TMPDIR": tempfile.mkdtemp(prefix="e2e-%s-" % name, dir="/tmp"),
            "NODE_EXTRA_CA_CERTS": str(ca_cert),
            "E2E_HOOK_LOG": str(self.hook_log),
            "E2E_HOOK_EVENTS": str(self.dir / "events"),
            "PACE_HOOK_BIN": str(pieces.pace_hook),
        }
        self.env.update(gate_env)
        if hook == "wrapped":
            command = "'%s' --client codex" % pieces.wrapper
            group = {"matcher": MATCHER, "hooks": [{"type": "command", "command": command, "timeout": 120}]}
            (self.project / ".codex/hooks.json").write_text(json.dumps({"hooks": {e: [group] for e in HOOK_EVENTS}}, indent=1))
            try:
                self.trust = self.trust_hooks()
            except (OSError, RuntimeError, ValueError, KeyError) as e:
                self.trust = {"error": str(e)}
        self.proc = None

    def app_server_hooks(self):
        """Codex's own list of this project's hooks (`hooks/list` over
        `codex app-server`'s stdio)."""
        p = subprocess.Popen([str(binary(self.pieces)), "app-server"], cwd=self.project, env=self.env, text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(self.dir / "app-server.txt", "ab"),
                             start_new_session=True)
        try:
            def send(o):
                p.stdin.write(json.dumps(o) + "\n")
                p.stdin.flush()

            def recv(i):
                deadline = time.time() + 30
                while time.time() < deadline:
                    line = p.stdout.readline()
                    if not line:
                        raise RuntimeError("codex app-server ended before answering (%s)" % (self.dir / "app-server.txt"))
                    o = json.loads(line)
                    if o.get("id") == i:
                        if "error" in o:
                            raise RuntimeError("codex app-server: %s" % o["error"])
                        return o["result"]
                raise RuntimeError("codex app-server did not answer in 30 s")

            send({"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "pace-hook-e2e", "version": "0"}}})
            recv(1)
            send({"method": "initialized"})
            send({"id": 2, "method": "hooks/list", "params": {"cwds": [str(self.project)]}})
            return [h for d in recv(2)["data"] for h in d["hooks"]]
        finally:
            cli.kill_tree(p.pid)

    def trust_hooks(self):
        """Trust the project's hooks as a user does: record the hash Codex
        computes for each in config.toml. Returns each hook's trust status
        as Codex then reports it."""
        lines = []
        for h in self.app_server_hooks():
            lines += ["[hooks.state.%s]" % toml_str(h["key"]), "trusted_hash = %s" % toml_str(h["currentHash"])]
        with open(self.config, "a") as f:
            f.write("\n".join(lines) + "\n")
        return {h["key"]: h["trustStatus"] for h in self.app_server_hooks()}

    def start(self, prompt="Follow the plan."):
        cmd = [
            str(binary(self.pieces)),
            "exec",
            "--json",
            "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox",
            prompt,
        ]
        return self.launch(cmd)

    launch = cli.Cli.launch
    wait = cli.Cli.wait
    hooks = cli.Cli.hooks

    def result(self):
        """`codex exec`'s exit, as the Claude Code CLI's closing record."""
        if self.proc is None or self.proc.returncode is None:
            return None
        return {"subtype": "exit %d" % self.proc.returncode}
