"""The website: several sites on one server, told apart by Host, over HTTP
and HTTPS, logging every request's arrival and the end of its response.

This is where gaps are judged: the times here are what a site would see.
Every page links its own stylesheet and image (its burst) and no favicon, so
a browser makes no request of its own after the page's load event.
"""

import http.server
import json
import select
import socket
import ssl
import threading
import time
import urllib.parse

# Two registrable domains, and a subdomain of the first (the same site to a
# pacer that keys by registrable domain).
SITES = ("shop.example.com", "www.shop.example.com", "news.example.org")

# What a page's own load fetches (Chromium sends no Sec-Fetch-Dest to a
# plain-HTTP site, so the path says it); anything else is the agent's.
SUBRESOURCES = ("/style.css", "/pixel.png")


def is_subresource(record):
    return record["path"].split("?")[0] in SUBRESOURCES

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>{title}</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="/style.css?p={qpath}">
</head><body><h1>{title}</h1><img src="/pixel.png?p={qpath}" alt="pixel" width="1" height="1">
<p><a href="/a">Next page</a> <a href="/b">Other page</a> <a href="{slow}">Slow page</a></p>
<p>{body}</p>
</body></html>
"""

PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)


class Log:
    """Every request the website saw, in order of arrival."""

    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()
        self.records = []
        self.file = open(path, "a", encoding="utf-8")

    def add(self, record):
        with self.lock:
            self.records.append(record)

    def done(self, record):
        with self.lock:
            self.file.write(json.dumps(record) + "\n")
            self.file.flush()

    def since(self, mark):
        with self.lock:
            return [r for r in self.records[mark:] if "end" in r]

    def settle(self, mark, limit=30):
        """Wait (at most `limit` s) until every request since `mark` has
        ended: a response still being served has not shown its end yet."""
        deadline = time.time() + limit
        while time.time() < deadline:
            with self.lock:
                if all("end" in r for r in self.records[mark:]):
                    return True
            time.sleep(0.05)
        return False

    def mark(self):
        with self.lock:
            return len(self.records)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "e2e-site"

    def log_message(self, *args):  # the log is ours, not stderr's
        pass

    def do_GET(self):
        arrival = time.time()
        host = (self.headers.get("Host") or "").split(":")[0].lower()
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        record = {
            "site": host,
            "path": self.path,
            "scheme": self.server.scheme,
            "dest": self.headers.get("Sec-Fetch-Dest"),
            "agent": self.headers.get("User-Agent", "")[:80],
            "arrival": arrival,
        }
        log = self.server.log
        log.add(record)
        if host not in SITES:
            status, body, ctype = 404, b"no such site", "text/plain"
        elif url.path == "/broken":
            # Two Content-Length headers that disagree: the browser refuses
            # the answer (ERR_RESPONSE_HEADERS_MULTIPLE_CONTENT_LENGTH), the
            # navigation fails, and nothing retries it.
            self.wfile.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n"
                b"Content-Length: 6\r\nConnection: close\r\n\r\nbroken"
            )
            self.wfile.flush()
            self.close_connection = True
            record["status"] = 0
            record["end"] = time.time()
            log.done(record)
            return
        else:
            status, body, ctype = self.route(host, url, query)
        if url.path == "/slow" and self.wait_or_abort(int(query.get("ms", ["3000"])[0]) / 1000):
            # The browser gave up on the page (a next navigation cut its load
            # short): that is the end of this response at the site.
            record["status"] = 0
            record["aborted"] = True
            record["end"] = time.time()
            log.done(record)
            self.close_connection = True
            return
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        try:
            self.wfile.write(body)
            self.wfile.flush()
        except OSError:
            record["aborted"] = True
        self.close_connection = True
        record["status"] = status
        record["end"] = time.time()
        log.done(record)

    def wait_or_abort(self, seconds):
        """Wait `seconds` before answering; True if the client closed the
        connection meanwhile (seen on plain HTTP; over TLS it just waits)."""
        deadline = time.time() + seconds
        sock = self.connection
        while (left := deadline - time.time()) > 0:
            if isinstance(sock, ssl.SSLSocket):
                time.sleep(min(left, 0.05))
                continue
            readable, _, _ = select.select([sock], [], [], min(left, 0.05))
            if readable:
                try:
                    data = sock.recv(1, socket.MSG_PEEK)
                except OSError:
                    data = b""
                if not data:
                    return True
                time.sleep(min(left, 0.05))
        return False

    def route(self, host, url, query):
        path = url.path
        if path == "/style.css":
            return 200, b"body{font-family:sans-serif}", "text/css"
        if path == "/pixel.png":
            return 200, PIXEL, "image/png"
        if path.startswith("/api/"):
            return 200, json.dumps({"site": host, "path": path}).encode(), "application/json"
        status = 200
        if path == "/status":
            status = int(query.get("code", ["503"])[0])
        slow = "/slow?ms=%d" % self.server.slow_link_ms
        title = "%s %s" % (host, path)
        body = "Page %s of %s. It says nothing much; it is here to be visited." % (path, host)
        html = PAGE.format(
            title=title, qpath=urllib.parse.quote(path), slow=slow, body=body
        )
        return status, html.encode(), "text/html; charset=utf-8"


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr, log, scheme, slow_link_ms, context=None):
        super().__init__(addr, Handler)
        self.log = log
        self.scheme = scheme
        self.slow_link_ms = slow_link_ms
        self.context = context

    def get_request(self):
        sock, addr = self.socket.accept()
        if self.context is not None:
            sock.settimeout(10)
            sock = self.context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        return sock, addr

    def finish_request(self, request, client_address):
        if self.context is not None:
            try:
                request.do_handshake()
            except (OSError, ssl.SSLError):
                return
            request.settimeout(None)
        super().finish_request(request, client_address)


class Website:
    """HTTP on `http_port` and HTTPS on `https_port`, one log."""

    def __init__(self, log_path, cert, key, http_port=80, https_port=443, slow_link_ms=7000):
        self.log = Log(log_path)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        self.servers = [
            Server(("127.0.0.1", http_port), self.log, "http", slow_link_ms),
            Server(("127.0.0.1", https_port), self.log, "https", slow_link_ms, context),
        ]
        for s in self.servers:
            threading.Thread(target=s.serve_forever, daemon=True).start()

    def close(self):
        for s in self.servers:
            s.shutdown()
            s.server_close()


def agent_requests(records):
    """The agent's own requests: every request that is not a page's
    subresource (a navigation, a fetch from a script, a WebFetch)."""
    return [r for r in records if not is_subresource(r)]


def gaps(records):
    """Per site, each gap between one agent request and the next: the next
    one's arrival minus the end of the previous one's burst (its response
    and every subresource that arrived before the next agent request)."""
    out = []
    by_site = {}
    for r in sorted(records, key=lambda r: r["arrival"]):
        by_site.setdefault(site_key(r["site"]), []).append(r)
    for site, rs in by_site.items():
        burst_end = None
        prev = None
        for r in rs:
            if is_subresource(r):
                if burst_end is not None:
                    burst_end = max(burst_end, r["end"])
                continue
            if prev is not None:
                out.append(
                    {
                        "site": site,
                        "from": prev["path"],
                        "to": r["path"],
                        "gap": r["arrival"] - burst_end,
                    }
                )
            prev = r
            burst_end = r["end"]
    return out


def site_key(host):
    """The registrable domain, for the few names this website serves
    (`www.shop.example.com` and `shop.example.com` are both example.com)."""
    return ".".join(host.split(".")[-2:])
