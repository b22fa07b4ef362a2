#!/usr/bin/python3
"""Make signed ETSI TS 119 612 trusted lists (TSLs) over the test PKI, for tamga's trust tests.

TEST ONLY: every key this script makes or uses is a published test key.

Usage
-----
    /usr/bin/python3 scripts/make-test-tsl.py OUTDIR [--pki DIR]

Needs python3-lxml (4.9), python3-cryptography (38) and xmlsec1 (1.2.37, OpenSSL backend),
all from Debian 12; run it with /usr/bin/python3 (a pyenv python has no lxml). ``--pki``
defaults to Fixtures/pki next to this script; the lists name its issuing-ca, ocsp-responder and
tsa certificates, so regenerating the PKI means running this script again.

What it writes into OUTDIR
--------------------------
* ``tsl-signer.key.pem`` / ``tsl-signer.cert.pem``: the signer of the lists, EC P-256,
  self-signed, ``CN=tamga Test TSL Signer,O=tamga TEST ONLY,C=EE``, keyUsage critical
  digitalSignature + nonRepudiation, EKU id-tsl-kp-tslSigning, 2025-01-01..2045-01-01.
  ``wrong-tsl-signer.*``: a second, unrelated signer made the same way. Both are reused when
  present (so the lists can be remade without changing the pinned certificate); delete them
  to get new keys.
* ``tsl-*.xml``: one signed list per case (the ``cases`` table in main(); OUTDIR/README.md in
  Fixtures/tsl describes them).
* ``cases.json``: for each case the file, the certificate that signed it, the certificate a
  verifier pins, and the expected outcome for a signature made in 2026 by Fixtures/pki
  ec-p256, time-stamped then by tsa, with OCSP from ocsp-responder.

Everything is deterministic except the key pairs (first run only) and the ECDSA signature
values; each run overwrites the lists and cases.json. Every list is checked with
``xmlsec1 --verify`` at the end and a summary table is printed; the exit status is non-zero
if any check disagrees with its expectation.

List layout (one TrustServiceProvider, services in the order CA, OCSP, TSA)
-------------------------------------------------------------------------
Root ``TrustServiceStatusList`` (default namespace http://uri.etsi.org/02231/v2#; prefixes ds,
xades, ecc and tslx declared on the root) with ``Id="TEST-EE"``; SchemeInformation in schema
order; enveloped signature as the last child of the root, made by ``xmlsec1 --sign`` from a
template: exclusive C14N for SignedInfo, ecdsa-sha256, Reference ``#TEST-EE`` with the
enveloped-signature and exclusive-C14N transforms, Reference ``#tsl-signed-properties``
(Type .../01903#SignedProperties) with an exclusive-C14N transform, KeyInfo/X509Data with the
signer certificate, ds:Object with xades:QualifyingProperties (SigningTime, SigningCertificate
v1 with SHA-256, DataObjectFormat text/xml for the list reference).
"""

import argparse
import base64
import datetime
import hashlib
import json
import os
import subprocess
import sys
import tempfile

from lxml import etree
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID, ObjectIdentifier

# --------------------------------------------------------------------------- namespaces, URIs

NS_TSL = "http://uri.etsi.org/02231/v2#"
NS_DS = "http://www.w3.org/2000/09/xmldsig#"
NS_XADES = "http://uri.etsi.org/01903/v1.3.2#"
NS_ECC = "http://uri.etsi.org/TrstSvc/SvcInfoExt/eSigDir-1999-93-EC-TrustedList/#"
NS_TSLX = "http://uri.etsi.org/02231/v2/additionaltypes#"
NS_XML = "http://www.w3.org/XML/1998/namespace"
NSMAP = {None: NS_TSL, "ds": NS_DS, "ecc": NS_ECC, "tslx": NS_TSLX, "xades": NS_XADES}

TSL_TAG = "http://uri.etsi.org/19612/TSLTag"
TSL_TYPE_GENERIC = "http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUgeneric"
STATUS_DETERMINATION = "http://uri.etsi.org/TrstSvc/TrustedList/StatusDetn/EUappropriate"
COMMUNITY_RULES = "http://uri.etsi.org/TrstSvc/TrustedList/schemerules/EUcommon"

SVC = "http://uri.etsi.org/TrstSvc/Svctype/"
CA_QC = SVC + "CA/QC"
CA_PKC = SVC + "CA/PKC"
OCSP_QC = SVC + "Certstatus/OCSP/QC"
OCSP_NONQC = SVC + "Certstatus/OCSP"
TSA_QTST = SVC + "TSA/QTST"

STATUS = "http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/"
GRANTED = STATUS + "granted"
WITHDRAWN = STATUS + "withdrawn"

SIE = "http://uri.etsi.org/TrstSvc/TrustedList/SvcInfoExt/"

C14N_EXC = "http://www.w3.org/2001/10/xml-exc-c14n#"
ENVELOPED = "http://www.w3.org/2000/09/xmldsig#enveloped-signature"
ECDSA_SHA256 = "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256"
SHA256 = "http://www.w3.org/2001/04/xmlenc#sha256"
SIGNED_PROPERTIES_TYPE = "http://uri.etsi.org/01903#SignedProperties"

ROOT_ID = "TEST-EE"
SIGNATURE_ID = "tsl-signature"
REF_LIST_ID = "tsl-ref-list"
SIGNED_PROPERTIES_ID = "tsl-signed-properties"

ID_TSL_KP_TSL_SIGNING = ObjectIdentifier("0.4.0.2231.3.0")

# --------------------------------------------------------------------------- fixed times

def utc(y, m, d):
    return datetime.datetime(y, m, d, tzinfo=datetime.timezone.utc)


def xml_time(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


T_2024 = utc(2024, 1, 1)
T_2025_06 = utc(2025, 6, 1)
T_2030 = utc(2030, 1, 1)
ISSUED = utc(2026, 1, 1)              # ListIssueDateTime and SigningTime of the current lists
NEXT_UPDATE = utc(2045, 1, 1)         # far ahead: the fixtures stay valid as long as the PKI
EXPIRED_ISSUED = utc(2025, 1, 1)      # tsl-expired.xml: an older list ...
EXPIRED_NEXT_UPDATE = utc(2025, 7, 1)  # ... whose NextUpdate has passed
SEQUENCE = 10
EXPIRED_SEQUENCE = 9
CERT_NOT_BEFORE = utc(2025, 1, 1)
CERT_NOT_AFTER = utc(2045, 1, 1)

# --------------------------------------------------------------------------- signer keys


def make_signer(outdir, stem, common_name, serial):
    """Create (or reuse) OUTDIR/STEM.key.pem + STEM.cert.pem; return (key path, cert path, cert)."""
    key_path = os.path.join(outdir, stem + ".key.pem")
    cert_path = os.path.join(outdir, stem + ".cert.pem")
    if os.path.exists(key_path):
        with open(key_path, "rb") as f:
            key = serialization.load_pem_private_key(f.read(), password=None)
        created_key = False
    else:
        key = ec.generate_private_key(ec.SECP256R1())
        with open(key_path, "wb") as f:
            f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
        created_key = True
    if os.path.exists(cert_path) and not created_key:
        with open(cert_path, "rb") as f:
            cert = x509.load_pem_x509_certificate(f.read())
        if cert.public_key().public_numbers() != key.public_key().public_numbers():
            sys.exit(f"{cert_path} does not belong to {key_path}: delete both to make new ones")
        print(f"reusing {stem}.key.pem / {stem}.cert.pem")
        return key_path, cert_path, cert
    name = x509.Name([
        x509.NameAttribute(NameOID.COUNTRY_NAME, "EE"),
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, "tamga TEST ONLY"),
        x509.NameAttribute(NameOID.COMMON_NAME, common_name),
    ])
    ski = x509.SubjectKeyIdentifier.from_public_key(key.public_key())
    cert = (x509.CertificateBuilder()
            .subject_name(name).issuer_name(name)
            .public_key(key.public_key())
            .serial_number(serial)
            .not_valid_before(CERT_NOT_BEFORE.replace(tzinfo=None))
            .not_valid_after(CERT_NOT_AFTER.replace(tzinfo=None))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=True,
                                         key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, key_cert_sign=False, crl_sign=False,
                                         encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ID_TSL_KP_TSL_SIGNING]), critical=False)
            .add_extension(ski, critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ski),
                           critical=False)
            .sign(key, hashes.SHA256()))
    with open(cert_path, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    print(f"created {stem}.cert.pem" + (" and a new key" if created_key else " for the existing key"))
    return key_path, cert_path, cert


# --------------------------------------------------------------------------- PKI certificates


class PkiCert:
    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        self.path = path
        self.cert = x509.load_pem_x509_certificate(data)
        self.der = self.cert.public_bytes(serialization.Encoding.DER)
        self.b64 = base64.b64encode(self.der).decode()
        self.subject = self.cert.subject.rfc4514_string()
        self.ski = self.cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value.digest
        self.sha256 = hashlib.sha256(self.der).hexdigest()


# --------------------------------------------------------------------------- XML building


def q(ns, tag):
    return "{%s}%s" % (ns, tag)


def el(parent, tag, text=None, ns=NS_TSL, **attrs):
    e = etree.SubElement(parent, q(ns, tag))
    for k, v in attrs.items():
        e.set(k, v)
    if text is not None:
        e.text = text
    return e


def names(parent, tag, text):
    holder = el(parent, tag)
    n = el(holder, "Name", text)
    n.set(q(NS_XML, "lang"), "en")
    return holder


def uri_list(parent, tag, *uris):
    holder = el(parent, tag)
    for u in uris:
        el(holder, "URI", u).set(q(NS_XML, "lang"), "en")
    return holder


def address(parent, tag):
    a = el(parent, tag)
    pa = el(el(a, "PostalAddresses"), "PostalAddress")
    pa.set(q(NS_XML, "lang"), "en")
    el(pa, "StreetAddress", "TEST ONLY street 1")
    el(pa, "Locality", "Tallinn")
    el(pa, "CountryName", "EE")
    uri_list(a, "ElectronicAddress", "mailto:tsl-test@tamga.invalid", "https://tamga.invalid/test-tsl")
    return a


def digital_identity(parent, cert, with_certificate):
    """ServiceDigitalIdentity. The current status carries the certificate (+ subject name); history
    instances carry only the subject name and SKI, like the EU lists: a verifier has to pool the
    certificates of all instances of a service (docs/design/trust.md section 4)."""
    sdi = el(parent, "ServiceDigitalIdentity")
    if with_certificate:
        el(el(sdi, "DigitalId"), "X509Certificate", cert.b64)
    el(el(sdi, "DigitalId"), "X509SubjectName", cert.subject)
    if not with_certificate:
        el(el(sdi, "DigitalId"), "X509SKI", base64.b64encode(cert.ski).decode())
    return sdi


def qualifications_extension(exts):
    """ecc:Qualifications making every certificate with nonRepudiation a QC on a QSCD
    (the test signers carry no qcStatements; see cases.json "notes")."""
    ext = el(exts, "Extension", Critical="true")
    quals = el(ext, "Qualifications", ns=NS_ECC)
    for qualifier, description in (
            ("QCWithQSCD", "TEST ONLY: certificates with nonRepudiation are supported by a QSCD"),
            ("QCStatement", "TEST ONLY: certificates with nonRepudiation are qualified")):
        qe = el(quals, "QualificationElement", ns=NS_ECC)
        el(el(qe, "Qualifiers", ns=NS_ECC), "Qualifier", ns=NS_ECC, uri=SIE + qualifier)
        crit = el(qe, "CriteriaList", ns=NS_ECC)
        crit.set("assert", "all")  # a Python keyword: not a keyword argument of el()
        el(el(crit, "KeyUsage", ns=NS_ECC), "KeyUsageBit", "true", ns=NS_ECC, name="nonRepudiation")
        el(crit, "Description", description, ns=NS_ECC)


def additional_info_extension(exts, uri):
    ext = el(exts, "Extension", Critical="false")
    el(el(ext, "AdditionalServiceInformation"), "URI", uri).set(q(NS_XML, "lang"), "en")


def status_fields(parent, service_type, name, cert, status, start, history):
    """The fields shared by ServiceInformation and ServiceHistoryInstance, up to StatusStartingTime."""
    el(parent, "ServiceTypeIdentifier", service_type)
    names(parent, "ServiceName", name)
    digital_identity(parent, cert, with_certificate=not history)
    el(parent, "ServiceStatus", status)
    el(parent, "StatusStartingTime", xml_time(start))


def extensions_for(parent, service_type, status):
    if status != GRANTED:
        return
    if service_type == CA_QC:
        exts = el(parent, "ServiceInformationExtensions")
        qualifications_extension(exts)
        additional_info_extension(exts, SIE + "ForeSignatures")
    elif service_type == TSA_QTST:
        exts = el(parent, "ServiceInformationExtensions")
        additional_info_extension(exts, SIE + "ForeSignatures")


def service(services, svc):
    """svc: dict(type, name, cert, timeline=[(status, start), ...] newest first)."""
    s = el(services, "TSPService")
    info = el(s, "ServiceInformation")
    (status, start), older = svc["timeline"][0], svc["timeline"][1:]
    status_fields(info, svc["type"], svc["name"], svc["cert"], status, start, history=False)
    el(el(info, "TSPServiceDefinitionURI"), "URI", "https://tamga.invalid/test-tsl/policy").set(
        q(NS_XML, "lang"), "en")
    extensions_for(info, svc["type"], status)
    if older:
        hist = el(s, "ServiceHistory")
        for status, start in older:
            inst = el(hist, "ServiceHistoryInstance")
            status_fields(inst, svc["type"], svc["name"], svc["cert"], status, start, history=True)
            extensions_for(inst, svc["type"], status)


def build_list(services, sequence, issued, next_update):
    root = etree.Element(q(NS_TSL, "TrustServiceStatusList"), nsmap=NSMAP)
    root.set("Id", ROOT_ID)
    root.set("TSLTag", TSL_TAG)
    si = el(root, "SchemeInformation")
    el(si, "TSLVersionIdentifier", "5")
    el(si, "TSLSequenceNumber", str(sequence))
    el(si, "TSLType", TSL_TYPE_GENERIC)
    names(si, "SchemeOperatorName", "tamga TEST ONLY scheme operator")
    address(si, "SchemeOperatorAddress")
    names(si, "SchemeName", "EE:tamga TEST ONLY trusted list of test trust services")
    uri_list(si, "SchemeInformationURI", "https://tamga.invalid/test-tsl")
    el(si, "StatusDeterminationApproach", STATUS_DETERMINATION)
    uri_list(si, "SchemeTypeCommunityRules", COMMUNITY_RULES)
    el(si, "SchemeTerritory", "EE")
    el(el(si, "PolicyOrLegalNotice"), "TSLLegalNotice",
       "TEST ONLY. This list names test certificates with published private keys. "
       "It must never be trusted outside tamga's tests.").set(q(NS_XML, "lang"), "en")
    el(si, "HistoricalInformationPeriod", "65535")
    el(si, "ListIssueDateTime", xml_time(issued))
    el(el(si, "NextUpdate"), "dateTime", xml_time(next_update))
    tsp = el(el(root, "TrustServiceProviderList"), "TrustServiceProvider")
    info = el(tsp, "TSPInformation")
    names(info, "TSPName", "tamga TEST ONLY trust service provider")
    address(info, "TSPAddress")
    uri_list(info, "TSPInformationURI", "https://tamga.invalid/test-tsp")
    svcs = el(tsp, "TSPServices")
    for svc in services:
        service(svcs, svc)
    etree.indent(root, space="  ")
    return root


def append_signature_template(root, signer_cert, signing_time):
    """Append the xmlsec1 template (empty DigestValue/SignatureValue/X509Data) as the last child."""
    D = lambda parent, tag, **a: el(parent, tag, ns=NS_DS, **a)  # noqa: E731
    X = lambda parent, tag, text=None, **a: el(parent, tag, text, ns=NS_XADES, **a)  # noqa: E731
    sig = D(root, "Signature", Id=SIGNATURE_ID)
    si = D(sig, "SignedInfo")
    D(si, "CanonicalizationMethod", Algorithm=C14N_EXC)
    D(si, "SignatureMethod", Algorithm=ECDSA_SHA256)
    ref = D(si, "Reference", Id=REF_LIST_ID, URI="#" + ROOT_ID)
    tr = D(ref, "Transforms")
    D(tr, "Transform", Algorithm=ENVELOPED)
    D(tr, "Transform", Algorithm=C14N_EXC)
    D(ref, "DigestMethod", Algorithm=SHA256)
    D(ref, "DigestValue")
    ref = D(si, "Reference", Type=SIGNED_PROPERTIES_TYPE, URI="#" + SIGNED_PROPERTIES_ID)
    D(D(ref, "Transforms"), "Transform", Algorithm=C14N_EXC)
    D(ref, "DigestMethod", Algorithm=SHA256)
    D(ref, "DigestValue")
    D(sig, "SignatureValue")
    D(D(sig, "KeyInfo"), "X509Data")
    qp = X(D(sig, "Object"), "QualifyingProperties", Target="#" + SIGNATURE_ID)
    sp = X(qp, "SignedProperties", Id=SIGNED_PROPERTIES_ID)
    ssp = X(sp, "SignedSignatureProperties")
    X(ssp, "SigningTime", xml_time(signing_time))
    c = X(X(ssp, "SigningCertificate"), "Cert")
    cd = X(c, "CertDigest")
    D(cd, "DigestMethod", Algorithm=SHA256)
    el(cd, "DigestValue", base64.b64encode(signer_cert.fingerprint(hashes.SHA256())).decode(), ns=NS_DS)
    iss = X(c, "IssuerSerial")
    el(iss, "X509IssuerName", signer_cert.issuer.rfc4514_string(), ns=NS_DS)
    el(iss, "X509SerialNumber", str(signer_cert.serial_number), ns=NS_DS)
    dof = X(X(sp, "SignedDataObjectProperties"), "DataObjectFormat", ObjectReference="#" + REF_LIST_ID)
    X(dof, "MimeType", "text/xml")
    # compact signature (no whitespace inside), on its own line before </TrustServiceStatusList>
    root[-2].tail = "\n"
    sig.tail = "\n"


# --------------------------------------------------------------------------- xmlsec1


def xmlsec_sign(root, key_path, cert_path, out_path):
    data = etree.tostring(root, xml_declaration=True, encoding="UTF-8") + b"\n"
    with tempfile.NamedTemporaryFile(suffix=".xml", delete=False) as tmpl:
        tmpl.write(data)
    try:
        r = subprocess.run(["xmlsec1", "--sign", "--privkey-pem", f"{key_path},{cert_path}",
                            "--id-attr:Id", "TrustServiceStatusList",
                            "--output", out_path, tmpl.name], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"xmlsec1 --sign failed for {out_path}:\n{r.stdout}{r.stderr}")
    finally:
        os.unlink(tmpl.name)


def xmlsec_verify(path, cert_path):
    r = subprocess.run(["xmlsec1", "--verify", "--pubkey-cert-pem", cert_path,
                        "--id-attr:Id", "TrustServiceStatusList", path],
                       capture_output=True, text=True)
    out = r.stdout + r.stderr
    refs = ""
    for line in out.splitlines():
        if "SignedInfo References (ok/all)" in line:
            refs = line.split(":")[-1].strip()
    # stderr also carries "certificate verification failed ... self-signed certificate": xmlsec1
    # cannot build a chain for the KeyInfo certificate and falls back to the --pubkey-cert-pem key.
    lines = [line.strip() for line in out.splitlines()]
    return ("OK" if r.returncode == 0 and "OK" in lines else "FAIL"), refs


# --------------------------------------------------------------------------- model check

START_STATUSES = {GRANTED, STATUS + "recognisedatnationallevel"}
MODEL_TIME = utc(2026, 6, 1)  # a validation time inside the window the expectations are for


def parse_time(text):
    return datetime.datetime.strptime(text.strip(), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)


def model_expectation(path, signature_ok, ca, ocsp, tsa, tm_ocsp, t=MODEL_TIME):
    """Re-derive a case's outcome from the written list with the rules of docs/design/trust.md sections 3-4 (latest
    status starting at or before t decides, the current entry winning ties; certificates pooled
    over a service's instances; stores CA = {CA/QC}, OCSP = {CA/QC, OCSP/QC}, TSA = {TSA/QTST}; a
    certificate is trusted if it or its direct issuer is an anchor). A check on cases.json.

    Also for the signer's chain at its certificate's notBefore (2025-01-01, when the CA must
    already be granted: docs/design/asics-tm-names.md section 4), and for a BDOC 2.1 time-mark made in 2026 with
    OCSP from ocsp-responder-tm: the signer at notBefore only and that responder at producedAt."""
    at_issue = anchors_at(path, CERT_NOT_BEFORE)
    anchors = anchors_at(path, t)
    root = etree.parse(path).getroot()
    next_update = parse_time(root.findtext(".//{%s}NextUpdate/{%s}dateTime" % (NS_TSL, NS_TSL)))
    accepted = signature_ok and next_update > t
    stores = dict(signer_chain=anchors[CA_QC], timestamp=anchors[TSA_QTST],
                  ocsp_responder=anchors[CA_QC] | anchors[OCSP_QC], signer_chain_at_issue=at_issue[CA_QC])
    # every end-entity certificate of the scenario is issued by the issuing CA
    leaf = dict(signer_chain=None, timestamp=tsa.der, ocsp_responder=ocsp.der, signer_chain_at_issue=None)
    out = {}
    for k, store in stores.items():
        hit = accepted and (ca.der in store or (leaf[k] is not None and leaf[k] in store))
        out[k] = "trusted" if hit else "untrusted"
    out["overall"] = "trusted" if all(v == "trusted" for v in out.values()) else "untrusted"
    tm_store = anchors[CA_QC] | anchors[OCSP_QC]
    tm_responder = accepted and (ca.der in tm_store or tm_ocsp.der in tm_store)
    out["time_mark"] = "trusted" if tm_responder and out["signer_chain_at_issue"] == "trusted" else "untrusted"
    return ("accepted" if accepted else "refused"), out


def anchors_at(path, t):
    """The certificates of each store's services whose latest status at t is a start status."""
    root = etree.parse(path).getroot()
    anchors = {CA_QC: set(), OCSP_QC: set(), TSA_QTST: set()}
    for svc in root.iter(q(NS_TSL, "TSPService")):
        info = svc.find(q(NS_TSL, "ServiceInformation"))
        stype = info.findtext(q(NS_TSL, "ServiceTypeIdentifier"))
        entries = [(parse_time(info.findtext(q(NS_TSL, "StatusStartingTime"))), 1,
                    info.findtext(q(NS_TSL, "ServiceStatus")))]
        for inst in svc.iter(q(NS_TSL, "ServiceHistoryInstance")):
            if inst.findtext(q(NS_TSL, "ServiceTypeIdentifier")) == stype:
                entries.append((parse_time(inst.findtext(q(NS_TSL, "StatusStartingTime"))), 0,
                                inst.findtext(q(NS_TSL, "ServiceStatus"))))
        started = [e for e in entries if e[0] <= t]
        if stype in anchors and started and max(started)[2] in START_STATUSES:
            anchors[stype] |= {base64.b64decode(c.text) for c in svc.iter(q(NS_TSL, "X509Certificate"))}
    return anchors


# --------------------------------------------------------------------------- cases


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--pki", default=os.path.join(here, "..", "Fixtures", "pki"))
    args = ap.parse_args()
    outdir, pki = args.outdir, os.path.normpath(args.pki)
    os.makedirs(outdir, exist_ok=True)

    key, cert_path, signer = make_signer(outdir, "tsl-signer", "tamga Test TSL Signer", 0x7510001)
    wkey, wcert_path, wrong = make_signer(outdir, "wrong-tsl-signer", "tamga Test Wrong TSL Signer",
                                          0x7510002)
    ca = PkiCert(os.path.join(pki, "issuing-ca.cert.pem"))
    ocsp = PkiCert(os.path.join(pki, "ocsp-responder.cert.pem"))
    tsa = PkiCert(os.path.join(pki, "tsa.cert.pem"))
    tm_ocsp = PkiCert(os.path.join(pki, "ocsp-responder-tm.cert.pem"))

    def ca_svc(*timeline, kind=CA_QC):
        return dict(type=kind, cert=ca, timeline=list(timeline),
                    name="tamga Test Issuing CA: TEST ONLY certificates for signatures")

    def ocsp_svc(kind=OCSP_QC):
        return dict(type=kind, cert=ocsp, timeline=[(GRANTED, T_2024)],
                    name="tamga Test OCSP Responder: TEST ONLY status of tamga Test Issuing CA")

    def tm_ocsp_svc():
        return dict(type=OCSP_QC, cert=tm_ocsp, timeline=[(GRANTED, T_2024)],
                    name="tamga Test TM OCSP Responder: TEST ONLY time-marks for tamga Test Issuing CA")

    def tsa_svc():
        return dict(type=TSA_QTST, cert=tsa, timeline=[(GRANTED, T_2024)],
                    name="tamga Test TSA: TEST ONLY qualified time-stamps")

    good_services = [ca_svc((GRANTED, T_2024)), ocsp_svc(), tsa_svc()]
    ok = dict(signer_chain="trusted", timestamp="trusted", ocsp_responder="trusted", signer_chain_at_issue="trusted",
              overall="trusted", time_mark="trusted")
    none = dict(signer_chain="untrusted", timestamp="untrusted", ocsp_responder="untrusted",
                signer_chain_at_issue="untrusted", overall="untrusted", time_mark="untrusted")

    # name, services, list expectation, component expectations, note
    cases = [
        ("tsl-good", good_services, "accepted", ok,
         "CA/QC, Certstatus/OCSP/QC and TSA/QTST granted since 2024-01-01."),
        ("tsl-ca-withdrawn-2025",
         [ca_svc((WITHDRAWN, T_2025_06), (GRANTED, T_2024)), ocsp_svc(), tsa_svc()], "accepted",
         dict(ok, signer_chain="untrusted", overall="untrusted", time_mark="untrusted"),
         "CA/QC now withdrawn since 2025-06-01; ServiceHistory: granted 2024-01-01. At 2026 the "
         "latest status is withdrawn, so nothing anchors the signer's chain. The responder is still "
         "trusted through its own Certstatus/OCSP/QC service. At the signer's notBefore the CA was "
         "granted; a time-mark still fails because its responder (ocsp-responder-tm) is not listed "
         "and its CA is withdrawn at producedAt."),
        ("tsl-ca-granted-later", [ca_svc((GRANTED, T_2030)), ocsp_svc(), tsa_svc()], "accepted",
         dict(ok, signer_chain="untrusted", signer_chain_at_issue="untrusted", overall="untrusted", time_mark="untrusted"),
         "CA/QC granted only from 2030-01-01, no history: no status starts before 2026."),
        ("tsl-ca-withdrawn-2030",
         [ca_svc((WITHDRAWN, T_2030), (GRANTED, T_2024)), ocsp_svc(), tsa_svc()], "accepted", ok,
         "CA/QC current status withdrawn from 2030-01-01; ServiceHistory: granted 2024-01-01, which is "
         "the latest status starting before 2026. The history instance carries only X509SubjectName "
         "and X509SKI: the certificate comes from the current ServiceInformation (pooled)."),
        ("tsl-tsa-missing", [ca_svc((GRANTED, T_2024)), ocsp_svc()], "accepted",
         dict(ok, timestamp="untrusted", overall="untrusted"),
         "No TSA/QTST service: the time-stamp's signer is in no TSA store."),
        ("tsl-ocsp-missing", [ca_svc((GRANTED, T_2024), kind=CA_PKC), ocsp_svc(kind=OCSP_NONQC), tsa_svc()],
         "accepted", dict(ok, signer_chain="untrusted", ocsp_responder="untrusted", signer_chain_at_issue="untrusted",
                          overall="untrusted", time_mark="untrusted"),
         "No Certstatus/OCSP/QC and no CA/QC: the issuing CA is listed only as CA/PKC and the "
         "responder only as Certstatus/OCSP (both granted, both non-qualified types that a verifier "
         "drops). The OCSP store {CA/QC, Certstatus/OCSP/QC} is empty, so the responder is "
         "untrusted; with the same PKI this necessarily makes the signer's chain untrusted too "
         "(the responder and the signer share the issuing CA). Only the time-stamp is trusted."),
        ("tsl-ocsp-via-ca", [ca_svc((GRANTED, T_2024)), tsa_svc()], "accepted", ok,
         "(extra) No OCSP service at all, CA/QC granted: the responder is trusted through its issuer, "
         "because the OCSP store is {CA/QC, Certstatus/OCSP/QC}."),
        ("tsl-ca-granted-2025", [ca_svc((GRANTED, T_2025_06)), ocsp_svc(), tm_ocsp_svc(), tsa_svc()], "accepted",
         dict(ok, signer_chain_at_issue="untrusted", overall="untrusted", time_mark="untrusted"),
         "CA/QC granted only from 2025-06-01, after the signer's notBefore (2025-01-01) and before "
         "genTime: trusted at genTime, but the CA was not granted when it issued the certificate, "
         "which the reference also requires (Unknown), for LT and TM alike."),
        ("tsl-ca-withdrawn-2025-tm",
         [ca_svc((WITHDRAWN, T_2025_06), (GRANTED, T_2024)), ocsp_svc(), tm_ocsp_svc(), tsa_svc()], "accepted",
         dict(ok, signer_chain="untrusted", overall="untrusted"),
         "As tsl-ca-withdrawn-2025, plus ocsp-responder-tm as its own Certstatus/OCSP/QC service: "
         "the CA, granted at the signer's notBefore, is withdrawn before genTime. An LT signature is "
         "Unknown (chain at genTime); a time-mark is OK (signer judged at notBefore only, responder "
         "trusted through its own service), as the reference judges."),
        ("tsl-bad-signature", None, "refused",
         none,
         "tsl-good.xml with one character of the first ServiceName changed after signing: the list "
         "digest no longer matches; the list must be refused as a whole."),
        ("tsl-wrong-signer", good_services, "refused",
         none,
         "Same content as tsl-good.xml, validly signed by wrong-tsl-signer (its certificate in "
         "KeyInfo): refused when the pinned certificate is tsl-signer.cert.pem."),
        ("tsl-expired", good_services, "refused",
         none,
         "Same services as tsl-good.xml, TSLSequenceNumber 9, issued 2025-01-01, NextUpdate "
         "2025-07-01: validly signed but expired, so refused (a validator that allows expired lists "
         "would find everything trusted)."),
    ]

    results = []
    good_path = os.path.join(outdir, "tsl-good.xml")
    for name, services, list_expect, expect, note in cases:
        path = os.path.join(outdir, name + ".xml")
        signed_by, signed_key = cert_path, key
        sequence, issued, next_update = SEQUENCE, ISSUED, NEXT_UPDATE
        if name == "tsl-wrong-signer":
            signed_by, signed_key = wcert_path, wkey
        if name == "tsl-expired":
            sequence, issued, next_update = EXPIRED_SEQUENCE, EXPIRED_ISSUED, EXPIRED_NEXT_UPDATE
        if name == "tsl-bad-signature":
            with open(good_path, "rb") as f:
                data = f.read()
            start = data.index(b"<ServiceName>")
            end = data.index(b"</Name>", start)
            pos = end - 1  # last character of the first ServiceName/Name
            assert data[pos:pos + 1].isalpha()
            new = b"X" if data[pos:pos + 1] != b"X" else b"Y"
            data = data[:pos] + new + data[pos + 1:]
            with open(path, "wb") as f:
                f.write(data)
            name_start = data.rindex(b"<Name", start, end)
            note += f" Tampered element: {data[name_start:end + 7].decode()}"
            services = good_services
        else:
            root = build_list(services, sequence, issued, next_update)
            signer_cert = wrong if name == "tsl-wrong-signer" else signer
            append_signature_template(root, signer_cert, issued)
            xmlsec_sign(root, signed_key, signed_by, path)
        sig_expect = "FAIL" if name in ("tsl-bad-signature", "tsl-wrong-signer") else "OK"
        got, refs = xmlsec_verify(path, cert_path)
        checks = [("pinned", sig_expect, got, refs)]
        if name == "tsl-wrong-signer":
            got2, refs2 = xmlsec_verify(path, wcert_path)
            checks.append(("own", "OK", got2, refs2))
        model_list, model = model_expectation(path, checks[0][2] == "OK", ca, ocsp, tsa, tm_ocsp)
        checks.append(("model", f"{list_expect} {expect}", f"{model_list} {model}", ""))
        results.append(dict(
            name=name, file=os.path.basename(path),
            signer_cert=os.path.basename(signed_by), pinned_cert=os.path.basename(cert_path),
            sequence=sequence, list_issue=xml_time(issued), next_update=xml_time(next_update),
            services=[dict(type=s["type"].replace(SVC, ""), certificate=os.path.basename(s["cert"].path),
                           statuses=[dict(status=st.replace(STATUS, ""), start=xml_time(t))
                                     for st, t in s["timeline"]])
                      for s in services],
            list=list_expect,
            list_refusal_reason={"tsl-bad-signature": "signature", "tsl-wrong-signer": "signer-not-pinned",
                                 "tsl-expired": "expired"}.get(name),
            xmlsec_verify_with_pinned=sig_expect,
            expect=expect, note=note, checks=checks))

    doc = dict(
        description="TEST ONLY trusted lists (ETSI TS 119 612, EUgeneric, territory EE) over Fixtures/pki. "
                    "Made by scripts/make-test-tsl.py; see README.md.",
        scenario="A signature made in 2026 by Fixtures/pki/ec-p256.cert.pem, time-stamped then by "
                 "tsa.cert.pem, with an OCSP response (status good) signed by ocsp-responder.cert.pem; "
                 "validated with --tsl FILE --tsl-cert pinned_cert.",
        expectations_hold_for_times="2025-06-01T00:00:00Z <= genTime, producedAt < 2030-01-01T00:00:00Z, "
                                    "validated while now < NextUpdate",
        expect_values="signer_chain: the signer's chain has a CA/QC anchor trusted at genTime; timestamp: "
                      "the TSA certificate is in a TSA/QTST service trusted at genTime; ocsp_responder: "
                      "the responder has a CA/QC or Certstatus/OCSP/QC anchor trusted at producedAt; "
                      "signer_chain_at_issue: the signer's chain has a CA/QC anchor trusted at its "
                      "notBefore (2025-01-01T00:00:00Z); overall: all four. time_mark: a BDOC 2.1 "
                      "time-mark by ec-p256 with OCSP from ocsp-responder-tm in 2026: the signer's chain "
                      "at notBefore and that responder (CA/QC or its own OCSP/QC service) at producedAt. "
                      "A refused list trusts nothing.",
        notes=[
            "The test signers carry no qcStatements; every granted CA/QC status has ecc:Qualifications "
            "(QCWithQSCD and QCStatement for keyUsage nonRepudiation=true, assert=all), which make "
            "ec-p256 a qualified certificate on a QSCD. Without them a libdigidocpp-style check "
            "gives NonQSCD rather than trusted.",
            "History instances carry X509SubjectName + X509SKI only, never the certificate, as EU lists "
            "do: certificates are pooled over a service's instances.",
            "Regenerating Fixtures/pki invalidates these lists (they embed its certificates): rerun "
            "the script. pki_certificates below lets a test notice stale fixtures.",
        ],
        tsl_signer=dict(cert="tsl-signer.cert.pem", key="tsl-signer.key.pem",
                        sha256=signer.fingerprint(hashes.SHA256()).hex()),
        wrong_tsl_signer=dict(cert="wrong-tsl-signer.cert.pem", key="wrong-tsl-signer.key.pem",
                              sha256=wrong.fingerprint(hashes.SHA256()).hex()),
        pki_certificates={os.path.basename(c.path): c.sha256 for c in (ca, ocsp, tsa, tm_ocsp)},
        cases=[{k: v for k, v in r.items() if k != "checks"} for r in results],
    )
    with open(os.path.join(outdir, "cases.json"), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")

    # summary
    failures = 0
    rows = [("file", "signed by", "list", "signer/tsa/ocsp", "xmlsec1 --verify; model check", "result")]
    for r in results:
        e = r["expect"]
        comp = "/".join({"trusted": "T", "untrusted": "-"}[e[k]]
                        for k in ("signer_chain", "timestamp", "ocsp_responder"))
        verdicts = []
        good = True
        for label, want, got, refs in r["checks"]:
            if label == "model":
                verdicts.append("model:" + ("agrees" if want == got else "DISAGREES: " + got))
            else:
                verdicts.append(f"{label}:{got}" + (f" {refs}" if refs else ""))
            good = good and want == got
        failures += not good
        rows.append((r["file"], r["signer_cert"], r["list"], comp, ", ".join(verdicts),
                     "as expected" if good else "UNEXPECTED"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for i, row in enumerate(rows):
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
        if i == 0:
            print("  ".join("-" * w for w in widths))
    print(f"{len(results) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
