#!/usr/bin/env python3
"""xmlsec13-check.py — verify every XAdES signature of an ASiC-E container with libxmlsec1 1.3
(the python-xmlsec wheel's copy, in the venv scripts/setup-xmlsec13.sh makes), for what
Debian's xmlsec1 1.2.37 cannot check: RSA-PSS (xmldsig-more#shaNNN-rsa-MGF1).

usage: xmlsec13-check.py CONTAINER

As scripts/xmlsec-check.sh does with xmlsec1: the container is extracted safely (no absolute
names, no '..', no backslashes, no symlinks, no duplicates) into a temporary folder, every
reference URI must be a same-document '#Id' or a data file of the container, and the key is
the signature's own KeyInfo certificate, forced (as libdigidocpp does). Ids are registered for
'#Id' references. No chain, OCSP or time-stamp checks.

Output: one line per signature, `FILE#ID: ok (ALGORITHM)` or `FILE#ID: FAIL reason`.
Exit: 0 every signature verifies, 1 a failure or no signature, 2 usage, 3 python-xmlsec missing.
"""
import base64
import os
import re
import shutil
import stat
import sys
import tempfile
import zipfile
from urllib.parse import unquote

DS = "{http://www.w3.org/2000/09/xmldsig#}"


def bad_path(name):
    parts = name.split("/")
    return (not name or name.startswith("/") or "\\" in name or "\0" in name or re.match(r"^[A-Za-z]:", name) is not None
            or any(p in ("", ".", "..") for p in parts[:-1]) or parts[-1] in (".", ".."))


def main(argv):
    if len(argv) != 1 or argv[0].startswith("-"):
        sys.stderr.write("usage: xmlsec13-check.py CONTAINER\n")
        return 2
    try:
        import xmlsec
        from lxml import etree
    except ImportError as e:
        sys.stderr.write("xmlsec13-check.py: %s (run scripts/setup-xmlsec13.sh)\n" % e)
        return 3
    root = tempfile.mkdtemp(prefix="xmlsec13-check.")
    try:
        try:
            archive = zipfile.ZipFile(argv[0])
        except (OSError, zipfile.BadZipFile) as e:
            print("container: FAIL cannot open as zip: %s" % e)
            return 1
        names, seen = [], set()
        for info in archive.infolist():
            name = info.filename
            if name in seen or bad_path(name.rstrip("/")) or stat.S_ISLNK(info.external_attr >> 16):
                print("container: FAIL unsafe or duplicate entry %r" % name)
                return 1
            seen.add(name)
            if name.endswith("/"):
                continue
            target = os.path.join(root, name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with archive.open(info) as source, open(target, "xb") as out:
                shutil.copyfileobj(source, out, 1 << 20)
            names.append(name)
        data_files = {n for n in names if not n.startswith("META-INF/") and n != "mimetype"}
        signature_files = [n for n in names if re.fullmatch(r"META-INF/[^/]*signatures[^/]*\.xml", n)]
        count, failed = 0, False
        os.chdir(root)   # libxmlsec1 resolves a relative Reference URI against the working folder
        parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
        for signature_file in signature_files:
            document = etree.parse(os.path.join(root, signature_file), parser)
            for signature in document.iter(DS + "Signature"):
                count += 1
                label = "%s#%s" % (signature_file, signature.get("Id", "?"))
                uris = [r.get("URI", "") for r in signature.iter(DS + "Reference")]
                outside = [u for u in uris if not u.startswith("#") and unquote(u) not in data_files]
                if outside:
                    print("%s: FAIL references outside the container's data files: %r" % (label, outside))
                    failed = True
                    continue
                xmlsec.tree.add_ids(document.getroot(), ["Id"])
                certificate = signature.find(".//%sKeyInfo//%sX509Certificate" % (DS, DS))
                method = signature.find(".//%sSignatureMethod" % DS)
                try:
                    context = xmlsec.SignatureContext()
                    context.key = xmlsec.Key.from_memory(base64.b64decode("".join(certificate.text.split())), xmlsec.constants.KeyDataFormatCertDer)
                    context.verify(signature)
                    print("%s: ok (%s)" % (label, method.get("Algorithm") if method is not None else "?"))
                except Exception as e:  # noqa: BLE001 - any failure is this signature's verdict
                    print("%s: FAIL %s: %s" % (label, type(e).__name__, e))
                    failed = True
        if count == 0:
            print("container: FAIL no signature")
            return 1
        return 1 if failed else 0
    finally:
        os.chdir("/")
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
