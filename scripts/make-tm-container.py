#!/usr/bin/python3
"""make-tm-container.py — writes an ASiC-E container with a BDOC 2.1 time-mark (TM) signature. TEST ONLY.

tamga validates time-marks but never creates them (the reference, libdigidocpp 4.5, cannot either),
so the tests make their own here, the way BDOC 2.1 signers did (docs/design/asics-tm-names.md §2):

  1. an XAdES signature with the BDOC 2.1 SignaturePolicyIdentifier (Identifier
     Qualifier="OIDAsURN", SigPolicyHash, SPURI), signed with a test PKI key (ECDSA, raw r||s);
  2. an OCSP request for the signer whose nonce is DER DigestInfo(hash(decoded SignatureValue)),
     sent to a loopback responder (scripts/test-services.py /ocsp/tm echoes it);
  3. the issuing CA in CertificateValues and every response, in order, in RevocationValues; no
     SignatureTimeStamp.

usage: make-tm-container.py --pki DIR --ocsp URL [--ocsp URL]... --out FILE.asice [options]

  --signer NAME       key and certificate in DIR (default ec-p256; EC P-256 keys only)
  --about NAME        the certificate the OCSP request asks about (default: the signer)
  --nonce-hash H      sha1|sha224|sha256|sha384|sha512|md5, or none for no nonce (default sha256)
  --nonce-form F      wrapped (extnValue = OCTET STRING(DigestInfo), as OpenSSL writes it) or raw
                      (extnValue = DigestInfo, as SK's 2013 responders did) (default wrapped)
  --nonce-over W      value (the base64-decoded SignatureValue: right), canonical (the canonical
                      SignatureValue element) or base64 (its base64 text) (default value)
  --policy URN        SigPolicyId/Identifier (default urn:oid:1.3.6.1.4.1.10015.1000.3.2.1);
                      "none" leaves out the whole SignaturePolicyIdentifier
  --no-qualifier      no Qualifier="OIDAsURN" on the Identifier
  --wrong-policy-hash a SigPolicyHash that is not the policy document's (the reference ignores it)
  --spuri URL         the SPURI ("" for an empty one; default https://www.sk.ee/repository/bdoc-spec21.pdf)
  --archive-garbage   append a xades141:ArchiveTimeStamp whose token is garbage (time-mark-archive)
  --timestamp URL     also add a SignatureTimeStamp from this RFC 3161 TSA (over the canonical
                      SignatureValue, as for LT): the same signature as an LT one, for comparing
                      the two judgements (e.g. a signer that expired before genTime)
  --signing-cert-path P  none (one Cert, default), after (the issuing CA's Cert after the
                      signer's, as other EU tools write the path) or before (the CA's first)
  --no-ca-cert        leave the issuing CA out of CertificateValues (the verifier must find it)

Prints the signature's Id and the nonce it asked for (hex) on stdout.
"""
import argparse
import base64
import datetime
import hashlib
import sys
import urllib.request
import zipfile
from xml.sax import saxutils

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.x509 import ocsp
from lxml import etree

NS = {
    "asic": "http://uri.etsi.org/02918/v1.2.1#",
    "ds": "http://www.w3.org/2000/09/xmldsig#",
    "xades": "http://uri.etsi.org/01903/v1.3.2#",
}
C14N11 = "http://www.w3.org/2006/12/xml-c14n11"
SHA256_URI = "http://www.w3.org/2001/04/xmlenc#sha256"
DIGEST_INFO_PREFIX = {   # DER DigestInfo up to the digest octets
    "sha1": "3021300906052b0e03021a05000414",
    "sha224": "302d300d06096086480165030402040500041c",
    "sha256": "3031300d060960864801650304020105000420",
    "sha384": "3041300d060960864801650304020205000430",
    "sha512": "3051300d060960864801650304020305000440",
    "md5": "3020300c06082a864886f70d020505000410",
}
DATA_NAME, DATA = "test.txt", b"a document sealed with a BDOC 2.1 time-mark\n"


def c14n(element):
    # Inclusive C14N 1.0 of the element with its inherited namespaces: for documents without
    # xml:* attributes it is byte-identical to the C14N 1.1 the signature names.
    return etree.tostring(element, method="c14n", exclusive=False, with_comments=False)


def b64(data):
    return base64.b64encode(data).decode()


def load(pki, name):
    with open("%s/%s.cert.pem" % (pki, name), "rb") as f:
        cert = x509.load_pem_x509_certificate(f.read())
    try:
        with open("%s/%s.key.pem" % (pki, name), "rb") as f:
            key = serialization.load_pem_private_key(f.read(), password=None)
    except FileNotFoundError:
        key = None
    return cert, key


def signature_xml(cert, issuer, a):
    der = cert.public_bytes(serialization.Encoding.DER)
    now = datetime.datetime.utcnow().replace(microsecond=0).isoformat() + "Z"

    def cert_xml(c):
        c_der = c.public_bytes(serialization.Encoding.DER)
        return ("<xades:Cert><xades:CertDigest><ds:DigestMethod Algorithm=\"%s\"/><ds:DigestValue>%s</ds:DigestValue></xades:CertDigest>"
                "<xades:IssuerSerial><ds:X509IssuerName>%s</ds:X509IssuerName><ds:X509SerialNumber>%d</ds:X509SerialNumber>"
                "</xades:IssuerSerial></xades:Cert>") % (SHA256_URI, b64(hashlib.sha256(c_der).digest()),
                                                         saxutils.escape(c.issuer.rfc4514_string()), c.serial_number)
    # XAdES lets SigningCertificate name the signer's path: --signing-cert-path adds the issuing
    # CA's Cert after the signer's ("after", as other EU tools write it) or before it ("before").
    signing_certs = {"none": cert_xml(cert), "after": cert_xml(cert) + cert_xml(issuer),
                     "before": cert_xml(issuer) + cert_xml(cert)}[a.signing_cert_path]
    policy = ""
    if a.policy != "none":
        qualifier = "" if a.no_qualifier else ' Qualifier="OIDAsURN"'
        # SHA-256 of bdoc-spec21.pdf, as BDOC 2.1 signers wrote it; or any other 32 bytes.
        policy_hash = b64(bytes(32)) if a.wrong_policy_hash else "3Tl1oILSvOAWomdI9VeWV6IA/32eSXRUri9kPEz1IVs="
        policy = ("<xades:SignaturePolicyIdentifier><xades:SignaturePolicyId><xades:SigPolicyId>"
                  "<xades:Identifier%s>%s</xades:Identifier></xades:SigPolicyId>"
                  "<xades:SigPolicyHash><ds:DigestMethod Algorithm=\"%s\"/>"
                  "<ds:DigestValue>%s</ds:DigestValue></xades:SigPolicyHash>"
                  "<xades:SigPolicyQualifiers><xades:SigPolicyQualifier><xades:SPURI>%s</xades:SPURI>"
                  "</xades:SigPolicyQualifier></xades:SigPolicyQualifiers></xades:SignaturePolicyId>"
                  "</xades:SignaturePolicyIdentifier>") % (qualifier, a.policy, SHA256_URI, policy_hash, a.spuri)
    return ("<asic:XAdESSignatures xmlns:asic=\"%(asic)s\" xmlns:ds=\"%(ds)s\" xmlns:xades=\"%(xades)s\">"
            "<ds:Signature Id=\"S0\"><ds:SignedInfo>"
            "<ds:CanonicalizationMethod Algorithm=\"%(c14n)s\"/>"
            "<ds:SignatureMethod Algorithm=\"http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256\"/>"
            "<ds:Reference Id=\"S0-RefId0\" URI=\"%(name)s\"><ds:DigestMethod Algorithm=\"%(sha)s\"/>"
            "<ds:DigestValue>%(data_digest)s</ds:DigestValue></ds:Reference>"
            "<ds:Reference Id=\"S0-RefId1\" Type=\"http://uri.etsi.org/01903#SignedProperties\" URI=\"#S0-SignedProperties\">"
            "<ds:Transforms><ds:Transform Algorithm=\"%(c14n)s\"/></ds:Transforms>"
            "<ds:DigestMethod Algorithm=\"%(sha)s\"/><ds:DigestValue></ds:DigestValue></ds:Reference>"
            "</ds:SignedInfo><ds:SignatureValue Id=\"S0-SIG\"></ds:SignatureValue>"
            "<ds:KeyInfo><ds:X509Data><ds:X509Certificate>%(cert)s</ds:X509Certificate></ds:X509Data></ds:KeyInfo>"
            "<ds:Object><xades:QualifyingProperties Target=\"#S0\">"
            "<xades:SignedProperties Id=\"S0-SignedProperties\"><xades:SignedSignatureProperties>"
            "<xades:SigningTime>%(now)s</xades:SigningTime>"
            "<xades:SigningCertificate>%(signing_certs)s</xades:SigningCertificate>"
            "%(policy)s</xades:SignedSignatureProperties>"
            "<xades:SignedDataObjectProperties><xades:DataObjectFormat ObjectReference=\"#S0-RefId0\">"
            "<xades:MimeType>text/plain</xades:MimeType></xades:DataObjectFormat></xades:SignedDataObjectProperties>"
            "</xades:SignedProperties>"
            "<xades:UnsignedProperties><xades:UnsignedSignatureProperties>"
            "<xades:CertificateValues><xades:EncapsulatedX509Certificate Id=\"S0-CA-CERT\">%(ca)s</xades:EncapsulatedX509Certificate></xades:CertificateValues>"
            "<xades:RevocationValues><xades:OCSPValues></xades:OCSPValues></xades:RevocationValues>"
            "</xades:UnsignedSignatureProperties></xades:UnsignedProperties>"
            "</xades:QualifyingProperties></ds:Object></ds:Signature></asic:XAdESSignatures>") % {
        **NS, "c14n": C14N11, "sha": SHA256_URI, "name": DATA_NAME, "data_digest": b64(hashlib.sha256(DATA).digest()),
        "cert": b64(der), "now": now, "cert_digest": b64(hashlib.sha256(der).digest()),
        "issuer": cert.issuer.rfc4514_string(), "serial": cert.serial_number, "policy": policy,
        "ca": b64(issuer.public_bytes(serialization.Encoding.DER)), "signing_certs": signing_certs}


def nonce_extension_value(signature_value, a):
    """The OCSP nonce's extnValue octets: DigestInfo(hash(what --nonce-over names)), wrapped or raw."""
    if a.nonce_over == "value":
        covered = base64.b64decode(signature_value.text)
    elif a.nonce_over == "canonical":
        covered = c14n(signature_value)
    else:
        covered = signature_value.text.encode()
    digest_info = bytes.fromhex(DIGEST_INFO_PREFIX[a.nonce_hash]) + hashlib.new(a.nonce_hash, covered).digest()
    if a.nonce_form == "raw":
        return digest_info
    return bytes([0x04, len(digest_info)]) + digest_info


def der(tag, content):
    n = len(content)
    length = bytes([n]) if n < 0x80 else bytes([0x80 | ((n.bit_length() + 7) // 8)]) + n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag]) + length + content


def der_split(data):
    """The (tag, whole element) pairs of a DER sequence's content."""
    out, i = [], 0
    while i < len(data):
        n, j = data[i + 1], i + 2
        if n & 0x80:
            k = n & 0x7F
            n, j = int.from_bytes(data[j:j + k], "big"), j + k
        out.append((data[i], data[i:j + n]))
        i = j + n
    return out


def time_stamp(url, imprint):
    """The TimeStampToken for a SHA-256 imprint, from a TimeStampResp of the TSA at url."""
    algorithm = der(0x30, der(0x06, bytes.fromhex("608648016503040201")) + b"\x05\x00")
    query = der(0x30, der(0x02, b"\x01") + der(0x30, algorithm + der(0x04, imprint)) + der(0x01, b"\xff"))
    request = urllib.request.Request(url, data=query, headers={"Content-Type": "application/timestamp-query"})
    with urllib.request.urlopen(request, timeout=10) as response:
        body = response.read()
    header = 2 + (body[1] & 0x7F if body[1] & 0x80 else 0)
    parts = der_split(body[header:len(der_split(body)[0][1])])   # status, then the token
    if len(parts) < 2:
        sys.exit("make-tm-container.py: the TSA sent no token")
    return parts[1][1]


def ask(url, about, issuer, nonce):
    builder = ocsp.OCSPRequestBuilder().add_certificate(about, issuer, hashes.SHA1())
    if nonce is not None:
        builder = builder.add_extension(x509.UnrecognizedExtension(x509.oid.OCSPExtensionOID.NONCE, nonce), False)
    body = builder.build().public_bytes(serialization.Encoding.DER)
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/ocsp-request"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read()


def main():
    ap = argparse.ArgumentParser(description="TEST ONLY: an ASiC-E container with a BDOC 2.1 time-mark signature")
    ap.add_argument("--pki", required=True)
    ap.add_argument("--ocsp", action="append", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--signer", default="ec-p256")
    ap.add_argument("--about")
    ap.add_argument("--nonce-hash", default="sha256", choices=sorted(DIGEST_INFO_PREFIX) + ["none"])
    ap.add_argument("--nonce-form", default="wrapped", choices=["wrapped", "raw"])
    ap.add_argument("--nonce-over", default="value", choices=["value", "canonical", "base64"])
    ap.add_argument("--policy", default="urn:oid:1.3.6.1.4.1.10015.1000.3.2.1")
    ap.add_argument("--no-qualifier", action="store_true")
    ap.add_argument("--wrong-policy-hash", action="store_true")
    ap.add_argument("--spuri", default="https://www.sk.ee/repository/bdoc-spec21.pdf")
    ap.add_argument("--archive-garbage", action="store_true")
    ap.add_argument("--timestamp")
    ap.add_argument("--signing-cert-path", default="none", choices=["none", "after", "before"])
    ap.add_argument("--no-ca-cert", action="store_true", help="leave the issuing CA out of CertificateValues")
    a = ap.parse_args()

    cert, key = load(a.pki, a.signer)
    issuer, _ = load(a.pki, "issuing-ca")
    about = load(a.pki, a.about)[0] if a.about else cert
    if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
        sys.exit("make-tm-container.py: only EC P-256 signers are supported")

    root = etree.fromstring(signature_xml(cert, issuer, a).encode())
    q = lambda path: root.find(path, NS)  # noqa: E731
    signed_properties = q(".//xades:SignedProperties")
    q(".//ds:Reference[@Id='S0-RefId1']/ds:DigestValue").text = b64(hashlib.sha256(c14n(signed_properties)).digest())
    der_signature = key.sign(c14n(q(".//ds:SignedInfo")), ec.ECDSA(hashes.SHA256()))
    r, s = decode_dss_signature(der_signature)
    signature_value = q(".//ds:SignatureValue")
    signature_value.text = b64(r.to_bytes(32, "big") + s.to_bytes(32, "big"))

    nonce = None if a.nonce_hash == "none" else nonce_extension_value(signature_value, a)
    if a.timestamp:
        token = time_stamp(a.timestamp, hashlib.sha256(c14n(signature_value)).digest())
        stamp = etree.Element("{%s}SignatureTimeStamp" % NS["xades"], Id="S0-T0")
        etree.SubElement(stamp, "{%s}CanonicalizationMethod" % NS["ds"], Algorithm=C14N11)
        etree.SubElement(stamp, "{%s}EncapsulatedTimeStamp" % NS["xades"]).text = b64(token)
        q(".//xades:UnsignedSignatureProperties").insert(0, stamp)
    if a.no_ca_cert:
        # Unsigned, so leaving it out changes no signature: the verifier must find the CA itself.
        values_element = q(".//xades:CertificateValues")
        values_element.getparent().remove(values_element)
    values = q(".//xades:OCSPValues")
    for index, url in enumerate(a.ocsp):
        value = etree.SubElement(values, "{%s}EncapsulatedOCSPValue" % NS["xades"], Id="N%d" % index)
        value.text = b64(ask(url, about, issuer, nonce))
    if a.archive_garbage:
        xades141 = "http://uri.etsi.org/01903/v1.4.1#"
        archive = etree.SubElement(q(".//xades:UnsignedSignatureProperties"), "{%s}ArchiveTimeStamp" % xades141,
                                   nsmap={"xades141": xades141}, Id="S0-A0")
        etree.SubElement(archive, "{%s}CanonicalizationMethod" % NS["ds"], Algorithm=C14N11)
        etree.SubElement(archive, "{%s}EncapsulatedTimeStamp" % NS["xades"]).text = b64(b"\x30\x03\x02\x01\x00 not a token")

    manifest = ("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\" ?>\n"
                "<manifest:manifest xmlns:manifest=\"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0\" manifest:version=\"1.2\">\n"
                "<manifest:file-entry manifest:full-path=\"/\" manifest:media-type=\"application/vnd.etsi.asic-e+zip\"/>\n"
                "<manifest:file-entry manifest:full-path=\"%s\" manifest:media-type=\"text/plain\"/>\n"
                "</manifest:manifest>\n") % DATA_NAME
    with zipfile.ZipFile(a.out, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), b"application/vnd.etsi.asic-e+zip", compress_type=zipfile.ZIP_STORED)
        z.writestr(DATA_NAME, DATA, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("META-INF/manifest.xml", manifest, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("META-INF/signatures0.xml",
                   b"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n" + etree.tostring(root),
                   compress_type=zipfile.ZIP_DEFLATED)
    print("S0", nonce.hex() if nonce is not None else "-")
    return 0


if __name__ == "__main__":
    sys.exit(main())
