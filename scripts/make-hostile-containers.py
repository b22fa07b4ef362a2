#!/usr/bin/python3
"""Make hostile ASiC-E containers from one valid container, for tamga's negative tests.

Usage
-----
    /usr/bin/python3 scripts/make-hostile-containers.py BASE.asice KEY.pem CERT.pem OTHER_CERT.pem OUTDIR
    /usr/bin/python3 scripts/make-hostile-containers.py --make-base OUT.asice KEY.pem CERT.pem FILE [FILE ...]

Needs only the standard library, python3-lxml (4.9) and python3-cryptography (38).

BASE.asice is a valid signed container with at least one data file, signed in
META-INF/signatures0.xml with KEY.pem (unencrypted PEM, EC or RSA) whose certificate
CERT.pem (PEM or DER) is the KeyInfo certificate. OTHER_CERT.pem is another signer's
certificate. The script writes into OUTDIR:

* ``<case>.asice`` for every case below;
* ``cases.json``: ``{case: {"file": "<case>.asice", "expect": E, "description": "..."}}``, where
  E is ``"open-error"`` (a structural defect: the container must be refused when it is opened)
  or ``"invalid-signature"`` (it opens, but verifying signature S0 must fail);
* ``controls.json``: positive controls in the same shape, ``expect`` being
  ``"same-as-base"`` (must give exactly the verdict BASE gets) or
  ``"same-as-base-except-time-stamp"`` (see "re-signing" below).

``--make-base`` builds a spec-conforming B-level container (layout and XAdES as in
docs/design/asice.md §1.1–1.3: stored ``mimetype`` first, deflated data files in the given order,
manifest, one-line ``signatures0.xml`` with ``ds:Signature Id="S0"``, C14N 1.1, percent-encoded
reference URIs, SigningCertificate v1, DataObjectFormat per file, ECDSA raw r||s). It has no
time-stamp, so the reference validator calls it invalid (B level); it is meant as a base for
this script and as an independent producer for cryptographic checks.
Options (before OUT): ``--digest sha256|sha384|sha512`` (references and CertDigest),
``--signing-time YYYY-MM-DDThh:mm:ssZ``.

How containers are rewritten
----------------------------
Every output except ``truncated-zip`` is a fresh ZIP written by hand here: ``mimetype`` first,
stored, no extra field (unless the case is about exactly that); every other entry deflated
(level 6, raw deflate); UTF-8 flag 0x0800, no extra fields, no comments, no data descriptors,
the BASE entries' DOS times; the BASE entry order unless the case changes it. XML files that a
case does not touch are copied byte for byte. A touched XML file is re-serialised by lxml
(semantically identical; ``<?xml version="1.0" encoding="UTF-8"?>`` + newline + the tree).

Re-signing (cases marked *re-signed*): the SignedProperties digest is recomputed (canonical form
per the reference's Transform; inclusive C14N 1.0 from lxml = C14N 1.1 bytes here), then
``ds:SignedInfo`` is canonicalised in place (inclusive C14N 1.0 via lxml, with all namespace
declarations inherited from the root) and signed with KEY using the hash of the
SignatureMethod (RSA PKCS#1 v1.5, RSA-PSS with salt = hash length, or ECDSA with raw r||s of
2 x field size). The SignatureValue is therefore valid; the defect is only the one named.
If BASE carries a SignatureTimeStamp (T/LT/LTA), its imprint covers the old SignatureValue and
is now stale; a verifier will also report that. Compare diagnostics, not only the verdict.

Cases
-----
Cases marked (extra) go beyond the original list; each is a single, deliberate defect too.

Path defects (the bad entry is added to the ZIP *and* listed in the manifest, so the name is
the only open-time defect; a lax reader must not pass it because the manifest agrees):

dotdot-entry                 open-error   extra entry ``../evil.txt``.
absolute-entry               open-error   extra entry ``/etc/evil``.
backslash-entry              open-error   extra entry ``dir\\evil.txt`` (one backslash).
dot-segment                  open-error   extra entry ``a/./evil.txt``.
empty-segment                open-error   extra entry ``a//evil.txt``.

ZIP / mimetype / manifest structure:

duplicate-entry              open-error   the first data file appears twice under the same name;
                                          the second copy has different content (a reader that
                                          keeps the last one would see forged data).
mimetype-missing             open-error   no ``mimetype`` entry.
mimetype-not-first           open-error   ``mimetype`` (stored) moved to the end of the ZIP.
mimetype-wrong-value         open-error   ``mimetype`` is ``application/vnd.etsi.asic-s+zip``.
mimetype-deflated            warning      ``mimetype`` deflated. The reference (libdigidocpp,
                                          pyasice) accepts this; tamga opens it too and warns
                                          (``container-structure``: EN 319 162-1 wants it stored).
mimetype-extra-field (extra) warning      ``mimetype`` stored but with a 9-byte extended-timestamp
                                          extra field (0x5455), so its payload no longer starts at
                                          byte 38. The reference accepts it; tamga warns, as for
                                          mimetype-deflated.
manifest-lists-missing-file  open-error   manifest gets an entry ``missing.txt`` not in the ZIP.
zip-has-unlisted-file        open-error   ZIP gets a data entry ``unlisted.txt`` the manifest
                                          does not list (and no signature references).
manifest-entity-bomb         open-error   manifest.xml has a billion-laughs internal DTD and uses
                                          ``&lol9;`` (3 GB expanded) as text of the root element.
manifest-entity-bomb-attribute (extra)
                             open-error   the same bomb, used as the ``/`` entry's media-type
                                          (attribute values are normalised, so parsers expand entities
                                          there even with substitution off). Note: libxml2 2.9.14 (lxml)
                                          refuses both forms even with resolve_entities=False
                                          ("Detected an entity reference loop"); a parser that is not
                                          libxml2 needs an explicit "no DTD" rule.
manifest-xxe                 open-error   manifest.xml declares ``<!ENTITY xxe SYSTEM
                                          "file:///etc/passwd">`` and uses ``&xxe;`` as text in
                                          the root element.
signature-xxe                open-error   the same in signatures0.xml (``&xxe;`` as text of
                                          asic:XAdESSignatures, outside SignedInfo, so a parser
                                          that silently drops or expands it would still verify).
truncated-zip                open-error   BASE's bytes cut in half.
truncated-central-directory  open-error   the rewritten container (no archive comment) minus its
                                          last 10 bytes: the end-of-central-directory record is cut.
                                          (Rewritten first because a BASE with an archive comment
                                          would only lose comment bytes.)
unsupported-counter-signature (optional)
                             open-error   an ``xades:CounterSignature`` (a real, valid ds:Signature
                                          by KEY over ``#S0-SIG``, Type ...#CountersignedSignature)
                                          is appended to UnsignedSignatureProperties. libdigidocpp
                                          throws on CounterSignature when loading the signature.
reference-not-in-manifest    open-error   *re-signed*: a new data file ``signed-unlisted.txt`` is
                                          added to the ZIP and referenced from SignedInfo (with a
                                          DataObjectFormat), but not to the manifest. Note: this is
                                          an open-error, because an unlisted non-META-INF entry is
                                          refused at open (libdigidocpp), before any reference check.

Signature defects (the container opens; verification of S0 must fail):

extra-reference-to-absent-file      invalid-signature  *re-signed*: SignedInfo gets a reference
                                    (with DataObjectFormat) to ``absent.txt``, which is neither in
                                    the ZIP nor in the manifest.
reference-not-in-manifest-meta-inf (extra)
                                    invalid-signature  *re-signed*: ``META-INF/signed-extra.txt`` is
                                    added to the ZIP and referenced from SignedInfo, not listed in
                                    the manifest. Files under META-INF/ are ignored at open, so this
                                    reaches the "data reference not in manifest" rule.
tampered-data-file                  invalid-signature  one byte (the middle one, XOR 0x01) of the
                                    first data file changed; every other byte identical.
swapped-keyinfo-cert                invalid-signature  the KeyInfo X509Certificate replaced by
                                    OTHER_CERT (SignedInfo untouched, so SignatureValue fails
                                    under OTHER_CERT's key, and CertDigest no longer matches).
tampered-signed-properties          invalid-signature  SigningTime moved back one day, not
                                    re-signed: the SignedProperties digest no longer matches.
ecdsa-der-signature-value (extra)   invalid-signature  (EC keys only) *re-signed* with SignedInfo
                                    unchanged, but the SignatureValue is DER-encoded ECDSA instead of
                                    raw r||s. libdigidocpp/xmlsec refuse it; pyasice accepts it.

Controls (controls.json):

control-rezipped    same-as-base                    BASE rewritten by this script's ZIP writer,
                                                    all entry bytes unchanged.
control-resigned    same-as-base[-except-time-stamp] BASE with SignedInfo re-signed unchanged
                                                    (proves the re-signing is accepted).
"""

import base64
import datetime
import hashlib
import json
import os
import re
import struct
import sys
import urllib.parse
import zipfile
import zlib
from xml.sax.saxutils import escape, quoteattr

from lxml import etree
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa, utils

MIMETYPE = b"application/vnd.etsi.asic-e+zip"
NS_DS = "http://www.w3.org/2000/09/xmldsig#"
NS_XADES = "http://uri.etsi.org/01903/v1.3.2#"
NS_ASIC = "http://uri.etsi.org/02918/v1.2.1#"
NS_MANIFEST = "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"
NSMAP = {"ds": NS_DS, "xades": NS_XADES, "asic": NS_ASIC, "manifest": NS_MANIFEST}

SP_TYPES = (
    "http://uri.etsi.org/01903#SignedProperties",
    "http://uri.etsi.org/01903/v1.1.1#SignedProperties",
)
C14N11 = "http://www.w3.org/2006/12/xml-c14n11"
C14N_ALGS = {
    # algorithm URI -> (exclusive, with_comments)
    "http://www.w3.org/TR/2001/REC-xml-c14n-20010315": (False, False),
    "http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments": (False, True),
    C14N11: (False, False),
    C14N11 + "#WithComments": (False, True),
    "http://www.w3.org/2001/10/xml-exc-c14n#": (True, False),
    "http://www.w3.org/2001/10/xml-exc-c14n#WithComments": (True, True),
}
DIGEST_ALGS = {
    "http://www.w3.org/2000/09/xmldsig#sha1": "sha1",
    "http://www.w3.org/2001/04/xmldsig-more#sha224": "sha224",
    "http://www.w3.org/2001/04/xmlenc#sha256": "sha256",
    "http://www.w3.org/2001/04/xmldsig-more#sha384": "sha384",
    "http://www.w3.org/2001/04/xmlenc#sha512": "sha512",
    "http://www.w3.org/2007/05/xmldsig-more#sha3-224": "sha3_224",
    "http://www.w3.org/2007/05/xmldsig-more#sha3-256": "sha3_256",
    "http://www.w3.org/2007/05/xmldsig-more#sha3-384": "sha3_384",
    "http://www.w3.org/2007/05/xmldsig-more#sha3-512": "sha3_512",
}
DIGEST_URI = {v: k for k, v in DIGEST_ALGS.items()}
HASHES = {
    "sha1": hashes.SHA1, "sha224": hashes.SHA224, "sha256": hashes.SHA256,
    "sha384": hashes.SHA384, "sha512": hashes.SHA512,
    "sha3_224": hashes.SHA3_224, "sha3_256": hashes.SHA3_256,
    "sha3_384": hashes.SHA3_384, "sha3_512": hashes.SHA3_512,
}
SIG_METHODS = {"http://www.w3.org/2000/09/xmldsig#rsa-sha1": ("rsa", "sha1")}
for _h in ("sha224", "sha256", "sha384", "sha512"):
    SIG_METHODS["http://www.w3.org/2001/04/xmldsig-more#rsa-" + _h] = ("rsa", _h)
for _h in ("sha1", "sha224", "sha256", "sha384", "sha512"):
    SIG_METHODS["http://www.w3.org/2001/04/xmldsig-more#ecdsa-" + _h] = ("ecdsa", _h)
for _h in ("sha224", "sha256", "sha384", "sha512"):
    SIG_METHODS["http://www.w3.org/2007/05/xmldsig-more#%s-rsa-MGF1" % _h] = ("pss", _h)
for _h in ("224", "256", "384", "512"):
    SIG_METHODS["http://www.w3.org/2007/05/xmldsig-more#sha3-%s-rsa-MGF1" % _h] = ("pss", "sha3_" + _h)

XML_DECL = b'<?xml version="1.0" encoding="UTF-8"?>\n'


def die(msg):
    sys.stderr.write("make-hostile-containers: %s\n" % msg)
    sys.exit(2)


def warn(msg):
    sys.stderr.write("make-hostile-containers: warning: %s\n" % msg)


# --------------------------------------------------------------------------------------------
# ZIP writing by hand (so that duplicates, odd names, stored/deflated and extra fields are ours)

class Entry:
    def __init__(self, name, data, method=8, date_time=(2024, 1, 1, 0, 0, 0), extra=b""):
        self.name = name
        self.data = data
        self.method = method
        self.date_time = date_time
        self.extra = extra

    def clone(self, **kw):
        e = Entry(self.name, self.data, self.method, self.date_time, self.extra)
        for k, v in kw.items():
            setattr(e, k, v)
        return e


def _dos_time(dt):
    y, mo, d, h, mi, s = dt
    y = max(1980, min(2107, y))
    return (h << 11) | (mi << 5) | (s // 2), ((y - 1980) << 9) | (mo << 5) | d


def _deflate(data):
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def build_zip(entries):
    out = bytearray()
    central = bytearray()
    for e in entries:
        name = e.name.encode("utf-8")
        crc = zlib.crc32(e.data) & 0xFFFFFFFF
        comp = _deflate(e.data) if e.method == 8 else e.data
        t, d = _dos_time(e.date_time)
        offset = len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0x0800, e.method, t, d,
                           crc, len(comp), len(e.data), len(name), len(e.extra))
        out += name + e.extra + comp
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0x0800, e.method, t, d,
                               crc, len(comp), len(e.data), len(name), len(e.extra), 0, 0, 0, 0,
                               offset)
        central += name + e.extra
    cd_offset = len(out)
    out += central
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries),
                       len(central), cd_offset, 0)
    return bytes(out)


def read_container(path):
    with zipfile.ZipFile(path) as z:
        entries = []
        for info in z.infolist():
            entries.append(Entry(info.filename, z.read(info), date_time=info.date_time,
                                 method=0 if info.filename == "mimetype" else 8))
    return entries


def is_data_name(name):
    return name != "mimetype" and not name.startswith("META-INF/")


# --------------------------------------------------------------------------------------------
# XML helpers

def safe_parser():
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                           remove_blank_text=False, huge_tree=False)


def parse_xml(data):
    return etree.fromstring(data, safe_parser())


def serialize(root):
    return XML_DECL + etree.tostring(root, encoding="UTF-8", xml_declaration=False)


def canon(el, alg):
    if alg not in C14N_ALGS:
        die("unsupported canonicalization %s" % alg)
    exclusive, comments = C14N_ALGS[alg]
    return etree.tostring(el, method="c14n", exclusive=exclusive, with_comments=comments)


def b64wrap(data):
    s = base64.b64encode(data).decode("ascii")
    return "".join(s[i:i + 64] + "\n" for i in range(0, len(s), 64))


def b64read(text):
    return base64.b64decode("".join((text or "").split()))


def uri_encode(name):
    return urllib.parse.quote(name, safe="-._~/")


def digest(alg_uri, data):
    if alg_uri not in DIGEST_ALGS:
        die("unsupported digest %s" % alg_uri)
    return hashlib.new(DIGEST_ALGS[alg_uri], data).digest()


def ds(tag):
    return "{%s}%s" % (NS_DS, tag)


def xades(tag):
    return "{%s}%s" % (NS_XADES, tag)


def find_by_id(root, ident):
    hits = root.xpath("//*[@Id=$i]", i=ident)
    if len(hits) != 1:
        die("expected one element with Id=%s, found %d" % (ident, len(hits)))
    return hits[0]


# --------------------------------------------------------------------------------------------
# keys, certificates, signing

def load_key(path):
    with open(path, "rb") as f:
        data = f.read()
    try:
        return serialization.load_pem_private_key(data, None)
    except ValueError:
        return serialization.load_der_private_key(data, None)


def load_cert(path):
    with open(path, "rb") as f:
        data = f.read()
    if b"-----BEGIN" in data:
        return x509.load_pem_x509_certificate(data)
    return x509.load_der_x509_certificate(data)


def cert_der(cert):
    return cert.public_bytes(serialization.Encoding.DER)


def pub_der(key):
    return key.public_bytes(serialization.Encoding.DER,
                            serialization.PublicFormat.SubjectPublicKeyInfo)


def sign_bytes(key, method_uri, data, der_ecdsa=False):
    if method_uri not in SIG_METHODS:
        die("unsupported SignatureMethod %s" % method_uri)
    kind, hname = SIG_METHODS[method_uri]
    h = HASHES[hname]()
    if kind == "ecdsa":
        if not isinstance(key, ec.EllipticCurvePrivateKey):
            die("SignatureMethod %s needs an EC key" % method_uri)
        sig = key.sign(data, ec.ECDSA(h))
        if der_ecdsa:
            return sig
        r, s = utils.decode_dss_signature(sig)
        n = (key.curve.key_size + 7) // 8
        return r.to_bytes(n, "big") + s.to_bytes(n, "big")
    if not isinstance(key, rsa.RSAPrivateKey):
        die("SignatureMethod %s needs an RSA key" % method_uri)
    if kind == "rsa":
        return key.sign(data, padding.PKCS1v15(), h)
    return key.sign(data, padding.PSS(mgf=padding.MGF1(HASHES[hname]()),
                                      salt_length=h.digest_size), h)


def verify_bytes(pub, method_uri, data, sig):
    """Best-effort check used for sanity warnings only."""
    kind, hname = SIG_METHODS[method_uri]
    h = HASHES[hname]()
    try:
        if kind == "ecdsa":
            n = (pub.curve.key_size + 7) // 8
            if len(sig) != 2 * n:
                return False
            der = utils.encode_dss_signature(int.from_bytes(sig[:n], "big"),
                                              int.from_bytes(sig[n:], "big"))
            pub.verify(der, data, ec.ECDSA(h))
        elif kind == "rsa":
            pub.verify(sig, data, padding.PKCS1v15(), h)
        else:
            pub.verify(sig, data, padding.PSS(mgf=padding.MGF1(HASHES[hname]()),
                                              salt_length=padding.PSS.AUTO), h)
        return True
    except Exception:
        return False


class Sig:
    """signatures0.xml, parsed, with the pieces of ds:Signature S0 a case needs."""

    def __init__(self, data):
        self.root = parse_xml(data)
        sigs = self.root.findall(ds("Signature"))
        if not sigs:
            die("no ds:Signature under the root of the signature file")
        self.sig = sigs[0]
        self.id = self.sig.get("Id") or "S0"
        self.si = self.sig.find(ds("SignedInfo"))
        self.sv = self.sig.find(ds("SignatureValue"))
        if self.si is None or self.sv is None:
            die("ds:Signature lacks SignedInfo or SignatureValue")

    def c14n_alg(self):
        return self.si.find(ds("CanonicalizationMethod")).get("Algorithm")

    def sig_method(self):
        return self.si.find(ds("SignatureMethod")).get("Algorithm")

    def refs(self):
        return self.si.findall(ds("Reference"))

    def sp_ref(self):
        for r in self.refs():
            if r.get("Type") in SP_TYPES:
                return r
        die("no SignedProperties reference")

    def data_refs(self):
        return [r for r in self.refs() if not (r.get("URI") or "").startswith("#")]

    def signed_props(self):
        return find_by_id(self.root, self.sp_ref().get("URI")[1:])

    def keyinfo_certs(self):
        return self.sig.findall(ds("KeyInfo") + "/" + ds("X509Data") + "/" + ds("X509Certificate"))

    def recompute_sp_digest(self):
        ref = self.sp_ref()
        alg = C14N11
        transforms = ref.findall(ds("Transforms") + "/" + ds("Transform"))
        for t in transforms:
            a = t.get("Algorithm")
            if a not in C14N_ALGS:
                die("unsupported Transform %s on the SignedProperties reference" % a)
            alg = a
        value = digest(ref.find(ds("DigestMethod")).get("Algorithm"), canon(self.signed_props(), alg))
        ref.find(ds("DigestValue")).text = b64wrap(value)

    def resign(self, key, der_ecdsa=False):
        data = canon(self.si, self.c14n_alg())
        self.sv.text = b64wrap(sign_bytes(key, self.sig_method(), data, der_ecdsa))

    def sigvalue_ok(self, pub):
        return verify_bytes(pub, self.sig_method(), canon(self.si, self.c14n_alg()),
                            b64read(self.sv.text))

    def free_ref_id(self):
        used = set(self.root.xpath("//@Id"))
        k = len(self.refs())
        while "%s-RefId%d" % (self.id, k) in used:
            k += 1
        return "%s-RefId%d" % (self.id, k)

    def add_data_reference(self, name, content, mime="application/octet-stream"):
        """Add a data reference (before the SignedProperties reference) and its DataObjectFormat."""
        drefs = self.data_refs()
        dm = drefs[0].find(ds("DigestMethod")).get("Algorithm") if drefs else DIGEST_URI["sha256"]
        rid = self.free_ref_id()
        ref = etree.Element(ds("Reference"), {"Id": rid, "URI": uri_encode(name)})
        etree.SubElement(ref, ds("DigestMethod"), {"Algorithm": dm})
        etree.SubElement(ref, ds("DigestValue")).text = b64wrap(digest(dm, content))
        sp = self.sp_ref()
        ref.tail = sp.getprevious().tail if sp.getprevious() is not None else None
        sp.addprevious(ref)
        props = self.signed_props()
        sdop = props.find(xades("SignedDataObjectProperties"))
        if sdop is None:
            sdop = etree.SubElement(props, xades("SignedDataObjectProperties"))
        dof = etree.SubElement(sdop, xades("DataObjectFormat"), {"ObjectReference": "#" + rid})
        etree.SubElement(dof, xades("MimeType")).text = mime
        prev = dof.getprevious()
        if prev is not None:
            dof.tail = prev.tail
        return rid

    def unsigned_signature_properties(self):
        qp = self.signed_props().getparent()
        up = qp.find(xades("UnsignedProperties"))
        if up is None:
            up = etree.SubElement(qp, xades("UnsignedProperties"))
        usp = up.find(xades("UnsignedSignatureProperties"))
        if usp is None:
            usp = etree.Element(xades("UnsignedSignatureProperties"))
            up.insert(0, usp)
        return usp

    def has_time_stamp(self):
        return bool(self.root.xpath("//xades:SignatureTimeStamp", namespaces=NSMAP))

    def bytes(self):
        return serialize(self.root)


# --------------------------------------------------------------------------------------------
# manifest helpers

def manifest_add(data, full_path, mime="application/octet-stream"):
    root = parse_xml(data)
    entries = root.findall("{%s}file-entry" % NS_MANIFEST)
    new = etree.Element("{%s}file-entry" % NS_MANIFEST,
                        {"{%s}full-path" % NS_MANIFEST: full_path,
                         "{%s}media-type" % NS_MANIFEST: mime})
    if entries and entries[-1] is root[-1]:
        last = entries[-1]
        new.tail = last.tail
        last.tail = entries[-2].tail if len(entries) > 1 else root.text
    root.append(new)
    return serialize(root)


def insert_doctype(xml_bytes, doctype):
    if xml_bytes.startswith(b"<?xml"):
        end = xml_bytes.index(b"?>") + 2
        return xml_bytes[:end] + b"\n" + doctype + xml_bytes[end:]
    return doctype + b"\n" + xml_bytes


def root_qname(root):
    local = etree.QName(root).localname
    return (root.prefix + ":" + local) if root.prefix else local


# --------------------------------------------------------------------------------------------
# the generator

class Generator:
    def __init__(self, base_path, key_path, cert_path, other_path, outdir):
        with open(base_path, "rb") as f:
            self.base_bytes = f.read()
        self.entries = read_container(base_path)
        self.key = load_key(key_path)
        self.cert = load_cert(cert_path)
        self.other = load_cert(other_path)
        self.outdir = outdir
        self.cases = {}
        self.controls = {}

        names = [e.name for e in self.entries]
        if not names or names[0] != "mimetype":
            die("BASE: mimetype is not the first entry")
        if "META-INF/manifest.xml" not in names:
            die("BASE: no META-INF/manifest.xml")
        sigs = sorted(n for n in names if n.startswith("META-INF/") and "signatures" in n
                      and n.endswith(".xml"))
        if not sigs:
            die("BASE: no META-INF/*signatures*.xml")
        self.sig_name = "META-INF/signatures0.xml" if "META-INF/signatures0.xml" in sigs else sigs[0]
        self.data_names = [n for n in names if is_data_name(n)]
        if not self.data_names:
            die("BASE: no data file")
        self.data_time = self.get(self.data_names[0]).date_time

        if pub_der(self.key.public_key()) != pub_der(self.cert.public_key()):
            die("KEY does not belong to CERT")
        if cert_der(self.other) == cert_der(self.cert):
            die("OTHER_CERT is the same certificate as CERT")
        sig = self.sig()
        kc = sig.keyinfo_certs()
        if not kc or b64read(kc[0].text) != cert_der(self.cert):
            die("the KeyInfo certificate of %s is not CERT" % self.sig_name)
        if not sig.sigvalue_ok(self.cert.public_key()):
            warn("the SignatureValue of BASE does not verify with CERT here "
                 "(re-signed cases are still signed with KEY)")
        self.time_stamped = sig.has_time_stamp()

    # -- helpers
    def get(self, name):
        for e in self.entries:
            if e.name == name:
                return e
        return None

    def fresh(self):
        return [e.clone() for e in self.entries]

    def new_entry(self, name, data):
        return Entry(name, data, 8, self.data_time)

    def sig(self):
        return Sig(self.get(self.sig_name).data)

    @staticmethod
    def replace(entries, name, data):
        for e in entries:
            if e.name == name:
                e.data = data
                return
        die("no entry %s" % name)

    @staticmethod
    def insert_after_data(entries, new):
        idx = max(i for i, e in enumerate(entries) if is_data_name(e.name))
        entries.insert(idx + 1, new)

    def write(self, case, expect, description, data=None, entries=None, control=False):
        if data is None:
            data = build_zip(entries)
        fname = case + ".asice"
        with open(os.path.join(self.outdir, fname), "wb") as f:
            f.write(data)
        (self.controls if control else self.cases)[case] = {
            "file": fname, "expect": expect, "description": description}

    # -- cases
    def path_case(self, case, name, what):
        es = self.fresh()
        self.insert_after_data(es, self.new_entry(name, b"evil\n"))
        man = self.get("META-INF/manifest.xml").data
        self.replace(es, "META-INF/manifest.xml", manifest_add(man, name))
        self.write(case, "open-error",
                   "An extra entry named \"%s\" (%s), also listed in the manifest, so the name is the "
                   "only structural defect." % (name, what), entries=es)

    def run(self):
        first = self.data_names[0]
        man = self.get("META-INF/manifest.xml").data

        self.write("control-rezipped", "same-as-base",
                   "BASE rewritten by this script's ZIP writer with every entry's bytes unchanged; "
                   "must get exactly BASE's verdict.", entries=self.fresh(), control=True)
        s = self.sig()
        s.resign(self.key)
        es = self.fresh()
        self.replace(es, self.sig_name, s.bytes())
        self.write("control-resigned",
                   "same-as-base-except-time-stamp" if self.time_stamped else "same-as-base",
                   "BASE with SignedInfo re-signed unchanged by this script (proves the re-signing "
                   "is accepted)" + ("; BASE's SignatureTimeStamp imprint is now stale."
                                     if self.time_stamped else "."),
                   entries=es, control=True)

        # paths
        self.path_case("dotdot-entry", "../evil.txt", "a '..' segment escaping the container")
        self.path_case("absolute-entry", "/etc/evil", "an absolute path")
        self.path_case("backslash-entry", "dir\\evil.txt", "contains a backslash")
        self.path_case("dot-segment", "a/./evil.txt", "a '.' segment")
        self.path_case("empty-segment", "a//evil.txt", "an empty segment")

        # duplicate
        es = self.fresh()
        orig = self.get(first).data
        self.insert_after_data(es, self.new_entry(first, orig + b"\nforged copy\n"))
        self.write("duplicate-entry", "open-error",
                   "Two ZIP entries named \"%s\" (the second with different content); duplicate names "
                   "are refused at open." % first, entries=es)

        # mimetype
        es = [e for e in self.fresh() if e.name != "mimetype"]
        self.write("mimetype-missing", "open-error", "No mimetype entry at all.", entries=es)
        es = self.fresh()
        es.append(es.pop(0))
        self.write("mimetype-not-first", "open-error",
                   "The (stored, correct) mimetype entry is the last entry instead of the first.",
                   entries=es)
        es = self.fresh()
        es[0].data = b"application/vnd.etsi.asic-s+zip"
        self.write("mimetype-wrong-value", "open-error",
                   "The first entry mimetype holds application/vnd.etsi.asic-s+zip (ASiC-S) "
                   "instead of the ASiC-E type.", entries=es)
        es = self.fresh()
        es[0].method = 8
        self.write("mimetype-deflated", "open-error",
                   "mimetype is first and correct but deflated; the reference accepts this, tamga "
                   "is deliberately stricter (ETSI EN 319 162-1: stored) and refuses it at open.",
                   entries=es)
        es = self.fresh()
        mtime = int(datetime.datetime(*self.data_time, tzinfo=datetime.timezone.utc).timestamp())
        es[0].extra = struct.pack("<HHBI", 0x5455, 5, 1, mtime)
        self.write("mimetype-extra-field", "open-error",
                   "mimetype is first, stored and correct but has a 9-byte extra field (0x5455), "
                   "so its value does not start at byte 38; the reference accepts this, tamga is "
                   "stricter (no extra field).", entries=es)

        # manifest vs zip
        es = self.fresh()
        self.replace(es, "META-INF/manifest.xml", manifest_add(man, "missing.txt"))
        self.write("manifest-lists-missing-file", "open-error",
                   "The manifest lists missing.txt, which is not in the ZIP.", entries=es)
        es = self.fresh()
        self.insert_after_data(es, self.new_entry("unlisted.txt", b"not in the manifest\n"))
        self.write("zip-has-unlisted-file", "open-error",
                   "The ZIP holds a data entry unlisted.txt that the manifest does not list.",
                   entries=es)

        # entity bomb / XXE
        ents = ['<!ENTITY lol "lol">']
        prev = "lol"
        for i in range(1, 10):
            ents.append('<!ENTITY lol%d "%s">' % (i, ("&%s;" % prev) * 10))
            prev = "lol%d" % i
        for case, in_attr in (("manifest-entity-bomb", False), ("manifest-entity-bomb-attribute", True)):
            root = parse_xml(man)
            if in_attr:
                slash = root.find("{%s}file-entry[@{%s}full-path='/']" % (NS_MANIFEST, NS_MANIFEST))
                if slash is None:
                    die("BASE manifest has no full-path='/' entry")
                slash.set("{%s}media-type" % NS_MANIFEST, "@@BOMB@@")
                where = "as the '/' entry's media-type"
            else:
                root.text = "@@BOMB@@" + (root.text or "")
                where = "as text of the root element"
            doctype = ("<!DOCTYPE %s [\n %s\n]>" % (root_qname(root), "\n ".join(ents))).encode()
            bomb = insert_doctype(serialize(root).replace(b"@@BOMB@@", b"&lol9;"), doctype)
            es = self.fresh()
            self.replace(es, "META-INF/manifest.xml", bomb)
            self.write(case, "open-error",
                       "manifest.xml carries a billion-laughs internal DTD and uses &lol9; (3 GB "
                       "when expanded) %s; DTDs/entities must be refused." % where, entries=es)

        xxe_decl = '<!DOCTYPE %s [\n <!ENTITY xxe SYSTEM "file:///etc/passwd">\n]>'
        root = parse_xml(man)
        root.text = "@@XXE@@" + (root.text or "")
        xxe = insert_doctype(serialize(root).replace(b"@@XXE@@", b"&xxe;"),
                             (xxe_decl % root_qname(root)).encode())
        es = self.fresh()
        self.replace(es, "META-INF/manifest.xml", xxe)
        self.write("manifest-xxe", "open-error",
                   "manifest.xml declares an external entity SYSTEM \"file:///etc/passwd\" and uses "
                   "it as text of the root element; external entities must be refused.",
                   entries=es)

        s = self.sig()
        s.root.text = "@@XXE@@" + (s.root.text or "")
        sx = insert_doctype(s.bytes().replace(b"@@XXE@@", b"&xxe;"),
                            (xxe_decl % root_qname(s.root)).encode())
        es = self.fresh()
        self.replace(es, self.sig_name, sx)
        self.write("signature-xxe", "open-error",
                   "%s declares an external entity SYSTEM \"file:///etc/passwd\" and uses it as "
                   "text of the root (outside SignedInfo, so a parser that ignores or expands it "
                   "would still verify); must be refused." % self.sig_name, entries=es)

        # truncation
        self.write("truncated-zip", "open-error",
                   "BASE's bytes cut in half (%d of %d)." % (len(self.base_bytes) // 2,
                                                             len(self.base_bytes)),
                   data=self.base_bytes[:len(self.base_bytes) // 2])
        z = build_zip(self.fresh())
        self.write("truncated-central-directory", "open-error",
                   "The rewritten container (no archive comment) without its last 10 bytes, so the "
                   "end-of-central-directory record is cut.", data=z[:-10])

        # counter signature
        s = self.sig()
        if not s.sv.get("Id"):
            s.sv.set("Id", s.id + "-SIG")
            warn("BASE SignatureValue has no Id; added one for the counter-signature case")
        cs_id = s.id + "-CS0"
        cs = etree.Element(ds("Signature"), {"Id": cs_id})
        csi = etree.SubElement(cs, ds("SignedInfo"))
        etree.SubElement(csi, ds("CanonicalizationMethod"), {"Algorithm": s.c14n_alg()})
        etree.SubElement(csi, ds("SignatureMethod"), {"Algorithm": s.sig_method()})
        cref = etree.SubElement(csi, ds("Reference"),
                                {"Id": cs_id + "-RefId0",
                                 "Type": "http://uri.etsi.org/01903#CountersignedSignature",
                                 "URI": "#" + s.sv.get("Id")})
        tr = etree.SubElement(cref, ds("Transforms"))
        etree.SubElement(tr, ds("Transform"), {"Algorithm": C14N11})
        dm = s.sp_ref().find(ds("DigestMethod")).get("Algorithm")
        etree.SubElement(cref, ds("DigestMethod"), {"Algorithm": dm})
        etree.SubElement(cref, ds("DigestValue"))
        csv = etree.SubElement(cs, ds("SignatureValue"), {"Id": cs_id + "-SIG"})
        x5 = etree.SubElement(etree.SubElement(etree.SubElement(cs, ds("KeyInfo")), ds("X509Data")),
                              ds("X509Certificate"))
        x5.text = b64wrap(cert_der(self.cert))
        holder = etree.SubElement(s.unsigned_signature_properties(), xades("CounterSignature"))
        holder.append(cs)
        cref.find(ds("DigestValue")).text = b64wrap(digest(dm, canon(s.sv, C14N11)))
        csv.text = b64wrap(sign_bytes(self.key, s.sig_method(), canon(csi, s.c14n_alg())))
        es = self.fresh()
        self.replace(es, self.sig_name, s.bytes())
        self.write("unsupported-counter-signature", "open-error",
                   "UnsignedSignatureProperties gets an xades:CounterSignature (a valid ds:Signature "
                   "by KEY over %s's SignatureValue); the reference refuses unsupported "
                   "CounterSignature when loading the signature." % s.id, entries=es)

        # re-signed reference cases
        s = self.sig()
        s.add_data_reference("absent.txt", b"this file is not in the container\n")
        s.recompute_sp_digest()
        s.resign(self.key)
        es = self.fresh()
        self.replace(es, self.sig_name, s.bytes())
        self.write("extra-reference-to-absent-file", "invalid-signature",
                   "SignedInfo (re-signed with KEY, SignatureValue valid) has an extra reference "
                   "and DataObjectFormat for absent.txt, which is neither in the ZIP nor in the "
                   "manifest.", entries=es)

        content = b"signed but not in the manifest\n"
        s = self.sig()
        s.add_data_reference("signed-unlisted.txt", content)
        s.recompute_sp_digest()
        s.resign(self.key)
        es = self.fresh()
        self.insert_after_data(es, self.new_entry("signed-unlisted.txt", content))
        self.replace(es, self.sig_name, s.bytes())
        self.write("reference-not-in-manifest", "open-error",
                   "signed-unlisted.txt is in the ZIP and referenced by SignedInfo (re-signed, "
                   "valid) but not in the manifest; an unlisted data entry is refused at open "
                   "before any reference check.", entries=es)

        name = "META-INF/signed-extra.txt"
        s = self.sig()
        s.add_data_reference(name, content)
        s.recompute_sp_digest()
        s.resign(self.key)
        es = self.fresh()
        es.append(self.new_entry(name, content))
        self.replace(es, self.sig_name, s.bytes())
        self.write("reference-not-in-manifest-meta-inf", "invalid-signature",
                   "%s is in the ZIP and referenced by SignedInfo (re-signed, valid) but not in the "
                   "manifest; META-INF files pass the open-time checks, so this must fail the "
                   "'every data reference is in the manifest' rule." % name, entries=es)

        # tampering without re-signing
        es = self.fresh()
        data = bytearray(self.get(first).data)
        if not data:
            die("first data file %s is empty" % first)
        data[len(data) // 2] ^= 0x01
        self.replace(es, first, bytes(data))
        self.write("tampered-data-file", "invalid-signature",
                   "Byte %d of %s XOR 0x01; every other byte of the container content identical."
                   % (len(data) // 2, first), entries=es)

        s = self.sig()
        s.keyinfo_certs()[0].text = b64wrap(cert_der(self.other))
        es = self.fresh()
        self.replace(es, self.sig_name, s.bytes())
        self.write("swapped-keyinfo-cert", "invalid-signature",
                   "The KeyInfo X509Certificate is replaced by OTHER_CERT; the SignatureValue (by "
                   "KEY) does not verify under it and the CertDigest does not match it.",
                   entries=es)

        s = self.sig()
        st = s.signed_props().find(".//" + xades("SigningTime"))
        if st is None:
            die("no SigningTime in SignedProperties")
        old = st.text.strip()
        try:
            t = datetime.datetime.strptime(old, "%Y-%m-%dT%H:%M:%SZ")
            new = (t - datetime.timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        except ValueError:
            new = "2001-01-01T00:00:00Z"
        st.text = new
        es = self.fresh()
        self.replace(es, self.sig_name, s.bytes())
        self.write("tampered-signed-properties", "invalid-signature",
                   "SigningTime changed from %s to %s without re-signing, so the SignedProperties "
                   "reference digest no longer matches." % (old, new), entries=es)

        if isinstance(self.key, ec.EllipticCurvePrivateKey):
            s = self.sig()
            s.resign(self.key, der_ecdsa=True)
            es = self.fresh()
            self.replace(es, self.sig_name, s.bytes())
            self.write("ecdsa-der-signature-value", "invalid-signature",
                       "SignedInfo unchanged but re-signed with the ECDSA SignatureValue DER-encoded "
                       "instead of raw r||s; the reference (xmlsec) accepts only 2 x field size "
                       "bytes.", entries=es)

        with open(os.path.join(self.outdir, "cases.json"), "w") as f:
            json.dump(self.cases, f, indent=2, ensure_ascii=False)
            f.write("\n")
        with open(os.path.join(self.outdir, "controls.json"), "w") as f:
            json.dump(self.controls, f, indent=2, ensure_ascii=False)
            f.write("\n")


# --------------------------------------------------------------------------------------------
# --make-base: a minimal spec-conforming producer

def make_base(out, key_path, cert_path, files, digest_name="sha256", signing_time=None):
    key = load_key(key_path)
    cert = load_cert(cert_path)
    if pub_der(key.public_key()) != pub_der(cert.public_key()):
        die("KEY does not belong to CERT")
    dm = DIGEST_URI[digest_name]
    if isinstance(key, ec.EllipticCurvePrivateKey):
        h = {224: "sha224", 256: "sha256", 384: "sha384"}.get(key.curve.key_size, "sha512")
        sm = "http://www.w3.org/2001/04/xmldsig-more#ecdsa-" + h
    else:
        h = digest_name if digest_name in ("sha224", "sha256", "sha384", "sha512") else "sha256"
        sm = "http://www.w3.org/2001/04/xmldsig-more#rsa-" + h
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    signing_time = signing_time or now.strftime("%Y-%m-%dT%H:%M:%SZ")
    dt = now.timetuple()[:6]

    datafiles = []
    for p in files:
        name = os.path.basename(p)
        with open(p, "rb") as f:
            datafiles.append((name, f.read()))
    names = [n for n, _ in datafiles]
    if len(set(names)) != len(names):
        die("two data files have the same name")
    for n in names:
        if not n or n == "mimetype" or "/" in n or "\\" in n:
            die("bad data file name %r" % n)

    mime = "application/octet-stream"
    manifest = ('<?xml version="1.0" encoding="UTF-8"?>\n'
                '<manifest:manifest xmlns:manifest="%s" manifest:version="1.2">\n'
                '  <manifest:file-entry manifest:full-path="/" manifest:media-type="%s"/>\n'
                % (NS_MANIFEST, MIMETYPE.decode()))
    for n in names:
        manifest += ('  <manifest:file-entry manifest:full-path=%s manifest:media-type="%s"/>\n'
                     % (quoteattr(n), mime))
    manifest += "</manifest:manifest>\n"

    sid = "S0"
    refs, dofs = [], []
    for i, (n, data) in enumerate(datafiles):
        refs.append('<ds:Reference Id="%s-RefId%d" URI=%s><ds:DigestMethod Algorithm="%s"/>'
                    '<ds:DigestValue>%s</ds:DigestValue></ds:Reference>'
                    % (sid, i, quoteattr(uri_encode(n)), dm, b64wrap(digest(dm, data))))
        dofs.append('<xades:DataObjectFormat ObjectReference="#%s-RefId%d"><xades:MimeType>%s'
                    '</xades:MimeType></xades:DataObjectFormat>' % (sid, i, mime))
    n = len(datafiles)
    der = cert_der(cert)
    xml = (
        '<asic:XAdESSignatures xmlns:asic="%s" xmlns:ds="%s" xmlns:xades="%s">'
        '<ds:Signature Id="%s"><ds:SignedInfo>'
        '<ds:CanonicalizationMethod Algorithm="%s"/><ds:SignatureMethod Algorithm="%s"/>%s'
        '<ds:Reference Id="%s-RefId%d" Type="%s" URI="#%s-SignedProperties"><ds:Transforms>'
        '<ds:Transform Algorithm="%s"/></ds:Transforms><ds:DigestMethod Algorithm="%s"/>'
        '<ds:DigestValue></ds:DigestValue></ds:Reference></ds:SignedInfo>'
        '<ds:SignatureValue Id="%s-SIG"></ds:SignatureValue>'
        '<ds:KeyInfo><ds:X509Data><ds:X509Certificate>%s</ds:X509Certificate></ds:X509Data>'
        '</ds:KeyInfo><ds:Object><xades:QualifyingProperties Target="#%s">'
        '<xades:SignedProperties Id="%s-SignedProperties"><xades:SignedSignatureProperties>'
        '<xades:SigningTime>%s</xades:SigningTime><xades:SigningCertificate><xades:Cert>'
        '<xades:CertDigest><ds:DigestMethod Algorithm="%s"/><ds:DigestValue>%s</ds:DigestValue>'
        '</xades:CertDigest><xades:IssuerSerial><ds:X509IssuerName>%s</ds:X509IssuerName>'
        '<ds:X509SerialNumber>%d</ds:X509SerialNumber></xades:IssuerSerial></xades:Cert>'
        '</xades:SigningCertificate></xades:SignedSignatureProperties>'
        '<xades:SignedDataObjectProperties>%s</xades:SignedDataObjectProperties>'
        '</xades:SignedProperties></xades:QualifyingProperties></ds:Object></ds:Signature>'
        '</asic:XAdESSignatures>'
    ) % (NS_ASIC, NS_DS, NS_XADES, sid, C14N11, sm, "".join(refs), sid, n, SP_TYPES[0], sid,
         C14N11, dm, sid, b64wrap(der), sid, sid, signing_time, dm, b64wrap(digest(dm, der)),
         escape(cert.issuer.rfc4514_string()), cert.serial_number, "".join(dofs))
    s = Sig(xml.encode("utf-8"))
    s.recompute_sp_digest()
    s.resign(key)
    entries = [Entry("mimetype", MIMETYPE, 0, dt)]
    entries += [Entry(nm, data, 8, dt) for nm, data in datafiles]
    entries.append(Entry("META-INF/manifest.xml", manifest.encode("utf-8"), 8, dt))
    entries.append(Entry("META-INF/signatures0.xml", s.bytes(), 8, dt))
    with open(out, "wb") as f:
        f.write(build_zip(entries))


def main(argv):
    if len(argv) > 1 and argv[1] == "--make-base":
        args = argv[2:]
        opts = {"digest_name": "sha256", "signing_time": None}
        while args and args[0].startswith("--"):
            if args[0] == "--digest" and len(args) > 1:
                if args[1] not in ("sha256", "sha384", "sha512"):
                    die("--digest must be sha256, sha384 or sha512")
                opts["digest_name"] = args[1]
            elif args[0] == "--signing-time" and len(args) > 1:
                if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", args[1]):
                    die("--signing-time must look like 2024-01-31T12:00:00Z")
                opts["signing_time"] = args[1]
            else:
                die("unknown option %s" % args[0])
            args = args[2:]
        if len(args) < 4:
            die("usage: --make-base [--digest sha256|sha384|sha512] [--signing-time T] "
                "OUT.asice KEY.pem CERT.pem FILE [FILE ...]")
        make_base(args[0], args[1], args[2], args[3:], **opts)
        return 0
    if len(argv) != 6 or argv[1].startswith("-"):
        sys.stderr.write(__doc__.split("Needs only")[0])
        return 2
    base, key, cert, other, outdir = argv[1:]
    os.makedirs(outdir, exist_ok=True)
    g = Generator(base, key, cert, other, outdir)
    g.run()
    print("wrote %d cases and %d controls to %s" % (len(g.cases), len(g.controls), outdir))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
