#!/usr/bin/python3
"""Make a TEST-ONLY list of lists the size of the EU's, for bench/trust-verify.sh.

TEST ONLY: every key used is a published test key of Fixtures/tsl/lotl.

Usage
-----
    /usr/bin/python3 scripts/make-eu-sized-lotl.py OUTDIR [--lists N] [--services M]

The real EU LOTL points to about 30 national lists that together weigh tens of MB. This writes
into OUTDIR an ``eu-lotl.xml`` signed by the test ``lotl-signer`` with pointers (on the host
``lists.tamga.test``, as make-test-lotl.py) to:

* ``EE.xml``: the test PKI's issuing CA (CA/QC), OCSP responder (OCSP/QC) and TSA (TSA/QTST),
  signed by ``ee-tsl-signer``: everything a time-stamped LT signature of Fixtures/pki needs, in
  the list of the country its certificates name (C=EE), as a real signature finds it;
* N filler lists (default 27, territories AT, BE, …) of M CA/QC services each (default 250,
  about 1 MB a list), each service carrying a certificate, signed by ``lv-tsl-signer``.

Every list is signed with xmlsec1 (make-test-tsl.py's builders) and checked at the end.
"""

import argparse
import importlib.util
import os
import shutil
import sys

here = os.path.dirname(os.path.abspath(__file__))


def load(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(here, file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


lotl_maker = load("make_test_lotl", "make-test-lotl.py")
tsl = lotl_maker.tsl

# EU and EEA territories as the LOTL spells them, EE and LV left out (EE is the real one here).
FILLERS = ["AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EL", "ES", "FI", "FR", "HR", "HU", "IE", "IS", "IT",
           "LI", "LT", "LU", "MT", "NL", "NO", "PL", "PT", "RO", "SE", "SI", "SK"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--lists", type=int, default=27)
    ap.add_argument("--services", type=int, default=250)
    ap.add_argument("--pki", default=os.path.join(here, "..", "Fixtures", "pki"))
    args = ap.parse_args()
    outdir, pki = args.outdir, os.path.normpath(args.pki)
    os.makedirs(outdir, exist_ok=True)
    fixtures = os.path.join(here, "..", "Fixtures", "tsl", "lotl")
    for stem in ["lotl-signer", "ee-tsl-signer", "lv-tsl-signer"]:
        for suffix in [".key.pem", ".cert.pem"]:
            shutil.copy(os.path.join(fixtures, stem + suffix), os.path.join(outdir, stem + suffix))
    lotl_signer = tsl.make_signer(outdir, "lotl-signer", "tamga Test LOTL Signer", 0x7510011)
    ee_signer = tsl.make_signer(outdir, "ee-tsl-signer", "tamga Test EE TSL Signer", 0x7510012)
    filler_signer = tsl.make_signer(outdir, "lv-tsl-signer", "tamga Test LV TSL Signer", 0x7510013)
    ca = tsl.PkiCert(os.path.join(pki, "issuing-ca.cert.pem"))
    ocsp = tsl.PkiCert(os.path.join(pki, "ocsp-responder.cert.pem"))
    tsa = tsl.PkiCert(os.path.join(pki, "tsa.cert.pem"))
    granted = [(tsl.GRANTED, tsl.T_2024)]
    ee_services = [dict(type=tsl.CA_QC, cert=ca, timeline=granted, name="tamga Test Issuing CA (EE)"),
                   dict(type=tsl.OCSP_QC, cert=ocsp, timeline=granted, name="tamga Test OCSP (EE)"),
                   dict(type=tsl.TSA_QTST, cert=tsa, timeline=granted, name="tamga Test TSA (EE)")]
    host = lotl_maker.HOST
    pointers = [(host + "EE.xml", "EE", tsl.TSL_TYPE_GENERIC, lotl_maker.TSL_MIME, tsl.PkiCert(ee_signer[1]))]
    outputs = [("EE.xml", lotl_maker.national(ee_services, "EE"), ee_signer)]
    # Filler services carry the test root's certificate: a real certificate of a real size, which
    # anchors nothing a test signature uses under another territory's name.
    filler_cert = tsl.PkiCert(os.path.join(pki, "root.cert.pem"))
    for territory in FILLERS[:args.lists]:
        services = [dict(type=tsl.CA_QC, cert=filler_cert, timeline=granted, name=f"{territory} TEST ONLY CA {index}")
                    for index in range(args.services)]
        pointers.append((host + f"{territory}.xml", territory, tsl.TSL_TYPE_GENERIC, lotl_maker.TSL_MIME,
                         tsl.PkiCert(filler_signer[1])))
        outputs.append((f"{territory}.xml", lotl_maker.national(services, territory), filler_signer))
    outputs.insert(0, ("eu-lotl.xml", lotl_maker.lotl(pointers), lotl_signer))
    failures = 0
    total = 0
    for name, root, signer in outputs:
        path = os.path.join(outdir, name)
        lotl_maker.sign(root, signer, path)
        got, _ = tsl.xmlsec_verify(path, signer[1])
        failures += got != "OK"
        total += os.path.getsize(path)
    print(f"{len(outputs)} lists, {total / 1e6:.1f} MB, in {outdir}")
    if failures:
        sys.exit(f"{failures} list(s) did not verify")


if __name__ == "__main__":
    main()
