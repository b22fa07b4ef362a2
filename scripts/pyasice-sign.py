#!/usr/bin/env python3
"""pyasice-sign.py — make an ASiC-E container with pyasice (an independent producer).

usage: pyasice-sign.py [options] OUT.asice KEY.pem CERT.pem FILE...
       pyasice-sign.py [options] --append CONTAINER.asice KEY.pem CERT.pem

Builds the container and the XAdES signature with pyasice's own API
(Container.add_file / prepare_signature / XmlSignature.set_signature_value /
add_signature / save) and signs c14n(SignedInfo) with the private key through
`cryptography`. EC (P-256/384/521) and RSA (PKCS#1 v1.5) keys are supported.

The result is a B-level signature (XAdES-EPES, because pyasice's template carries the
BDOC 2.1 SignaturePolicyIdentifier): no time-stamp, no OCSP. pyasice's template also
carries empty SignatureTimeStamp / CertificateValues / RevocationValues placeholders
under UnsignedProperties; they are unsigned, and this script removes the whole
UnsignedProperties element so that the output is a clean B-level signature.

What pyasice does by itself and what this script adds (see the options):
  * pyasice writes the data-file Reference URI as the raw file name. A name with '#'
    then reads as a fragment, and spaces / non-ASCII are not valid in a URI.
    By default this script percent-encodes the URI the way libdigidocpp does
    (File::toUriPath: everything outside [A-Za-z0-9-._~/] as %XX, upper case).
    --raw-uris keeps pyasice's raw URI.
  * pyasice does not compute the SignatureValue; the caller supplies it. ECDSA is
    written as raw r||s, each half padded to the curve size (XMLDSig 1.1), by default;
    --ecdsa-der writes the DER SEQUENCE instead (pyasice accepts both, xmlsec1 1.2.37
    and libdigidocpp only the raw form).

Options:
  --append              add one more signature (META-INF/signaturesN.xml, N = next free)
                        over the data files of an existing container, in place
  --raw-uris            keep pyasice's raw (not percent-encoded) data-file URIs
  --ecdsa-der           write an ECDSA SignatureValue as DER instead of raw r||s
  --rsa-pss             RSA keys: RSASSA-PSS (MGF1 with the same hash, salt = hash length) as
                        http://www.w3.org/2007/05/xmldsig-more#shaNNN-rsa-MGF1 (RFC 6931); pyasice
                        cannot verify PSS, so its own check after signing is skipped
  --sig-hash H          sha256 | sha384 | sha512 for the SignatureMethod
                        (default: EC follows the curve as libdigidocpp does —
                        P-256 sha256, P-384 sha384, P-521 sha512; RSA sha256)
  --media-type T        manifest / DataObjectFormat media type of every file
                        (default application/octet-stream)
  --key-password P      password of an encrypted PKCS#8 / traditional PEM key
                        (also read from $PYASICE_KEY_PASSWORD)
  --keep-unsigned-template
                        keep pyasice's empty UnsignedProperties placeholders

Exit status: 0 container written, 1 failure, 2 usage error,
3 environment problem (pyasice not importable: run scripts/setup-pyasice.sh).
"""

import hashlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _ensure_pyasice():
    """Re-exec under the pyasice venv's python if pyasice is not importable here."""
    sys.path.insert(0, HERE)
    from pyasice_env import ensure_pyasice
    ensure_pyasice(__file__)


def usage(msg=None):
    if msg:
        sys.stderr.write("pyasice-sign.py: %s\n" % msg)
    sys.stderr.write("usage: pyasice-sign.py [--raw-uris] [--ecdsa-der] [--rsa-pss] [--sig-hash sha256|sha384|sha512]\n"
                     "                        [--media-type TYPE] [--key-password PW] [--keep-unsigned-template]\n"
                     "                        OUT.asice KEY.pem CERT.pem FILE...\n"
                     "       pyasice-sign.py [options] --append CONTAINER.asice KEY.pem CERT.pem\n")
    sys.exit(2)


def parse_args(argv):
    opts = {"raw_uris": False, "ecdsa_der": False, "rsa_pss": False, "sig_hash": None,
            "media_type": "application/octet-stream",
            "key_password": os.environ.get("PYASICE_KEY_PASSWORD"), "keep_unsigned": False,
            "append": False}
    pos = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            sys.stdout.write(__doc__)
            sys.exit(0)
        elif a == "--raw-uris":
            opts["raw_uris"] = True
        elif a == "--ecdsa-der":
            opts["ecdsa_der"] = True
        elif a == "--rsa-pss":
            opts["rsa_pss"] = True
        elif a == "--keep-unsigned-template":
            opts["keep_unsigned"] = True
        elif a == "--append":
            opts["append"] = True
        elif a in ("--sig-hash", "--media-type", "--key-password"):
            if i + 1 >= len(argv):
                usage("%s needs a value" % a)
            v = argv[i + 1]
            i += 1
            if a == "--sig-hash":
                if v not in ("sha256", "sha384", "sha512"):
                    usage("--sig-hash must be sha256, sha384 or sha512")
                opts["sig_hash"] = v
            elif a == "--media-type":
                opts["media_type"] = v
            else:
                opts["key_password"] = v
        elif a == "--":
            pos.extend(argv[i + 1:])
            break
        elif a.startswith("-") and a != "-":
            usage("unknown option %s" % a)
        else:
            pos.append(a)
        i += 1
    if opts["append"]:
        if len(pos) != 3:
            usage("--append takes CONTAINER.asice KEY.pem CERT.pem and no FILE")
    elif len(pos) < 4:
        usage("need OUT.asice KEY.pem CERT.pem and at least one FILE")
    return opts, pos[0], pos[1], pos[2], pos[3:]


def uri_encode(name):
    """libdigidocpp File::toUriPath: keep [A-Za-z0-9-._~/], %XX (upper case) for every other byte."""
    keep = set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")
    return "".join(chr(b) if b in keep else "%%%02X" % b for b in name.encode("utf-8"))


def main(argv):
    opts, out_path, key_path, cert_path, files = parse_args(argv)
    _ensure_pyasice()

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
    from cryptography.hazmat.primitives.asymmetric.utils import Prehashed, decode_dss_signature
    import pyasice
    from pyasice import Container

    def fail(msg):
        sys.stderr.write("pyasice-sign.py: %s\n" % msg)
        sys.exit(1)

    # --- key and certificate ---------------------------------------------------------
    try:
        key_data = open(key_path, "rb").read()
        cert_data = open(cert_path, "rb").read()
    except OSError as e:
        fail(str(e))
    pw = opts["key_password"].encode() if opts["key_password"] is not None else None
    try:
        key = serialization.load_pem_private_key(key_data, password=pw)
    except (TypeError, ValueError) as e:
        fail("cannot load private key %s: %s" % (key_path, e))
    try:
        cert = x509.load_pem_x509_certificate(cert_data)
    except ValueError:
        try:
            cert = x509.load_der_x509_certificate(cert_data)
        except ValueError as e:
            fail("cannot load certificate %s: %s" % (cert_path, e))
    cert_der = cert.public_bytes(serialization.Encoding.DER)
    spki = serialization.PublicFormat.SubjectPublicKeyInfo
    if key.public_key().public_bytes(serialization.Encoding.DER, spki) != \
            cert.public_key().public_bytes(serialization.Encoding.DER, spki):
        fail("the private key does not belong to the certificate")

    if isinstance(key, ec.EllipticCurvePrivateKey):
        field_len = (key.curve.key_size + 7) // 8
        default_hash = {256: "sha256", 384: "sha384"}.get(key.curve.key_size, "sha512")
    elif isinstance(key, rsa.RSAPrivateKey):
        default_hash = "sha256"
    else:
        fail("unsupported key type %s (EC and RSA only)" % type(key).__name__)
    sig_hash = opts["sig_hash"] or default_hash
    hash_cls = {"sha256": hashes.SHA256, "sha384": hashes.SHA384, "sha512": hashes.SHA512}[sig_hash]

    # --- data files ---------------------------------------------------------------
    names = []
    if opts["append"]:
        try:
            container = Container.open(out_path)
        except Exception as e:
            fail("cannot open %s with pyasice: %s: %s" % (out_path, type(e).__name__, e))
        names = list(container.data_file_names)
    else:
        container = Container()
    for path in files:
        name = os.path.basename(path)
        if not name or name == "mimetype" or name in names:
            fail("bad or duplicate data file name: %r" % name)
        try:
            data = open(path, "rb").read()
        except OSError as e:
            fail(str(e))
        container.add_file(name, data, opts["media_type"])
        names.append(name)

    # --- XAdES structure by pyasice, SignatureValue by cryptography -------------------------
    xs = container.prepare_signature(cert_der, sig_hash)

    ds = "{http://www.w3.org/2000/09/xmldsig#}"
    if not opts["raw_uris"]:
        for ref in xs.xml.iter(ds + "Reference"):
            uri = ref.get("URI", "")
            if uri and not uri.startswith("#"):
                ref.set("URI", uri_encode(uri))
    if not opts["keep_unsigned"]:
        unsigned = xs.xml.find(".//{http://uri.etsi.org/01903/v1.3.2#}UnsignedProperties")
        if unsigned is not None:
            unsigned.getparent().remove(unsigned)

    pss = opts["rsa_pss"] and isinstance(key, rsa.RSAPrivateKey)
    if opts["rsa_pss"] and not pss:
        fail("--rsa-pss needs an RSA key")
    if pss:
        method = xs.xml.find(".//%sSignedInfo/%sSignatureMethod" % (ds, ds))
        method.set("Algorithm", "http://www.w3.org/2007/05/xmldsig-more#%s-rsa-MGF1" % sig_hash)

    # The hash of c14n(SignedInfo), pyasice's own canonical form (its digest() reads the hash from
    # the method name, which for PSS does not end in one).
    digest = hashlib.new(sig_hash, xs.signed_data()).digest() if pss else xs.digest()
    if isinstance(key, ec.EllipticCurvePrivateKey):
        # pyasice's verifier first tries the value as DER with asn1crypto's lenient load, which
        # accepts a raw r||s that happens to begin with 0x30 and a small length byte, and then
        # fails it. ECDSA is randomised: sign again until the raw value cannot be taken for DER.
        for _ in range(64):
            der = key.sign(digest, ec.ECDSA(Prehashed(hash_cls())))
            if opts["ecdsa_der"]:
                signature = der
                break
            r, s = decode_dss_signature(der)
            signature = r.to_bytes(field_len, "big") + s.to_bytes(field_len, "big")
            if signature[0] != 0x30:
                break
    elif pss:
        signature = key.sign(digest, padding.PSS(mgf=padding.MGF1(hash_cls()), salt_length=hash_cls.digest_size), Prehashed(hash_cls()))
    else:
        signature = key.sign(digest, padding.PKCS1v15(), Prehashed(hash_cls()))
    xs.set_signature_value(signature)
    if not pss:
        xs.verify()  # pyasice checks its own result (it has no PSS)

    container.add_signature(xs)
    tmp = out_path + ".tmp-%d" % os.getpid()
    try:
        container.save(tmp)
        os.replace(tmp, out_path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    print("pyasice-sign.py: wrote %s (pyasice %s, %s, %d file(s), %s URIs, SignatureValue %d bytes%s)" % (
        out_path, pyasice.__version__, xs.get_signature_algorithm(), len(names),
        "raw" if opts["raw_uris"] else "percent-encoded", len(signature),
        ", ECDSA DER" if opts["ecdsa_der"] and isinstance(key, ec.EllipticCurvePrivateKey) else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
