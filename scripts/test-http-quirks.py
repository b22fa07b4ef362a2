#!/usr/bin/python3
"""test-http-quirks.py — a loopback HTTP/1.1 server with awkward answers, for the tests of
TamgaCore's own HTTP client (HTTPTransport). TEST ONLY. Standard library only.

usage: test-http-quirks.py [--port PORT] [--tls CERT KEY] [--exit-with-parent]

  --port PORT         TCP port on 127.0.0.1 (default 0 = pick a free one)
  --tls CERT KEY      serve https with this PEM certificate and key (handshake per connection,
                      in the connection's thread; close_notify is sent before closing)
  --exit-with-parent  shut down (as on SIGTERM) when the parent process goes away

Binds 127.0.0.1 only. Once ready it prints exactly one line "listening http://127.0.0.1:PORT"
("https://" with --tls) on stdout, then serves until SIGTERM or SIGINT (exit 0, promptly, even
with /hang connections open). Requests are logged to stderr as "METHOD TARGET".

Endpoints (any method; a request body is always read fully, Content-Length or chunked):
  /echo               200, body = the request body (POST) or b"hello" (GET), Content-Length;
                      headers X-Got-Content-Type (the request's Content-Type) and X-Got-Target
                      (the request line's target, e.g. "/echo?a=1")
  /request-info       200 application/json: {"method", "target", "version", "headers":
                      [[name, value], ...] in order, "body_length", "body_sha256"}
  /chunked            200, Transfer-Encoding: chunked, body "chunk one|chunk two|end" in three
                      chunks (lower-case hex sizes, a ";x=1" extension on the second one, writes
                      split mid-chunk with short pauses), then a trailer "X-Trailer: done"
  /close-delimited    "HTTP/1.0 200 OK", no Content-Length, no chunking, body b"until close",
                      then the connection is closed
  /status/NNN         status NNN with a short text body "status NNN" (none for 1xx/204/304)
  /redirect           302, Location: /echo (relative)
  /redirect-absolute  302, Location: http(s)://127.0.0.1:PORT/echo
  /redirect-loop      302, Location: /redirect-loop
  /redirect-to-http   302, Location: http://127.0.0.1:PORT/echo (a downgrade when served over https)
  /huge               200, Content-Length 3 MiB (3145728), zeros streamed in 64 KiB writes
  /hang               reads the request, then sleeps 30 s without answering, then closes
  /garbage            writes b"this is not http\\r\\n\\r\\n" raw and closes
  /truncated          Content-Length: 100 but only 10 bytes ("0123456789"), then closes
  /odd-length?value=V     Content-Length: V (the query's UTF-8 text, e.g. fullwidth digits),
                          10 bytes "0123456789", then closes
  /odd-chunk-size?value=V chunked, one chunk whose size line is V, 10 bytes, the last chunk
  anything else       404

  ?linger=N on /echo, /request-info, /chunked, /status/NNN, /redirect*: after the complete
  answer, keep the connection open N seconds (whatever the Connection headers say), then close.
  A client that waits for the close instead of honouring Content-Length or the last chunk
  stalls for N seconds.
Without linger, connections follow HTTP/1.1 keep-alive (closed after the answer when the request
says "Connection: close" or is HTTP/1.0).
"""
import argparse
import hashlib
import http.server
import json
import os
import signal
import socket
import ssl
import sys
import threading
import time
import urllib.parse

import signal as _signal
# Started by tests from threads that block every signal (libdispatch workers): unblock them, or
# the SIGTERM that stops this server waits out the test's grace period.
_signal.pthread_sigmask(_signal.SIG_SETMASK, [])

HOST = "127.0.0.1"
PROG = "test-http-quirks.py"
STOP = threading.Event()
HUGE_SIZE = 3 * 1024 * 1024


def log(message):
    try:
        sys.stderr.write("%s: %s\n" % (PROG, message))
        sys.stderr.flush()
    except Exception:  # noqa: BLE001 — logging never breaks a connection
        pass


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "test-http-quirks"
    sys_version = ""

    # --- helpers ---------------------------------------------------------------------------

    def read_body(self):
        """The whole request body: Content-Length or chunked; b"" when there is none."""
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            body = bytearray()
            while True:
                size_line = self.rfile.readline(65537)
                if not size_line:
                    raise ConnectionError("request body ended inside a chunk size line")
                size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass   # trailer fields
                    return bytes(body)
                body += self.rfile.read(size)
                self.rfile.readline(65537)   # CRLF after the chunk data
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def query(self):
        return urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)

    def route(self):
        path = urllib.parse.urlsplit(self.path).path
        return path

    def linger_after_answer(self):
        seconds = self.query().get("linger", [None])[0]
        if seconds is None:
            return
        try:
            self.wfile.flush()
        except OSError:
            return
        time.sleep(float(seconds))
        self.close_connection = True

    def answer(self, status, body, content_type="application/octet-stream", extra=()):
        self.send_response(status)
        for name, value in extra:
            self.send_header(name, value)
        if status >= 200 and status not in (204, 304):
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and status >= 200 and status not in (204, 304):
            self.wfile.write(body)
        self.linger_after_answer()

    def raw(self, data):
        """Bytes straight to the socket, then close; nothing else is written."""
        self.close_connection = True
        try:
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:
            pass

    def base_url(self):
        scheme = "https" if self.server.tls_context else "http"
        return "%s://%s:%d" % (scheme, HOST, self.server.server_address[1])

    # --- dispatch ----------------------------------------------------------------------------

    def handle_any(self):
        log("%s %s" % (self.command, self.path))
        try:
            body = self.read_body()
        except (ValueError, ConnectionError, OSError) as error:
            log("unreadable request body: %s" % error)
            self.close_connection = True
            return
        path = self.route()
        try:
            self.dispatch(path, body)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, socket.timeout) as error:
            log("%s %s: client went away (%s)" % (self.command, self.path, error))
            self.close_connection = True

    def dispatch(self, path, body):
        if path == "/echo":
            answer = body if self.command == "POST" else b"hello"
            self.answer(200, answer, extra=[("X-Got-Content-Type", self.headers.get("Content-Type", "")),
                                            ("X-Got-Target", self.path)])
        elif path == "/request-info":
            info = {
                "method": self.command,
                "target": self.path,
                "version": self.request_version,
                "headers": [[name, value] for name, value in self.headers.items()],
                "body_length": len(body),
                "body_sha256": hashlib.sha256(body).hexdigest(),
            }
            self.answer(200, json.dumps(info).encode(), content_type="application/json")
        elif path == "/chunked":
            self.chunked()
        elif path == "/close-delimited":
            self.raw(b"HTTP/1.0 200 OK\r\nContent-Type: application/octet-stream\r\n\r\nuntil close")
        elif path.startswith("/status/"):
            try:
                status = int(path[len("/status/"):])
                if not 100 <= status <= 999:
                    raise ValueError
            except ValueError:
                self.answer(400, b"bad status\n", content_type="text/plain")
                return
            self.answer(status, b"status %d\n" % status, content_type="text/plain")
        elif path == "/redirect":
            self.answer(302, b"see /echo\n", content_type="text/plain", extra=[("Location", "/echo")])
        elif path == "/redirect-absolute":
            self.answer(302, b"see /echo\n", content_type="text/plain", extra=[("Location", self.base_url() + "/echo")])
        elif path == "/redirect-to-http":
            self.answer(302, b"see /echo\n", content_type="text/plain", extra=[("Location", "http://127.0.0.1:%d/echo" % self.server.server_address[1])])
        elif path == "/redirect-loop":
            self.answer(302, b"see /redirect-loop\n", content_type="text/plain", extra=[("Location", "/redirect-loop")])
        elif path == "/huge":
            self.huge()
        elif path == "/hang":
            self.close_connection = True
            try:
                self.wfile.flush()
            except OSError:
                pass
            STOP.wait(30)
        elif path == "/garbage":
            self.raw(b"this is not http\r\n\r\n")
        elif path == "/odd-length":
            # Content-Length is the query's `value` as UTF-8 (fullwidth or Arabic-Indic digits, a sign).
            value = self.query().get("value", [""])[0].encode()
            self.raw(b"HTTP/1.1 200 OK\r\nContent-Length: " + value + b"\r\nConnection: close\r\n\r\n0123456789")
        elif path == "/odd-chunk-size":
            # One chunk whose size line is the query's `value` as UTF-8, then a proper end.
            value = self.query().get("value", [""])[0].encode()
            self.raw(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                     + value + b"\r\n0123456789\r\n0\r\n\r\n")
        elif path == "/truncated":
            self.raw(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 100\r\n"
                     b"Connection: close\r\n\r\n0123456789")
        else:
            self.answer(404, b"no such endpoint\n", content_type="text/plain")

    def chunked(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Trailer", "X-Trailer")
        self.end_headers()
        self.wfile.flush()
        pieces = [
            b"a\r\nchunk one|\r\n",       # 10 bytes
            b"a;x=1\r\nchunk",             # 10 bytes with an extension, data split across writes
            b" two|\r",                    # ... and the CRLF split too
            b"\n3\r\nend\r\n",
            b"0\r\nX-Trailer: done\r\n\r\n",
        ]
        for piece in pieces:
            self.wfile.write(piece)
            self.wfile.flush()
            time.sleep(0.05)
        self.linger_after_answer()

    def huge(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(HUGE_SIZE))
        self.end_headers()
        block = bytes(64 * 1024)
        sent = 0
        while sent < HUGE_SIZE:
            self.wfile.write(block)
            sent += len(block)

    do_GET = handle_any
    do_POST = handle_any
    do_PUT = handle_any
    do_HEAD = handle_any
    do_DELETE = handle_any
    do_OPTIONS = handle_any

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    tls_context = None

    def finish_request(self, request, client_address):
        """Runs in the connection's own thread: the TLS handshake happens here, so a client that
        never finishes it holds up only its own thread, not the accept loop."""
        if self.tls_context is None:
            self.RequestHandlerClass(request, client_address, self)
            return
        try:
            request.settimeout(10)
            tls = self.tls_context.wrap_socket(request, server_side=True)
            tls.settimeout(None)
        except (ssl.SSLError, OSError) as error:
            log("TLS handshake with %s:%d failed: %s" % (client_address[0], client_address[1], error))
            return
        try:
            self.RequestHandlerClass(tls, client_address, self)
        finally:
            try:
                tls.settimeout(2)
                tls.unwrap()          # close_notify, so a close-delimited body ends cleanly
            except (ssl.SSLError, OSError, ValueError):
                pass
            try:
                tls.close()
            except OSError:
                pass


def main():
    ap = argparse.ArgumentParser(prog=PROG, description="TEST ONLY HTTP server with awkward answers, on 127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    ap.add_argument("--exit-with-parent", action="store_true")
    a = ap.parse_args()
    if not 0 <= a.port <= 65535:
        ap.error("bad port")

    try:
        server = Server((HOST, a.port), Handler)
        if a.tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(a.tls[0], a.tls[1])
            server.tls_context = context
    except Exception as error:  # noqa: BLE001
        log("cannot start: %s" % error)
        return 1

    def on_signal(signum, _frame):
        log("signal %d, shutting down" % signum)
        STOP.set()
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    parent = os.getppid()

    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
    thread.start()
    port = server.server_address[1]
    sys.stdout.write("listening %s://%s:%d\n" % ("https" if a.tls else "http", HOST, port))
    sys.stdout.flush()
    try:
        while not STOP.wait(0.5):
            if a.exit_with_parent and os.getppid() != parent:
                log("parent went away, shutting down")
                STOP.set()
    finally:
        server.shutdown()
        server.server_close()
    log("stopped")
    return 0   # connection threads are daemons: /hang and lingering connections end with us


if __name__ == "__main__":
    sys.exit(main())
