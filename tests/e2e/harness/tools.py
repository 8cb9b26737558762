"""The pinned servers' own tool lists (`tools/list` over MCP's stdio), kept
as fixtures in tests/fixtures/tools/: a Rust test checks that pace-hook's
profiles classify every tool in them, and this suite checks that the
fixtures are what the pinned versions list today."""

import json
import os
import subprocess
import tempfile
from pathlib import Path

import cli


def tools_list(cmd, env):
    with tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, env=env, text=True)
        try:
            def send(o):
                p.stdin.write(json.dumps(o) + "\n")
                p.stdin.flush()

            def recv(i):
                while True:
                    line = p.stdout.readline()
                    if not line:
                        raise RuntimeError("%s ended before answering" % cmd[1])
                    o = json.loads(line)
                    if o.get("id") == i:
                        return o

            send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "pace-hook-e2e", "version": "0"}}})
            recv(1)
            send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
            return recv(2)["result"]["tools"]
        finally:
            cli.kill_tree(p.pid)


def fixture(variants, server, version):
    """What the fixture keeps of each tool: its name, its read-only hint,
    its input's property names (enough to classify it), and the server
    options that list it (`[]`: listed by default)."""
    seen = {}
    for options, tools in variants:
        for t in tools:
            if t["name"] in seen:
                continue
            seen[t["name"]] = {
                "name": t["name"],
                "readOnlyHint": bool((t.get("annotations") or {}).get("readOnlyHint")),
                "inputs": sorted((t.get("inputSchema") or {}).get("properties", {}).keys()),
                "options": options,
            }
    return {"server": server, "version": version, "tools": [seen[n] for n in sorted(seen)]}


# Each server's tool sets: by default, and with every option that adds tools.
PLAYWRIGHT_VARIANTS = [[], ["--caps=vision,pdf,devtools"]]
DEVTOOLS_VARIANTS = [
    [],
    ["--categoryExtensions", "--categoryExperimentalThirdParty", "--categoryExperimentalWebmcp", "--categoryPwa",
     "--experimentalVision", "--memoryDebugging", "--experimentalDevtools"],
    ["--slim"],
]


def capture(pieces, workdir):
    """The fixtures as the pinned servers list them now: {file name: json}."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(workdir), "CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS": "1"}
    out = {}
    pw_version = json.loads((pieces.modules / "@playwright/mcp/package.json").read_text())["version"]
    dt_version = json.loads((pieces.modules / "chrome-devtools-mcp/package.json").read_text())["version"]
    pw = [
        (o, tools_list(["node", str(pieces.playwright), "--headless", "--isolated", "--executable-path", cli.CHROMIUM, *o], env))
        for o in PLAYWRIGHT_VARIANTS
    ]
    out["playwright-mcp-%s.json" % pw_version] = fixture(pw, "@playwright/mcp", pw_version)
    dt = [
        (o, tools_list(["node", str(pieces.devtools), "--headless", "--isolated", "--executablePath", cli.CHROMIUM,
                        "--no-usage-statistics", *o], env))
        for o in DEVTOOLS_VARIANTS
    ]
    out["chrome-devtools-mcp-%s.json" % dt_version] = fixture(dt, "chrome-devtools-mcp", dt_version)
    return out


def check(pieces, workdir, fixtures_dir, update):
    """Compare (or, with `update`, write) the fixtures. Returns problems."""
    fixtures_dir = Path(fixtures_dir)
    problems = []
    for name, data in capture(pieces, workdir).items():
        path = fixtures_dir / name
        text = json.dumps(data, indent=1) + "\n"
        if update:
            fixtures_dir.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        elif not path.exists():
            problems.append("%s is missing: run scripts/e2e --update-tools" % path)
        elif path.read_text() != text:
            problems.append("%s differs from what the pinned server lists: run scripts/e2e --update-tools" % path)
    return problems
