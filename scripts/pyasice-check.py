#!/usr/bin/env python3
"""pyasice-check.py — second opinion on an ASiC-E container, using pyasice.

usage: pyasice-check.py [options] CONTAINER

What is checked:
  * pyasice Container(...) / verify_container(): zip integrity, `mimetype` first and
    its value, manifest <-> zip entries;
  * for every ds:Signature in every META-INF/*signatures*.xml:
    - sigvalue: pyasice XmlSignature.verify() (SignatureValue over c14n(SignedInfo),
      key from the KeyInfo certificate; RSA PKCS#1 v1.5 or ECDSA raw/DER,
      SHA-256/384/512; RSA-PSS (xmldsig-more#shaNNN-rsa-MGF1), which pyasice 1.2.0 does
      not implement, over pyasice's c14n(SignedInfo) with cryptography's PSS verify). pyasice refuses to run verify() when the SignedProperties
      digest is not SHA-256 (it recomputes it with SHA-256 only); then pyasice's own
      signature_verifier.verify() is called on c14n(SignedInfo) directly;
    - refs: this script recomputes every data-file ds:Reference digest: the URI is
      percent-decoded and must name a data entry of the zip; any DigestMethod of
      SHA-1/224/256/384/512 and SHA3-224/256/384/512; no Transforms allowed;
    - sigprops: this script recomputes every same-document reference (#Id, normally
      SignedProperties) with the reference's Transform (C14N 1.0 / 1.1 inclusive,
      exclusive C14N, with or without comments; no Transform means C14N 1.0).
      C14N 1.1 is computed as lxml's C14N 1.0 (lxml has no 1.1); the two give the same
      bytes unless an ancestor carries xml:id or xml:base, which is reported as a failure;
    - coverage: every manifest data file is referenced by the signature.
  * No OCSP, time-stamp or certificate trust checks are made.

Output: a `container:` line, then one line per signature on stdout; the reasons for a
failure go to stderr.

Options:
  --lenient-uris        use a data-file URI that contains a raw '#' as a plain file name
                        (pyasice itself writes raw names) instead of failing on it
  --require-raw-ecdsa   fail an ECDSA SignatureValue that is DER instead of raw r||s of
                        exactly 2 x field size (what xmlsec1 1.2.37 / libdigidocpp require)
  --allow-unsigned      exit 0 for a container without signatures (default: exit 1)
  -v, --verbose         also print every reference that is ok (stderr)

Exit status: 0 all ok, 1 something failed, 2 usage error,
3 environment problem (pyasice not importable: run scripts/setup-pyasice.sh).
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _ensure_pyasice():
    """Re-exec under the pyasice venv's python if pyasice is not importable here."""
    sys.path.insert(0, HERE)
    from pyasice_env import ensure_pyasice
    ensure_pyasice(__file__)


def usage(msg=None):
    if msg:
        sys.stderr.write("pyasice-check.py: %s\n" % msg)
    sys.stderr.write("usage: pyasice-check.py [--lenient-uris] [--require-raw-ecdsa] [--allow-unsigned] [-v] CONTAINER\n")
    sys.exit(2)


NS = {
    "asic": "http://uri.etsi.org/02918/v1.2.1#",
    "ds": "http://www.w3.org/2000/09/xmldsig#",
    "xades": "http://uri.etsi.org/01903/v1.3.2#",
}
DS = "{%s}" % NS["ds"]
XML_NS = "http://www.w3.org/XML/1998/namespace"

DIGESTS = {
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
# algorithm -> (exclusive, with_comments, is_c14n11)
C14N = {
    "http://www.w3.org/TR/2001/REC-xml-c14n-20010315": (False, False, False),
    "http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments": (False, True, False),
    "http://www.w3.org/2006/12/xml-c14n11": (False, False, True),
    "http://www.w3.org/2006/12/xml-c14n11#WithComments": (False, True, True),
    "http://www.w3.org/2001/10/xml-exc-c14n#": (True, False, False),
    "http://www.w3.org/2001/10/xml-exc-c14n#WithComments": (True, True, False),
}


def main(argv):
    opts = {"lenient": False, "raw_ecdsa": False, "allow_unsigned": False, "verbose": False}
    pos = []
    for i, a in enumerate(argv):
        if a in ("-h", "--help"):
            sys.stdout.write(__doc__)
            return 0
        elif a == "--lenient-uris":
            opts["lenient"] = True
        elif a == "--require-raw-ecdsa":
            opts["raw_ecdsa"] = True
        elif a == "--allow-unsigned":
            opts["allow_unsigned"] = True
        elif a in ("-v", "--verbose"):
            opts["verbose"] = True
        elif a == "--":
            pos.extend(argv[i + 1:])
            break
        elif a.startswith("-") and a != "-":
            usage("unknown option %s" % a)
        else:
            pos.append(a)
    if len(pos) != 1:
        usage("need exactly one CONTAINER")
    path = pos[0]
    if not os.path.isfile(path):
        usage("no such file: %s" % path)
    _ensure_pyasice()
    return Checker(path, opts).run()


class Checker:
    def __init__(self, path, opts):
        self.path = path
        self.opts = opts
        self.failed = False

    # ---- helpers ----------------------------------------------------------------
    def detail(self, where, msg):
        sys.stderr.write("  %s: %s\n" % (where, msg))

    @staticmethod
    def b64(text):
        import base64
        import binascii
        s = "".join((text or "").split())
        try:
            return base64.b64decode(s, validate=True)
        except (binascii.Error, ValueError):
            return None

    def canonicalize(self, node, algo, ref_el=None):
        """C14N of an element per a Transform/CanonicalizationMethod URI; (bytes, error)."""
        from lxml import etree
        if algo not in C14N:
            return None, "unsupported c14n/transform %s" % algo
        exclusive, comments, c14n11 = C14N[algo]
        if c14n11:
            anc = node.getparent()
            while anc is not None:
                if anc.get("{%s}id" % XML_NS) is not None or anc.get("{%s}base" % XML_NS) is not None:
                    return None, "C14N 1.1 with xml:id/xml:base on an ancestor differs from C14N 1.0 (not supported)"
                anc = anc.getparent()
        prefixes = None
        if exclusive and ref_el is not None:
            inc = ref_el.find("{http://www.w3.org/2001/10/xml-exc-c14n#}InclusiveNamespaces")
            if inc is not None:
                prefixes = [p for p in (inc.get("PrefixList") or "").split() if p != "#default"]
        return etree.tostring(node, method="c14n", exclusive=exclusive, with_comments=comments,
                              inclusive_ns_prefixes=prefixes), None

    # ---- main ---------------------------------------------------------------------
    def run(self):
        import io
        import zipfile
        import pyasice
        from pyasice import Container

        data = open(self.path, "rb").read()

        # 1. pyasice's container checks
        container = None
        if self.manifest_has_doctype(data):
            # pyasice parses the manifest with lxml's default parser, which resolves entities
            self.failed = True
            print("container: FAIL")
            self.detail("container", "META-INF/manifest.xml has a DOCTYPE/ENTITY; refused, not handed to pyasice")
        else:
            try:
                container = Container(io.BytesIO(data))
                print("container: ok (pyasice %s verify_container)" % pyasice.__version__)
            except Exception as e:  # pyasice raises several kinds
                self.failed = True
                print("container: FAIL")
                self.detail("container", "pyasice: %s: %s" % (type(e).__name__, e))

        try:
            zf = zipfile.ZipFile(io.BytesIO(data))
        except zipfile.BadZipFile as e:
            print("signatures: not checked (not a zip: %s)" % e)
            return 1
        self.zf = zf
        self.entries = {}
        for info in zf.infolist():
            if info.filename in self.entries:
                self.failed = True
                self.detail("container", "duplicate zip entry %r" % info.filename)
            self.entries[info.filename] = info

        if container is not None:
            self.manifest_files = list(container.data_file_names)
        else:
            self.manifest_files = self.read_manifest_files()

        sig_files = [n for n in zf.namelist()
                     if n.startswith("META-INF/") and "/" not in n[len("META-INF/"):]
                     and "signatures" in n[len("META-INF/"):] and n.endswith(".xml")]
        if not sig_files:
            print("signatures: none")
            if not self.opts["allow_unsigned"]:
                self.detail("container", "no META-INF/*signatures*.xml (use --allow-unsigned to accept)")
                self.failed = True
        for name in sig_files:
            self.check_signature_file(name)
        return 1 if self.failed else 0

    @staticmethod
    def manifest_has_doctype(data):
        import io
        import zipfile
        try:
            zf = zipfile.ZipFile(io.BytesIO(data))
            raw = zf.read("META-INF/manifest.xml")
        except Exception:
            return False  # pyasice reports a broken zip / missing manifest itself
        return b"<!DOCTYPE" in raw or b"<!ENTITY" in raw

    def read_manifest_files(self):
        from lxml import etree
        try:
            raw = self.zf.read("META-INF/manifest.xml")
            root = etree.fromstring(raw, etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False))
        except Exception:
            return []
        mns = "{urn:oasis:names:tc:opendocument:xmlns:manifest:1.0}"
        return [e.get(mns + "full-path") for e in root.iter(mns + "file-entry")
                if e.get(mns + "full-path") not in (None, "/")]

    def check_signature_file(self, name):
        import copy
        from lxml import etree

        raw = self.zf.read(name)
        parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                                 remove_blank_text=False, huge_tree=False)
        try:
            root = etree.fromstring(raw, parser)
        except etree.XMLSyntaxError as e:
            self.failed = True
            print("%s: FAIL (not well-formed XML)" % name)
            self.detail(name, str(e))
            return
        if root.getroottree().docinfo.doctype:
            # pyasice's own parser would resolve entities: do not hand it such a document
            self.failed = True
            print("%s: FAIL (has a DOCTYPE; refused)" % name)
            return
        sigs = root.findall(DS + "Signature")
        if root.tag != "{%s}XAdESSignatures" % NS["asic"] or not sigs:
            self.failed = True
            print("%s: FAIL (root is not asic:XAdESSignatures with ds:Signature children)" % name)
            return
        for sig in sigs:
            # pyasice looks at the first ds:Signature only: give it a copy of the document
            # that holds just this one (ancestors and namespace context unchanged).
            if len(sigs) > 1:
                doc = copy.deepcopy(root)
                for other in doc.findall(DS + "Signature"):
                    if other.get("Id") != sig.get("Id"):
                        doc.remove(other)
            else:
                doc = root
            self.check_signature(name, root, sig, doc)

    def check_signature(self, fname, root, sig, pyasice_doc):
        import hashlib
        from urllib.parse import unquote
        from pyasice import XmlSignature
        from pyasice.signature_verifier import verify as pyasice_verify, x962_to_der
        from pyasice.exceptions import SignatureVerificationError

        label = "%s#%s" % (fname, sig.get("Id") or "?")
        problems = []
        results = {}

        # ---- references (this script) ------------------------------------------------------
        si = sig.find(DS + "SignedInfo")
        refs = si.findall(DS + "Reference") if si is not None else []
        if si is None or not refs:
            problems.append("no SignedInfo/Reference")
        n_data = n_data_ok = n_same = n_same_ok = 0
        referenced = set()
        ids = {}
        for el in root.iter():
            if isinstance(el.tag, str) and el.get("Id") is not None:
                ids.setdefault(el.get("Id"), []).append(el)
        for i, ref in enumerate(refs):
            uri = ref.get("URI")
            where = "Reference[%d] URI=%r" % (i, uri)
            dm = ref.find(DS + "DigestMethod")
            algo = DIGESTS.get(dm.get("Algorithm") if dm is not None else None)
            want = self.b64(ref.findtext(DS + "DigestValue"))
            transforms = [t.get("Algorithm") for t in ref.findall(DS + "Transforms/" + DS + "Transform")]
            is_same_doc = uri is not None and uri.startswith("#")
            if is_same_doc:
                n_same += 1
            else:
                n_data += 1
            if algo is None:
                problems.append("%s: unsupported DigestMethod %s" % (where, dm.get("Algorithm") if dm is not None else None))
                continue
            if want is None:
                problems.append("%s: DigestValue is not base64" % where)
                continue
            if is_same_doc:
                targets = ids.get(uri[1:], [])
                if len(targets) != 1:
                    problems.append("%s: %d elements carry Id=%r" % (where, len(targets), uri[1:]))
                    continue
                if len(transforms) > 1:
                    problems.append("%s: more than one Transform (%s)" % (where, ", ".join(transforms)))
                    continue
                tr = transforms[0] if transforms else "http://www.w3.org/TR/2001/REC-xml-c14n-20010315"
                tr_el = ref.find(DS + "Transforms/" + DS + "Transform")
                octets, err = self.canonicalize(targets[0], tr, tr_el)
                if err:
                    problems.append("%s: %s" % (where, err))
                    continue
                got = hashlib.new(algo, octets).digest()
                if got != want:
                    problems.append("%s: digest mismatch (%s over %s)" % (where, algo, tr))
                    continue
                n_same_ok += 1
            else:
                if uri is None or uri == "":
                    problems.append("%s: missing/empty URI (whole-document reference) not supported" % where)
                    continue
                if transforms:
                    problems.append("%s: Transforms on a data-file reference are not supported (%s)" % (where, ", ".join(transforms)))
                    continue
                path = uri
                if "#" in path and not self.opts["lenient"]:
                    problems.append("%s: raw '#' in a data-file URI starts a fragment (use %%23; --lenient-uris to accept)" % where)
                    continue
                try:
                    path = unquote(path, errors="strict")
                except UnicodeDecodeError:
                    problems.append("%s: percent-decoded URI is not UTF-8" % where)
                    continue
                referenced.add(path)
                if path.startswith("META-INF/") or path == "mimetype" or path not in self.entries or path.endswith("/"):
                    problems.append("%s: %r is not a data entry of the container" % (where, path))
                    continue
                got = hashlib.new(algo, self.zf.read(path)).digest()
                if got != want:
                    problems.append("%s: digest mismatch for %r (%s)" % (where, path, algo))
                    continue
                n_data_ok += 1
            if self.opts["verbose"]:
                self.detail(label, "%s: ok (%s)" % (where, algo))
        results["refs"] = "ok(%d)" % n_data if n_data and n_data_ok == n_data else "FAIL(%d/%d)" % (n_data_ok, n_data)
        results["sigprops"] = "ok" if n_same and n_same_ok == n_same else ("FAIL(%d/%d)" % (n_same_ok, n_same) if n_same else "FAIL(none)")
        missing = [f for f in self.manifest_files if f not in referenced]
        results["coverage"] = "ok" if not missing else "FAIL"
        if missing:
            problems.append("manifest data files not covered by this signature: %s" % ", ".join(map(repr, missing)))

        # ---- SignatureValue (pyasice) --------------------------------------------------------
        sigvalue = "FAIL"
        ecdsa_fmt = None
        try:
            xs = XmlSignature(pyasice_doc)
            cert_der = xs.get_certificate_value()
            value = xs.get_signature_value()
            if cert_der is None or value is None:
                raise ValueError("no X509Certificate or SignatureValue")
            algo_name = xs.get_signature_algorithm()
            if algo_name.startswith("ecdsa-"):
                ecdsa_fmt = self.ecdsa_format(cert_der, value)
            pss = re.fullmatch(r"(sha256|sha384|sha512)-rsa-MGF1", algo_name)
            if pss:
                # RSA-PSS (RFC 6931 §2.3.10: MGF1 with the same hash, a salt as long as the hash,
                # trailer 0xbc). pyasice 1.2.0 verifies PKCS#1 v1.5 only: the SignedInfo is still
                # canonicalized by pyasice, and the value checked with `cryptography`'s PSS.
                from cryptography import x509 as _x509
                from cryptography.hazmat.primitives import hashes as _hashes
                from cryptography.hazmat.primitives.asymmetric import padding as _padding
                hash_class = {"sha256": _hashes.SHA256, "sha384": _hashes.SHA384, "sha512": _hashes.SHA512}[pss.group(1)]
                key = _x509.load_der_x509_certificate(cert_der).public_key()
                signed_info = xs._get_node("ds:SignedInfo")
                try:
                    key.verify(value, xs.canonicalize(signed_info),
                               _padding.PSS(mgf=_padding.MGF1(hash_class()), salt_length=hash_class.digest_size), hash_class())
                except Exception as e:  # noqa: BLE001
                    raise SignatureVerificationError("RSA-PSS: %s" % (type(e).__name__,))
                sigvalue = "ok"
                results["sigvalue-note"] = "RSA-PSS: pyasice's c14n(SignedInfo), verified with cryptography's PSS (pyasice has PKCS#1 v1.5 only)"
            else:
              try:
                xs.verify()
                sigvalue = "ok"
              except ValueError as e:
                if "not prepared" not in str(e):
                    raise
                # pyasice recomputes the SignedProperties digest with SHA-256 only and refuses
                # to go on when it differs (e.g. a sha384/512 DigestMethod). Our own check above
                # covers that digest; verify the SignatureValue with pyasice's verifier directly.
                signed_info = xs._get_node("ds:SignedInfo")
                pyasice_verify(cert_der, value, xs.canonicalize(signed_info), algo_name.split("-")[-1])
                sigvalue = "ok"
                results["sigvalue-note"] = "via signature_verifier (XmlSignature.verify needs a SHA-256 SignedProperties digest)"
        except SignatureVerificationError as e:
            # pyasice first tries an ECDSA value as DER with asn1crypto's lenient load, so a
            # raw r||s that begins with 0x30 (about 1 in 700 signatures) is misread and fails.
            # Check such a value as raw, still with pyasice's own code (x962_to_der + verify).
            if ecdsa_fmt is not None and ecdsa_fmt.startswith("raw") and value[:1] == b"\x30":
                try:
                    signed_info = xs._get_node("ds:SignedInfo")
                    pyasice_verify(cert_der, x962_to_der(value), xs.canonicalize(signed_info), algo_name.split("-")[-1])
                    sigvalue = "ok"
                    results["sigvalue-note"] = "raw r||s beginning with 0x30, which pyasice misreads as DER; verified as raw with its x962_to_der"
                except Exception as inner:  # noqa: BLE001
                    problems.append("SignatureValue: pyasice: %s: %s" % (type(inner).__name__, str(inner) or "does not verify"))
            else:
                problems.append("SignatureValue: pyasice: %s: %s" % (type(e).__name__, str(e) or "does not verify with the key of the KeyInfo certificate"))
        except Exception as e:
            problems.append("SignatureValue: pyasice: %s: %s" % (
                type(e).__name__, str(e) or "does not verify with the key of the KeyInfo certificate"))
        if ecdsa_fmt is not None and self.opts["raw_ecdsa"] and not ecdsa_fmt.startswith("raw"):
            problems.append("ECDSA SignatureValue is %s, not raw r||s of 2 x field size" % ecdsa_fmt)
            sigvalue = "FAIL"

        ok = not problems and sigvalue == "ok"
        if not ok:
            self.failed = True
        line = "%s: sigvalue=%s refs=%s sigprops=%s coverage=%s" % (
            label, sigvalue, results["refs"], results["sigprops"], results["coverage"])
        if ecdsa_fmt:
            line += " ecdsa=%s" % ecdsa_fmt
        print(line + (" -> OK" if ok else " -> FAIL"))
        if "sigvalue-note" in results and self.opts["verbose"]:
            self.detail(label, results["sigvalue-note"])
        for p in problems:
            self.detail(label, p)

    @staticmethod
    def ecdsa_format(cert_der, value):
        from cryptography import x509
        from cryptography.hazmat.primitives.asymmetric import ec
        try:
            key = x509.load_der_x509_certificate(cert_der).public_key()
        except ValueError:
            return None
        if not isinstance(key, ec.EllipticCurvePublicKey):
            return "not-an-EC-key"
        field = (key.curve.key_size + 7) // 8
        # pyasice's own first try (asn1crypto's ECDSASignature.load) is lenient: a raw r||s that
        # begins with 0x30 often "loads". Only a strict DER encoding (decoded and re-encoded to
        # the same bytes) counts as DER here, so such a raw value is still called raw.
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature
        try:
            if encode_dss_signature(*decode_dss_signature(value)) == value:
                return "DER(%d)" % len(value)
        except ValueError:
            pass
        return ("raw%d" if len(value) == 2 * field else "raw-wrong-length%d") % len(value)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
