#!/usr/bin/python3
"""make-ddoc.py — writes a DigiDoc XML (DDOC) file signed with the test PKI. TEST ONLY.

tamga verifies DDOC (SignedDoc SK-XML 1.0, DIGIDOC-XML 1.1, 1.2 and 1.3) offline but never
writes it, so the tests make their own here, byte for byte the way libdigidoc's writer laid the
files out (docs/design/ddoc.md §1.3, checked against the public SiVa samples):

  1. DataFile elements, EMBEDDED_BASE64, the base64 in 64-character lines each ending in "\\n"
     (OpenSSL EVP_EncodeUpdate/Final, as libdigidoc writes them); the Reference digest is SHA-1
     over the inclusive C14N 1.0 of the element (1.3: with xmlns="http://www.sk.ee/DigiDoc/v1.3.0#"),
     the base64 text as it is in the file; SK-XML 1.0: SHA-1 of the decoded bytes, plus a
     "#D0-MIME" Reference over the MimeType (§3);
  2. SignedProperties and SignedInfo as the writer's canonical text, digested standalone with their
     own attributes only (1.0: no namespace; 1.1/1.2: their own xmldsig xmlns; 1.3: SignedProperties
     in XAdES 1.1.1, SignedInfo in xmldsig) (§4.2, §4.3); RSA PKCS#1 v1.5 SHA-1 (DDOC is RSA only);
  3. an OCSP request for the signer whose nonce is SHA-1 of the decoded SignatureValue (§6.2),
     sent to the loopback responder (scripts/test-services.py); the whole OCSPResponse DER in
     EncapsulatedOCSPValue Id="N<n>", the OCSPRef (ResponderID, ProducedAt = producedAt in the
     version's time format, SHA-1 of the whole DER), the responder certificate in CertificateValues
     (Id "S<n>-RESPONDER_CERT") and CompleteCertificateRefs.

usage: make-ddoc.py --pki DIR --ocsp URL --out FILE.ddoc [options]
       make-ddoc.py --hashcode-of EXISTING.ddoc --out FILE.ddoc
       make-ddoc.py --self-check FILE.ddoc [--pki DIR]

  --version V         1.3 (default), 1.2, 1.1 or 1.0 (= format SK-XML 1.0)
  --file NAME=PATH    a data file (repeatable; default one small text file "test.txt")
  --mime TYPE         MimeType of every data file (default text/plain)
  --hashcode          write the HASHCODE form: ContentType="HASHCODE", DigestType="sha1",
                      DigestValue = the Reference digest, no content (as the SK DDS hashcode
                      library writes it; 1.3 with xmlns first)
  --hashcode-of F     convert an existing DDOC to that form; every byte outside the DataFile
                      elements is kept (no --pki/--ocsp needed)
  --embedded          ContentType="EMBEDDED": each data file's text inline, XML-escaped (a form
                      digidoc4j refuses and libdigidoc reads only with EMBEDDED_XML_SUPPORT)
  --crlf              the base64 lines end in CR LF (a file saved on Windows); the digest is over
                      the text as an XML parser reads it, every CR LF as LF
  --signer NAME       key and certificate in DIR (default rsa-2048; RSA keys only)
  --signatures N      N signatures S0..S<N-1>, each over every data file, each with its own OCSP
  --no-ocsp           no notary at all (a B-level DDOC: no UnsignedProperties)
  --nonce-form F      wrapped (extnValue = OCTET STRING(20 bytes), what OCSP_request_add1_nonce and
                      so libdigidoc 2.x/3.x send, 22 content bytes; default) or raw (extnValue
                      content = the 20 bytes, as in the 2002-2009 samples)
  --signing-time T    SigningTime (ISO 8601 UTC, e.g. 2026-01-02T03:04:05Z; default now)
  --dn-form F         X509IssuerName/ResponderID text: libdigidoc ("C=EE/O=.../CN=...", default),
                      oneline ("/C=EE/O=.../CN=...") or rfc2253 ("CN=...,O=...,C=EE")
  --city C, --country C, --role R (repeatable)   SignatureProductionPlace / ClaimedRole
  --responder NAME    certificate for CertificateValues when the response carries none
                      (default: the PKI certificate whose subject is the ResponderID name)
  The caller picks the responder behaviour with the URL path (/ocsp, /ocsp/tm, /ocsp/revoked,
  /ocsp/unknown, /ocsp/bad-signature, /ocsp/wrong-signer, /ocsp/no-nonce, /ocsp/wrong-nonce, ...).
  An unsuccessful or undecodable response is embedded as it came (a warning on stderr).

  One problem each (all but --tamper-data / --tamper-signed-properties leave every other check good):
  --tamper-data                 a base64 character of D0 changed after signing (still base64)
  --tamper-signature-value      a bit of S0's signature flipped before the OCSP request (so the
                                nonce matches the stored value: only the RSA check fails)
  --tamper-signed-properties    S0's SigningTime moved by one second after signing
  --wrong-nonce                 S0's OCSP nonce is SHA-1 of the SignatureValue's base64 text
  --no-nonce                    S0's OCSP request (so its response) has no nonce
  --wrong-ocsp-digest           S0's OCSPRef DigestValue is SHA-1 of the BasicOCSPResponse only
  --unsigned-datafile           an extra DataFile (the next Id) that no signature references
  --missing-datafile            every SignedInfo also references "#D9", which does not exist
  --duplicate-id                a second DataFile (other content) also with Id D0; both referenced
  --bad-id [ID]                 D0's Id is ID (default DF0; not D<number>), referenced as "#ID"
  --no-xmlns-datafile           1.3 only: the DataFiles have no xmlns of their own and their
                                Reference digests are over the start tag WITHOUT the namespace
                                (the "alternate digest" of §3.2)
  --signing-cert-digest-wrong   S0's SigningCertificate CertDigest is SHA-1 of the issuing CA
  --not-nonrepudiation          sign with an RSA key in DIR whose certificate lacks nonRepudiation
                                (exit 2 with a message if DIR has none)
  --entity-bomb                 a DOCTYPE with nested entities (billion laughs), referenced once
                                between the last Signature and </SignedDoc>
  --external-entity [URL]       a DOCTYPE with a SYSTEM entity (default file:///etc/passwd),
                                referenced at the same place
  --comment [WHERE]             an XML comment: root (default: between the DataFiles and the first
                                Signature), datafile (inside D0, before the base64), signedinfo
                                (first child of S0's SignedInfo) or signedproperties

Prints on stdout one line per signature, "S<n> <nonce hex>" (the 20 nonce bytes the embedded
response carries, "-" if none), then one line per DataFile, "D<n> <digest base64>": SHA-1 of the
canonical DataFile element as it is in the written file (SK-XML 1.0: of the decoded content;
HASHCODE: its DigestValue), followed by " ref=<digest>" when the signed Reference differs.

--self-check FILE recomputes from the file alone (lxml parse plus the raw text, not the writer's
code path) every DataFile digest (also the in-document C14N and the alternate one), each
Reference, the SignedProperties digest, the RSA signature, the signer CertDigest/serial/keyUsage,
and the notary (OCSPRef digest, nonce, ProducedAt, responder CertDigest and serial, OCSP signature,
CertID, status), and prints "OK|WARN|FAIL <item> <detail>" lines; exit 1 if any FAIL.
With --pki DIR it also checks the CertID issuer key hash against DIR/issuing-ca.

Exit: 0 done, 1 error, 2 a requested variant the PKI cannot make (or usage).
"""
import argparse
import base64
import copy
import datetime
import glob
import hashlib
import os
import re
import sys
import urllib.error
import urllib.request

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.x509 import ocsp
from lxml import etree

PROG = "make-ddoc.py"
NS_DSIG = "http://www.w3.org/2000/09/xmldsig#"
NS_DDOC13 = "http://www.sk.ee/DigiDoc/v1.3.0#"
NS_XADES111 = "http://uri.etsi.org/01903/v1.1.1#"
C14N_URI = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315"
RSA_SHA1 = "http://www.w3.org/2000/09/xmldsig#rsa-sha1"
SHA1_URI = "http://www.w3.org/2000/09/xmldsig#sha1"
ENVELOPED = "http://www.w3.org/2000/09/xmldsig#enveloped-signature"
SP_TYPE = "http://uri.etsi.org/01903/v1.1.1#SignedProperties"
NONCE_OID = bytes.fromhex("2b0601050507300102")      # 1.3.6.1.5.5.7.48.1.2, content of the OID TLV
FORMATS = {"1.0": "SK-XML", "1.1": "DIGIDOC-XML", "1.2": "DIGIDOC-XML", "1.3": "DIGIDOC-XML"}
DATA_NAME, DATA = "test.txt", b"tamga DDOC test document, signed with the tamga test PKI. TEST ONLY\n"
START_TAG = r"<DataFile(?:[^>\"']|\"[^\"]*\"|'[^']*')*?"
DATAFILE_RE = re.compile(START_TAG + r"(?:/>|>(.*?)</DataFile>)", re.S)
SHORT_NAMES = {   # OpenSSL OBJ_nid2sn, as libdigidoc's ddocCertGetDNFromName prints them
    "2.5.4.3": "CN", "2.5.4.6": "C", "2.5.4.10": "O", "2.5.4.11": "OU", "2.5.4.7": "L", "2.5.4.8": "ST",
    "2.5.4.5": "serialNumber", "2.5.4.4": "SN", "2.5.4.42": "GN", "2.5.4.9": "street", "2.5.4.97":
    "organizationIdentifier", "1.2.840.113549.1.9.1": "emailAddress", "0.9.2342.19200300.100.1.25": "DC",
    "0.9.2342.19200300.100.1.1": "UID"}


def die(msg, code=1):
    sys.stderr.write("%s: %s\n" % (PROG, msg))
    sys.exit(code)


def warn(msg):
    sys.stderr.write("%s: warning: %s\n" % (PROG, msg))


# ---------------------------------------------------------------------------- small helpers

def b64(data):
    return base64.b64encode(data).decode()


def sha1(data):
    return hashlib.sha1(data).digest()


def sha1_b64(data):
    return b64(sha1(data))


def wrap64(data):
    """base64 in 64-character lines joined by "\\n", no final newline (libdigidoc's encode())."""
    text = b64(data)
    return "\n".join(text[i:i + 64] for i in range(0, len(text), 64))


def evp_base64(data):
    """base64 as OpenSSL's EVP_EncodeUpdate/EVP_EncodeFinal write it: every 64-character line,
    the last one too, ends in "\\n" (libdigidoc's DataFile content)."""
    text = b64(data)
    return "".join(text[i:i + 64] + "\n" for i in range(0, len(text), 64))


def escape_attr(s):
    """libdigidoc's escapeXMLSymbols (Filename and other DataFile attributes)."""
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#xD;")
            .replace("'", "&apos;").replace('"', "&quot;"))


def escape_text(s):
    """Text content in C14N form."""
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#xD;")


def c14n_fragment(text):
    """Inclusive C14N 1.0 (no comments) of an XML fragment parsed standalone: only the namespace
    declarations the fragment itself carries count (how libdigidoc and digidoc4j rebuild
    DataFile, SignedProperties and SignedInfo from SAX events)."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    element = etree.fromstring(text.encode("utf-8") if isinstance(text, str) else text, parser)
    return etree.tostring(element, method="c14n", exclusive=False, with_comments=False)


def c14n_in_document(element):
    """Inclusive C14N 1.0 of an element with the namespaces in scope in its document. Done on a deep
    copy: lxml 4.9.2 / libxml2 2.9.14 canonicalize a non-root element through a fake root document
    and then write xmlns="" on grandchildren when the same default namespace is declared on several
    ancestors (SignedDoc > Signature > SignedInfo > Reference > DigestMethod comes out as
    <DigestMethod xmlns="" ...>), which is wrong. The copy carries every namespace the subtree uses,
    which for DDOC (default namespaces only, no prefixes) is all that inclusive C14N renders."""
    return etree.tostring(copy.deepcopy(element), method="c14n", exclusive=False, with_comments=False)


def ddoc_time(dt, version):
    """SigningTime / ProducedAt text of each version (docs/design/ddoc.md §1.3); dt is naive UTC."""
    if version == "1.3":
        return dt.strftime("%Y-%m-%dT%H:%M:%SZ")
    if version == "1.0":   # local time with an offset; written in UTC, as libdigidoc does with TZ=UTC
        return dt.strftime("%Y.%m.%dT%H:%M:%S") + "+00:00"
    return dt.strftime("%Y.%m.%dT%H:%M:%SZ")


def dn_text(name, form):
    if form == "rfc2253":
        return name.rfc4514_string()
    parts = []
    for rdn in name.rdns:
        for attribute in rdn:
            parts.append("%s=%s" % (SHORT_NAMES.get(attribute.oid.dotted_string, attribute.oid.dotted_string),
                                    attribute.value))
    return ("/" if form == "oneline" else "") + "/".join(parts)


def local(element):
    return etree.QName(element).localname if isinstance(element.tag, str) else None


def child(element, name):
    for c in element:
        if local(c) == name:
            return c
    return None


def path(element, *names):
    for name in names:
        if element is None:
            return None
        element = child(element, name)
    return element


def text_of(element):
    return "".join(element.itertext()) if element is not None else ""


def b64decode_loose(text):
    return base64.b64decode("".join(text.split()), validate=True)


# ---------------------------------------------------------------------------- minimal DER reader

def der_tlv(buf, pos):
    """(tag, content start, content end) of the TLV at pos (definite lengths only)."""
    tag, n = buf[pos], buf[pos + 1]
    pos += 2
    if n & 0x80:
        k = n & 0x7F
        n, pos = int.from_bytes(buf[pos:pos + k], "big"), pos + k
    if pos + n > len(buf):
        raise ValueError("truncated DER")
    return tag, pos, pos + n


def der_children(buf, start, end):
    out = []
    while start < end:
        tag, s, e = der_tlv(buf, start)
        out.append((tag, s, e, start))
        start = e
    return out


def ocsp_parts(der):
    """{"status", "basic" (BasicOCSPResponse DER), "extensions" [(oid content, extnValue content)]}
    of an OCSPResponse, by a DER walk (the raw nonce form is no OCTET STRING, so cryptography's
    extension parser is not used for it)."""
    out = {"status": None, "basic": None, "extensions": []}
    _, s, e = der_tlv(der, 0)
    kids = der_children(der, s, e)
    out["status"] = der[kids[0][1]] if kids and kids[0][0] == 0x0A else None
    if len(kids) < 2 or kids[1][0] != 0xA0:
        return out
    _, bs, be = der_tlv(der, kids[1][1])                           # ResponseBytes
    rb = der_children(der, bs, be)
    basic = der[rb[1][1]:rb[1][2]]                                  # response OCTET STRING content
    out["basic"] = bytes(basic)
    _, s, e = der_tlv(basic, 0)
    _, ts, te = der_tlv(basic, s)                                   # tbsResponseData
    seen_produced_at = False   # responderID byName is [1] too: the extensions come after producedAt
    for tag, cs, ce, _ in der_children(basic, ts, te):
        seen_produced_at = seen_produced_at or tag == 0x18
        if tag != 0xA1 or not seen_produced_at:
            continue
        _, xs, xe = der_tlv(basic, cs)
        for _, es, ee, _ in der_children(basic, xs, xe):
            parts = der_children(basic, es, ee)
            oid = bytes(basic[parts[0][1]:parts[0][2]])
            value = bytes(basic[parts[-1][1]:parts[-1][2]])
            out["extensions"].append((oid, value))
    return out


def nonce_of(extn_value):
    """The nonce bytes libdigidoc takes from the extnValue content (ddocNotInfo_GetOcspRealDigest):
    a DER OCTET STRING is unwrapped, anything else is used as it is. Returns (bytes, form)."""
    v = extn_value
    if len(v) > 20 and v[0] == 0x04 and v[1] == len(v) - 2:
        return v[2:], "wrapped"
    return v, "raw"


# ---------------------------------------------------------------------------- PKI material

def load(pki, name):
    with open(os.path.join(pki, name + ".cert.pem"), "rb") as f:
        cert = x509.load_pem_x509_certificate(f.read())
    try:
        with open(os.path.join(pki, name + ".key.pem"), "rb") as f:
            key = serialization.load_pem_private_key(f.read(), password=None)
    except FileNotFoundError:
        key = None
    return cert, key


def der_of(cert):
    return cert.public_bytes(serialization.Encoding.DER)


def has_nonrepudiation(cert):
    try:
        return cert.extensions.get_extension_for_class(x509.KeyUsage).value.content_commitment
    except x509.ExtensionNotFound:
        return False


def rsa_without_nonrepudiation(pki):
    for p in sorted(glob.glob(os.path.join(pki, "*.cert.pem"))):
        name = os.path.basename(p)[:-len(".cert.pem")]
        cert, key = load(pki, name)
        if isinstance(key, rsa.RSAPrivateKey) and not has_nonrepudiation(cert):
            try:
                cert.extensions.get_extension_for_class(x509.BasicConstraints)
                if cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca:
                    continue
            except x509.ExtensionNotFound:
                pass
            return name
    return None


def cert_by_subject(pki, name):
    for p in sorted(glob.glob(os.path.join(pki, "*.cert.pem"))):
        with open(p, "rb") as f:
            cert = x509.load_pem_x509_certificate(f.read())
        if cert.subject == name:
            return cert
    return None


# ---------------------------------------------------------------------------- writer

class DataFile:
    def __init__(self, ident, name, content, mime):
        self.id, self.name, self.content, self.mime = ident, name, content, mime
        self.own_xmlns = True        # 1.3 only
        self.embedded = False        # ContentType EMBEDDED: the content inline, as text
        self.crlf = False            # base64 lines end in CR LF in the file (not in the digest)
        self.base64 = evp_base64(content)

    def body(self):
        """The content as it stands between the tags: base64 lines, or (EMBEDDED) the text escaped."""
        if self.embedded:
            return escape_text(self.content.decode("utf-8"))
        return self.base64.replace("\n", "\r\n") if self.crlf else self.base64

    def start_tag(self, version):
        tag = '<DataFile ContentType="%s" Filename="%s" Id="%s" MimeType="%s" Size="%d"' % (
            "EMBEDDED" if self.embedded else "EMBEDDED_BASE64",
            escape_attr(self.name), escape_attr(self.id), escape_attr(self.mime), len(self.content))
        if version == "1.0":
            tag += ' DigestType="sha1" DigestValue="%s"' % sha1_b64(self.content)
        if version == "1.3" and self.own_xmlns:
            tag += ' xmlns="%s"' % NS_DDOC13      # libdigidoc appends it after the other attributes
        return tag + ">"

    def xml(self, version):
        return self.start_tag(version) + self.body() + "</DataFile>"

    def digest(self, version, with_namespace=True):
        """The Reference digest (docs/design/ddoc.md §3): SK-XML 1.0 over the decoded bytes; else SHA-1 of
        canonical start tag (1.3: namespace injected unless with_namespace is False) + the base64
        text as written + "</DataFile>"."""
        if version == "1.0":
            # EMBEDDED in SK-XML 1.0: the bytes between the tags as written (libdigidoc)
            return sha1(self.body().encode()) if self.embedded else sha1(self.content)
        tag = self.start_tag(version)
        if version == "1.3" and not self.own_xmlns and with_namespace:
            tag = tag[:-1] + ' xmlns="%s">' % NS_DDOC13
        canonical_start = c14n_fragment(tag + "</DataFile>")[:-len(b"</DataFile>")]
        if self.embedded:
            # inline content: the whole element canonicalised (text re-escaped by C14N)
            return sha1(c14n_fragment(tag + self.body() + "</DataFile>"))
        return sha1(canonical_start + self.base64.encode() + b"</DataFile>")


def signed_properties_xml(version, sig_id, signing_time, cert_digest_b64, cert, a):
    issuer_name = escape_text(dn_text(cert.issuer, a.dn_form))
    serial = str(cert.serial_number)
    if version == "1.3":
        head = '<SignedProperties xmlns="%s" Id="%s-SignedProperties">' % (NS_XADES111, sig_id)
        cert_open = "<Cert>"
        issuer_serial = ('<IssuerSerial>\n<X509IssuerName xmlns="%s">%s</X509IssuerName>\n'
                         '<X509SerialNumber xmlns="%s">%s</X509SerialNumber>\n</IssuerSerial>') % (
            NS_DSIG, issuer_name, NS_DSIG, serial)
    else:
        hash_mark = "#" if version == "1.0" else ""      # SK-XML's "buggy" Ids with a leading '#'
        xmlns = "" if version == "1.0" else ' xmlns="%s"' % NS_DSIG
        head = '<SignedProperties%s Id="%s%s-SignedProperties" Target="#%s">' % (xmlns, hash_mark, sig_id, sig_id)
        cert_open = '<Cert Id="%s%s-CERTINFO">' % (hash_mark, sig_id)
        issuer_serial = "<IssuerSerial>%s</IssuerSerial>" % serial
    out = (head + "\n<SignedSignatureProperties>\n"
           "<SigningTime>%s</SigningTime>\n"
           "<SigningCertificate>\n%s\n<CertDigest>\n"
           '<DigestMethod Algorithm="%s">\n</DigestMethod>\n'
           "<DigestValue>%s</DigestValue>\n</CertDigest>\n"
           "%s</Cert></SigningCertificate>\n"
           "<SignaturePolicyIdentifier>\n<SignaturePolicyImplied>\n</SignaturePolicyImplied>\n"
           "</SignaturePolicyIdentifier>") % (signing_time, cert_open, SHA1_URI, cert_digest_b64, issuer_serial)
    if a.city or a.country:
        out += "\n<SignatureProductionPlace>\n"
        if a.city:
            out += "<City>%s</City>\n" % escape_text(a.city)
        if a.country:
            out += "<CountryName>%s</CountryName>\n" % escape_text(a.country)
        out += "</SignatureProductionPlace>\n"
    if a.role:
        out += "<SignerRole>\n<ClaimedRoles>\n"
        out += "".join("<ClaimedRole>%s</ClaimedRole>\n" % escape_text(r) for r in a.role)
        out += "</ClaimedRoles>\n</SignerRole>\n"
    out += ("</SignedSignatureProperties>\n<SignedDataObjectProperties>\n</SignedDataObjectProperties>\n"
            "</SignedProperties>")
    return out


def reference_xml(version, uri, digest_b64, type_uri=None):
    out = "<Reference%s URI=\"%s\">\n" % (' Type="%s"' % type_uri if type_uri else "", uri)
    out += '<DigestMethod Algorithm="%s">\n</DigestMethod>\n' % SHA1_URI
    if version == "1.0":
        out += '<Transforms><Transform Algorithm="%s"></Transform></Transforms>\n' % ENVELOPED
    return out + "<DigestValue>%s</DigestValue>\n</Reference>" % digest_b64


def signed_info_xml(version, sig_id, refs, sp_digest_b64):
    """refs: [(uri, digest base64, mime digest base64 or None)]; the text is canonical as written."""
    out = "<SignedInfo%s>\n" % ("" if version == "1.0" else ' xmlns="%s"' % NS_DSIG)
    out += '<CanonicalizationMethod Algorithm="%s">\n</CanonicalizationMethod>\n' % C14N_URI
    out += '<SignatureMethod Algorithm="%s">\n</SignatureMethod>\n' % RSA_SHA1
    for uri, digest_b64, mime_b64 in refs:
        out += reference_xml(version, uri, digest_b64) + "\n"
        if version == "1.0":   # the MIME Reference is not followed by a newline (the writer, the samples)
            out += reference_xml(version, uri + "-MIME", mime_b64)
    out += reference_xml(version, "#%s-SignedProperties" % sig_id, sp_digest_b64,
                         SP_TYPE if version in ("1.2", "1.3") else None) + "\n"
    return out + "</SignedInfo>"


def key_info_xml(version, sig_id, cert):
    cert_b64 = wrap64(der_of(cert))
    if version == "1.0":
        return '<KeyInfo><X509Data><X509Certificate Id="%s-CERT">\n%s</X509Certificate></X509Data></KeyInfo>\n' % (
            sig_id, cert_b64)
    numbers = cert.public_key().public_numbers()
    n = numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")     # BN_bn2bin: no leading zero
    e = numbers.e.to_bytes((numbers.e.bit_length() + 7) // 8, "big")
    return ("<KeyInfo>\n<KeyValue>\n<RSAKeyValue>\n<Modulus>%s</Modulus>\n<Exponent>%s</Exponent>\n"
            "</RSAKeyValue>\n</KeyValue>\n<X509Data><X509Certificate>\n%s</X509Certificate></X509Data></KeyInfo>\n") % (
        wrap64(n), b64(e), cert_b64)


def unsigned_properties_xml(version, sig_id, notary_id, notary, a):
    responder = notary["responder_cert"]
    resp_digest = sha1_b64(der_of(responder)) if responder is not None else sha1_b64(b"")
    resp_serial = str(responder.serial_number) if responder is not None else "0"
    if version == "1.3":
        resp_issuer = escape_text(dn_text(responder.issuer, a.dn_form)) if responder is not None else ""
        cert_refs = ("<CompleteCertificateRefs><CertRefs><Cert>\n<CertDigest>\n"
                     '<DigestMethod Algorithm="%s"></DigestMethod>\n<DigestValue>%s</DigestValue>\n</CertDigest>\n'
                     '<IssuerSerial>\n<X509IssuerName xmlns="%s">%s</X509IssuerName>\n'
                     '<X509SerialNumber xmlns="%s">%s</X509SerialNumber>\n</IssuerSerial>\n'
                     "</Cert>\n</CertRefs></CompleteCertificateRefs>") % (
            SHA1_URI, resp_digest, NS_DSIG, resp_issuer, NS_DSIG, resp_serial)
        head = "<UnsignedProperties>\n"
    else:
        cert_refs = ('<CompleteCertificateRefs><Cert Id="%s-RESPONDER_CERTINFO">\n<CertDigest>\n'
                     '<DigestMethod Algorithm="%s"></DigestMethod>\n<DigestValue>%s</DigestValue>\n</CertDigest>\n'
                     "<IssuerSerial>%s</IssuerSerial>\n</Cert>\n</CompleteCertificateRefs>") % (
            sig_id, SHA1_URI, resp_digest, resp_serial)
        head = '<UnsignedProperties Target="#%s">\n' % sig_id
    revocation_refs = ("<CompleteRevocationRefs>\n<OCSPRefs>\n<OCSPRef>\n"
                       '<OCSPIdentifier URI="#%s"><ResponderID>%s</ResponderID>\n<ProducedAt>%s</ProducedAt>\n'
                       "</OCSPIdentifier>\n<DigestAlgAndValue>\n"
                       '<DigestMethod Algorithm="%s"></DigestMethod>\n<DigestValue>%s</DigestValue>\n'
                       "</DigestAlgAndValue></OCSPRef>\n</OCSPRefs>\n</CompleteRevocationRefs>\n") % (
        notary_id, escape_text(notary["responder_id"]), notary["produced_at"], SHA1_URI, notary["ref_digest"])
    cert_values = "<CertificateValues>\n"
    if responder is not None:
        cert_values += '<EncapsulatedX509Certificate Id="%s-RESPONDER_CERT">\n%s</EncapsulatedX509Certificate>\n' % (
            sig_id, wrap64(der_of(responder)))
    cert_values += "</CertificateValues>\n"
    value = '<EncapsulatedOCSPValue Id="%s">\n%s</EncapsulatedOCSPValue>\n' % (notary_id, wrap64(notary["der"]))
    if version == "1.3":
        value = "<OCSPValues>" + value + "</OCSPValues>"
    return (head + "<UnsignedSignatureProperties>" + cert_refs + revocation_refs + cert_values
            + "<RevocationValues>" + value + "</RevocationValues></UnsignedSignatureProperties>\n</UnsignedProperties>")


def ask_ocsp(url, cert, issuer, extn_value):
    builder = ocsp.OCSPRequestBuilder().add_certificate(cert, issuer, hashes.SHA1())
    if extn_value is not None:
        builder = builder.add_extension(x509.UnrecognizedExtension(x509.oid.OCSPExtensionOID.NONCE, extn_value), False)
    body = builder.build().public_bytes(serialization.Encoding.DER)
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/ocsp-request"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.read()
    except (urllib.error.URLError, OSError) as e:
        die("OCSP request to %s failed: %s" % (url, e))


def notary_for(der, version, a):
    """The values the UnsignedProperties need from a response; fallbacks for an unusable one."""
    out = {"der": der, "ref_digest": sha1_b64(der), "nonce": None}
    response = None
    try:
        response = ocsp.load_der_ocsp_response(der)
        if response.response_status != ocsp.OCSPResponseStatus.SUCCESSFUL:
            warn("the OCSP response status is %s; embedded as it is" % response.response_status.name)
            response = None
    except Exception as e:  # noqa: BLE001 — garbage from /ocsp/garbage is embedded too
        warn("the OCSP response does not decode (%s); embedded as it is" % e)
    fallback = load(a.pki, a.responder or "ocsp-responder")[0]
    if response is None:
        out.update(responder_cert=fallback, responder_id=dn_text(fallback.subject, a.dn_form),
                   produced_at=ddoc_time(datetime.datetime.utcnow().replace(microsecond=0), version))
        return out
    out["produced_at"] = ddoc_time(response.produced_at, version)
    if response.responder_name is not None:
        out["responder_id"] = dn_text(response.responder_name, a.dn_form)
    else:
        out["responder_id"] = b64(response.responder_key_hash)
    certs = response.certificates
    if a.responder:
        out["responder_cert"] = fallback
    elif certs:
        out["responder_cert"] = certs[0]
    else:
        found = cert_by_subject(a.pki, response.responder_name) if response.responder_name is not None else None
        out["responder_cert"] = found or fallback
    parts = ocsp_parts(der)
    for oid, value in parts["extensions"]:
        if oid == NONCE_OID:
            out["nonce"] = nonce_of(value)[0]
    out["basic"] = parts["basic"]
    return out


def rsa_sign(key, data):
    return key.sign(data, padding.PKCS1v15(), hashes.SHA1())


def build(a):
    version = a.version
    cert, key = load(a.pki, a.signer)
    issuer, _ = load(a.pki, "issuing-ca")
    if not isinstance(key, rsa.RSAPrivateKey):
        die("DDOC signatures are RSA-SHA1 only: %s is not an RSA key" % a.signer)

    files = []
    sources = a.file or []
    if not sources:
        files.append(DataFile("D0", DATA_NAME, DATA, a.mime))
    for index, spec in enumerate(sources):
        if "=" not in spec:
            die("--file wants NAME=PATH, got %r" % spec)
        name, p = spec.split("=", 1)
        with open(p, "rb") as f:
            files.append(DataFile("D%d" % index, name, f.read(), a.mime))
    if a.embedded:
        for df in files:
            df.embedded = True
    if a.crlf:
        for df in files:
            df.crlf = True
    if a.bad_id is not None:
        files[0].id = a.bad_id
    if a.no_xmlns_datafile:
        for df in files:
            df.own_xmlns = False
    if a.duplicate_id:
        files.append(DataFile(files[0].id, "duplicate.txt", b"a second data file with the same Id\n", a.mime))
    signed_files = list(files)
    extra = None
    if a.unsigned_datafile:
        extra = DataFile("D%d" % len(files), "unsigned.txt", b"a data file no signature covers\n", a.mime)
    if a.missing_datafile and any(df.id == "D9" for df in files):
        die("--missing-datafile references #D9, which exists here (10 or more files)")

    refs = []
    for df in signed_files:
        digest = df.digest(version, with_namespace=not a.no_xmlns_datafile)
        refs.append(("#" + df.id, b64(digest), sha1_b64(df.mime.encode())))
    if a.missing_datafile:
        refs.append(("#D9", sha1_b64(b"no such DataFile"), sha1_b64(a.mime.encode())))

    if a.signing_time:
        signing_dt = datetime.datetime.strptime(a.signing_time.rstrip("Z"), "%Y-%m-%dT%H:%M:%S")
    else:
        signing_dt = datetime.datetime.utcnow().replace(microsecond=0)

    signatures, nonces = [], []
    for n in range(a.signatures):
        sig_id, first = "S%d" % n, n == 0
        cert_digest = sha1_b64(der_of(issuer)) if (first and a.signing_cert_digest_wrong) else sha1_b64(der_of(cert))
        sp = signed_properties_xml(version, sig_id, ddoc_time(signing_dt, version), cert_digest, cert, a)
        sp_digest = sha1(c14n_fragment(sp))      # standalone: own attributes only (§4.2)
        si = signed_info_xml(version, sig_id, refs, b64(sp_digest))
        signature_value = rsa_sign(key, c14n_fragment(si))
        if first and a.tamper_signature_value:
            signature_value = signature_value[:-1] + bytes([signature_value[-1] ^ 0x01])
        if first and a.tamper_signed_properties:
            later = ddoc_time(signing_dt + datetime.timedelta(seconds=1), version)
            sp = sp.replace("<SigningTime>%s</SigningTime>" % ddoc_time(signing_dt, version),
                            "<SigningTime>%s</SigningTime>" % later)
        unsigned, nonce = "", None
        if not a.no_ocsp:
            if first and a.no_nonce:
                extn = None
            else:
                covered = wrap64(signature_value).encode() if (first and a.wrong_nonce) else signature_value
                raw = sha1(covered)
                extn = raw if a.nonce_form == "raw" else bytes([0x04, len(raw)]) + raw
            der = ask_ocsp(a.ocsp, cert, issuer, extn)
            notary = notary_for(der, version, a)
            if first and a.wrong_ocsp_digest:
                notary["ref_digest"] = sha1_b64(notary.get("basic") or b"")
            nonce = notary["nonce"]
            unsigned = unsigned_properties_xml(version, sig_id, "N%d" % n, notary, a)
        qualifying = ('<QualifyingProperties xmlns="%s" Target="#%s">\n' % (NS_XADES111, sig_id)
                      if version == "1.3" else "<QualifyingProperties>\n")
        signatures.append('<Signature Id="%s" xmlns="%s">\n' % (sig_id, NS_DSIG) + si
                          + '<SignatureValue Id="%s-SIG">\n%s</SignatureValue>\n' % (sig_id, wrap64(signature_value))
                          + key_info_xml(version, sig_id, cert)
                          + "<Object>" + qualifying + sp + unsigned + "</QualifyingProperties></Object>\n"
                          + "</Signature>\n")
        nonces.append((sig_id, nonce))

    all_files = files + ([extra] if extra else [])
    datafiles = [df.xml(version) for df in all_files]
    if a.tamper_data:
        if not all_files[0].content:
            die("--tamper-data needs a non-empty first data file")
        head, sep, body = datafiles[0].partition(">")
        c = body[0]
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        body = alphabet[(alphabet.index(c) + 1) % 64] + body[1:]
        datafiles[0] = head + sep + body
    if a.comment == "datafile":
        head, sep, body = datafiles[0].partition(">")
        datafiles[0] = head + sep + "<!-- a comment libdigidoc never writes -->" + body
    if a.comment == "signedinfo":
        signatures[0] = signatures[0].replace('<SignedInfo xmlns="%s">' % NS_DSIG if version != "1.0" else "<SignedInfo>",
                                              ('<SignedInfo xmlns="%s">' % NS_DSIG if version != "1.0" else "<SignedInfo>")
                                              + "<!-- a comment libdigidoc never writes -->", 1)
    if a.comment == "signedproperties":
        signatures[0] = signatures[0].replace("<SignedSignatureProperties>",
                                              "<SignedSignatureProperties><!-- a comment libdigidoc never writes -->", 1)

    xml = '<?xml version="1.0" encoding="UTF-8"?>\n'
    tail = ""
    if a.entity_bomb:
        xml += ("<!DOCTYPE SignedDoc [\n <!ENTITY lol \"lol\">\n"
                + "".join(" <!ENTITY lol%d \"%s\">\n" % (i, ("&lol%s;" % ("" if i == 2 else i - 1)) * 10) for i in range(2, 10))
                + "]>\n")
        tail = "&lol9;\n"
    if a.external_entity is not None:
        xml += '<!DOCTYPE SignedDoc [\n <!ENTITY xxe SYSTEM "%s">\n]>\n' % escape_attr(a.external_entity)
        tail = "&xxe;\n"
    if version == "1.3":
        xml += '<SignedDoc format="DIGIDOC-XML" version="1.3" xmlns="%s">\n' % NS_DDOC13
    else:
        xml += '<SignedDoc format="%s" version="%s">\n' % (FORMATS[version], version)
    xml += "".join(d + "\n" for d in datafiles)
    if a.comment == "root":
        xml += "<!-- a comment libdigidoc never writes -->\n"
    xml += "".join(signatures) + tail + "</SignedDoc>"

    lines = ["%s %s" % (sig_id, nonce.hex() if nonce is not None else "-") for sig_id, nonce in nonces]
    if a.hashcode:
        xml, digest_lines = to_hashcode(xml)
    else:
        digest_lines = datafile_lines(xml, refs)
    with open(a.out, "wb") as f:
        f.write(xml.encode("utf-8"))
    return lines + digest_lines


# ---------------------------------------------------------------------------- reading back

def doc_version(text):
    m = re.search(r"<SignedDoc\b[^>]*\bversion=\"([^\"]*)\"", text)
    f = re.search(r"<SignedDoc\b[^>]*\bformat=\"([^\"]*)\"", text)
    return (f.group(1) if f else None), (m.group(1) if m else None)


def start_attributes(start_tag):
    """[(name, raw value text)] of a start tag, in document order."""
    return re.findall(r"([\w:.-]+)\s*=\s*\"([^\"]*)\"", start_tag[len("<DataFile"):])


def datafile_digest_from_text(version, start_tag, content, inject=True):
    """libdigidoc's rule from a raw DataFile: the rebuilt start tag (1.3: xmlns injected when the
    element has none and inject is True) canonicalized standalone, then the content as parsed
    (text only, CR normalized), then "</DataFile>"."""
    if version == "1.3" and inject and not re.search(r"\sxmlns\s*=", start_tag):
        start_tag = start_tag[:-1] + ' xmlns="%s">' % NS_DDOC13
    canonical_start = c14n_fragment(start_tag + "</DataFile>")[:-len(b"</DataFile>")]
    parsed = etree.fromstring((start_tag + content + "</DataFile>").encode("utf-8"),
                              etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False))
    text = (parsed.text or "") + "".join(c.tail or "" for c in parsed)
    return sha1(canonical_start + escape_text(text).encode("utf-8") + b"</DataFile>")


def raw_datafiles(text):
    """[(start tag, content or None, whole match span)] of the DataFile elements."""
    out = []
    for m in DATAFILE_RE.finditer(text):
        whole = m.group(0)
        if whole.endswith("/>") and m.group(1) is None:
            out.append((whole[:-2] + ">", None, m.span()))
        else:
            start = whole[:len(whole) - len(m.group(1)) - len("</DataFile>")]
            out.append((start, m.group(1), m.span()))
    return out


def datafile_lines(text, refs=None):
    _, version = doc_version(text)
    signed = {}
    for uri, digest, _ in refs or []:
        signed.setdefault(uri[1:], []).append(digest)
    lines = []
    for start, content, _ in raw_datafiles(text):
        attrs = dict(start_attributes(start))
        ident = attrs.get("Id", "?")
        if attrs.get("ContentType") == "HASHCODE" or content is None:
            digest = attrs.get("DigestValue", "-")
        elif version == "1.0":
            raw = content.encode() if attrs.get("ContentType") == "EMBEDDED" else b64decode_loose(content)
            digest = sha1_b64(raw)
        else:
            digest = b64(datafile_digest_from_text(version, start, content))
        line = "%s %s" % (ident, digest)
        queue = signed.get(ident)
        if queue:
            ref = queue.pop(0)
            if ref != digest:
                line += " ref=%s" % ref
        lines.append(line)
    return lines


def to_hashcode(text):
    """The HASHCODE form, as the SK DDS hashcode library writes each DataFile:
    <DataFile [xmlns (1.3)] ContentType="HASHCODE" Filename Id MimeType Size DigestType="sha1"
    DigestValue="..."></DataFile>; the attribute values are kept as written and every byte outside
    the DataFile elements is kept."""
    _, version = doc_version(text)
    out, last, lines = [], 0, []
    for start, content, (s, e) in raw_datafiles(text):
        attrs = dict(start_attributes(start))
        if attrs.get("ContentType") == "HASHCODE" or content is None:
            digest = attrs.get("DigestValue", "")
        elif version == "1.0":
            digest = sha1_b64(b64decode_loose(content))
        else:
            digest = b64(datafile_digest_from_text(version, start, content))
        element = "<DataFile%s ContentType=\"HASHCODE\" Filename=\"%s\" Id=\"%s\" MimeType=\"%s\" Size=\"%s\" " \
                  "DigestType=\"sha1\" DigestValue=\"%s\"></DataFile>" % (
                      ' xmlns="%s"' % NS_DDOC13 if version == "1.3" else "", attrs.get("Filename", ""),
                      attrs.get("Id", ""), attrs.get("MimeType", ""), attrs.get("Size", "0"), digest)
        out.append(text[last:s])
        out.append(element)
        last = e
        lines.append("%s %s" % (attrs.get("Id", "?"), digest))
    out.append(text[last:])
    return "".join(out), lines


# ---------------------------------------------------------------------------- self-check

class Report:
    def __init__(self):
        self.failed = 0
        self.lines = []

    def __call__(self, ok, item, detail=""):
        status = {True: "OK", False: "FAIL", None: "WARN"}[ok]
        if ok is False:
            self.failed += 1
        self.lines.append(("%-4s %s %s" % (status, item, detail)).rstrip())


def verify_with(public_key, signature, data, hash_algorithm):
    try:
        if isinstance(public_key, rsa.RSAPublicKey):
            public_key.verify(signature, data, padding.PKCS1v15(), hash_algorithm)
        elif isinstance(public_key, ec.EllipticCurvePublicKey):
            public_key.verify(signature, data, ec.ECDSA(hash_algorithm))
        else:
            return False
        return True
    except InvalidSignature:
        return False


def rsa_digest_info(public_key, signature):
    """The DigestInfo inside a PKCS#1 v1.5 signature block (for the short-prefix report)."""
    numbers = public_key.public_numbers()
    m = pow(int.from_bytes(signature, "big"), numbers.e, numbers.n)
    block = m.to_bytes((numbers.n.bit_length() + 7) // 8, "big")
    if block[:2] != b"\x00\x01" or b"\x00" not in block[2:]:
        return None
    return block[block.index(b"\x00", 2) + 1:]


def segment(text, name, start=0):
    m = re.compile(r"<%s[\s>].*?</%s>" % (name, name), re.S).search(text, start)
    return m.group(0) if m else None


def self_check(file_path, pki):
    report = Report()
    raw = open(file_path, "rb").read()
    text = raw.decode("utf-8")
    fmt, version = doc_version(text)
    report(FORMATS.get(version) == fmt, "format", "%s %s" % (fmt, version))
    if "<!DOCTYPE" in text:
        report(False, "doctype", "a DOCTYPE (entities: %s)" % ("yes" if "<!ENTITY" in text else "no"))
    if "<!--" in text:
        report(None, "comment", "an XML comment (libdigidoc's writer never writes one)")
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        root = etree.fromstring(raw, parser)
    except etree.XMLSyntaxError as e:
        report(False, "parse", str(e))
        if "<!DOCTYPE" not in text:
            return report
        # check the rest as if the DOCTYPE and the entity references were not there
        text = re.sub(r"<!DOCTYPE[^\[>]*(\[.*?\])?\s*>\n?", "", text, count=1, flags=re.S)
        text = re.sub(r"&(?!amp;|lt;|gt;|quot;|apos;|#)[\w.-]+;\n?", "", text)
        raw = text.encode("utf-8")
        root = etree.fromstring(raw, parser)
        report(None, "parse", "the rest checked without the DOCTYPE and its entity references")
    is13 = version == "1.3"

    # DataFiles
    raw_files = raw_datafiles(text)
    elements = [c for c in root if local(c) == "DataFile"]
    digests, names, mimes = {}, {}, {}
    if len(raw_files) != len(elements):
        report(False, "datafiles", "%d by text, %d by parse" % (len(raw_files), len(elements)))
    for (start, content, _), element in zip(raw_files, elements):
        ident = element.get("Id")
        names[ident], mimes[ident] = element.get("Filename"), element.get("MimeType")
        if ident in digests:
            report(False, "%s id" % ident, "duplicate DataFile Id")
        if not re.fullmatch(r"D\d.*|DO", ident or ""):
            report(False, "%s id" % ident, "not of the form D<number> or DO (digidoc4j)")
        ctype = element.get("ContentType")
        if ctype == "HASHCODE":
            report(element.get("DigestType") == "sha1", "%s hashcode" % ident,
                   "DigestType=%s DigestValue=%s" % (element.get("DigestType"), element.get("DigestValue")))
            digests.setdefault(ident, []).append((b64decode_loose(element.get("DigestValue", "")), None))
            continue
        if ctype != "EMBEDDED_BASE64":
            report(False, "%s content-type" % ident, ctype)
            continue
        try:
            decoded = b64decode_loose(text_of(element))
        except ValueError as e:
            report(False, "%s base64" % ident, str(e))
            decoded = b""
        size = element.get("Size")
        report(None if size != str(len(decoded)) else True, "%s size" % ident, "Size=%s decoded=%d" % (size, len(decoded)))
        if version == "1.0":
            d = sha1(decoded)
            report(element.get("DigestValue") is None or b64decode_loose(element.get("DigestValue")) == d,
                   "%s digest-attribute" % ident, "SHA-1(decoded)=%s DigestValue=%s" % (b64(d), element.get("DigestValue")))
            digests.setdefault(ident, []).append((d, None))
            continue
        d = datafile_digest_from_text(version, start, content)
        in_doc = sha1(c14n_in_document(element))
        report(d == in_doc, "%s c14n-in-document" % ident, "libdigidoc rule %s, lxml in-document %s" % (b64(d), b64(in_doc)))
        alt = datafile_digest_from_text(version, start, content, inject=False) if is13 else None
        digests.setdefault(ident, []).append((d, alt if alt != d else None))
    referenced = set()

    # Signatures
    sig_elements = [c for c in root if local(c) == "Signature" and etree.QName(c).namespace == NS_DSIG]
    raw_sigs = list(re.finditer(r"<Signature[\s>].*?</Signature>", text, re.S))
    if not sig_elements:
        report(None, "signatures", "none")
    for sig, raw_sig in zip(sig_elements, raw_sigs):
        sid = sig.get("Id")
        st = raw_sig.group(0)
        si_text, sp_text = segment(st, "SignedInfo"), segment(st, "SignedProperties")
        si = child(sig, "SignedInfo")
        # the canonical SignedInfo as the libraries rebuild it (§4.3)
        if version in ("1.1", "1.2") and not re.match(r"<SignedInfo[^>]*\sxmlns=", si_text):
            si_text = si_text.replace("<SignedInfo", '<SignedInfo xmlns="%s"' % NS_DSIG, 1)
        si_c14n = c14n_fragment(si_text)
        if version != "1.0":
            report(si_c14n == c14n_in_document(si), "%s signedinfo-c14n-in-document" % sid, "")
        # SignedProperties (§4.2)
        sp = path(sig, "Object", "QualifyingProperties", "SignedProperties")
        sp_digest = None
        if sp_text is not None:
            if version in ("1.1", "1.2") and not re.match(r"<SignedProperties[^>]*\sxmlns=", sp_text):
                sp_text = sp_text.replace("<SignedProperties", '<SignedProperties xmlns="%s"' % NS_DSIG, 1)
            sp_digest = sha1(c14n_fragment(sp_text))
            if version != "1.0":
                report(sha1(c14n_in_document(sp)) == sp_digest, "%s signedproperties-c14n-in-document" % sid, "")
        for ref in si.iter("{%s}Reference" % NS_DSIG):
            uri = ref.get("URI") or ""
            value = b64decode_loose(text_of(child(ref, "DigestValue")))
            if uri.endswith("-SignedProperties"):
                # SK-XML's Id is "#S0-SignedProperties" (with the '#'), the URI the same: both tolerated
                ok = sp is not None and sp_digest == value and uri.lstrip("#") == (sp.get("Id") or "").lstrip("#")
                report(ok, "%s ref %s" % (sid, uri), "computed %s, signed %s" % (b64(sp_digest or b""), b64(value)))
            elif uri.endswith("-MIME"):
                ident = uri[1:-len("-MIME")]
                if ident not in mimes:
                    report(False, "%s ref %s" % (sid, uri), "Missing DataFile for signature: %s reference %s" % (sid, uri))
                else:
                    report(sha1((mimes[ident] or "").encode()) == value, "%s ref %s" % (sid, uri), "SHA-1(MimeType)")
            else:
                ident = uri[1:]
                found = digests.get(ident)
                if not found:
                    report(False, "%s ref %s" % (sid, uri), "Missing DataFile for signature: %s reference %s" % (sid, uri))
                    continue
                referenced.add(ident)
                if any(d == value for d, _ in found):
                    report(True, "%s ref %s" % (sid, uri), b64(value))
                elif any(alt == value for _, alt in found):
                    report(None, "%s ref %s" % (sid, uri),
                           "Bad digest for DataFile: %s alternate digest matches! (%s)" % (ident, b64(value)))
                else:
                    report(False, "%s ref %s" % (sid, uri), "Bad digest for DataFile: %s (computed %s, signed %s)" % (
                        ident, ", ".join(b64(d) for d, _ in found), b64(value)))
        # signature value
        cert_el = path(sig, "KeyInfo", "X509Data", "X509Certificate")
        cert = x509.load_der_x509_certificate(b64decode_loose(text_of(cert_el)))
        signature_value = b64decode_loose(text_of(child(sig, "SignatureValue")))
        public_key = cert.public_key()
        method = path(si, "SignatureMethod").get("Algorithm")
        report(method == RSA_SHA1, "%s signature-method" % sid, method)
        if isinstance(public_key, rsa.RSAPublicKey):
            good = verify_with(public_key, signature_value, si_c14n, hashes.SHA1())
            report(good, "%s signature-value" % sid, "RSA PKCS#1 v1.5 SHA-1 over the canonical SignedInfo (SHA-1 %s)"
                   % b64(sha1(si_c14n)))
            if not good:
                info = rsa_digest_info(public_key, signature_value)
                if info is not None and info[-20:] == sha1(si_c14n):
                    report(None, "%s signature-prefix" % sid, "digest matches with DigestInfo prefix %s" % info[:-20].hex())
        else:
            report(False, "%s signature-value" % sid, "signer key is not RSA")
        # signer certificate
        cert_digest = path(sp, "SignedSignatureProperties", "SigningCertificate", "Cert", "CertDigest", "DigestValue")
        report(cert_digest is not None and b64decode_loose(text_of(cert_digest)) == sha1(der_of(cert)),
               "%s signing-cert-digest" % sid, "SHA-1(KeyInfo certificate)=%s" % sha1_b64(der_of(cert)))
        issuer_serial = path(sp, "SignedSignatureProperties", "SigningCertificate", "Cert", "IssuerSerial")
        serial_el = child(issuer_serial, "X509SerialNumber") if is13 else issuer_serial
        report(text_of(serial_el).strip() == str(cert.serial_number), "%s signing-cert-serial" % sid, text_of(serial_el))
        if is13:
            for name in ("X509IssuerName", "X509SerialNumber"):
                el = child(issuer_serial, name)
                report(True if el is not None and etree.QName(el).namespace == NS_DSIG else None,
                       "%s %s-namespace" % (sid, name), etree.QName(el).namespace if el is not None else "missing")
        report(has_nonrepudiation(cert), "%s non-repudiation" % sid, "keyUsage of %s" % cert.subject.rfc4514_string())
        signing_time = path(sp, "SignedSignatureProperties", "SigningTime")
        report(True, "%s signing-time" % sid, text_of(signing_time))
        # notary (§6)
        usp = path(sig, "Object", "QualifyingProperties", "UnsignedProperties", "UnsignedSignatureProperties")
        if usp is None:
            report(False, "%s notary" % sid, "Signature has no OCSP confirmation!")
            continue
        revocation_values = child(usp, "RevocationValues")
        value_el = path(revocation_values, "OCSPValues", "EncapsulatedOCSPValue") if is13 else \
            child(revocation_values, "EncapsulatedOCSPValue")
        if value_el is None:
            report(False, "%s notary" % sid, "no EncapsulatedOCSPValue")
            continue
        der = b64decode_loose(text_of(value_el))
        ocsp_ref = path(usp, "CompleteRevocationRefs", "OCSPRefs", "OCSPRef")
        ref_value = b64decode_loose(text_of(path(ocsp_ref, "DigestAlgAndValue", "DigestValue")))
        report(ref_value == sha1(der), "%s ocsp-ref-digest" % sid, "SHA-1(OCSPResponse)=%s OCSPRef=%s" % (
            sha1_b64(der), b64(ref_value)))
        uri = path(ocsp_ref, "OCSPIdentifier").get("URI")
        report(uri == "#" + value_el.get("Id"), "%s ocsp-ref-uri" % sid, "%s -> Id %s" % (uri, value_el.get("Id")))
        try:
            response = ocsp.load_der_ocsp_response(der)
            parts = ocsp_parts(der)
        except Exception as e:  # noqa: BLE001
            report(False, "%s ocsp-decode" % sid, str(e))
            continue
        if response.response_status != ocsp.OCSPResponseStatus.SUCCESSFUL:
            report(False, "%s ocsp-status" % sid, response.response_status.name)
            continue
        nonces = [v for oid, v in parts["extensions"] if oid == NONCE_OID]
        expected = sha1(signature_value)
        if not nonces:
            report(False, "%s nonce" % sid, "no nonce extension")
        else:
            got, form = nonce_of(nonces[0])
            report(got == expected, "%s nonce" % sid, "%s (%s) SHA-1(SignatureValue)=%s" % (got.hex(), form, expected.hex()))
        if len(parts["extensions"]) != 1:
            report(None, "%s ocsp-extensions" % sid, "%d response extensions (libdigidoc wants exactly one, the nonce)"
                   % len(parts["extensions"]))
        produced = text_of(path(ocsp_ref, "OCSPIdentifier", "ProducedAt"))
        want = ddoc_time(response.produced_at, version)
        report(produced == want if version != "1.0" else (True if produced == want else None),
               "%s produced-at" % sid, "OCSPRef %s, response %s" % (produced, want))
        certs = [x509.load_der_x509_certificate(b64decode_loose(text_of(c)))
                 for c in (child(usp, "CertificateValues") if child(usp, "CertificateValues") is not None else [])
                 if local(c) == "EncapsulatedX509Certificate" and "RESPONDER_CERT" in (c.get("Id") or "")]
        responder = certs[0] if certs else None
        if responder is None:
            report(False, "%s responder-cert" % sid, "no EncapsulatedX509Certificate with RESPONDER_CERT in its Id")
            continue
        cert_refs = child(usp, "CompleteCertificateRefs")
        ref_cert = path(cert_refs, "CertRefs", "Cert") if is13 else child(cert_refs, "Cert")
        report(b64decode_loose(text_of(path(ref_cert, "CertDigest", "DigestValue"))) == sha1(der_of(responder)),
               "%s responder-cert-digest" % sid, "SHA-1(responder certificate)=%s" % sha1_b64(der_of(responder)))
        serial_text = text_of(path(ref_cert, "IssuerSerial", "X509SerialNumber") if is13 else path(ref_cert, "IssuerSerial"))
        report(serial_text.strip() == str(responder.serial_number), "%s responder-cert-serial" % sid, serial_text)
        report(verify_with(responder.public_key(), response.signature, response.tbs_response_bytes,
                           response.signature_hash_algorithm), "%s ocsp-signature" % sid,
               "by %s" % responder.subject.rfc4514_string())
        try:
            eku = responder.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
            report(x509.oid.ExtendedKeyUsageOID.OCSP_SIGNING in eku, "%s responder-eku" % sid, "OCSPSigning")
        except x509.ExtensionNotFound:
            report(False, "%s responder-eku" % sid, "no extendedKeyUsage (not an OCSP responder certificate)")
        if pki:
            ca = load(pki, "issuing-ca")[0]
            report(responder.issuer == ca.subject and verify_with(
                ca.public_key(), responder.signature, responder.tbs_certificate_bytes, responder.signature_hash_algorithm),
                "%s responder-issuer" % sid, "issued by %s" % responder.issuer.rfc4514_string())
        if response.responder_name is not None:
            report(response.responder_name == responder.subject, "%s responder-id" % sid,
                   "byName %s; XML %s" % (response.responder_name.rfc4514_string(),
                                          text_of(path(ocsp_ref, "OCSPIdentifier", "ResponderID"))))
        report(response.serial_number == cert.serial_number, "%s ocsp-certid-serial" % sid, hex(response.serial_number))
        h = hashes.Hash(response.hash_algorithm)
        h.update(cert.issuer.public_bytes())
        report(h.finalize() == response.issuer_name_hash, "%s ocsp-certid-issuer-name" % sid, "")
        if pki:
            ca = load(pki, "issuing-ca")[0]
            h = hashes.Hash(response.hash_algorithm)
            h.update(spki_bits(ca))
            report(h.finalize() == response.issuer_key_hash, "%s ocsp-certid-issuer-key" % sid, "issuing-ca")
        report(response.certificate_status == ocsp.OCSPCertStatus.GOOD, "%s ocsp-cert-status" % sid,
               response.certificate_status.name)
    for ident, name in names.items():
        if ident not in referenced and sig_elements:
            report(False, "%s referenced" % ident, "Missing Reference for file: %s" % name)
    return report


def spki_bits(cert):
    """subjectPublicKey BIT STRING content without the unused-bits byte."""
    spki = cert.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    _, s, e = der_tlv(spki, 0)
    kids = der_children(spki, s, e)
    return spki[kids[1][1] + 1:kids[1][2]]


# ---------------------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(prog=PROG, description="TEST ONLY: a DigiDoc XML (DDOC) file signed with the test PKI")
    ap.add_argument("--pki")
    ap.add_argument("--ocsp")
    ap.add_argument("--out")
    ap.add_argument("--version", default="1.3", choices=["1.3", "1.2", "1.1", "1.0"])
    ap.add_argument("--file", action="append")
    ap.add_argument("--mime", default="text/plain")
    ap.add_argument("--hashcode", action="store_true")
    ap.add_argument("--embedded", action="store_true")
    ap.add_argument("--crlf", action="store_true")
    ap.add_argument("--hashcode-of")
    ap.add_argument("--self-check")
    ap.add_argument("--signer", default="rsa-2048")
    ap.add_argument("--signatures", type=int, default=1)
    ap.add_argument("--no-ocsp", action="store_true")
    ap.add_argument("--nonce-form", default="wrapped", choices=["wrapped", "raw"])
    ap.add_argument("--signing-time")
    ap.add_argument("--dn-form", default="libdigidoc", choices=["libdigidoc", "oneline", "rfc2253"])
    ap.add_argument("--city")
    ap.add_argument("--country")
    ap.add_argument("--role", action="append")
    ap.add_argument("--responder")
    ap.add_argument("--tamper-data", action="store_true")
    ap.add_argument("--tamper-signature-value", action="store_true")
    ap.add_argument("--tamper-signed-properties", action="store_true")
    ap.add_argument("--wrong-nonce", action="store_true")
    ap.add_argument("--no-nonce", action="store_true")
    ap.add_argument("--wrong-ocsp-digest", action="store_true")
    ap.add_argument("--unsigned-datafile", action="store_true")
    ap.add_argument("--missing-datafile", action="store_true")
    ap.add_argument("--duplicate-id", action="store_true")
    ap.add_argument("--bad-id", nargs="?", const="DF0")
    ap.add_argument("--no-xmlns-datafile", action="store_true")
    ap.add_argument("--signing-cert-digest-wrong", action="store_true")
    ap.add_argument("--not-nonrepudiation", action="store_true")
    ap.add_argument("--entity-bomb", action="store_true")
    ap.add_argument("--external-entity", nargs="?", const="file:///etc/passwd")
    ap.add_argument("--comment", nargs="?", const="root", choices=["root", "datafile", "signedinfo", "signedproperties"])
    a = ap.parse_args()

    if a.self_check:
        report = self_check(a.self_check, a.pki)
        print("\n".join(report.lines))
        return 1 if report.failed else 0
    if a.hashcode_of:
        if not a.out:
            ap.error("--hashcode-of needs --out")
        with open(a.hashcode_of, "rb") as f:
            xml, lines = to_hashcode(f.read().decode("utf-8"))
        with open(a.out, "wb") as f:
            f.write(xml.encode("utf-8"))
        print("\n".join(lines))
        return 0
    if not a.pki or not a.out or (not a.ocsp and not a.no_ocsp):
        ap.error("--pki, --out and --ocsp (or --no-ocsp) are required")
    if a.signatures < 1:
        ap.error("--signatures must be at least 1")
    if a.no_xmlns_datafile and a.version != "1.3":
        ap.error("--no-xmlns-datafile is a 1.3 case (1.0-1.2 DataFiles have no namespace)")
    if a.entity_bomb and a.external_entity is not None:
        ap.error("--entity-bomb and --external-entity each write their own DOCTYPE: one at a time")
    if a.no_ocsp and (a.wrong_nonce or a.no_nonce or a.wrong_ocsp_digest):
        ap.error("the nonce and OCSPRef variants need an OCSP response")
    if a.not_nonrepudiation:
        name = rsa_without_nonrepudiation(a.pki)
        if name is None:
            sys.stderr.write("%s: --not-nonrepudiation: %s has no RSA key whose certificate lacks nonRepudiation "
                             "(DDOC is RSA-SHA1 only); skipped\n" % (PROG, a.pki))
            return 2
        a.signer = name
    print("\n".join(build(a)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
