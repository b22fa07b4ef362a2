#!/usr/bin/env python3
"""test-proxy.py — a minimal forward HTTP proxy on 127.0.0.1 for tests: it prints
`listening http://127.0.0.1:PORT`, forwards absolute-form requests (POST/GET) to loopback
targets only, and logs each forwarded URL on stderr as `proxied METHOD URL`. Stops on SIGTERM.
"""
import http.server, signal, sys, threading, urllib.parse, urllib.request

# Started by tests from threads that block every signal (libdispatch workers): unblock them, or
# the SIGTERM that stops this server waits out the test's grace period.
import signal as _signal
_signal.pthread_sigmask(_signal.SIG_SETMASK, [])


class Proxy(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def forward(self):
        target = urllib.parse.urlsplit(self.path)
        if target.hostname not in ("127.0.0.1", "localhost"):
            self.send_error(403, "this test proxy forwards to loopback only")
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "proxy-connection", "connection", "expect")}
        request = urllib.request.Request(self.path, data=body, headers=headers, method=self.command)
        sys.stderr.write(f"proxied {self.command} {self.path}\n")
        sys.stderr.flush()
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(request, timeout=30) as response:
                status, data, ctype = response.status, response.read(), response.headers.get("Content-Type", "")
        except urllib.error.HTTPError as error:
            status, data, ctype = error.code, error.read(), error.headers.get("Content-Type", "")
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    do_GET = forward
    do_POST = forward

    def log_message(self, *args):
        pass


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    print(f"listening http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()
    server.server_close()


if __name__ == "__main__":
    main()
