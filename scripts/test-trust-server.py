#!/usr/bin/python3
"""test-trust-server.py — serves trusted lists on loopback for `tamga trust update`. TEST ONLY.

usage: test-trust-server.py --root DIR [--port PORT]

Binds 127.0.0.1 (port 0 = a free one), prints exactly one line "listening http://127.0.0.1:PORT"
on stdout once it accepts connections, and serves until SIGTERM or SIGINT (exit 0).

It answers both origin-form requests (GET /eu-lotl.xml) and the absolute form a client sends to
a forward proxy (GET http://lists.tamga.test/EE.xml): the signed test LOTL points at
lists.tamga.test, and tamga reaches it with --proxy http://127.0.0.1:PORT, so the signed lists
need no port number. Either way only the path counts: DIR/<path>.

What a path answers is decided by the files in DIR, re-read on every request, so a test
changes the behaviour between two updates by writing files:
  DIR/NAME                 200 with the file's bytes
  DIR/NAME.status          the file holds an HTTP status (e.g. 500): that status, short body
  DIR/NAME.redirect        302 to the same path forever (a redirect loop)
  DIR/NAME.slow            waits 30 s before answering (a timeout)
  DIR/NAME.huge            Content-Length 50 MB, then 50 MB of zeros as long as the client reads
  anything else            404
Requests are logged to stderr.
"""
import argparse
import http.server
import os
import signal
import sys
import threading
import time
import urllib.parse


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    root = os.path.abspath(args.root)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *a):
            sys.stderr.write("%s\n" % (fmt % a))

        def answer(self, status, body=b"", headers=()):
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            path = urllib.parse.urlsplit(self.path).path
            name = os.path.normpath(path.lstrip("/"))
            if name.startswith("..") or os.path.isabs(name):
                return self.answer(404, b"not found\n")
            target = os.path.join(root, name)
            if os.path.exists(target + ".status"):
                with open(target + ".status") as f:
                    return self.answer(int(f.read().strip()), b"test failure\n")
            if os.path.exists(target + ".redirect"):
                return self.answer(302, b"", [("Location", path)])
            if os.path.exists(target + ".slow"):
                time.sleep(30)
            if os.path.exists(target + ".huge"):
                self.send_response(200)
                self.send_header("Content-Type", "application/vnd.etsi.tsl+xml")
                self.send_header("Content-Length", str(50 * 1000 * 1000))
                self.send_header("Connection", "close")
                self.end_headers()
                chunk = b"\0" * 65536
                try:
                    for _ in range(50 * 1000 * 1000 // 65536):
                        self.wfile.write(chunk)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                return
            if not os.path.isfile(target):
                return self.answer(404, b"not found\n")
            with open(target, "rb") as f:
                body = f.read()
            self.answer(200, body, [("Content-Type", "application/vnd.etsi.tsl+xml")])

    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True

    def stop(*_):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print("listening http://127.0.0.1:%d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
