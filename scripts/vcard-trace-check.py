#!/usr/bin/python3
"""Replays the recorded APDU traces of docs/design/smartcard.md §1.3 (EstEID IDEMIA) and §1.4 (Thales
applet: EstEID Thales, FinEID) against a card in a PC/SC reader with pyscard, and checks the
signature with the `cryptography` package against the certificate read from the card. Written
apart from tamga's Swift code so it checks the virtual card (and any real card) independently.

usage: vcard-trace-check.py READER_SUBSTRING idemia|thales|fineid [--pin2 PIN] [--wrong-pin]

Prints one JSON object: the certificate subject, PIN2 tries before and after, the signature
check result. With --wrong-pin, first sends one wrong PIN2 and reports the 63Cx answer.
Exit 0 when the signature verifies, 1 otherwise, 2 on usage or transport errors.
PCSCLITE_CSOCK_NAME selects a private pcscd.
"""
import hashlib
import json
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, utils
from smartcard.System import readers


def hx(s):
    return list(bytes.fromhex(s.replace(" ", "")))


class Card:
    def __init__(self, name_part):
        matches = [r for r in readers() if name_part in str(r)]
        if not matches:
            raise SystemExit(f"no reader matching {name_part!r}")
        self.connection = matches[0].createConnection()
        self.connection.connect()

    def send(self, apdu, expect=(0x9000,)):
        data, sw1, sw2 = self.connection.transmit(apdu)
        if sw1 == 0x61:   # T=0: collect with GET RESPONSE
            while sw1 == 0x61:
                more, sw1, sw2 = self.connection.transmit([0x00, 0xC0, 0x00, 0x00, sw2])
                data += more
        sw = sw1 << 8 | sw2
        if expect and sw not in expect:
            raise RuntimeError(f"APDU {bytes(apdu).hex()} answered {sw:04X}")
        return bytes(data), sw


def read_file(card, size, block):
    out = b""
    while len(out) < size:
        want = min(block, size - len(out))
        off = len(out)
        data, _ = card.send([0x00, 0xB0, off >> 8, off & 0xFF, want if want < 256 else 0])
        if not data:
            raise RuntimeError("READ BINARY returned nothing")
        out += data
    return out


def fcp_size(fcp):
    # FCP: 62 L 80 02 hi lo
    assert fcp[0] == 0x62 and fcp[2] == 0x80, fcp.hex()
    return fcp[4] << 8 | fcp[5]


def find_tag(data, tag):
    """First value of a (one- or two-byte) BER-TLV tag anywhere in nested constructed data."""
    i = 0
    while i < len(data):
        first = t = data[i]; i += 1
        if first & 0x1F == 0x1F:   # multi-byte tag: continuation bytes have bit 8 set
            while True:
                t = t << 8 | data[i]; i += 1
                if not data[i - 1] & 0x80:
                    break
        length = data[i]; i += 1
        if length == 0x81:
            length = data[i]; i += 1
        value = data[i:i + length]
        if t == tag:
            return value
        if first & 0x20:   # constructed
            inner = find_tag(value, tag)
            if inner is not None:
                return inner
        i += length
    return None


def idemia(card, pin2, wrong_pin):
    card.send(hx("00 A4 04 0C 10 A0000000770108000700 00FE00000100"))
    fcp, _ = card.send(hx("00 A4 09 04 04 ADF2 341F 00"))
    cert = read_file(card, fcp_size(fcp), 0xC0)
    card.send(hx("00 A4 04 0C 10") + list(b"QSCD Application"))
    counter = lambda: find_tag(card.send(hx("00 CB 3F FF 0A 4D 08 70 06 BF 81 05 02 A0 80 00"))[0], 0x9B)[0]
    before = counter()
    wrong = None
    if wrong_pin:
        _, sw = card.send([0x00, 0x20, 0x00, 0x85, 0x0C] + list(b"00000") + [0xFF] * 7, expect=None)
        wrong = f"{sw:04X}"
    card.send(hx("00 22 41 B6 06 80 01 54 84 01 9F"))
    card.send([0x00, 0x20, 0x00, 0x85, 0x0C] + list(pin2.encode()) + [0xFF] * (12 - len(pin2)))
    after = counter()
    digest = hashlib.sha384(b"tamga trace check").digest()
    signature, _ = card.send([0x00, 0x2A, 0x9E, 0x9A, 0x30] + list(digest) + [0x00])
    # A second PSO:CDS without a new VERIFY must be refused: PIN2 covers one signature.
    _, again = card.send([0x00, 0x2A, 0x9E, 0x9A, 0x30] + list(digest) + [0x00], expect=None)
    return cert, digest, signature, before, after, wrong, f"{again:04X}", hashes.SHA384()


def thales(card, pin2, wrong_pin, fin):
    card.send(hx("00 A4 04 0C 0C A0 00 00 00 63 50 4B 43 53 2D 31 35"))
    path = "5016 4332" if fin else "ADF2 3421"
    fcp, _ = card.send(hx(f"00 A4 08 04 04 {path} 00"))
    cert = read_file(card, fcp_size(fcp), 256)
    counter = lambda: find_tag(card.send(hx("00 CB 00 FF 05 A0 03 83 01 82 00"))[0], 0xDF21)[0]
    before = counter()
    wrong = None
    if wrong_pin:
        _, sw = card.send([0x00, 0x20, 0x00, 0x82, 0x0C] + list(b"000000") + [0x00] * 6, expect=None)
        wrong = f"{sw:04X}"
    card.send([0x00, 0x20, 0x00, 0x82, 0x0C] + list(pin2.encode()) + [0x00] * (12 - len(pin2)))
    after = counter()
    certificate = x509.load_der_x509_certificate(cert)
    size = certificate.public_key().curve.key_size
    digest, algo, hash_obj = (hashlib.sha384(b"tamga trace check").digest(), 0x54, hashes.SHA384()) if size == 384 \
        else (hashlib.sha256(b"tamga trace check").digest(), 0x44, hashes.SHA256())
    key = 0x02 if fin else 0x05
    card.send([0x00, 0x22, 0x41, 0xB6, 0x06, 0x80, 0x01, algo, 0x84, 0x01, key])
    card.send([0x00, 0x2A, 0x90, 0xA0, 2 + len(digest), 0x90, len(digest)] + list(digest))
    signature, _ = card.send(hx("00 2A 9E 9A 00"))
    card.send([0x00, 0x2A, 0x90, 0xA0, 2 + len(digest), 0x90, len(digest)] + list(digest))
    _, again = card.send(hx("00 2A 9E 9A 00"), expect=None)
    return cert, digest, signature, before, after, wrong, f"{again:04X}", hash_obj


def main():
    args = sys.argv[1:]
    if len(args) < 2 or args[1] not in ("idemia", "thales", "fineid"):
        print(__doc__, file=sys.stderr)
        return 2
    pin2 = args[args.index("--pin2") + 1] if "--pin2" in args else ("123456" if args[1] == "fineid" else "12345")
    wrong_pin = "--wrong-pin" in args
    try:
        card = Card(args[0])
        if args[1] == "idemia":
            result = idemia(card, pin2, wrong_pin)
        else:
            result = thales(card, pin2, wrong_pin, args[1] == "fineid")
    except Exception as error:   # transport or unexpected status word
        print(json.dumps({"error": str(error)}))
        return 2
    cert, digest, signature, before, after, wrong, again, hash_obj = result
    certificate = x509.load_der_x509_certificate(cert)
    half = len(signature) // 2
    r, s = int.from_bytes(signature[:half], "big"), int.from_bytes(signature[half:], "big")
    try:
        certificate.public_key().verify(utils.encode_dss_signature(r, s), digest, ec.ECDSA(utils.Prehashed(hash_obj)))
        verified = True
    except Exception:
        verified = False
    print(json.dumps({
        "subject": certificate.subject.rfc4514_string(),
        "pin2TriesBefore": before, "pin2TriesAfter": after, "wrongPinAnswer": wrong,
        "secondSignatureWithoutPIN": again, "signatureLength": len(signature), "signatureVerified": verified,
    }))
    return 0 if verified else 1


if __name__ == "__main__":
    sys.exit(main())
