#!/usr/bin/python3
"""remote-signing-sim.py — TEST ONLY simulators of the Mobile-ID REST API (MID) and the Smart-ID
RP API v2, on 127.0.0.1, signing with the test PKI's keys. Written from the published API
descriptions (shared facts: docs/design/remote-services.md), sharing no code with tamga.

usage: remote-signing-sim.py --pki DIR [--port PORT] [--tls-cert PEM --tls-key PEM] [--exit-with-parent]

Prints one line "listening http(s)://127.0.0.1:PORT" when ready; serves until SIGTERM/SIGINT.
Relying party: UUID 00000000-0000-0000-0000-000000000000, name DEMO (case-insensitive), else 401.

Mobile-ID, under /mid-api:
  POST /certificate              {relyingPartyUUID, relyingPartyName, phoneNumber, nationalIdentityNumber}
  POST /signature                + {hash (base64), hashType SHA256|SHA384|SHA512, language, displayText, displayTextFormat}
  GET  /signature/session/{id}?timeoutMs=N   long poll (clamped 1000..120000; early answer when done;
                                 a newer poll of the same session makes the older one answer RUNNING)
  GET  /version
 personas (phone / national id -> end result), as SK's demo environment:
  +37200000766 / 30303039914  OK, EC P-256 (raw r||s), Fixtures ec-p256 (PNOEE-30303039914)   [simulator only]
  +37200000767 / 30303039914  OK, RSA 2048 (PKCS#1 v1.5), Fixtures rsa-2048                     [simulator only]
  +37200000766 / 60001019906  the demo's OK persona, but with the certificate of 30303039914: a client must refuse it
  +37200009994 / 60001019994  TIMEOUT    +37200009995 / 60001019995  answers RUNNING at once, forever   [simulator only]
  other personas get a certificate issued now by the test issuing CA with serialNumber PNOEE-<id>
  +37200000366 / 60001019928  NOT_MID_CLIENT (certificate: NOT_FOUND)
  +37201100266 / 60001019950  USER_CANCELLED      +37213100266 / 60001019983  PHONE_ABSENT
  +37207110066 / 60001019947  DELIVERY_ERROR      +37201200266 / 60001019972  SIM_ERROR
  +37200000666 / 60001019961  SIGNATURE_HASH_MISMATCH
  +37066000266 / 50001018908  EXPIRED_TRANSACTION (legacy timeout)
  +37200009991 / 60001019991  session status is not JSON                        [simulator only]
  +37200009992 / 60001019992  never completes (RUNNING forever)                  [simulator only]
  +37200009993 / 60001019993  OK, but signs another hash                         [simulator only]

Smart-ID v2, under /smart-id-rp/v2:
  POST certificatechoice/etsi/PNO{CC}-{code}, certificatechoice/document/{documentNumber}
  POST signature/document/{documentNumber}, signature/etsi/PNO{CC}-{code}
  GET  session/{id}?timeoutMs=N
 personas by identity code (document number = PNO{CC}-{code}-MOCK-Q; any country EE/LV/LT):
  30303039914 OK (RSA 2048, Fixtures rsa-2048)   30403039917 USER_REFUSED
  30403039928 USER_REFUSED_DISPLAYTEXTANDPIN     30403039939 USER_REFUSED_VC_CHOICE
  30403039946 USER_REFUSED_CONFIRMATIONMESSAGE   30403039950 USER_REFUSED_CONFIRMATIONMESSAGE_WITH_VC_CHOICE
  30403039972 WRONG_VC                           30403039983 TIMEOUT
  30403039994 garbage session body   30403039995 HTTP 580 on signature   30403039996 never completes
  30403039997 OK but signs another hash          [the last four: simulator only]
  30403039990/91/92/93: HTTP 471/472/480/403 at the certificate choice; 30403039998: an ADVANCED certificate
  30303039914 gets the test PKI's rsa-2048 certificate (PNOEE-30303039914); others one issued now
  anything else: 404 (no such account)

Smart-ID v3 (RP API 3.2, from SK's OpenAPI description RP-API_V3.yml and the documentation's
examples), under /smart-id-rp/v3; relying party UUID 00000000-0000-4000-8000-000000000000, name DEMO:
  POST signature/certificate-choice/notification/etsi/PNO{CC}-{code}   -> {sessionID}
  POST signature/certificate/{documentNumber}   (synchronous) -> {state OK|DOCUMENT_UNUSABLE, cert}
  POST signature/notification/document/{documentNumber}, signature/notification/etsi/PNO{CC}-{code}
       {signatureProtocol RAW_DIGEST_SIGNATURE, signatureProtocolParameters{digest, signatureAlgorithm
       rsassa-pss, signatureAlgorithmParameters{hashAlgorithm SHA-256|SHA-384|SHA-512|SHA3-*}},
       interactions = base64(JSON array), nonce 1..30} -> {sessionID, vc{type numeric4, value}}
  GET  session/{id}?timeoutMs=N
  errors are RFC 9457 problem bodies (400, 404; 404 with errors[].code NO_SUITABLE_ACCOUNT_FOUND
  where v2 had 471); 401 for another relying party. Identical POSTs within 15 s return the same
  session unless the nonce differs. Text limits in UTF-16 code units (60/200), as Java counts.
 personas by identity code (document number PNO{CC}-{code}-MOCK-Q; SK's demo accounts):
  40504040001 OK, RSA 6144 (Fixtures/smart-id/rsa-6144, PNOEE-40504040001), document number -DEM0-Q
  30403039917 USER_REFUSED       30403039928/39939/39946/39950 USER_REFUSED_INTERACTION with
  details.interaction displayTextAndPIN / verificationCodeChoice / confirmationMessage /
  confirmationMessageAndVerificationCodeChoice        30403039972 WRONG_VC   30403039983 TIMEOUT
 [simulator only]: 30403039801 PROTOCOL_FAILURE, ..802 EXPECTED_LINKED_SESSION, ..803 SERVER_ERROR,
  ..804 ACCOUNT_UNUSABLE, ..805 DOCUMENT_UNUSABLE, ..806 REQUIRED_INTERACTION_NOT_SUPPORTED_BY_APP,
  ..807 USER_REFUSED_CERT_CHOICE (at the certificate choice); replies that a client must refuse:
  ..811 salt of 20 bytes, ..812 MGF1 with SHA-512, ..813 trailer field 0x01, ..814 a PKCS#1 v1.5
  value, ..815 another digest signed, ..816 an interaction that was not offered, ..817 flow type QR,
  ..818 signature protocol ACSP_V2, ..819 another certificate, ..820 a verification code "12a4";
  ..821 hashAlgorithm SHA-512 in the reply, ..822 signatureAlgorithm sha256WithRSAEncryption,
  ..823 no interactionTypeUsed; ..808/809/810 USER_REFUSED / TIMEOUT / SOMETHING_NEW at the
  signature (the certificate choice succeeds); ..824 400 with a problem body at the signature;
  ..825 a signing session that is gone (404) when polled;
  ..830 the first certificate choice times out, every later one succeeds (the nonce test);
  30403039990 404 NO_SUITABLE_ACCOUNT_FOUND, ..992 480, ..993 403 at the certificate choice;
  ..994 garbage session body, ..995 580 on signature, ..996 never completes, ..998 ADVANCED certificate;
  anything else: 404 (no such account)

Test hooks: GET /_sim/polls/{sessionID} -> {"polls": N}; GET /_sim/code/{sessionID} -> {"code": "NNNN"}, the verification code the phone shows
(computed here independently); GET /_sim/last-code, the same for the latest signing session;
GET /health.
"""
import argparse
import base64
import binascii
import hashlib
import http.server
import json
import os
import re
import signal
import ssl
import sys
import threading
import time
import uuid

import datetime

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa, utils
from cryptography.x509.oid import NameOID

HOST = "127.0.0.1"
RP_UUID = "00000000-0000-0000-0000-000000000000"
RP_UUID_V3 = "00000000-0000-4000-8000-000000000000"
V3_HASHES = {"SHA-256": (hashes.SHA256, 32), "SHA-384": (hashes.SHA384, 48), "SHA-512": (hashes.SHA512, 64),
             "SHA3-256": (hashes.SHA3_256, 32), "SHA3-384": (hashes.SHA3_384, 48), "SHA3-512": (hashes.SHA3_512, 64)}
V3_TEXT = {"displayTextAndPIN": ("displayText60", 60), "confirmationMessage": ("displayText200", 200),
           "confirmationMessageAndVerificationCodeChoice": ("displayText200", 200)}
RP_NAME = "demo"
STOP = threading.Event()
HASHES = {"SHA256": (hashes.SHA256(), 32), "SHA384": (hashes.SHA384(), 48), "SHA512": (hashes.SHA512(), 64)}


def log(text):
    sys.stderr.write("remote-signing-sim: %s\n" % text)
    sys.stderr.flush()


def mid_code(digest):
    """6 top bits of the first byte, then 7 low bits of the last, as 4 digits."""
    return "%04d" % (((digest[0] >> 2) << 7) | (digest[-1] & 0x7F))


def sid_code(digest):
    """SHA-256 of the raw hash, its last two bytes big-endian, mod 10000."""
    h = hashlib.sha256(digest).digest()
    return "%04d" % (int.from_bytes(h[-2:], "big") % 10000)


class Key:
    def __init__(self, pki=None, name=None, key=None, cert_der=None):
        if key is not None:
            self.key, self.cert_der = key, cert_der
            return
        with open(os.path.join(pki, name + ".key.pem"), "rb") as f:
            self.key = serialization.load_pem_private_key(f.read(), None)
        with open(os.path.join(pki, name + ".cert.der"), "rb") as f:
            self.cert_der = f.read()

    @staticmethod
    def issued(pki, serial_number, kind):
        """A key and a certificate for one persona (serialNumber = its identity), issued by the
        test PKI's issuing CA; used by personas that never reach OCSP (failures)."""
        with open(os.path.join(pki, "issuing-ca.key.pem"), "rb") as f:
            ca_key = serialization.load_pem_private_key(f.read(), None)
        with open(os.path.join(pki, "issuing-ca.cert.der"), "rb") as f:
            ca = x509.load_der_x509_certificate(f.read())
        key = ec.generate_private_key(ec.SECP256R1()) if kind == "ec" else rsa.generate_private_key(65537, 2048)
        name = x509.Name([x509.NameAttribute(NameOID.COUNTRY_NAME, "EE"), x509.NameAttribute(NameOID.SERIAL_NUMBER, serial_number),
                          x509.NameAttribute(NameOID.COMMON_NAME, "SIMULATED PERSONA " + serial_number)])
        now = datetime.datetime.now(datetime.timezone.utc)
        cert = (x509.CertificateBuilder().subject_name(name).issuer_name(ca.subject).public_key(key.public_key())
                .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
                .not_valid_after(now + datetime.timedelta(days=365))
                .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=True, key_encipherment=False, data_encipherment=False,
                                             key_agreement=False, key_cert_sign=False, crl_sign=False, encipher_only=False, decipher_only=False), True)
                .sign(ca_key, hashes.SHA256()))
        return Key(key=key, cert_der=cert.public_bytes(serialization.Encoding.DER))

    def sign(self, digest, hash_name):
        algorithm = utils.Prehashed(HASHES[hash_name][0])
        if isinstance(self.key, ec.EllipticCurvePrivateKey):
            r, s = utils.decode_dss_signature(self.key.sign(digest, ec.ECDSA(algorithm)))
            size = (self.key.curve.key_size + 7) // 8
            return r.to_bytes(size, "big") + s.to_bytes(size, "big"), "%sWithECEncryption" % hash_name
        return self.key.sign(digest, padding.PKCS1v15(), algorithm), "%sWithRSAEncryption" % hash_name


class Session:
    def __init__(self, kind, result, delay=0.3):
        self.kind, self.result, self.created = kind, result, time.time()
        self.done_at = self.created + delay
        self.payload = {}
        self.code = None
        self.poll_generation = 0
        self.cond = threading.Condition()


class Simulator:
    def __init__(self, pki):
        self.pki = pki
        self.keys = {"ec": Key(pki, "ec-p256"), "rsa": Key(pki, "rsa-2048")}   # PNOEE-30303039914, in the OCSP index
        self.issued = {}
        self.sessions = {}
        self.lock = threading.Lock()
        self.recent = {}   # Smart-ID idempotency: request key -> (time, sessionID)
        self.mid_personas = {
            ("+37200000766", "30303039914"): ("OK", "ec"), ("+37200000767", "30303039914"): ("OK", "rsa"),
            ("+37200000766", "60001019906"): ("OK", "ec"), ("+37200009994", "60001019994"): ("TIMEOUT", "ec"),
            ("+37200009995", "60001019995"): ("FAST_RUNNING", "ec"),
            ("+37200000366", "60001019928"): ("NOT_MID_CLIENT", None), ("+37201100266", "60001019950"): ("USER_CANCELLED", "ec"),
            ("+37213100266", "60001019983"): ("PHONE_ABSENT", "ec"), ("+37207110066", "60001019947"): ("DELIVERY_ERROR", "ec"),
            ("+37201200266", "60001019972"): ("SIM_ERROR", "ec"), ("+37200000666", "60001019961"): ("SIGNATURE_HASH_MISMATCH", "ec"),
            ("+37066000266", "50001018908"): ("EXPIRED_TRANSACTION", "ec"), ("+37200009991", "60001019991"): ("GARBAGE", "ec"),
            ("+37200009992", "60001019992"): ("NEVER", "ec"), ("+37200009993", "60001019993"): ("OTHER_HASH", "ec"),
        }
        self.sid_personas = {
            "30303039914": "OK", "30403039917": "USER_REFUSED", "30403039928": "USER_REFUSED_DISPLAYTEXTANDPIN",
            "30403039939": "USER_REFUSED_VC_CHOICE", "30403039946": "USER_REFUSED_CONFIRMATIONMESSAGE",
            "30403039950": "USER_REFUSED_CONFIRMATIONMESSAGE_WITH_VC_CHOICE", "30403039972": "WRONG_VC",
            "30403039983": "TIMEOUT", "30403039994": "GARBAGE", "30403039995": "MAINTENANCE", "30403039996": "NEVER",
            "30403039997": "OTHER_HASH", "30403039990": "HTTP471", "30403039991": "HTTP472", "30403039992": "HTTP480",
            "30403039993": "HTTP403", "30403039998": "ADVANCED",
        }

        self.sid3_personas = {
            "40504040001": "OK", "30403039917": "USER_REFUSED", "30403039928": "REFUSED:displayTextAndPIN",
            "30403039939": "REFUSED:verificationCodeChoice", "30403039946": "REFUSED:confirmationMessage",
            "30403039950": "REFUSED:confirmationMessageAndVerificationCodeChoice", "30403039972": "WRONG_VC",
            "30403039983": "TIMEOUT", "30403039801": "PROTOCOL_FAILURE", "30403039802": "EXPECTED_LINKED_SESSION",
            "30403039803": "SERVER_ERROR", "30403039804": "ACCOUNT_UNUSABLE", "30403039805": "DOCUMENT_UNUSABLE",
            "30403039806": "REQUIRED_INTERACTION_NOT_SUPPORTED_BY_APP", "30403039807": "USER_REFUSED_CERT_CHOICE",
            "30403039811": "SALT20", "30403039812": "MGF512", "30403039813": "TRAILER", "30403039814": "PKCS1",
            "30403039815": "OTHER_HASH", "30403039816": "OTHER_INTERACTION", "30403039817": "FLOW_QR",
            "30403039818": "ACSP", "30403039819": "OTHER_CERT", "30403039820": "BAD_VC", "30403039830": "FIRST_TIMEOUT",
            "30403039808": "SIGN:USER_REFUSED", "30403039809": "SIGN:TIMEOUT", "30403039810": "SIGN:SOMETHING_NEW",
            "30403039821": "HASH512", "30403039822": "PKCS1_NAME", "30403039823": "NO_INTERACTION",
            "30403039824": "HTTP400", "30403039825": "SESSION_GONE",
            "30403039990": "NO_SUITABLE", "30403039992": "HTTP480", "30403039993": "HTTP403", "30403039994": "GARBAGE",
            "30403039995": "MAINTENANCE", "30403039996": "NEVER", "30403039998": "ADVANCED",
        }
        self.cert_choices = {}   # identity code -> how many certificate choices were started
        smart_id = os.path.join(os.path.dirname(pki.rstrip("/")), "smart-id")
        self.rsa6144 = Key(smart_id, "rsa-6144") if os.path.exists(os.path.join(smart_id, "rsa-6144.key.pem")) else None

    def key_for(self, identity, kind):
        """The test PKI's key for 30303039914 (it is in the OCSP index), else one issued now for
        this identity; except the demo's OK persona 60001019906, which gets the test PKI's
        certificate of another person (a client must refuse it)."""
        if identity in ("30303039914", "60001019906"):
            return self.keys[kind]
        with self.lock:
            if (identity, kind) not in self.issued:
                self.issued[(identity, kind)] = Key.issued(self.pki, "PNOEE-" + identity, kind)
            return self.issued[(identity, kind)]

    def add(self, session):
        sid = str(uuid.uuid4())
        with self.lock:
            self.sessions[sid] = session
        return sid

    def get(self, sid):
        with self.lock:
            session = self.sessions.get(sid)
        if session and time.time() - session.created > 300:
            return None
        return session


class Handler(http.server.BaseHTTPRequestHandler):
    sim = None
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        log(fmt % args)

    def _send(self, status, body, ctype="application/json"):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _error(self, status, message):
        self._send(status, {"error": message, "time": time.strftime("%Y-%m-%dT%H:%M:%S"), "traceId": uuid.uuid4().hex[:16]})

    def _json(self):
        length = int(self.headers.get("Content-Length") or 0)
        try:
            return json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            return None

    def _hash(self, body):
        """(hashType, digest) of a signing request, or None after answering 400."""
        hash_type = body.get("hashType")
        if hash_type not in HASHES:
            self._error(400, "hashType must be SHA256, SHA384 or SHA512")
            return None
        try:
            digest = base64.b64decode(body.get("hash", ""), validate=True)
        except (binascii.Error, ValueError):
            self._error(400, "hash is not base64")
            return None
        if len(digest) != HASHES[hash_type][1]:
            self._error(400, "The length of the hash must match the type of hash")
            return None
        return hash_type, digest

    def _rp_ok(self, body):
        return body.get("relyingPartyUUID") == RP_UUID and str(body.get("relyingPartyName", "")).lower() == RP_NAME

    def _timeout(self):
        match = re.search(r"timeoutMs=(\d+)", self.path)
        value = int(match.group(1)) if match else 10000
        return min(max(value, 1000), 120000) / 1000.0

    def do_GET(self):
        path = self.path.split("?")[0]
        if path == "/health":
            return self._send(200, b"ok\n", "text/plain")
        if path == "/_sim/last-code":
            with self.sim.lock:
                coded = [x for x in self.sim.sessions.values() if x.code]
            latest = max(coded, key=lambda x: x.created, default=None)
            return self._send(200, {"code": latest.code}) if latest else self._error(404, "no session yet")
        if path.startswith("/_sim/polls/"):
            session = self.sim.get(path.rsplit("/", 1)[1])
            return self._send(200, {"polls": session.poll_generation}) if session else self._error(404, "no such session")
        if path.startswith("/_sim/code/"):
            session = self.sim.get(path.rsplit("/", 1)[1])
            return self._send(200, {"code": session.code}) if session and session.code else self._error(404, "no such session")
        if path == "/mid-api/version":
            return self._send(200, b"Version: 5.1.0. Built: 01.11.2026 10:00", "text/plain")
        match = re.fullmatch(r"/mid-api/(signature|authentication)/session/([0-9a-f-]+)", path)
        if match:
            return self._poll(match.group(2), "mid")
        match = re.fullmatch(r"/smart-id-rp/v2/session/([0-9a-f-]+)", path)
        if match:
            return self._poll(match.group(1), "sid")
        match = re.fullmatch(r"/smart-id-rp/v3/session/([^/]+)", path)
        if match:
            if self.sim.get(match.group(1)) is None:
                return self._problem(404, "Not Found", "Session not found")
            return self._poll(match.group(1), "sid3")
        self._error(404, "not found")

    def _poll(self, sid, service):  # noqa: C901
        session = self.sim.get(sid)
        if session is None or session.kind.split("-")[0] != service:
            return self._error(404, "session not found")
        with session.cond:
            session.poll_generation += 1
            mine = session.poll_generation
        if session.result == "FAST_RUNNING":
            return self._send(200, {"state": "RUNNING"})
        deadline = time.time() + self._timeout()
        never = session.result == "NEVER"
        while time.time() < deadline and (never or time.time() < session.done_at):
            time.sleep(min(0.05, max(0.0, deadline - time.time())))
            if session.poll_generation != mine:
                break   # a newer poll took over: this one answers RUNNING
        if never or time.time() < session.done_at or session.poll_generation != mine:
            return self._send(200, {"state": "RUNNING"})
        if session.result == "GARBAGE":
            return self._send(200, b'{"state": "COMPLETE", "result": "OK", "signa', "application/json")
        return self._send(200, session.payload)

    def do_POST(self):
        path = self.path.split("?")[0]
        body = self._json()
        if body is None or not isinstance(body, dict):
            return self._error(400, "the body is not JSON")
        if path.startswith("/mid-api/"):
            return self._mid(path[len("/mid-api"):], body)
        if path.startswith("/smart-id-rp/v2/"):
            return self._sid(path[len("/smart-id-rp/v2/"):], body)
        if path.startswith("/smart-id-rp/v3/"):
            return self._sid3(path[len("/smart-id-rp/v3/"):], body)
        self._error(404, "not found")

    # Mobile-ID

    def _mid(self, path, body):
        for field in ("relyingPartyUUID", "relyingPartyName", "phoneNumber", "nationalIdentityNumber"):
            if not isinstance(body.get(field), str) or not body[field]:
                return self._error(400, "%s is missing" % field)
        if not self._rp_ok(body):
            return self._error(401, "relying party not authorised")
        if not re.fullmatch(r"\+\d{8,30}", body["phoneNumber"]):
            return self._error(400, "phoneNumber is invalid")
        persona = self.sim.mid_personas.get((body["phoneNumber"], body["nationalIdentityNumber"]))
        if path == "/certificate":
            if persona is None or persona[0] == "NOT_MID_CLIENT":
                return self._send(200, {"result": "NOT_FOUND", "time": time.strftime("%Y-%m-%dT%H:%M:%S"), "traceId": "t"})
            cert = self.sim.key_for(body["nationalIdentityNumber"], persona[1]).cert_der
            return self._send(200, {"result": "OK", "cert": base64.b64encode(cert).decode(), "time": "t", "traceId": "t"})
        if path not in ("/signature", "/authentication"):
            return self._error(404, "not found")
        hashed = self._hash(body)
        if hashed is None:
            return None
        hash_type, digest = hashed
        if body.get("language") not in ("EST", "ENG", "RUS", "LIT"):
            return self._error(400, "language must be EST, ENG, RUS or LIT")
        text, fmt = body.get("displayText", ""), body.get("displayTextFormat", "GSM-7")
        if fmt not in ("GSM-7", "UCS-2") or len(text) > (100 if fmt == "GSM-7" else 50):
            return self._error(400, "displayText is too long for %s" % fmt)
        result, key = persona if persona else ("NOT_MID_CLIENT", None)
        session = Session("mid-" + path[1:], result)
        session.code = mid_code(digest)
        if result in ("OK", "OTHER_HASH"):
            signed = hashlib.new(hash_type.lower(), b"another document").digest() if result == "OTHER_HASH" else digest
            value, algorithm = self.sim.key_for(body["nationalIdentityNumber"], key).sign(signed, hash_type)
            session.payload = {"state": "COMPLETE", "result": "OK", "signature": {"value": base64.b64encode(value).decode(), "algorithm": algorithm},
                               "time": "t", "traceId": "t", "unknownFutureField": {"ignored": True}}
        else:
            session.payload = {"state": "COMPLETE", "result": result, "time": "t", "traceId": "t"}
        self._send(200, {"sessionID": self.sim.add(session)})

    # Smart-ID

    def _sid(self, path, body):
        if not self._rp_ok(body):
            return self._error(401, "relying party not authenticated")
        match = re.fullmatch(r"(certificatechoice|signature)/(etsi|document)/(.+)", path)
        if not match:
            return self._error(404, "not found")
        action, by, ident = match.groups()
        if by == "etsi":
            semantic = re.fullmatch(r"PNO(EE|LV|LT)-(\d{11})", ident)
            code = semantic.group(2) if semantic else None
            country = semantic.group(1) if semantic else None
        else:
            document = re.fullmatch(r"PNO(EE|LV|LT)-(\d{11})-MOCK-Q", ident)
            code = document.group(2) if document else None
            country = document.group(1) if document else None
        result = self.sim.sid_personas.get(code or "")
        if result is None:
            return self._error(404, "no such account")
        level = body.get("certificateLevel", "QUALIFIED")
        if level not in ("ADVANCED", "QUALIFIED", "QSCD"):
            return self._error(400, "certificateLevel is invalid")
        # Identical requests within 15 s return the same session, unless the nonce differs.
        key_text = json.dumps([path, body], sort_keys=True)
        with self.sim.lock:
            seen = self.sim.recent.get(key_text)
            if seen and time.time() - seen[0] < 15:
                return self._send(200, {"sessionID": seen[1]})
        if result.startswith("HTTP"):
            return self._error(int(result[4:]), "simulated HTTP %s" % result[4:])
        document_number = "PNO%s-%s-MOCK-Q" % (country, code)
        key = self.sim.key_for(code, "rsa")
        cert = {"value": base64.b64encode(key.cert_der).decode(), "certificateLevel": "ADVANCED" if result == "ADVANCED" else "QUALIFIED"}
        if action == "certificatechoice":
            session = Session("sid-cert", result)
            outcome = "OK" if result not in ("USER_REFUSED", "TIMEOUT") else result
            session.payload = {"state": "COMPLETE", "result": {"endResult": outcome, "documentNumber": document_number}}
            if outcome == "OK":
                session.payload["cert"] = cert
            if result == "GARBAGE" or result == "NEVER":
                session.result = "OK"
        else:
            if result == "MAINTENANCE":
                return self._error(580, "system under maintenance")
            hashed = self._hash(body)
            if hashed is None:
                return None
            hash_type, digest = hashed
            interactions = body.get("allowedInteractionsOrder")
            if not isinstance(interactions, list) or not interactions:
                return self._error(400, "allowedInteractionsOrder is required")
            first = interactions[0]
            limits = {"displayTextAndPIN": "displayText60", "verificationCodeChoice": "displayText60",
                      "confirmationMessage": "displayText200", "confirmationMessageAndVerificationCodeChoice": "displayText200"}
            field = limits.get(first.get("type"))
            if field is None or len(first.get(field, "")) > int(field[len("displayText"):]):
                return self._error(400, "interaction is unknown or its text too long")
            session = Session("sid-sign", result)
            session.code = sid_code(digest)
            if result in ("OK", "OTHER_HASH"):
                signed = hashlib.new(hash_type.lower(), b"another document").digest() if result == "OTHER_HASH" else digest
                value, _ = key.sign(signed, hash_type)
                session.payload = {"state": "COMPLETE", "result": {"endResult": "OK", "documentNumber": document_number},
                                   "signature": {"value": base64.b64encode(value).decode(), "algorithm": "%sWithRSAEncryption" % hash_type.lower()},
                                   "cert": cert, "interactionFlowUsed": first["type"], "ignoredProperties": []}
            else:
                session.payload = {"state": "COMPLETE", "result": {"endResult": result if result not in ("GARBAGE", "NEVER") else "OK"}}
        sid = self.sim.add(session)
        with self.sim.lock:
            self.sim.recent[key_text] = (time.time(), sid, {"sessionID": sid})
        self._send(200, {"sessionID": sid})

    # Smart-ID v3

    def _problem(self, status, title, detail, code=None, errors=None):
        """An RFC 9457 problem body, as the v3 API sends for 400 and 404."""
        body = {"type": "about:blank", "title": title, "status": status, "detail": detail, "instance": "/sim/" + uuid.uuid4().hex[:12]}
        if code:
            body["errors"] = [{"code": code, "detail": detail}]
        if errors:
            body["errors"] = errors
        self._send(status, body, "application/problem+json")

    def _bad(self, pointer, detail):
        self._problem(400, "Bad Request", "Invalid request parameters found", errors=[{"detail": detail, "paramName": pointer.strip("/"), "pointer": pointer}])

    @staticmethod
    def _java_length(text):
        """String.length() in Java: UTF-16 code units."""
        return len(text.encode("utf-16-le")) // 2

    def _interactions(self, value):
        """The decoded interactions array, or None after answering 400."""
        try:
            decoded = json.loads(base64.b64decode(value, validate=True).decode("utf-8"))
        except (binascii.Error, ValueError, TypeError, UnicodeDecodeError):
            self._bad("/interactions", "interactions must be base64 of a JSON array")
            return None
        if not isinstance(decoded, list) or not decoded:
            self._bad("/interactions", "interactions must be a non-empty array")
            return None
        seen = set()
        for item in decoded:
            kind = item.get("type") if isinstance(item, dict) else None
            if kind not in V3_TEXT or kind in seen:
                self._bad("/interactions", "unknown or repeated interaction type %r" % kind)
                return None
            seen.add(kind)
            field, limit = V3_TEXT[kind]
            other = "displayText200" if field == "displayText60" else "displayText60"
            text = item.get(field)
            if other in item or not isinstance(text, str) or not text or self._java_length(text) > limit:
                self._bad("/interactions", "%s needs %s of 1 to %d characters" % (kind, field, limit))
                return None
        return decoded

    def _sid3(self, path, body):  # noqa: C901
        if body.get("relyingPartyUUID") != RP_UUID_V3 or str(body.get("relyingPartyName", "")).lower() != RP_NAME:
            return self._send(401, b"", "text/plain")
        level = body.get("certificateLevel", "QUALIFIED")
        if level not in ("ADVANCED", "QUALIFIED", "QSCD"):
            return self._bad("/certificateLevel", "certificateLevel must be ADVANCED, QUALIFIED or QSCD")
        if "nonce" in body and not (isinstance(body["nonce"], str) and 1 <= len(body["nonce"]) <= 30):
            return self._bad("/nonce", "nonce must be 1 to 30 characters")
        match = (re.fullmatch(r"signature/certificate-choice/notification/etsi/PNO(EE|LV|LT)-(\d{11})", path)
                 or re.fullmatch(r"signature/notification/etsi/PNO(EE|LV|LT)-(\d{11})", path)
                 or re.fullmatch(r"signature/(?:notification/document|certificate)/PNO(EE|LV|LT)-(\d{11})-(?:MOCK|DEM0)-Q", path))
        if not match:
            return self._problem(404, "Not Found", "Not Found")
        country, code = match.groups()
        persona = self.sim.sid3_personas.get(code)
        if persona is None:
            return self._problem(404, "Not Found", "Not Found")
        document_number = "PNO%s-%s-%s-Q" % (country, code, "DEM0" if code == "40504040001" else "MOCK")
        if persona == "OK" and self.sim.rsa6144 is not None:
            key = self.sim.rsa6144
        else:
            key = self.sim.key_for(code, "rsa")
        cert = {"value": base64.b64encode(key.cert_der).decode(), "certificateLevel": "ADVANCED" if persona == "ADVANCED" else "QUALIFIED"}
        if path.startswith("signature/certificate/"):
            if persona == "DOCUMENT_UNUSABLE":
                return self._send(200, {"state": "DOCUMENT_UNUSABLE"})
            return self._send(200, {"state": "OK", "cert": cert})
        # Identical requests within 15 s return the same session, unless the nonce differs.
        key_text = json.dumps([path, body], sort_keys=True)
        with self.sim.lock:
            seen = self.sim.recent.get(key_text)
            if seen and time.time() - seen[0] < 15:
                return self._send(200, seen[2])
        if persona == "NO_SUITABLE":
            return self._problem(404, "Not Found", "No suitable account of requested type found, but user has some other accounts",
                                 code="NO_SUITABLE_ACCOUNT_FOUND")
        if persona in ("HTTP480", "HTTP403"):
            return self._send(int(persona[4:]), b"", "text/plain")
        if persona == "HTTP400" and not path.startswith("signature/certificate-choice/"):
            return self._bad("/interactions", "Invalid interactions: simulated")
        if path.startswith("signature/certificate-choice/"):
            with self.sim.lock:
                self.sim.cert_choices[code] = self.sim.cert_choices.get(code, 0) + 1
                first = self.sim.cert_choices[code] == 1
            session = Session("sid3-cert", "OK")
            if persona in ("USER_REFUSED", "TIMEOUT", "USER_REFUSED_CERT_CHOICE", "DOCUMENT_UNUSABLE", "ACCOUNT_UNUSABLE") or (persona == "FIRST_TIMEOUT" and first):
                outcome = "TIMEOUT" if persona == "FIRST_TIMEOUT" else persona
                session.payload = {"state": "COMPLETE", "result": {"endResult": outcome}}
            else:
                session.payload = {"state": "COMPLETE", "result": {"endResult": "OK", "documentNumber": document_number},
                                   "signature": {"flowType": "Notification"}, "cert": cert}
            if persona == "GARBAGE":
                session.result = "OK"
            reply = {"sessionID": self.sim.add(session)}
        else:
            if persona == "MAINTENANCE":
                return self._send(580, b"", "text/plain")
            if body.get("signatureProtocol") != "RAW_DIGEST_SIGNATURE":
                return self._bad("/signatureProtocol", "signatureProtocol must be RAW_DIGEST_SIGNATURE")
            parameters = body.get("signatureProtocolParameters")
            if not isinstance(parameters, dict) or parameters.get("signatureAlgorithm") != "rsassa-pss":
                return self._bad("/signatureProtocolParameters/signatureAlgorithm", "signatureAlgorithm must be rsassa-pss")
            hash_name = (parameters.get("signatureAlgorithmParameters") or {}).get("hashAlgorithm")
            if hash_name not in V3_HASHES:
                return self._bad("/signatureProtocolParameters/signatureAlgorithmParameters/hashAlgorithm", "unknown hashAlgorithm")
            digest_text = parameters.get("digest")
            try:
                if not isinstance(digest_text, str) or not 44 <= len(digest_text) <= 88:
                    raise ValueError
                digest = base64.b64decode(digest_text, validate=True)
            except (binascii.Error, ValueError):
                return self._bad("/signatureProtocolParameters/digest", "digest must be base64 of 44 to 88 characters")
            hash_class, size = V3_HASHES[hash_name]
            if len(digest) != size:
                return self._bad("/signatureProtocolParameters/digest", "the digest's length does not match hashAlgorithm")
            interactions = self._interactions(body.get("interactions"))
            if interactions is None:
                return None
            session = Session("sid3-sign", persona)
            # v3: the service draws the code at random and sends it; the phone shows the same one.
            session.code = "%04d" % (int.from_bytes(os.urandom(2), "big") % 10000)
            if persona.startswith("REFUSED:"):
                session.payload = {"state": "COMPLETE", "result": {"endResult": "USER_REFUSED_INTERACTION", "details": {"interaction": persona[8:]}}}
            elif persona.startswith("SIGN:"):
                session.payload = {"state": "COMPLETE", "result": {"endResult": persona[5:]}}
            elif persona in ("OK", "SALT20", "MGF512", "TRAILER", "PKCS1", "OTHER_HASH", "OTHER_INTERACTION", "FLOW_QR", "ACSP", "OTHER_CERT", "BAD_VC",
                             "FIRST_TIMEOUT", "ADVANCED", "HASH512", "PKCS1_NAME", "NO_INTERACTION", "SESSION_GONE"):
                salt, mgf = (20 if persona == "SALT20" else size), (hashes.SHA512 if persona == "MGF512" else hash_class)
                signed = hashlib.new(hash_name.lower().replace("sha3-", "sha3_").replace("-", ""), b"another document").digest() if persona == "OTHER_HASH" else digest
                if persona == "PKCS1":
                    value = key.key.sign(signed, padding.PKCS1v15(), utils.Prehashed(hash_class()))
                else:
                    value = key.key.sign(signed, padding.PSS(mgf=padding.MGF1(mgf()), salt_length=salt), utils.Prehashed(hash_class()))
                used = "verificationCodeChoice" if persona == "OTHER_INTERACTION" else interactions[0]["type"]
                returned_cert = dict(cert)
                if persona == "OTHER_CERT":
                    returned_cert["value"] = base64.b64encode(self.sim.keys["rsa"].cert_der).decode()
                declared = {"HASH512": "SHA-512"}.get(persona, hash_name)
                session.payload = {
                    "state": "COMPLETE", "result": {"endResult": "OK", "documentNumber": document_number},
                    "signatureProtocol": "ACSP_V2" if persona == "ACSP" else "RAW_DIGEST_SIGNATURE",
                    "signature": {"value": base64.b64encode(value).decode(), "flowType": "QR" if persona == "FLOW_QR" else "Notification",
                                  "signatureAlgorithm": "sha256WithRSAEncryption" if persona == "PKCS1_NAME" else "rsassa-pss",
                                  "signatureAlgorithmParameters": {"hashAlgorithm": declared,
                                                                   "maskGenAlgorithm": {"algorithm": "id-mgf1", "parameters": {"hashAlgorithm": "SHA-512" if persona == "MGF512" else hash_name}},
                                                                   "saltLength": salt, "trailerField": "0x01" if persona == "TRAILER" else "0xbc"}},
                    "cert": returned_cert, "interactionTypeUsed": used, "ignoredProperties": [], "futureField": {"ignored": True}}
                if persona == "NO_INTERACTION":
                    del session.payload["interactionTypeUsed"]
            else:
                end = persona if persona not in ("GARBAGE", "NEVER") else "OK"
                session.payload = {"state": "COMPLETE", "result": {"endResult": end}}
                if persona in ("GARBAGE", "NEVER"):
                    session.result = persona
            reply = {"sessionID": str(uuid.uuid4()) if persona == "SESSION_GONE" else self.sim.add(session),
                     "vc": {"type": "numeric4", "value": "12a4" if persona == "BAD_VC" else session.code}}
        with self.sim.lock:
            self.sim.recent[key_text] = (time.time(), reply["sessionID"], reply)
        self._send(200, reply)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    ap = argparse.ArgumentParser(description="TEST ONLY Mobile-ID and Smart-ID simulators on 127.0.0.1")
    ap.add_argument("--pki", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--tls-cert")
    ap.add_argument("--tls-key")
    ap.add_argument("--exit-with-parent", action="store_true")
    a = ap.parse_args()
    Handler.sim = Simulator(os.path.abspath(a.pki))
    server = Server((HOST, a.port), Handler)
    scheme = "http"
    if a.tls_cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(a.tls_cert, a.tls_key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        scheme = "https"
    signal.signal(signal.SIGTERM, lambda *_: STOP.set())
    signal.signal(signal.SIGINT, lambda *_: STOP.set())
    parent = os.getppid()
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
    sys.stdout.write("listening %s://%s:%d\n" % (scheme, HOST, server.server_address[1]))
    sys.stdout.flush()
    while not STOP.wait(0.5):
        if a.exit_with_parent and os.getppid() != parent:
            STOP.set()
    server.shutdown()
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
