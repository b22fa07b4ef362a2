#!/usr/bin/env python3
"""test-proxy.py — a minimal forward HTTP proxy on 127.0.0.1 for tests: it prints
`listening http://127.0.0.1:PORT`, forwards absolute-form requests (POST/GET) to loopback
targets only, and logs each forwarded URL on stderr as `proxied METHOD URL`. Stops on SIGTERM.

With `--connect-to PORT`, a CONNECT to any HOST:PORT is tunnelled to 127.0.0.1:PORT instead
(logged as `tunnel HOST:PORT`): a TLS client then checks a loopback server's certificate under
a real service's name (rp-api.smart-id.com), which is how the default pins are tested.
"""
import http.server, select, signal, socket, sys, threading, urllib.parse, urllib.request

CONNECT_TO = None

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

    def do_CONNECT(self):
        if CONNECT_TO is None:
            self.send_error(405, "this test proxy tunnels only with --connect-to")
            return
        sys.stderr.write(f"tunnel {self.path}\n")
        sys.stderr.flush()
        upstream = socket.create_connection(("127.0.0.1", CONNECT_TO), timeout=30)
        self.send_response(200, "Connection established")
        self.end_headers()
        self.wfile.flush()
        client = self.connection
        try:
            while True:
                readable, _, _ = select.select([client, upstream], [], [], 30)
                if not readable:
                    break
                for source in readable:
                    data = source.recv(65536)
                    if not data:
                        return
                    (upstream if source is client else client).sendall(data)
        finally:
            upstream.close()
            self.close_connection = True

    def log_message(self, *args):
        pass


def main():
    global CONNECT_TO
    if sys.argv[1:2] == ["--connect-to"]:
        CONNECT_TO = int(sys.argv[2])
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    print(f"listening http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()
    server.server_close()


if __name__ == "__main__":
    main()
