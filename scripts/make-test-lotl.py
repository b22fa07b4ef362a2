#!/usr/bin/python3
"""Make a TEST-ONLY EU-style list of trusted lists (LOTL) and the national lists it points to.

TEST ONLY: every key this script makes or uses is a published test key.

Usage
-----
    /usr/bin/python3 scripts/make-test-lotl.py OUTDIR [--pki DIR]

Builds on scripts/make-test-tsl.py (same XML builders, same xmlsec1 signing, same PKI) and
writes into OUTDIR (Fixtures/tsl/lotl in the repository):

* signers (EC P-256, self-signed, reused when present): ``lotl-signer`` (pins the LOTL),
  ``ee-tsl-signer`` and ``lv-tsl-signer`` (named by the LOTL's EE and LV pointers),
  ``rogue-signer`` (named nowhere).
* ``eu-lotl.xml``: TSLType EUlistofthelists, SchemeTerritory EU, signed by lotl-signer, with the
  pointers (TSLLocation on the host ``lists.tamga.test``, which tests reach through a loopback
  server used as an HTTP proxy, so the signed lists need no port number):
    - EE  ``http://lists.tamga.test/EE.xml``  ee-tsl-signer     (followed)
    - EE  ``http://lists.tamga.test/EE.pdf``  MimeType application/pdf (skipped)
    - LV  ``http://lists.tamga.test/LV.xml``  lv-tsl-signer     (followed)
    - LT  ``http://lists.tamga.test/LT.xml``  no certificate    (skipped, as the reference does)
    - EU  ``http://lists.tamga.test/eu-lotl.xml`` TSLType EUlistofthelists (the LOTL's own
          pointer, never followed)
* ``EE.xml``: the issuing CA (CA/QC) and the OCSP responder (OCSP/QC), granted since 2024.
* ``LV.xml``: the TSA (TSA/QTST), granted since 2024. Only the union of EE and LV anchors a
  time-stamped LT signature of Fixtures/pki.
* bad variants for the tests (same names, same pointers): ``bad/eu-lotl-unpinned.xml`` (the LOTL
  signed by rogue-signer), ``bad/eu-lotl-expired.xml`` (NextUpdate 2025-07-01),
  ``bad/EE-wrong-signer.xml`` (EE signed by lv-tsl-signer), ``bad/EE-tampered.xml`` (a changed
  letter after signing), ``bad/EE-expired.xml`` (NextUpdate 2025-07-01),
  ``bad/EE-is-lotl.xml`` (a list of lists where the EE list should be, signed by ee-tsl-signer),
  ``bad/EE-older.xml`` (a valid, current EE list with a lower TSLSequenceNumber, 9: a rollback).
* pivots: ``pivot/eu-lotl.xml`` signed by ``lotl-signer-2`` (not pinned), whose first "pivot"
  SchemeInformationURI is ``pivot/eu-lotl-pivot-1.xml``, signed by the pinned lotl-signer and
  naming lotl-signer-2 in its pointer to the list of lists; ``pivot/loop-*.xml``: a LOTL and two
  pivots signed by rogue-signer whose pivot URIs name each other (a cycle).

Each list is checked with ``xmlsec1 --verify`` at the end (the bad ones must fail with the key
the pointer names, or be validly signed where only the content is wrong).
"""

import argparse
import copy
import importlib.util
import os
import sys

from lxml import etree

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("make_test_tsl", os.path.join(here, "make-test-tsl.py"))
tsl = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tsl)

LOTL_TYPE = "http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUlistofthelists"
TSL_MIME = "application/vnd.etsi.tsl+xml"
HOST = "http://lists.tamga.test/"


def set_text(root, tag, text):
    element = root.find(".//{%s}%s" % (tsl.NS_TSL, tag))
    element.text = text


def national(services, territory, sequence=tsl.SEQUENCE, issued=tsl.ISSUED, next_update=tsl.NEXT_UPDATE):
    root = tsl.build_list(services, sequence, issued, next_update)
    set_text(root, "SchemeTerritory", territory)
    set_text(root, "SchemeName/{%s}Name" % tsl.NS_TSL, f"{territory}:tamga TEST ONLY trusted list")
    return root


def pointer(parent, location, territory, tsl_type, mime, signer):
    p = tsl.el(parent, "OtherTSLPointer")
    if signer is not None:
        sdis = tsl.el(p, "ServiceDigitalIdentities")
        sdi = tsl.el(sdis, "ServiceDigitalIdentity")
        tsl.el(tsl.el(sdi, "DigitalId"), "X509Certificate", signer.b64)
    tsl.el(p, "TSLLocation", location)
    info = tsl.el(p, "AdditionalInformation")
    tsl.el(tsl.el(info, "OtherInformation"), "TSLType", tsl_type)
    tsl.names(tsl.el(info, "OtherInformation"), "SchemeOperatorName", f"{territory} TEST ONLY operator")
    tsl.el(tsl.el(info, "OtherInformation"), "SchemeTerritory", territory)
    tsl.el(tsl.el(info, "OtherInformation"), "MimeType", mime, ns=tsl.NS_TSLX)


def lotl(pointers, sequence=tsl.SEQUENCE, issued=tsl.ISSUED, next_update=tsl.NEXT_UPDATE, scheme_uris=None):
    root = tsl.build_list([], sequence, issued, next_update)
    if scheme_uris is not None:
        holder = root.find(".//{%s}SchemeInformationURI" % tsl.NS_TSL)
        for child in list(holder):
            holder.remove(child)
        for uri in scheme_uris:
            tsl.el(holder, "URI", uri).set(tsl.q(tsl.NS_XML, "lang"), "en")
    set_text(root, "TSLType", LOTL_TYPE)
    set_text(root, "SchemeTerritory", "EU")
    set_text(root, "SchemeName/{%s}Name" % tsl.NS_TSL, "EU:tamga TEST ONLY list of the lists")
    scheme = root.find("{%s}SchemeInformation" % tsl.NS_TSL)
    issue = scheme.find("{%s}ListIssueDateTime" % tsl.NS_TSL)
    holder = etree.Element("{%s}PointersToOtherTSL" % tsl.NS_TSL)
    issue.addprevious(holder)
    for args in pointers:
        pointer(holder, *args)
    root.remove(root.find("{%s}TrustServiceProviderList" % tsl.NS_TSL))
    etree.indent(root, space="  ")
    return root


def sign(root, signer, out_path):
    key, cert_path, cert = signer
    tsl.append_signature_template(root, cert, tsl.ISSUED)
    tsl.xmlsec_sign(root, key, cert_path, out_path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--pki", default=os.path.join(here, "..", "Fixtures", "pki"))
    args = ap.parse_args()
    outdir, pki = args.outdir, os.path.normpath(args.pki)
    bad = os.path.join(outdir, "bad")
    os.makedirs(bad, exist_ok=True)

    lotl_signer = tsl.make_signer(outdir, "lotl-signer", "tamga Test LOTL Signer", 0x7510011)
    ee_signer = tsl.make_signer(outdir, "ee-tsl-signer", "tamga Test EE TSL Signer", 0x7510012)
    lv_signer = tsl.make_signer(outdir, "lv-tsl-signer", "tamga Test LV TSL Signer", 0x7510013)
    rogue = tsl.make_signer(outdir, "rogue-signer", "tamga Test Rogue Signer", 0x7510014)
    ca = tsl.PkiCert(os.path.join(pki, "issuing-ca.cert.pem"))
    ocsp = tsl.PkiCert(os.path.join(pki, "ocsp-responder.cert.pem"))
    tsa = tsl.PkiCert(os.path.join(pki, "tsa.cert.pem"))
    ee_cert = tsl.PkiCert(ee_signer[1])
    lv_cert = tsl.PkiCert(lv_signer[1])

    ee_services = [
        dict(type=tsl.CA_QC, cert=ca, timeline=[(tsl.GRANTED, tsl.T_2024)], name="tamga Test Issuing CA (EE)"),
        dict(type=tsl.OCSP_QC, cert=ocsp, timeline=[(tsl.GRANTED, tsl.T_2024)], name="tamga Test OCSP (EE)"),
    ]
    lv_services = [dict(type=tsl.TSA_QTST, cert=tsa, timeline=[(tsl.GRANTED, tsl.T_2024)], name="tamga Test TSA (LV)")]
    pointers = [
        (HOST + "EE.xml", "EE", tsl.TSL_TYPE_GENERIC, TSL_MIME, ee_cert),
        (HOST + "EE.pdf", "EE", tsl.TSL_TYPE_GENERIC, "application/pdf", ee_cert),
        (HOST + "LV.xml", "LV", tsl.TSL_TYPE_GENERIC, TSL_MIME, lv_cert),
        (HOST + "LT.xml", "LT", tsl.TSL_TYPE_GENERIC, TSL_MIME, None),
        (HOST + "eu-lotl.xml", "EU", LOTL_TYPE, TSL_MIME, tsl.PkiCert(lotl_signer[1])),
    ]
    expired = dict(sequence=tsl.EXPIRED_SEQUENCE, issued=tsl.EXPIRED_ISSUED, next_update=tsl.EXPIRED_NEXT_UPDATE)
    outputs = [
        # path, root, signer, key that must verify it (None: must fail with the pointer's key)
        ("eu-lotl.xml", lotl(pointers), lotl_signer, lotl_signer),
        ("EE.xml", national(ee_services, "EE"), ee_signer, ee_signer),
        ("LV.xml", national(lv_services, "LV"), lv_signer, lv_signer),
        ("bad/eu-lotl-unpinned.xml", lotl(pointers), rogue, rogue),
        ("bad/eu-lotl-expired.xml", lotl(pointers, **expired), lotl_signer, lotl_signer),
        ("bad/EE-wrong-signer.xml", national(ee_services, "EE"), lv_signer, lv_signer),
        ("bad/EE-expired.xml", national(ee_services, "EE", **expired), ee_signer, ee_signer),
        ("bad/EE-is-lotl.xml", lotl(pointers), ee_signer, ee_signer),
        ("bad/EE-older.xml", national(ee_services, "EE", sequence=tsl.EXPIRED_SEQUENCE), ee_signer, ee_signer),
    ]
    # Pivots (the EU's way of announcing new LOTL signers): pivot/eu-lotl.xml is signed by
    # lotl-signer-2, which is not pinned; its first SchemeInformationURI containing "pivot" names
    # pivot/eu-lotl-pivot-1.xml, signed by the pinned lotl-signer, whose pointer to the list of
    # lists names lotl-signer-2. pivot/loop-*.xml: a LOTL and two pivots, all signed by
    # rogue-signer, whose pivots name each other (a cycle that only a depth bound ends).
    os.makedirs(os.path.join(outdir, "pivot"), exist_ok=True)
    lotl_signer_2 = tsl.make_signer(outdir, "lotl-signer-2", "tamga Test LOTL Signer 2", 0x7510015)
    new_signer = tsl.PkiCert(lotl_signer_2[1])
    pivot_uri = HOST + "eu-lotl-pivot-1.xml"
    pivot_pointers = pointers[:4] + [(HOST + "eu-lotl.xml", "EU", LOTL_TYPE, TSL_MIME, new_signer)]
    loop_a, loop_b = HOST + "loop-pivot-a.xml", HOST + "loop-pivot-b.xml"
    rogue_cert = tsl.PkiCert(rogue[1])
    outputs += [
        ("pivot/eu-lotl.xml", lotl(pointers, scheme_uris=[pivot_uri, HOST + "eu-lotl-pivot-0.xml", "https://tamga.invalid/oj"]),
         lotl_signer_2, lotl_signer_2),
        ("pivot/eu-lotl-pivot-1.xml", lotl(pivot_pointers, scheme_uris=[HOST + "eu-lotl-pivot-1.xml", "https://tamga.invalid/oj"]),
         lotl_signer, lotl_signer),
        ("pivot/loop-lotl.xml", lotl(pointers, scheme_uris=[loop_a]), rogue, rogue),
        ("pivot/loop-pivot-a.xml", lotl(pointers[:4] + [(HOST + "x.xml", "EU", LOTL_TYPE, TSL_MIME, rogue_cert)], scheme_uris=[loop_b]), rogue, rogue),
        ("pivot/loop-pivot-b.xml", lotl(pointers[:4] + [(HOST + "x.xml", "EU", LOTL_TYPE, TSL_MIME, rogue_cert)], scheme_uris=[loop_a]), rogue, rogue),
    ]
    failures = 0
    for name, root, signer, verifier in outputs:
        path = os.path.join(outdir, name)
        sign(root, signer, path)
        got, refs = tsl.xmlsec_verify(path, verifier[1])
        print(f"{name:28} signed by {os.path.basename(signer[1]):22} xmlsec1 {got} {refs}")
        failures += got != "OK"
    # Tampered: EE.xml with one letter of a ServiceName changed after signing.
    with open(os.path.join(outdir, "EE.xml"), "rb") as f:
        data = f.read()
    marker = b"tamga Test Issuing CA (EE)"
    tampered = data.replace(marker, b"tamga Test Issuing CA (XX)", 1)
    assert tampered != data
    with open(os.path.join(bad, "EE-tampered.xml"), "wb") as f:
        f.write(tampered)
    got, refs = tsl.xmlsec_verify(os.path.join(bad, "EE-tampered.xml"), ee_signer[1])
    print(f"{'bad/EE-tampered.xml':28} (EE.xml changed)             xmlsec1 {got} {refs} (must FAIL)")
    failures += got != "FAIL"
    if failures:
        sys.exit(f"{failures} list(s) did not check as expected")


if __name__ == "__main__":
    main()
