#!/usr/bin/env bash
# xmlsec-check.sh — verify every XAdES signature of an ASiC-E container with xmlsec1,
# the engine libdigidocpp uses, with the signer's certificate given as the only key.
#
#   scripts/xmlsec-check.sh [-v] CONTAINER [CERT]
#
# CERT (PEM or DER) is the only key xmlsec1 gets; KeyInfo is never searched for a key
# (--enabled-key-data key-name). Without CERT, each signature's own KeyInfo
# X509Certificate is used as the forced key, which is exactly what libdigidocpp does.
# With CERT, a KeyInfo certificate that differs from CERT is reported as a note.
# No certificate-chain, OCSP or time-stamp checks are made.
#
# The container is extracted safely to a temporary folder (no absolute paths, no '..',
# no backslashes, no symlinks, no duplicates), and xmlsec1 runs with that folder as its
# working directory: xmlsec1 1.2.37 resolves a relative Reference URI against the current
# directory, not against the signature file's location (checked: from another directory
# it fails with "xmlSecTransformInputURIOpen ... uri=my%20file..."). Percent-encoded URIs
# work because libxml2 retries a file name unescaped. Before xmlsec1 runs, every data-file
# URI is checked to be a plain relative path inside the container, so nothing outside the
# temporary folder and nothing on the network is ever read. (xmlsec1's own
# --enabled-reference-uris cannot do this: it counts every URI that does not start with
# "file://" as "remote", relative file names included.)
#
# Exit status: 0 every signature verifies, 1 something failed (or no signature),
# 2 usage error, 3 xmlsec1 or python3 missing.
set -euo pipefail

usage() {
  cat >&2 <<'EOF'
usage: xmlsec-check.sh [-v] CONTAINER [CERT]
  CONTAINER  an ASiC-E (.asice/.bdoc/.sce) file
  CERT       the signer's certificate, PEM or DER, used as the only verification key;
             default: each signature's own KeyInfo certificate (as libdigidocpp does)
  -v         print xmlsec1's full output for every signature
Checks each ds:Signature in each META-INF/*signatures*.xml with `xmlsec1 --verify`.
Exit: 0 all signatures verify, 1 a failure or no signature, 2 usage, 3 missing tools.
EOF
  exit 2
}

VERBOSE=0
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage ;;
    -v|--verbose) VERBOSE=1; shift ;;
    --) shift; args+=("$@"); break ;;
    -*) echo "xmlsec-check.sh: unknown option: $1" >&2; usage ;;
    *) args+=("$1"); shift ;;
  esac
done
[ ${#args[@]} -eq 1 ] || [ ${#args[@]} -eq 2 ] || usage
CONTAINER=${args[0]}
CERT=${args[1]:-}
[ -f "$CONTAINER" ] || { echo "xmlsec-check.sh: no such file: $CONTAINER" >&2; exit 2; }
[ -z "$CERT" ] || [ -f "$CERT" ] || { echo "xmlsec-check.sh: no such file: $CERT" >&2; exit 2; }
command -v xmlsec1 >/dev/null || { echo "xmlsec-check.sh: xmlsec1 not found (apt-get install xmlsec1)" >&2; exit 3; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3 || true)
[ -n "$PY" ] || { echo "xmlsec-check.sh: python3 not found" >&2; exit 3; }

CONTAINER_ABS=$(cd "$(dirname "$CONTAINER")" && pwd)/$(basename "$CONTAINER")
CERT_ABS=""
if [ -n "$CERT" ]; then
  CERT_ABS=$(cd "$(dirname "$CERT")" && pwd)/$(basename "$CERT")
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/xmlsec-check.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
mkdir "$TMP/root"

# ---- safe extraction and the list of signatures to check --------------------
# Prints one line per ds:Signature: "OK<TAB>sigfile<TAB>index<TAB>count<TAB>Id<TAB>keyinfo.pem",
# or "ERR<TAB>where<TAB>message" for a problem that is decided without xmlsec1.
# The KeyInfo certificate of each signature is written to $TMP/keyinfo-N.pem.
"$PY" - "$CONTAINER_ABS" "$TMP/root" "$TMP" >"$TMP/plan" <<'EOF'
import base64, binascii, os, re, stat, sys, textwrap, zipfile
import xml.etree.ElementTree as ET
from urllib.parse import unquote

container, root, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
nsig = 0
DS = "{http://www.w3.org/2000/09/xmldsig#}"
ASIC = "{http://uri.etsi.org/02918/v1.2.1#}"

def err(where, msg):
    print("ERR\t%s\t%s" % (where, msg.replace("\t", " ").replace("\n", " ")))

def bad_path(name):
    parts = name.split("/")
    return (not name or name.startswith("/") or "\\" in name or "\0" in name
            or re.match(r"^[A-Za-z]:", name) is not None
            or any(p in ("", ".", "..") for p in parts[:-1]) or parts[-1] in (".", ".."))

try:
    zf = zipfile.ZipFile(container)
except (zipfile.BadZipFile, OSError) as e:
    err("container", "cannot open as zip: %s" % e)
    sys.exit(0)
seen = set()
names = []
for info in zf.infolist():
    n = info.filename
    if n in seen:
        err("container", "duplicate zip entry %r" % n); sys.exit(0)
    seen.add(n)
    if bad_path(n.rstrip("/") if n.endswith("/") else n):
        err("container", "unsafe zip entry name %r" % n); sys.exit(0)
    if stat.S_ISLNK(info.external_attr >> 16):
        err("container", "symlink zip entry %r" % n); sys.exit(0)
    if n.endswith("/"):
        os.makedirs(os.path.join(root, n), exist_ok=True)
        continue
    dest = os.path.join(root, n)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    try:
        with zf.open(info) as src, open(dest, "xb") as out:
            while True:
                chunk = src.read(1 << 20)
                if not chunk:
                    break
                out.write(chunk)
    except (zipfile.BadZipFile, OSError, RuntimeError) as e:
        err("container", "cannot extract %r: %s" % (n, e)); sys.exit(0)
    names.append(n)

sigfiles = [n for n in names if n.startswith("META-INF/") and "/" not in n[9:]
            and "signatures" in n[9:] and n.endswith(".xml")]
if not sigfiles:
    err("container", "no META-INF/*signatures*.xml")
data_files = set(n for n in names if not n.startswith("META-INF/") and n != "mimetype")
for sf in sigfiles:
    raw = open(os.path.join(root, sf), "rb").read()
    if b"<!DOCTYPE" in raw or b"<!ENTITY" in raw:
        err(sf, "DOCTYPE/ENTITY in the signature file; refused"); continue
    try:
        doc = ET.fromstring(raw)
    except ET.ParseError as e:
        err(sf, "not well-formed XML: %s" % e); continue
    if doc.tag != ASIC + "XAdESSignatures":
        err(sf, "root element is %s, not asic:XAdESSignatures" % doc.tag); continue
    sigs = doc.findall(DS + "Signature")
    if not sigs:
        err(sf, "no ds:Signature"); continue
    # ds:Signature elements deeper down (e.g. a XAdES CounterSignature) are not checked;
    # --node-xpath below always picks the i-th ds:Signature child of the root.
    for i, sig in enumerate(sigs, 1):
        where = "%s#%s" % (sf, sig.get("Id", "?"))
        bad = False
        for ref in sig.findall(DS + "SignedInfo/" + DS + "Reference"):
            uri = ref.get("URI")
            if uri is None or uri == "" or uri.startswith("#"):
                continue
            dec = unquote(uri, errors="replace")
            if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", uri) or bad_path(dec):
                err(where, "Reference URI %r is not a plain relative path; not handed to xmlsec1" % uri); bad = True
            elif "#" not in uri and dec != uri and uri in data_files:
                err(where, "Reference URI %r is ambiguous: a file with that literal name exists too" % uri); bad = True
        if bad:
            continue
        nsig += 1
        certpath = "-"
        x = sig.find(DS + "KeyInfo/" + DS + "X509Data/" + DS + "X509Certificate")
        if x is not None and x.text:
            try:
                der = base64.b64decode("".join(x.text.split()), validate=True)
                certpath = os.path.join(tmp, "keyinfo-%d.pem" % nsig)
                with open(certpath, "w") as f:
                    f.write("-----BEGIN CERTIFICATE-----\n" + "\n".join(textwrap.wrap(base64.b64encode(der).decode(), 64))
                            + "\n-----END CERTIFICATE-----\n")
            except (binascii.Error, ValueError):
                certpath = "-"
        print("OK\t%s\t%d\t%d\t%s\t%s" % (sf, i, len(sigs), sig.get("Id", "?"), certpath))
EOF

FAILED=0
CHECKED=0
while IFS=$'\t' read -r kind a b _count d e; do
  if [ "$kind" = ERR ]; then
    echo "$a: FAIL ($b)"
    FAILED=1
    continue
  fi
  sigfile=$a idx=$b sigid=$d keyinfo=$e  # _count: number of ds:Signature in the file
  note=""
  if [ -n "$CERT_ABS" ]; then
    keycert=$CERT_ABS
    if [ "$keyinfo" = - ]; then
      note="; no KeyInfo certificate"
    elif [ "$(openssl x509 -in "$keyinfo" -outform DER 2>/dev/null | sha256sum)" != \
           "$( (openssl x509 -in "$CERT_ABS" -outform DER 2>/dev/null || openssl x509 -inform DER -in "$CERT_ABS" -outform DER 2>/dev/null) | sha256sum)" ]; then
      note="; note: the KeyInfo certificate is not CERT"
    fi
  else
    if [ "$keyinfo" = - ]; then
      echo "$sigfile#$sigid: FAIL (no KeyInfo X509Certificate and no CERT given)"
      FAILED=1
      continue
    fi
    keycert=$keyinfo
    note="; key from KeyInfo"
  fi
  if grep -q -- '-----BEGIN CERTIFICATE-----' "$keycert"; then
    keyopt=(--pubkey-cert-pem "$keycert")
  else
    keyopt=(--pubkey-cert-der "$keycert")
  fi
  node=(--node-xpath "(/*/*[local-name()='Signature' and namespace-uri()='http://www.w3.org/2000/09/xmldsig#'])[$idx]")
  set +e
  (cd "$TMP/root" && xmlsec1 --verify "${keyopt[@]}" --enabled-key-data key-name \
      --id-attr:Id 'http://uri.etsi.org/01903/v1.3.2#:SignedProperties' \
      --id-attr:Id 'http://www.w3.org/2000/09/xmldsig#:KeyInfo' \
      "${node[@]}" "$sigfile") >"$TMP/out" 2>&1 </dev/null
  rc=$?
  set -e
  CHECKED=$((CHECKED + 1))
  refs=$(grep -m1 '^SignedInfo References' "$TMP/out" | sed 's/.*: //' || true)
  if [ "$rc" -eq 0 ] && grep -qx 'OK' "$TMP/out"; then
    echo "$sigfile#$sigid: OK (xmlsec1, SignedInfo references ok/all ${refs:-?}$note)"
    [ "$VERBOSE" -eq 0 ] || sed 's/^/  /' "$TMP/out" >&2
  else
    echo "$sigfile#$sigid: FAIL (xmlsec1 exit $rc, SignedInfo references ok/all ${refs:-?}$note)"
    FAILED=1
    if [ "$VERBOSE" -eq 1 ]; then
      sed 's/^/  /' "$TMP/out" >&2
    else
      # the first few xmlsec errors, shortened
      grep -E 'error=|^FAIL|^Error' "$TMP/out" | sed -E 's/^func=([^:]*):file=[^:]*:line=[0-9]*:/\1: /' | head -6 | cut -c1-300 | sed 's/^/  /' >&2 || true
    fi
  fi
done <"$TMP/plan"

if [ "$CHECKED" -eq 0 ] && [ "$FAILED" -eq 0 ]; then
  echo "no signature checked"
  FAILED=1
fi
exit "$FAILED"
