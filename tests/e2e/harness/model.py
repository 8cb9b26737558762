"""A scripted model: a small Anthropic Messages API on 127.0.0.1.

It plays one scenario's assistant turns to one Claude Code CLI. The main
agent's requests carry tools; the turn to play is the number of assistant
messages already in the conversation, so a retried request gets the same
turn again. A request without tools (a title, WebFetch's summary, a quota
probe) is a side request and gets a short text. Every main request's last
user message (tool results, hook messages) is logged: what the model was
told.
"""

import http.server
import json
import threading
import time


def use(name, **tool_input):
    """A tool_use block of the turn."""
    return {"type": "tool_use", "name": name, "input": tool_input}


def say(text):
    return {"type": "text", "text": text}


class Turn:
    """What the model was told before a turn: the results of its last calls."""

    def __init__(self, index, results, texts):
        self.index = index
        self.results = results  # [{"id", "name", "input", "is_error", "text"}]
        self.texts = texts

    def text(self):
        return "\n".join(r["text"] for r in self.results)


def block_text(content):
    if isinstance(content, str):
        return content
    out = []
    for b in content or []:
        if isinstance(b, dict) and b.get("type") == "text":
            out.append(b.get("text", ""))
    return "\n".join(out)


class Model:
    """One scenario's script for one CLI. `steps` are functions of the
    previous Turn returning the next turn's blocks (or plain lists)."""

    def __init__(self, name, steps, log_path, subagents=None):
        self.name = name
        self.steps = steps
        # Subagents' own scripts, by a marker their task's prompt carries:
        # a subagent's conversation starts afresh, so its turns are counted
        # apart from the main agent's.
        self.subagents = subagents or {}
        self.log_path = log_path
        self.lock = threading.Lock()
        self.calls = {}  # tool_use_id -> (name, input)
        self.told = []  # one record per main request
        self.unknown = []  # paths the mock does not serve
        self.side = 0
        self.errors = []  # script steps that could not be played
        self.played = {}  # turn index -> blocks, so a retry replays the same turn

    def answer(self, body):
        tools = body.get("tools") or []
        if not tools:
            with self.lock:
                self.side += 1
            return [say("Fine.")], "end_turn"
        messages = body.get("messages") or []
        index = sum(1 for m in messages if m.get("role") == "assistant")
        first = json.dumps(messages[0].get("content")) if messages else ""
        conv = next((k for k in self.subagents if k in first), None)
        steps = self.subagents[conv] if conv else self.steps
        last = messages[-1] if messages else {}
        results, texts = [], []
        content = last.get("content")
        if isinstance(content, str):
            texts.append(content)
        for b in content if isinstance(content, list) else []:
            if b.get("type") == "tool_result":
                name, tool_input = self.calls.get(b.get("tool_use_id"), (None, None))
                results.append(
                    {
                        "id": b.get("tool_use_id"),
                        "name": name,
                        "input": tool_input,
                        "is_error": bool(b.get("is_error")),
                        "text": block_text(b.get("content")),
                    }
                )
            elif b.get("type") == "text":
                texts.append(b.get("text", ""))
        turn = Turn(index, results, texts)
        with self.lock:
            self.told.append(
                {"turn": index, "agent": conv, "at": time.time(), "results": results, "texts": texts}
            )
            with open(self.log_path, "a", encoding="utf-8") as f:
                f.write(json.dumps(self.told[-1]) + "\n")
            key = (conv, index)
            if key in self.played:
                blocks = self.played[key]
            elif index < len(steps):
                step = steps[index]
                try:
                    blocks = step(turn) if callable(step) else step
                except LookupError as e:
                    # The tools did not answer as the script expects: end
                    # the conversation (the checks then fail) rather than
                    # leave the CLI retrying until its time limit.
                    self.errors.append("turn %d: %s" % (index, e))
                    blocks = [say("Stopping: %s" % e)]
                blocks = [dict(b) for b in blocks]
                for i, b in enumerate(blocks):
                    if b["type"] == "tool_use":
                        b["id"] = "toolu_e2e_%s_%02d_%d" % (conv or self.name, index, i)
                        self.calls[b["id"]] = (b["name"], b["input"])
                self.played[key] = blocks
            else:
                blocks = [say("Done.")]
                self.played[key] = blocks
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        return blocks, stop

    def results(self):
        """Every tool result the model was told, by tool_use id."""
        out = {}
        for t in self.told:
            for r in t["results"]:
                out[r["id"]] = r
        return out

    def texts(self):
        return [x for t in self.told for x in t["texts"]]


def message(blocks, stop, model):
    return {
        "id": "msg_e2e_%d" % time.time_ns(),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 50, "output_tokens": 10},
    }


def sse(blocks, stop, model):
    events = []

    def ev(kind, data):
        data["type"] = kind
        events.append("event: %s\ndata: %s\n\n" % (kind, json.dumps(data)))

    start = message([], None, model)
    ev("message_start", {"message": start})
    for i, b in enumerate(blocks):
        if b["type"] == "text":
            ev("content_block_start", {"index": i, "content_block": {"type": "text", "text": ""}})
            ev("content_block_delta", {"index": i, "delta": {"type": "text_delta", "text": b["text"]}})
        else:
            ev(
                "content_block_start",
                {"index": i, "content_block": {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}},
            )
            ev(
                "content_block_delta",
                {"index": i, "delta": {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}},
            )
        ev("content_block_stop", {"index": i})
    ev("message_delta", {"delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 10}})
    ev("message_stop", {})
    return "".join(events).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body, ctype="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("request-id", "req_e2e")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.server.model.unknown.append("GET " + self.path)
        self.reply(404, b'{"type":"error","error":{"type":"not_found_error","message":"not here"}}')

    def do_HEAD(self):
        self.reply(200, b"")

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        path = self.path.split("?")[0]
        model = self.server.model
        if path.endswith("/v1/messages/count_tokens"):
            return self.reply(200, b'{"input_tokens": 100}')
        if not path.endswith("/v1/messages"):
            model.unknown.append("POST " + self.path)
            return self.reply(404, b'{"type":"error","error":{"type":"not_found_error","message":"not here"}}')
        body = json.loads(raw or b"{}")
        blocks, stop = model.answer(body)
        name = body.get("model", "claude-e2e")
        if body.get("stream"):
            self.reply(200, sse(blocks, stop, name), "text/event-stream")
        else:
            self.reply(200, json.dumps(message(blocks, stop, name)).encode())


class Endpoint(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, model, handler=Handler):
        super().__init__(("127.0.0.1", 0), handler)
        self.model = model
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.server_address[1]

    def close(self):
        self.shutdown()
        self.server_close()
