#!/usr/bin/python3
"""test-services.py — RFC 3161 TSA and RFC 6960 OCSP responder for the tamga test PKI. TEST ONLY.

usage: test-services.py --pki DIR [--port PORT] [--state-dir DIR] [--exit-with-parent]

  --pki DIR          the test PKI (Fixtures/pki: issuing-ca.*, issuing-ca.index.txt, tsa.*,
                     ocsp-responder.*, other-ec-p256.*)
  --port PORT        TCP port on 127.0.0.1 (default 0 = pick a free one; 8788 matches the
                     AIA URLs in the fixture certificates)
  --state-dir DIR    where tsa.cnf, the TSA serial file and per-request files go; kept on exit
                     (default: a temporary directory, removed on exit)
  --exit-with-parent shut down (as on SIGTERM) when the parent process goes away

Binds 127.0.0.1 only. Once ready it prints exactly one line "listening http://127.0.0.1:PORT" on
stdout, then serves until SIGTERM or SIGINT (exit 0). Requests are logged to stderr.

Endpoints (the path selects the behaviour):
  POST /tsa               TimeStampReq -> `openssl ts -reply` token (TSA cert + issuing CA in it
                          when certReq is set; policy 1.2.3.4.1, sha256/384/512 imprints)
  POST /tsa/unavailable   HTTP 503
  POST /tsa/garbage       200 application/timestamp-reply, random bytes (never starts with 0x30)
  POST /tsa/rejection     TimeStampResp { PKIStatusInfo { status rejection(2) } }, no token
  POST /tsa/slow          waits 30 s, then answers like /tsa
  POST /ocsp              OCSPRequest -> signed BasicOCSPResponse; status from
                          issuing-ca.index.txt (re-read per request): V good, R revoked (time and
                          reason from the index), other/absent unknown; CertID hash as requested;
                          thisUpdate = producedAt = now, nextUpdate = now + 5 min; nonce echoed
  POST /ocsp/unknown      always unknown
  POST /ocsp/revoked      always revoked, revocationTime = now - 1 day, no reason
  POST /ocsp/revoked-at/T always revoked, revocationTime = T (Unix seconds, UTC), no reason
  POST /ocsp/stale        thisUpdate = now - 1 h, nextUpdate = now - 30 min (producedAt = now)
  POST /ocsp/no-nonce     never echoes the nonce
  POST /ocsp/wrong-nonce  a different nonce (same length, every byte inverted; 16 random bytes
                          if the request had none)
  POST /ocsp/bad-signature  good response with the last byte of the signature value flipped
  POST /ocsp/wrong-signer signed by other-ec-p256 (responderID and certificate of it)
  POST /ocsp/unauthorized OCSPResponse status unauthorized (6)
  POST /ocsp/tm           as /ocsp, signed by ocsp-responder-tm (certificatePolicies
                          1.3.6.1.4.1.10015.4.1.2, the BDOC 2.1 time-mark responder policy); the
                          nonce is echoed byte for byte, whatever its form (time-mark tests send
                          DigestInfo(hash(SignatureValue)), wrapped in an OCTET STRING or raw)
  POST /ocsp/tm-revoked, /ocsp/tm-unknown   the same responder, always revoked resp. unknown
  POST /ocsp/tm-no-certs  as /ocsp/tm, without the responder certificate in the response (as SK's
                          2013 responders answered: the verifier must know the responder)
  POST /ocsp/tm-other-policy  as /ocsp/tm, signed by ocsp-responder-other-policy (1.3.6.1.4.1.10015.3.1.1)
  POST /ocsp/unavailable  HTTP 503
  POST /ocsp/garbage      200 application/ocsp-response, random bytes (never starts with 0x30)
  POST /ocsp/slow         waits 30 s, then answers like /ocsp
  GET  /health            200 "ok"
  GET  /ca/root.cert.der, /ca/issuing-ca.cert.der   the AIA caIssuers targets of the fixtures
  anything else           404 (405 for a known path with the wrong method)

/tsa and the OCSP status paths require Content-Type application/timestamp-query resp.
application/ocsp-request (415 otherwise). OCSP requests whose CertID names another issuer than the
issuing CA get unauthorized (6); undecodable ones malformedRequest (1).
"""
import argparse
import datetime
import http.server
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509 import ocsp

# Started by tests from threads that block every signal (libdispatch workers): unblock them, or
# the SIGTERM that stops this server waits out the test's grace period.
import signal as _signal
_signal.pthread_sigmask(_signal.SIG_SETMASK, [])

PROG = "test-services.py"
HOST = "127.0.0.1"
MAX_BODY = 1 << 20
SLOW_SECONDS = 30
TSA_POLICY = "1.2.3.4.1"
NONCE_OID_DER = bytes.fromhex("06092b0601050507300102")  # 1.3.6.1.5.5.7.48.1.2
TS_REJECTION = bytes.fromhex("30053003020102")  # TimeStampResp { PKIStatusInfo { 2 } }

STOP = threading.Event()


def log(msg):
    sys.stderr.write("%s: %s\n" % (PROG, msg))
    sys.stderr.flush()


# ---------------------------------------------------------------------------- minimal DER reader

def der_tlv(buf, pos):
    """Return (tag, content_start, content_end) of the TLV at pos (definite lengths only)."""
    if pos + 2 > len(buf):
        raise ValueError("truncated DER")
    tag = buf[pos]
    if tag & 0x1F == 0x1F:
        raise ValueError("high tag numbers not supported")
    n = buf[pos + 1]
    pos += 2
    if n & 0x80:
        k = n & 0x7F
        if k == 0 or k > 4 or pos + k > len(buf):
            raise ValueError("bad DER length")
        n = int.from_bytes(buf[pos:pos + k], "big")
        pos += k
    if pos + n > len(buf):
        raise ValueError("truncated DER")
    return tag, pos, pos + n


def der_children(buf, start, end):
    out = []
    while start < end:
        t, s, e = der_tlv(buf, start)
        out.append((t, s, e, start))
        start = e
    return out


def request_nonce_value(der):
    """The raw extnValue contents of the nonce extension of an OCSPRequest, or None."""
    _, s, e = der_tlv(der, 0)                    # OCSPRequest
    tag, s, e = der_tlv(der, s)                  # tbsRequest
    if tag != 0x30:
        raise ValueError("no tbsRequest")
    for t, cs, ce, _ in der_children(der, s, e):
        if t != 0xA2:                            # requestExtensions [2] EXPLICIT
            continue
        _, xs, xe = der_tlv(der, cs)             # Extensions SEQUENCE
        for _, es, ee, _ in der_children(der, xs, xe):
            parts = der_children(der, es, ee)
            if parts and der[parts[0][3]:parts[0][2]] == NONCE_OID_DER:
                t2, vs, ve, _ = parts[-1]
                if t2 == 0x04:
                    return bytes(der[vs:ve])
    return None


def cert_spki_bits(cert):
    """subjectPublicKey BIT STRING contents (without the unused-bits byte) as encoded in cert."""
    tbs = cert.tbs_certificate_bytes
    _, s, e = der_tlv(tbs, 0)
    kids = der_children(tbs, s, e)
    if kids[0][0] == 0xA0:                       # skip version
        kids = kids[1:]
    _, ks, ke, _ = kids[5]                       # serial sigalg issuer validity subject SPKI
    _, bs, be, _ = der_children(tbs, ks, ke)[1]
    return bytes(tbs[bs + 1:be])


def octet_string(data):
    n = len(data)
    if n < 0x80:
        hdr = bytes([0x04, n])
    else:
        nb = n.to_bytes((n.bit_length() + 7) // 8, "big")
        hdr = bytes([0x04, 0x80 | len(nb)]) + nb
    return hdr + data


# ---------------------------------------------------------------------------- PKI material

def load_cert(path):
    with open(path, "rb") as f:
        return x509.load_pem_x509_certificate(f.read())


def load_key(path):
    with open(path, "rb") as f:
        return serialization.load_pem_private_key(f.read(), password=None)


REASONS = {r.value.lower(): r for r in x509.ReasonFlags}
REASONS.update({"keytime": x509.ReasonFlags.key_compromise,
                "cakeytime": x509.ReasonFlags.ca_compromise,
                "holdinstruction": x509.ReasonFlags.certificate_hold})


def parse_db_time(s):
    s = s.strip()
    fmt = "%y%m%d%H%M%SZ" if len(s) == 13 else "%Y%m%d%H%M%SZ"
    return datetime.datetime.strptime(s, fmt)  # naive UTC


def read_index(path):
    """{serial: ("V"|"R"|"E", revocation_time or None, reason or None)} from an openssl ca database."""
    db = {}
    with open(path, "r", encoding="utf-8", errors="replace") as f:
        for line in f:
            fields = line.rstrip("\r\n").split("\t")
            if len(fields) < 4 or not fields[0]:
                continue
            try:
                serial = int(fields[3], 16)
            except ValueError:
                continue
            rtime = reason = None
            if fields[0] == "R" and fields[2]:
                parts = fields[2].split(",")
                try:
                    rtime = parse_db_time(parts[0])
                except ValueError:
                    rtime = None
                if len(parts) > 1:
                    reason = REASONS.get(parts[1].strip().lower())
            db[serial] = (fields[0], rtime, reason)
    return db


class Services:
    def __init__(self, pki, state_dir):
        self.pki = pki
        self.state_dir = state_dir
        self.index_path = os.path.join(pki, "issuing-ca.index.txt")
        self.ca = load_cert(os.path.join(pki, "issuing-ca.cert.pem"))
        self.ca_name_der = self.ca.subject.public_bytes()
        self.ca_key_bits = cert_spki_bits(self.ca)
        self.responder = (load_cert(os.path.join(pki, "ocsp-responder.cert.pem")),
                          load_key(os.path.join(pki, "ocsp-responder.key.pem")))
        self.other = (load_cert(os.path.join(pki, "other-ec-p256.cert.pem")),
                      load_key(os.path.join(pki, "other-ec-p256.key.pem")))
        # Time-mark responders (optional: a PKI copy made before they existed still serves the rest).
        self.tm_responders = {}
        for variant, name in (("tm", "ocsp-responder-tm"), ("tm-other-policy", "ocsp-responder-other-policy")):
            if os.path.isfile(os.path.join(pki, name + ".cert.pem")):
                self.tm_responders[variant] = (load_cert(os.path.join(pki, name + ".cert.pem")),
                                               load_key(os.path.join(pki, name + ".key.pem")))
        # cryptography 38 builds a CertID only from (cert, issuer): we make a throwaway
        # certificate with the requested serial and the CA's name, signed by a throwaway key.
        self.dummy_key = ec.generate_private_key(ec.SECP256R1())
        self.ca_files = {}
        for name in ("root", "issuing-ca"):
            p = os.path.join(pki, name + ".cert.der")
            if os.path.isfile(p):
                with open(p, "rb") as f:
                    self.ca_files["/ca/%s.cert.der" % name] = f.read()
        for p in (self.index_path, os.path.join(pki, "tsa.cert.pem"), os.path.join(pki, "tsa.key.pem")):
            if not os.path.isfile(p):
                raise FileNotFoundError(p)
        self.tsa_lock = threading.Lock()
        self.tsa_cnf = os.path.join(state_dir, "tsa.cnf")
        self._write_tsa_cnf()

    # -------------------------------------------------------------------- TSA

    def _write_tsa_cnf(self):
        def q(path):  # escape for an OpenSSL config value
            return re.sub(r'([\\$#"\'])', r"\\\1", os.path.abspath(path))
        with open(self.tsa_cnf, "w") as f:
            f.write("# generated by %s — TEST ONLY\n" % PROG)
            f.write("[ tsa ]\ndefault_tsa = tsa1\n\n[ tsa1 ]\n")
            f.write("serial = %s\n" % q(os.path.join(self.state_dir, "tsaserial")))
            f.write("signer_cert = %s\n" % q(os.path.join(self.pki, "tsa.cert.pem")))
            f.write("signer_key = %s\n" % q(os.path.join(self.pki, "tsa.key.pem")))
            f.write("certs = %s\n" % q(os.path.join(self.pki, "issuing-ca.cert.pem")))
            f.write("signer_digest = sha256\n")
            f.write("digests = sha256, sha384, sha512\n")
            f.write("default_policy = %s\n" % TSA_POLICY)
            f.write("accuracy = secs:1\n")
            f.write("ordering = yes\n")
            f.write("tsa_name = yes\n")
            f.write("ess_cert_id_alg = sha256\n")

    def tsa_reply(self, query):
        """Run openssl ts -reply; returns the DER TimeStampResp or raises RuntimeError."""
        with self.tsa_lock:  # the serial file is read-modify-write
            if STOP.is_set():
                raise RuntimeError("shutting down")
            fd, req = tempfile.mkstemp(prefix="req-", suffix=".tsq", dir=self.state_dir)
            resp = req[:-4] + ".tsr"
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(query)
                p = subprocess.run(["openssl", "ts", "-reply", "-config", self.tsa_cnf,
                                    "-queryfile", req, "-out", resp],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, timeout=30)
                if p.returncode != 0 or not os.path.isfile(resp):
                    raise RuntimeError("openssl ts -reply failed: %s" %
                                       p.stderr.decode(errors="replace").strip())
                with open(resp, "rb") as f:
                    return f.read()
            finally:
                for x in (req, resp):
                    try:
                        os.unlink(x)
                    except FileNotFoundError:
                        pass

    # -------------------------------------------------------------------- OCSP

    def ocsp_reply(self, body, variant):
        """Returns (DER OCSPResponse, log note)."""
        try:
            req = ocsp.load_der_ocsp_request(body)
            serial = req.serial_number
            algo = req.hash_algorithm
            name_hash, key_hash = req.issuer_name_hash, req.issuer_key_hash
            nonce = request_nonce_value(body)
        except Exception as e:  # noqa: BLE001 — anything undecodable is malformed
            return (ocsp.OCSPResponseBuilder.build_unsuccessful(
                ocsp.OCSPResponseStatus.MALFORMED_REQUEST).public_bytes(serialization.Encoding.DER),
                "malformedRequest (%s)" % e)
        note = "serial %#x %s" % (serial, algo.name)

        h = hashes.Hash(algo)
        h.update(self.ca_name_der)
        ok_name = h.finalize() == name_hash
        h = hashes.Hash(algo)
        h.update(self.ca_key_bits)
        if not (ok_name and h.finalize() == key_hash):
            return (ocsp.OCSPResponseBuilder.build_unsuccessful(
                ocsp.OCSPResponseStatus.UNAUTHORIZED).public_bytes(serialization.Encoding.DER),
                note + ": other issuer -> unauthorized")

        now = datetime.datetime.utcnow().replace(microsecond=0)
        this_update, next_update = now, now + datetime.timedelta(minutes=5)
        rtime = reason = None
        signer = self.other if variant == "wrong-signer" else self.responder
        without_certificates = False
        if variant.startswith("tm"):
            responder = "tm-other-policy" if variant == "tm-other-policy" else "tm"
            if responder not in self.tm_responders:
                return (ocsp.OCSPResponseBuilder.build_unsuccessful(
                    ocsp.OCSPResponseStatus.INTERNAL_ERROR).public_bytes(serialization.Encoding.DER),
                    note + ": no %s responder in this PKI" % responder)
            signer = self.tm_responders[responder]
            without_certificates = variant == "tm-no-certs"
            variant = {"tm-revoked": "revoked", "tm-unknown": "unknown"}.get(variant, "")
        if variant == "unknown":
            status = ocsp.OCSPCertStatus.UNKNOWN
        elif variant == "revoked":
            status, rtime = ocsp.OCSPCertStatus.REVOKED, now - datetime.timedelta(days=1)
        elif variant.startswith("revoked-at/"):
            status = ocsp.OCSPCertStatus.REVOKED
            rtime = datetime.datetime.utcfromtimestamp(int(variant[len("revoked-at/"):]))
        else:
            entry = read_index(self.index_path).get(serial)
            if entry is None or entry[0] not in ("V", "R"):
                status = ocsp.OCSPCertStatus.UNKNOWN
            elif entry[0] == "V":
                status = ocsp.OCSPCertStatus.GOOD
            else:
                status, rtime, reason = ocsp.OCSPCertStatus.REVOKED, entry[1] or now, entry[2]
        if variant == "stale":
            this_update = now - datetime.timedelta(hours=1)
            next_update = now - datetime.timedelta(minutes=30)

        try:
            dummy = (x509.CertificateBuilder()
                     .issuer_name(self.ca.subject)
                     .subject_name(x509.Name([x509.NameAttribute(x509.oid.NameOID.COMMON_NAME,
                                                                 "placeholder")]))
                     .public_key(self.dummy_key.public_key())
                     .serial_number(serial)
                     .not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
                     .sign(self.dummy_key, hashes.SHA256()))
        except ValueError as e:  # serial <= 0 or > 159 bits
            return (ocsp.OCSPResponseBuilder.build_unsuccessful(
                ocsp.OCSPResponseStatus.MALFORMED_REQUEST).public_bytes(serialization.Encoding.DER),
                note + ": malformedRequest (%s)" % e)

        cert, key = signer
        b = (ocsp.OCSPResponseBuilder()
             .add_response(dummy, self.ca, algo, status, this_update, next_update, rtime, reason)
             .responder_id(ocsp.OCSPResponderEncoding.NAME, cert))
        if not without_certificates:
            b = b.certificates([cert])
        if variant == "wrong-nonce":
            if nonce is not None:
                # same DER shape, every content byte inverted
                _, s, e = der_tlv(nonce, 0) if nonce[:1] == b"\x04" else (None, 0, len(nonce))
                fake = nonce[:s] + bytes(x ^ 0xFF for x in nonce[s:e]) + nonce[e:]
            else:
                fake = octet_string(os.urandom(16))
            b = b.add_extension(x509.UnrecognizedExtension(x509.oid.OCSPExtensionOID.NONCE, fake), False)
        elif nonce is not None and variant != "no-nonce":
            b = b.add_extension(x509.UnrecognizedExtension(x509.oid.OCSPExtensionOID.NONCE, nonce), False)
        resp = b.sign(key, hashes.SHA256())
        der = resp.public_bytes(serialization.Encoding.DER)
        if variant == "bad-signature":
            sig = resp.signature
            i = der.rfind(sig)
            if i < 0:
                raise RuntimeError("signature not found in the response")
            j = i + len(sig) - 1  # last byte of s in ECDSA-Sig-Value: stays well-formed
            der = der[:j] + bytes([der[j] ^ 0x01]) + der[j + 1:]
        note += ": %s%s" % (status.name.lower(), "" if variant == "" else " [%s]" % variant)
        return der, note


# ---------------------------------------------------------------------------- HTTP

OCSP_VARIANTS = {"", "unknown", "revoked", "stale", "no-nonce", "wrong-nonce", "bad-signature",
                 "wrong-signer", "tm", "tm-revoked", "tm-unknown", "tm-other-policy", "tm-no-certs"}


def garbage():
    g = bytearray(os.urandom(48 + os.urandom(1)[0]))
    if g[0] == 0x30:
        g[0] = 0x31
    return bytes(g)


class Handler(http.server.BaseHTTPRequestHandler):
    server_version = "tamga-test-services/1"
    # HTTP/1.1 so that "Expect: 100-continue" (libcurl, URLSession on Linux) gets its 100 at
    # once; every answer still carries Content-Length and closes the connection.
    protocol_version = "HTTP/1.1"
    services = None  # set in main

    def log_message(self, fmt, *args):
        log("%s %s" % (self.address_string(), fmt % args))

    def _send(self, code, body=b"", ctype="text/plain"):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        self.close_connection = True

    def _path(self):
        p = self.path.split("?", 1)[0].split("#", 1)[0]
        if len(p) > 1:
            p = p.rstrip("/")
        return p

    def _read_body(self):
        """Returns the body, or None after answering an error."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            data = bytearray()
            while True:
                line = self.rfile.readline(100)
                size = int(line.split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(1000) not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(data)
                if len(data) + size > MAX_BODY:
                    self._send(413, b"request too large\n")
                    return None
                data += self.rfile.read(size)
                self.rfile.readline(10)
        try:
            n = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            self._send(400, b"bad Content-Length\n")
            return None
        if n < 0 or n > MAX_BODY:
            self._send(413, b"request too large\n")
            return None
        return self.rfile.read(n) if n else b""

    def _ctype_ok(self, want):
        got = self.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        if got != want:
            self._send(415, ("Content-Type must be %s, got %r\n" % (want, got)).encode())
            return False
        return True

    def _wait_slow(self):
        if STOP.wait(SLOW_SECONDS):
            self.close_connection = True
            return False
        return True

    def do_GET(self):
        p = self._path()
        if p == "/health":
            self._send(200, b"ok\n")
        elif p in self.services.ca_files:
            self._send(200, self.services.ca_files[p], "application/pkix-cert")
        elif p in ("/tsa", "/ocsp") or p.startswith(("/tsa/", "/ocsp/")):
            self._send(405, b"POST only\n")
        else:
            self._send(404, b"not found\n")

    do_HEAD = do_GET

    def do_POST(self):
        try:
            self._post()
        except (BrokenPipeError, ConnectionResetError):
            log("client went away")
        except Exception as e:  # noqa: BLE001
            log("error: %r" % (e,))
            try:
                self._send(500, ("internal error: %s\n" % e).encode())
            except OSError:
                pass

    def _post(self):
        p = self._path()
        if p == "/tsa" or p.startswith("/tsa/"):
            variant = p[5:]
            if variant not in ("", "unavailable", "garbage", "rejection", "slow"):
                return self._send(404, b"not found\n")
            body = self._read_body()
            if body is None:
                return
            if variant == "unavailable":
                return self._send(503, b"TSA unavailable (test)\n")
            if variant == "garbage":
                return self._send(200, garbage(), "application/timestamp-reply")
            if variant == "rejection":
                return self._send(200, TS_REJECTION, "application/timestamp-reply")
            if not self._ctype_ok("application/timestamp-query"):
                return
            if variant == "slow" and not self._wait_slow():
                return
            der = self.services.tsa_reply(body)
            return self._send(200, der, "application/timestamp-reply")
        if p == "/ocsp" or p.startswith("/ocsp/"):
            variant = p[6:]
            revoked_at = variant.startswith("revoked-at/") and variant[len("revoked-at/"):].isdigit() \
                and variant[len("revoked-at/"):].isascii() and len(variant) <= len("revoked-at/") + 12
            if variant not in OCSP_VARIANTS | {"unauthorized", "unavailable", "garbage", "slow"} and not revoked_at:
                return self._send(404, b"not found\n")
            body = self._read_body()
            if body is None:
                return
            if variant == "unavailable":
                return self._send(503, b"OCSP responder unavailable (test)\n")
            if variant == "garbage":
                return self._send(200, garbage(), "application/ocsp-response")
            if variant == "unauthorized":
                der = ocsp.OCSPResponseBuilder.build_unsuccessful(
                    ocsp.OCSPResponseStatus.UNAUTHORIZED).public_bytes(serialization.Encoding.DER)
                return self._send(200, der, "application/ocsp-response")
            if not self._ctype_ok("application/ocsp-request"):
                return
            if variant == "slow":
                if not self._wait_slow():
                    return
                variant = ""
            der, note = self.services.ocsp_reply(body, variant)
            log(note)
            return self._send(200, der, "application/ocsp-response")
        self._send(404, b"not found\n")


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    ap = argparse.ArgumentParser(prog=PROG, description="TEST ONLY TSA + OCSP responder on 127.0.0.1")
    ap.add_argument("--pki", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--state-dir")
    ap.add_argument("--exit-with-parent", action="store_true")
    a = ap.parse_args()
    if not 0 <= a.port <= 65535:
        ap.error("bad port")

    own_state = a.state_dir is None
    state = tempfile.mkdtemp(prefix="tamga-test-services-") if own_state else a.state_dir
    try:
        if not own_state:
            os.makedirs(state, exist_ok=True)
        Handler.services = Services(os.path.abspath(a.pki), os.path.abspath(state))
        server = Server((HOST, a.port), Handler)
    except Exception as e:  # noqa: BLE001
        if own_state:
            shutil.rmtree(state, ignore_errors=True)
        log("cannot start: %s" % e)
        return 1

    def on_signal(signum, _frame):
        log("signal %d, shutting down" % signum)
        STOP.set()
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    parent = os.getppid()

    t = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
    t.start()
    port = server.server_address[1]
    sys.stdout.write("listening http://%s:%d\n" % (HOST, port))
    sys.stdout.flush()
    log("serving on http://%s:%d, state in %s" % (HOST, port, state))
    try:
        while not STOP.wait(0.5):
            if a.exit_with_parent and os.getppid() != parent:
                log("parent went away, shutting down")
                STOP.set()
    finally:
        server.shutdown()
        server.server_close()
        # wait for an in-flight openssl ts -reply before removing its files
        Handler.services.tsa_lock.acquire(timeout=35)
        if own_state:
            shutil.rmtree(state, ignore_errors=True)
        else:
            for f in os.listdir(state):
                if f.startswith("req-"):
                    try:
                        os.unlink(os.path.join(state, f))
                    except OSError:
                        pass
    log("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
