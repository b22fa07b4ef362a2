#!/usr/bin/python3
"""lt-check.py — independent check of the long-term evidence (XAdES T / LT / LTA) in an ASiC-E.

usage: lt-check.py CONTAINER --ca ROOT.pem [--untrusted CERTS.pem] [-v]

Shares no code with tamga: Python stdlib, lxml, cryptography and the openssl CLI only.
For every ds:Signature in every META-INF/*signatures*.xml of CONTAINER:

  tst   exactly one xades:SignatureTimeStamp with exactly one EncapsulatedTimeStamp (DER CMS
        TimeStampToken). The imprint is the token's hash over the canonical ds:SignatureValue
        element (with its inherited namespace declarations), canonicalized with the time-stamp's
        ds:CanonicalizationMethod (none: C14N 1.0). The token is checked with
        `openssl ts -verify -digest HEX -token_in -CAfile ROOT [-untrusted CERTS]
        -attime GENTIME` (the TSA certificate must be valid at genTime).
  ocsp  LT: xades:CertificateValues must hold the signer's issuer (the certificate that signed
        the ds:KeyInfo certificate; the signer must chain to ROOT at genTime through it), and
        RevocationValues/OCSPValues (exactly one) must hold an EncapsulatedOCSPValue (a full
        OCSPResponse) that `openssl ocsp -respin R -issuer ISSUER -cert SIGNER -CAfile ROOT
        -verify_other CERTS -no_nonce -attime PRODUCEDAT` verifies (CertID hash as in the
        response) and that says good for the signer, with producedAt >= the time-stamp's
        genTime. A verifying response that says revoked for the signer fails the signature even
        when another one says good. openssl's "Status times invalid" warning (nextUpdate before
        now, normal for an archived response) is ignored; openssl and cryptography must agree on
        the status.
  ats   LTA: every xades141:ArchiveTimeStamp (http://uri.etsi.org/01903/v1.4.1#). The imprint
        is the token's hash over, in this order (each element canonicalized on its own with the
        archive time-stamp's ds:CanonicalizationMethod): for each ds:Reference in SignedInfo
        order, the SignedProperties element (Type .../01903#SignedProperties) or the raw bytes
        of the data file named by the percent-decoded URI; then SignedInfo, SignatureValue,
        KeyInfo; then every UnsignedSignatureProperties child before this ArchiveTimeStamp.
        Checked with openssl ts -verify -digest as for tst.

C14N 1.1 is computed as lxml's inclusive C14N 1.0 (lxml has no 1.1): the two give the same
bytes unless an ancestor of the canonicalized element carries an xml:* attribute, which is
reported as a failure instead of guessed. Exclusive C14N and the WithComments variants are
supported too.

Output: one line per signature, e.g.
  META-INF/signatures0.xml#S0: profile=LTA tst=ok(2026-11-29T17:16:07Z) ocsp=good(produced 2026-11-29T17:16:07Z) ats=ok,ok -> OK
A failed item reads e.g. tst=FAIL(imprint mismatch); -v adds openssl's messages on stderr.

Exit status: 0 when there is at least one signature and every signature has verifying LT
evidence (T + LT, and every archive time-stamp present verifies), 1 otherwise (also for an
unreadable container), 2 usage error (bad arguments, unreadable --ca/--untrusted file, no
openssl).
"""
import argparse
import base64
import binascii
import datetime
import fnmatch
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
import zipfile

try:
    from lxml import etree
    from cryptography import x509
    from cryptography.x509 import ocsp
    from cryptography.hazmat.primitives import serialization
except ImportError as error:  # pragma: no cover
    sys.stderr.write("lt-check.py: %s (apt-get install python3-lxml python3-cryptography)\n" % error)
    sys.exit(2)

PROG = "lt-check.py"
NS = {
    "ds": "http://www.w3.org/2000/09/xmldsig#",
    "xades": "http://uri.etsi.org/01903/v1.3.2#",
    "xades141": "http://uri.etsi.org/01903/v1.4.1#",
}
DS = "{%s}" % NS["ds"]
XADES = "{%s}" % NS["xades"]
XADES141 = "{%s}" % NS["xades141"]
XML_NS = "{http://www.w3.org/XML/1998/namespace}"
SIGNED_PROPERTIES_TYPE = "http://uri.etsi.org/01903#SignedProperties"

# Algorithm URI -> (exclusive, with_comments, is_c14n11)
C14N_METHODS = {
    "http://www.w3.org/TR/2001/REC-xml-c14n-20010315": (False, False, False),
    "http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments": (False, True, False),
    "http://www.w3.org/2006/12/xml-c14n11": (False, False, True),
    "http://www.w3.org/2006/12/xml-c14n11#WithComments": (False, True, True),
    "http://www.w3.org/2001/10/xml-exc-c14n#": (True, False, False),
    "http://www.w3.org/2001/10/xml-exc-c14n#WithComments": (True, True, False),
}
DEFAULT_C14N = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315"

MONTHS = {m: i + 1 for i, m in enumerate(
    ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"])}


class Fail(Exception):
    """One check failed; the message is short and goes into the result line."""

    def __init__(self, message, detail=""):
        super().__init__(message)
        self.detail = detail


class Revoked(Fail):
    """A verifying OCSP response says the signer is revoked."""


VERBOSE = False


def note(text):
    if VERBOSE and text:
        for line in text.rstrip().splitlines():
            sys.stderr.write("  %s\n" % line)


# ---------------------------------------------------------------------------------------------
# helpers

def run(args):
    process = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    return process.returncode, process.stdout.decode("utf-8", "replace"), process.stderr.decode("utf-8", "replace")


def b64(element, what):
    text = "".join((element.text or "").split())
    if not text:
        raise Fail("%s empty" % what)
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise Fail("%s not base64" % what)


def iso(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if moment.microsecond == 0 else \
        moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def epoch(moment):
    return str(int(moment.replace(tzinfo=datetime.timezone.utc).timestamp()))


def canonicalize(element, algorithm):
    """The canonical form of one element with its inherited namespace declarations."""
    if algorithm not in C14N_METHODS:
        raise Fail("unsupported c14n %s" % algorithm)
    # C14N 1.1 is produced as C14N 1.0: equal for elements without inherited xml:* attributes.
    exclusive, comments, _c14n11 = C14N_METHODS[algorithm]
    if not exclusive:
        # lxml copies the ancestors' namespace declarations but not their xml:* attributes,
        # which inclusive C14N 1.0 inherits and 1.1 treats specially: refuse instead of guessing.
        for ancestor in element.iterancestors():
            inherited = [name for name in ancestor.attrib if name.startswith(XML_NS)]
            if inherited:
                raise Fail("c14n with inherited xml:%s not supported" % inherited[0][len(XML_NS):])
    return etree.tostring(element, method="c14n", exclusive=exclusive, with_comments=comments)


def c14n_algorithm(timestamp_element):
    method = timestamp_element.find("ds:CanonicalizationMethod", NS)
    if method is None:
        return DEFAULT_C14N
    return method.get("Algorithm") or DEFAULT_C14N


def hash_name(openssl_name):
    name = openssl_name.strip().lower().replace("-", "_")
    aliases = {"sha3_224": "sha3_224", "sha3_256": "sha3_256", "sha3_384": "sha3_384", "sha3_512": "sha3_512"}
    name = aliases.get(name, name)
    try:
        hashlib.new(name)
    except ValueError:
        raise Fail("token hash %s unknown" % openssl_name)
    return name


def write(workdir, name, data):
    path = os.path.join(workdir, name)
    with open(path, "wb") as handle:
        handle.write(data)
    return path


def pem_of(certificates):
    return b"".join(c.public_bytes(serialization.Encoding.PEM) for c in certificates)


# ---------------------------------------------------------------------------------------------
# time-stamp tokens

class Token:
    def __init__(self, der, path):
        self.der = der
        self.path = path
        self.hash = None      # hashlib name
        self.imprint = None   # bytes
        self.gen_time = None  # naive UTC datetime


def read_token(der, workdir, name):
    path = write(workdir, name, der)
    code, out, err = run(["openssl", "ts", "-reply", "-in", path, "-token_in", "-text"])
    if code != 0 or "TST info:" not in out:
        raise Fail("token undecodable", err)
    token = Token(der, path)
    match = re.search(r"^Hash Algorithm:\s*(\S+)\s*$", out, re.M)
    if not match:
        raise Fail("token has no hash algorithm", out)
    token.hash = hash_name(match.group(1))
    match = re.search(r"^Message data:\s*\n((?:\s+[0-9a-f]{4} - .*\n)+)", out, re.M)
    if not match:
        raise Fail("token has no message imprint", out)
    hexdigits = ""
    for line in match.group(1).splitlines():
        body = line.split(" - ", 1)[1][:48]
        hexdigits += re.sub(r"[^0-9a-f]", "", body)
    token.imprint = bytes.fromhex(hexdigits)
    match = re.search(r"^Time stamp:\s*(\w{3})\s+(\d{1,2})\s+(\d\d):(\d\d):(\d\d)(?:\.(\d+))?\s+(\d{4})\s+GMT\s*$",
                      out, re.M)
    if not match:
        raise Fail("token genTime unreadable", out)
    month, day, hour, minute, second, fraction, year = match.groups()
    micro = int((fraction or "0")[:6].ljust(6, "0"))
    token.gen_time = datetime.datetime(int(year), MONTHS[month], int(day), int(hour), int(minute), int(second), micro)
    return token


def verify_token(token, digest, args):
    """openssl ts -verify against the imprint we computed; the TSA must be valid at genTime."""
    if digest != token.imprint:
        raise Fail("imprint mismatch", "computed %s, token has %s" % (digest.hex(), token.imprint.hex()))
    command = ["openssl", "ts", "-verify", "-digest", digest.hex(), "-in", token.path, "-token_in",
               "-CAfile", args.ca, "-attime", epoch(token.gen_time)]
    if args.untrusted:
        command += ["-untrusted", args.untrusted]
    code, out, err = run(command)
    if code != 0 or "Verification: OK" not in out:
        raise Fail("token does not verify", out + err)


# ---------------------------------------------------------------------------------------------
# one signature

class Result:
    def __init__(self, label):
        self.label = label
        self.profile = "B"
        self.items = []   # (name, text)
        self.ok = True

    def add(self, name, text, ok=True):
        self.items.append((name, text))
        if not ok:
            self.ok = False

    def line(self):
        parts = ["profile=%s" % self.profile] + ["%s=%s" % item for item in self.items]
        return "%s: %s -> %s" % (self.label, " ".join(parts), "OK" if self.ok else "FAIL")


def check_signature(signature, label, archive, args, workdir, tag):
    result = Result(label)
    signed_info = signature.find("ds:SignedInfo", NS)
    signature_value = signature.find("ds:SignatureValue", NS)
    key_info = signature.find("ds:KeyInfo", NS)
    qualifying = signature.findall("ds:Object/xades:QualifyingProperties", NS)
    if signed_info is None or signature_value is None or key_info is None or len(qualifying) != 1:
        result.add("structure", "FAIL(SignedInfo, SignatureValue, KeyInfo or QualifyingProperties missing)", False)
        return result
    qualifying = qualifying[0]
    properties = qualifying.findall("xades:UnsignedProperties/xades:UnsignedSignatureProperties", NS)
    if len(properties) > 1:
        result.add("structure", "FAIL(more than one UnsignedSignatureProperties)", False)
        return result
    children = [c for c in properties[0] if isinstance(c.tag, str)] if properties else []

    def named(namespace, local):
        return [c for c in children if c.tag == namespace + local]

    timestamps = named(XADES, "SignatureTimeStamp")
    certificate_values = named(XADES, "CertificateValues")
    revocation_values = named(XADES, "RevocationValues")
    archives = named(XADES141, "ArchiveTimeStamp")
    old_archives = named(XADES, "ArchiveTimeStamp")
    if timestamps:
        result.profile = "T"
    if timestamps and certificate_values and revocation_values:
        result.profile = "LT"
        if archives:
            result.profile = "LTA"

    # the signer: the ds:KeyInfo certificate
    signer = None
    try:
        certs = key_info.findall("ds:X509Data/ds:X509Certificate", NS)
        if not certs:
            raise Fail("no X509Certificate in KeyInfo")
        try:
            signer = x509.load_der_x509_certificate(b64(certs[0], "X509Certificate"))
        except ValueError:
            raise Fail("KeyInfo certificate undecodable")
    except Fail as failure:
        result.add("signer", "FAIL(%s)" % failure, False)

    # ---- T: the signature time-stamp
    gen_time = None
    try:
        if len(timestamps) != 1:
            raise Fail("none" if not timestamps else "%d SignatureTimeStamp elements" % len(timestamps))
        encapsulated = timestamps[0].findall("xades:EncapsulatedTimeStamp", NS)
        if len(encapsulated) != 1:
            raise Fail("%d EncapsulatedTimeStamp elements" % len(encapsulated))
        token = read_token(b64(encapsulated[0], "EncapsulatedTimeStamp"), workdir, "%s-tst.der" % tag)
        data = canonicalize(signature_value, c14n_algorithm(timestamps[0]))
        verify_token(token, hashlib.new(token.hash, data).digest(), args)
        gen_time = token.gen_time
        result.add("tst", "ok(%s)" % iso(gen_time))
    except Fail as failure:
        note(failure.detail)
        result.add("tst", "FAIL(%s)" % failure, False)

    # ---- LT: issuer certificate and OCSP
    try:
        if signer is None:
            raise Fail("no signer certificate")
        if not certificate_values:
            raise Fail("no CertificateValues")
        if not revocation_values:
            raise Fail("no RevocationValues")
        if gen_time is None:
            raise Fail("not checked: no valid time-stamp")
        carried = []
        for element in (e for cv in certificate_values for e in cv.findall("xades:EncapsulatedX509Certificate", NS)):
            try:
                carried.append(x509.load_der_x509_certificate(b64(element, "EncapsulatedX509Certificate")))
            except ValueError:
                raise Fail("EncapsulatedX509Certificate undecodable")
        signer_path = write(workdir, "%s-signer.pem" % tag, pem_of([signer]))
        issuer = None
        for candidate in carried:
            if candidate.subject != signer.issuer:
                continue
            candidate_path = write(workdir, "%s-issuer.pem" % tag, pem_of([candidate]))
            code, out, err = run(["openssl", "verify", "-partial_chain", "-no_check_time",
                                  "-CAfile", candidate_path, signer_path])
            if code == 0:
                issuer = candidate
                break
            note(out + err)
        if issuer is None:
            raise Fail("the signer's issuer is not in CertificateValues")
        issuer_path = write(workdir, "%s-issuer.pem" % tag, pem_of([issuer]))
        others = pem_of(carried)
        if args.untrusted:
            with open(args.untrusted, "rb") as handle:
                others += b"\n" + handle.read()
        others_path = write(workdir, "%s-others.pem" % tag, others)
        code, out, err = run(["openssl", "verify", "-CAfile", args.ca, "-untrusted", others_path,
                              "-attime", epoch(gen_time), signer_path])
        if code != 0:
            raise Fail("signer does not chain to --ca at genTime", out + err)

        ocsp_values = [ov for rv in revocation_values for ov in rv.findall("xades:OCSPValues", NS)]
        if len(revocation_values) != 1 or len(ocsp_values) != 1:
            raise Fail("need exactly one RevocationValues/OCSPValues")
        responses = ocsp_values[0].findall("xades:EncapsulatedOCSPValue", NS)
        if not responses:
            raise Fail("no EncapsulatedOCSPValue")
        # Like the reference, one verifying good response suffices; unlike it, a verifying
        # response that says revoked for the signer fails the signature whatever else is there.
        reasons = []
        verdict = None
        for index, element in enumerate(responses):
            try:
                found = check_ocsp(b64(element, "EncapsulatedOCSPValue"), signer, signer_path, issuer_path,
                                   others_path, gen_time, args, workdir, "%s-ocsp%d" % (tag, index))
                verdict = verdict or found
            except Revoked:
                raise
            except Fail as failure:
                note(failure.detail)
                reasons.append(str(failure))
        if verdict is None:
            raise Fail("; ".join(reasons))
        result.add("ocsp", verdict)
    except Fail as failure:
        note(failure.detail)
        result.add("ocsp", "FAIL(%s)" % failure, False)

    # ---- LTA: archive time-stamps
    if old_archives:
        result.add("ats132", "FAIL(xades v1.3.2 ArchiveTimeStamp not supported)", False)
    verdicts = []
    for index, ats in enumerate(archives):
        try:
            encapsulated = ats.findall("xades:EncapsulatedTimeStamp", NS)
            if len(encapsulated) != 1:
                raise Fail("%d EncapsulatedTimeStamp elements" % len(encapsulated))
            token = read_token(b64(encapsulated[0], "EncapsulatedTimeStamp"), workdir, "%s-ats%d.der" % (tag, index))
            digest = hashlib.new(token.hash)
            archive_input(digest, signature, signed_info, signature_value, key_info, qualifying,
                          children[:children.index(ats)], c14n_algorithm(ats), archive)
            verify_token(token, digest.digest(), args)
            verdicts.append("ok")
            note("archive time-stamp %d: genTime %s" % (index, iso(token.gen_time)))
        except Fail as failure:
            note(failure.detail)
            verdicts.append("FAIL(%s)" % failure)
            result.ok = False
    if archives:
        result.add("ats", ",".join(verdicts))

    if not timestamps or not certificate_values or not revocation_values:
        result.ok = False
    return result


def check_ocsp(der, signer, signer_path, issuer_path, others_path, gen_time, args, workdir, tag):
    try:
        response = ocsp.load_der_ocsp_response(der)
    except ValueError:
        raise Fail("OCSPResponse undecodable")
    if response.response_status != ocsp.OCSPResponseStatus.SUCCESSFUL:
        raise Fail("OCSP response status %s" % response.response_status.name.lower())
    produced = response.produced_at
    # the single response for the signer decides the CertID hash openssl must use
    singles = list(getattr(response, "responses", None) or [response])
    mine = [s for s in singles if s.serial_number == signer.serial_number]
    if not mine:
        raise Fail("OCSP response is not about the signer (serial %x)" % signer.serial_number)
    path = write(workdir, tag + ".der", der)
    # openssl ocsp builds the CertID from -issuer/-cert with the hash given before -cert
    # (default SHA-1): use the one(s) the response's entries for this serial use.
    status, out, err = None, "", ""
    for cert_id_hash in sorted({s.hash_algorithm.name.replace("_", "-") for s in mine}):
        command = ["openssl", "ocsp", "-respin", path, "-issuer", issuer_path, "-" + cert_id_hash,
                   "-cert", signer_path, "-CAfile", args.ca, "-verify_other", others_path, "-no_nonce",
                   "-attime", epoch(produced)]
        code, out, err = run(command)
        # openssl checks thisUpdate/nextUpdate against the current time, not -attime, and only
        # warns ("WARNING: Status times invalid."): an archived response is normally past
        # nextUpdate, so that warning is ignored here.
        if code != 0 or "Response verify OK" not in err:
            raise Fail("OCSP response does not verify", out + err)
        # "PATH: good", or when the status times are past: "PATH: WARNING: Status times
        # invalid.", openssl's error lines, then "good" on a line of its own.
        match = re.search(r"^%s: (?:WARNING: Status times invalid\.\n(?:.*:error:.*\n)*)?(good|revoked|unknown)$"
                          % re.escape(signer_path), out, re.M)
        if match:
            status = match.group(1)
            break
    if status is None:
        raise Fail("OCSP response has no status for the signer's CertID", out + err)
    decoded = {single.certificate_status.name.lower() for single in mine}
    if status not in decoded:  # openssl and cryptography must agree on what the response says
        raise Fail("OCSP status %s from openssl, %s from cryptography" % (status, ",".join(sorted(decoded))), out)
    if status == "revoked":
        raise Revoked("OCSP status revoked (produced %s)" % iso(produced), out)
    if status != "good":
        raise Fail("OCSP status %s" % status, out)
    if produced < gen_time.replace(microsecond=0):
        raise Fail("OCSP producedAt %s before the time-stamp %s" % (iso(produced), iso(gen_time)))
    late = (produced - gen_time.replace(microsecond=0)).total_seconds()
    # the reference only warns (ProducedATLateWarning) when producedAt is > 15 min after genTime
    return "good(produced %s%s)" % (iso(produced), ", %ds after the time-stamp" % late if late > 15 * 60 else "")


def archive_input(digest, signature, signed_info, signature_value, key_info, qualifying, earlier, algorithm, archive):
    """Feed the archive time-stamp imprint input (docs/design/asice.md §1.5) into digest."""
    for reference in signed_info.findall("ds:Reference", NS):
        uri = reference.get("URI")
        if uri is None:
            raise Fail("Reference without URI")
        if reference.get("Type") == SIGNED_PROPERTIES_TYPE:
            if not uri.startswith("#"):
                raise Fail("SignedProperties reference %s is not same-document" % uri)
            wanted = uri[1:]
            found = [e for e in qualifying.findall("xades:SignedProperties", NS) if e.get("Id") == wanted]
            if len(found) != 1:
                raise Fail("SignedProperties %s not found" % uri)
            digest.update(canonicalize(found[0], algorithm))
            continue
        if uri.startswith("#"):
            raise Fail("unexpected same-document reference %s" % uri)
        name = urllib.parse.unquote(uri)
        if name.startswith("/"):
            name = name[1:]
        if name not in archive["data"]:
            raise Fail("data file %s not in the container" % name)
        with archive["zip"].open(archive["data"][name]) as handle:
            while True:
                chunk = handle.read(1 << 20)
                if not chunk:
                    break
                digest.update(chunk)
    for element in (signed_info, signature_value, key_info):
        digest.update(canonicalize(element, algorithm))
    for element in earlier:
        digest.update(canonicalize(element, algorithm))


# ---------------------------------------------------------------------------------------------

def main(argv):
    global VERBOSE
    parser = argparse.ArgumentParser(prog=PROG, description="check the T/LT/LTA evidence of an ASiC-E container")
    parser.add_argument("container")
    parser.add_argument("--ca", required=True, help="PEM trust anchors (root certificates)")
    parser.add_argument("--untrusted", help="PEM intermediate certificates that may help build chains")
    parser.add_argument("-v", "--verbose", action="store_true", help="openssl messages for failures on stderr")
    args = parser.parse_args(argv)
    VERBOSE = args.verbose
    if shutil.which("openssl") is None:
        sys.stderr.write("%s: the openssl command is missing\n" % PROG)
        return 2
    for option, path in (("--ca", args.ca), ("--untrusted", args.untrusted)):
        if path is None:
            continue
        try:
            with open(path, "rb") as handle:
                x509.load_pem_x509_certificates(handle.read()) if hasattr(x509, "load_pem_x509_certificates") \
                    else x509.load_pem_x509_certificate(handle.read())
        except (OSError, ValueError) as error:
            sys.stderr.write("%s: %s %s: %s\n" % (PROG, option, path, error))
            return 2
    args.ca = os.path.abspath(args.ca)
    if args.untrusted:
        args.untrusted = os.path.abspath(args.untrusted)

    try:
        zf = zipfile.ZipFile(args.container)
    except (OSError, zipfile.BadZipFile) as error:
        print("%s: not a readable ZIP container (%s)" % (args.container, error))
        return 1
    with zf, tempfile.TemporaryDirectory(prefix="lt-check.") as workdir:
        names = [info.filename for info in zf.infolist()]
        if len(set(names)) != len(names):
            print("%s: duplicate ZIP entry names" % args.container)
            return 1
        data = {info.filename: info for info in zf.infolist()
                if not info.filename.startswith("META-INF/") and info.filename != "mimetype"
                and not info.is_dir()}
        archive = {"zip": zf, "data": data}
        signature_files = sorted(n for n in names if fnmatch.fnmatchcase(n, "META-INF/*signatures*.xml")
                                 and "/" not in n[len("META-INF/"):])
        if not signature_files:
            print("%s: no META-INF/*signatures*.xml" % args.container)
            return 1
        parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
                                 remove_blank_text=False)
        all_ok = True
        count = 0
        for file_index, name in enumerate(signature_files):
            try:
                root = etree.fromstring(zf.read(name), parser)
            except (etree.XMLSyntaxError, zipfile.BadZipFile, OSError, RuntimeError) as error:
                print("%s: unreadable XML (%s) -> FAIL" % (name, error))
                all_ok = False
                continue
            signatures = [root] if root.tag == DS + "Signature" else root.findall("ds:Signature", NS)
            if not signatures:
                print("%s: no ds:Signature -> FAIL" % name)
                all_ok = False
                continue
            for index, signature in enumerate(signatures):
                count += 1
                label = "%s#%s" % (name, signature.get("Id") or str(index))
                try:
                    result = check_signature(signature, label, archive, args, workdir, "f%ds%d" % (file_index, index))
                    line, ok = result.line(), result.ok
                except Exception as error:  # a checker bug or a hostile input must not look like OK
                    line, ok = "%s: checker error %s: %s -> FAIL" % (label, type(error).__name__, error), False
                print(line)
                sys.stdout.flush()
                all_ok = all_ok and ok
        return 0 if all_ok and count else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
