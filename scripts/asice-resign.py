#!/usr/bin/env python3
"""asice-resign.py — rewrite signed parts of an ASiC-E signature and sign it again, as another
tool would have written it (Python, lxml, cryptography: no tamga code).

usage: asice-resign.py IN.asice OUT.asice --key KEY.pem [options]

  --issuer-name TEXT       new SigningCertificate/Cert/IssuerSerial/X509IssuerName text
  --serial TEXT            new X509SerialNumber text
  --issuer-serial-v2 B64   new SigningCertificateV2/Cert/IssuerSerialV2 (base64 DER)
  --cert-digest-of CERT    CertDigest/DigestValue := digest of CERT (PEM or DER), same method
  --keyinfo CERT           (repeatable) KeyInfo/X509Data holds these certificates, in order
  --signing-time TEXT      new SignedSignatureProperties/SigningTime text
  --tm-policy              add the BDOC 2.1 time-mark SignaturePolicyIdentifier (OIDAsURN
                           urn:oid:1.3.6.1.4.1.10015.1000.3.2.1, with an SPURI) after the
                           SigningCertificate, as BDOC time-mark signers write it
  --key KEY.pem            the key SignedInfo is signed with after the changes

The SignedProperties digest is recomputed after the changes, then the SignatureValue. The first
ds:Signature of the first META-INF/*signatures*.xml is changed; other entries are copied.
Exit status: 0 written, 1 failure, 2 usage error.
"""
import argparse
import base64
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("hostile", os.path.join(HERE, "make-hostile-containers.py"))
H = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(H)


def main(argv):
    p = argparse.ArgumentParser(usage=__doc__.split("\n\n")[1])
    p.add_argument("src")
    p.add_argument("dst")
    p.add_argument("--key", required=True)
    p.add_argument("--issuer-name")
    p.add_argument("--serial")
    p.add_argument("--issuer-serial-v2")
    p.add_argument("--cert-digest-of")
    p.add_argument("--keyinfo", action="append")
    p.add_argument("--signing-time")
    p.add_argument("--tm-policy", action="store_true")
    a = p.parse_args(argv)

    entries = H.read_container(a.src)
    names = [e.name for e in entries]
    sig_names = [n for n in names if n.startswith("META-INF/") and "signatures" in n and n.endswith(".xml")]
    if not sig_names:
        H.die("no META-INF/*signatures*.xml in %s" % a.src)
    entry = next(e for e in entries if e.name == sig_names[0])
    sig = H.Sig(entry.data)
    props = sig.signed_props()
    cert_el = props.find(".//" + H.xades("Cert"))
    if cert_el is None:
        H.die("no SigningCertificate(V2)/Cert")

    def one(parent, path):
        el = parent.find(path)
        if el is None:
            H.die("no %s" % path)
        return el

    if a.issuer_name is not None:
        one(cert_el, H.xades("IssuerSerial") + "/" + H.ds("X509IssuerName")).text = a.issuer_name
    if a.serial is not None:
        one(cert_el, H.xades("IssuerSerial") + "/" + H.ds("X509SerialNumber")).text = a.serial
    if a.issuer_serial_v2 is not None:
        one(cert_el, H.xades("IssuerSerialV2")).text = a.issuer_serial_v2
    if a.cert_digest_of is not None:
        digest_el = one(cert_el, H.xades("CertDigest"))
        method = one(digest_el, H.ds("DigestMethod")).get("Algorithm")
        one(digest_el, H.ds("DigestValue")).text = base64.b64encode(
            H.digest(method, H.cert_der(H.load_cert(a.cert_digest_of)))).decode("ascii")
    if a.signing_time is not None:
        one(props, ".//" + H.xades("SigningTime")).text = a.signing_time
    if a.tm_policy:
        ssp = one(props, H.xades("SignedSignatureProperties"))
        signing_cert = ssp.find(H.xades("SigningCertificateV2"))
        if signing_cert is None:
            signing_cert = one(ssp, H.xades("SigningCertificate"))
        spi = H.etree.Element(H.xades("SignaturePolicyIdentifier"))
        spid = H.etree.SubElement(spi, H.xades("SignaturePolicyId"))
        sigpolicyid = H.etree.SubElement(spid, H.xades("SigPolicyId"))
        ident = H.etree.SubElement(sigpolicyid, H.xades("Identifier"), Qualifier="OIDAsURN")
        ident.text = "urn:oid:1.3.6.1.4.1.10015.1000.3.2.1"
        hash_el = H.etree.SubElement(spid, H.xades("SigPolicyHash"))
        H.etree.SubElement(hash_el, H.ds("DigestMethod"), Algorithm="http://www.w3.org/2001/04/xmlenc#sha256")
        H.etree.SubElement(hash_el, H.ds("DigestValue")).text = "7pudpH4eXlguSZY2e/pNbKzGsq+fu//woYL1SZFws1A="
        qualifiers = H.etree.SubElement(spid, H.xades("SigPolicyQualifiers"))
        qualifier = H.etree.SubElement(qualifiers, H.xades("SigPolicyQualifier"))
        H.etree.SubElement(qualifier, H.xades("SPURI")).text = "https://www.sk.ee/repository/bdoc-spec21.pdf"
        signing_cert.addnext(spi)
    if a.keyinfo:
        keyinfo = one(sig.sig, H.ds("KeyInfo"))
        for old in keyinfo.findall(H.ds("X509Data")):
            keyinfo.remove(old)
        data = H.etree.SubElement(keyinfo, H.ds("X509Data"))
        for path in a.keyinfo:
            H.etree.SubElement(data, H.ds("X509Certificate")).text = base64.b64encode(
                H.cert_der(H.load_cert(path))).decode("ascii")

    sig.recompute_sp_digest()
    sig.resign(H.load_key(a.key))
    entry.data = H.serialize(sig.root)
    with open(a.dst, "wb") as f:
        f.write(H.build_zip(entries))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
