#!/usr/bin/env bash
# make-test-pki.sh — generate the tamga TEST-ONLY PKI with the openssl CLI.
#
#   scripts/make-test-pki.sh [--force] [OUTDIR]      (default OUTDIR: <repo>/Fixtures/pki)
#
# Wipes OUTDIR and recreates it. To avoid deleting the wrong thing, a non-empty
# OUTDIR is only wiped when it holds the marker file written by this script
# (.make-test-pki), unless --force is given.
#
# Everything here is for tests. The private keys are committed on purpose and
# must never be trusted anywhere.
set -euo pipefail

usage() {
  cat >&2 <<'EOF'
usage: make-test-pki.sh [--force] [OUTDIR]

Creates the tamga TEST-ONLY PKI (root CA, issuing CA, signer, OCSP responder
and TSA certificates) in OUTDIR (default: <repo>/Fixtures/pki). OUTDIR is wiped
first; a non-empty OUTDIR without the .make-test-pki marker is refused unless
--force is given.
EOF
  exit 2
}

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)

FORCE=0
OUTDIR=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage ;;
    --force) FORCE=1; shift ;;
    --) shift; [ $# -le 1 ] || usage; OUTDIR=${1:-}; break ;;
    -*) echo "make-test-pki.sh: unknown option: $1" >&2; usage ;;
    *) [ -z "$OUTDIR" ] || usage; OUTDIR=$1; shift ;;
  esac
done
[ -n "$OUTDIR" ] || OUTDIR="$REPO_ROOT/Fixtures/pki"

command -v openssl >/dev/null || { echo "make-test-pki.sh: openssl not found" >&2; exit 1; }

# ---- constants ------------------------------------------------------------
PASS=test1234
START=20250101000000Z     # notBefore of every certificate
END=20450101000000Z       # notAfter of every certificate
BASE_URL=http://127.0.0.1:8788
OCSP_URL=$BASE_URL/ocsp
ROOT_URL=$BASE_URL/ca/root.cert.der
ISSUING_URL=$BASE_URL/ca/issuing-ca.cert.der
MARKER=.make-test-pki

# ---- prepare OUTDIR safely ---------------------------------------------------
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd -P)
case "$OUTDIR" in
  /|/root|/home|/usr|/etc|/tmp|/work|"$REPO_ROOT"|"$HOME")
    echo "make-test-pki.sh: refusing to wipe $OUTDIR" >&2; exit 1 ;;
esac
if [ -n "$(ls -A "$OUTDIR")" ] && [ ! -e "$OUTDIR/$MARKER" ] && [ "$FORCE" -ne 1 ]; then
  echo "make-test-pki.sh: $OUTDIR is not empty and was not made by this script (no $MARKER); use --force" >&2
  exit 1
fi
find "$OUTDIR" -mindepth 1 -delete

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tamga-pki.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

echo "make-test-pki.sh: writing test PKI to $OUTDIR"
OSSL_VER=$(openssl version)

# ---- helpers --------------------------------------------------------------
genkey() { # genkey TYPE OUT
  case "$1" in
    ec-p256) openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -pkeyopt ec_param_enc:named_curve -out "$2" ;;
    ec-p384) openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 -pkeyopt ec_param_enc:named_curve -out "$2" ;;
    rsa-2048) openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$2" ;;
    rsa-3072) openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:3072 -out "$2" ;;
    *) echo "genkey: unknown type $1" >&2; exit 1 ;;
  esac
  # genpkey already writes unencrypted PKCS#8 ("BEGIN PRIVATE KEY"); normalise anyway.
  openssl pkcs8 -topk8 -nocrypt -in "$2" -out "$2.tmp" && mv "$2.tmp" "$2"
}

source "$SCRIPT_DIR/pki-lib.sh"   # mkca

# All certificate extensions live in one file, one section per profile.
EXT=$WORK/ext.cnf
cat >"$EXT" <<EOF
[ root_ca ]
basicConstraints       = critical, CA:TRUE
keyUsage               = critical, keyCertSign, cRLSign
subjectKeyIdentifier   = hash

[ issuing_ca ]
basicConstraints       = critical, CA:TRUE, pathlen:0
keyUsage               = critical, keyCertSign, cRLSign
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
authorityInfoAccess    = caIssuers;URI:$ROOT_URL

[ signer ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, digitalSignature, nonRepudiation
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
authorityInfoAccess    = OCSP;URI:$OCSP_URL, caIssuers;URI:$ISSUING_URL

[ signer_nonrep_missing ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, digitalSignature
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
authorityInfoAccess    = OCSP;URI:$OCSP_URL, caIssuers;URI:$ISSUING_URL

[ ocsp_responder ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, digitalSignature
extendedKeyUsage       = OCSPSigning
noCheck                = ignored
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
authorityInfoAccess    = caIssuers;URI:$ISSUING_URL

[ ocsp_responder_tm ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, digitalSignature
extendedKeyUsage       = OCSPSigning
noCheck                = ignored
certificatePolicies    = 1.3.6.1.4.1.10015.4.1.2
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
authorityInfoAccess    = caIssuers;URI:$ISSUING_URL

[ ocsp_responder_other_policy ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, digitalSignature
extendedKeyUsage       = OCSPSigning
noCheck                = ignored
certificatePolicies    = 1.3.6.1.4.1.10015.3.1.1
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
authorityInfoAccess    = caIssuers;URI:$ISSUING_URL

[ tsa ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, digitalSignature, nonRepudiation
extendedKeyUsage       = critical, timeStamping
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
authorityInfoAccess    = OCSP;URI:$OCSP_URL, caIssuers;URI:$ISSUING_URL
EOF

# issue CA_NAME CA_CERT CA_KEY SUBJECT EXT_SECTION CSR OUT_CERT [extra ca args]
issue() {
  local ca=$1 cacert=$2 cakey=$3 subj=$4 sect=$5 csr=$6 out=$7
  local end=${ISSUE_END:-$END}   # a shorter validity for the certificate that expires early
  shift 7
  openssl req -new -key "$csr.key" -subj "$subj" -utf8 -out "$csr" 2>/dev/null
  local certarg=()
  [ -z "$cacert" ] || certarg=(-cert "$cacert")
  openssl ca -batch -notext -config "$WORK/$ca/ca.cnf" "${certarg[@]}" -keyfile "$cakey" \
    -in "$csr" -out "$out.tmp" -startdate "$START" -enddate "$end" -md sha256 \
    -preserveDN -utf8 -extfile "$EXT" -extensions "$sect" "$@" 2>"$WORK/ca.log" \
    || { cat "$WORK/ca.log" >&2; exit 1; }
  openssl x509 -in "$out.tmp" -out "$out"   # strip anything but the PEM block
  rm -f "$out.tmp"
}

# write the per-key file set
write_set() { # write_set NAME  (expects $OUTDIR/NAME.key.pem and NAME.cert.pem)
  local n=$1
  openssl x509 -in "$OUTDIR/$n.cert.pem" -outform DER -out "$OUTDIR/$n.cert.der"
  openssl pkcs8 -topk8 -in "$OUTDIR/$n.key.pem" -v2 aes-256-cbc -v2prf hmacWithSHA256 -iter 2048 \
    -passout "pass:$PASS" -out "$OUTDIR/$n.enc.key.pem"
  openssl pkcs12 -export -name "$n" -inkey "$OUTDIR/$n.key.pem" -in "$OUTDIR/$n.cert.pem" \
    -certfile "$OUTDIR/chain.pem" -keypbe AES-256-CBC -certpbe AES-256-CBC -macalg sha256 -iter 2048 \
    -passout "pass:$PASS" -out "$OUTDIR/$n.p12"
}

# ---- root CA (RSA 3072, self-signed) ----------------------------------------
mkca root 01
genkey rsa-3072 "$OUTDIR/root.key.pem"
cp "$OUTDIR/root.key.pem" "$WORK/root.csr.key"
issue root "" "$OUTDIR/root.key.pem" \
  "/C=EE/O=tamga TEST ONLY/CN=tamga Test Root CA" root_ca "$WORK/root.csr" "$OUTDIR/root.cert.pem" -selfsign
openssl x509 -in "$OUTDIR/root.cert.pem" -outform DER -out "$OUTDIR/root.cert.der"

# ---- issuing CA (EC P-256, signed by the root) -------------------------------
genkey ec-p256 "$OUTDIR/issuing-ca.key.pem"
cp "$OUTDIR/issuing-ca.key.pem" "$WORK/issuing.csr.key"
issue root "$OUTDIR/root.cert.pem" "$OUTDIR/root.key.pem" \
  "/C=EE/O=tamga TEST ONLY/CN=tamga Test Issuing CA" issuing_ca "$WORK/issuing.csr" "$OUTDIR/issuing-ca.cert.pem"
openssl x509 -in "$OUTDIR/issuing-ca.cert.pem" -outform DER -out "$OUTDIR/issuing-ca.cert.der"
cat "$OUTDIR/issuing-ca.cert.pem" "$OUTDIR/root.cert.pem" >"$OUTDIR/chain.pem"

# ---- end-entity certificates from the issuing CA --------------------------------
# name | key type | subject | extension section    (serials are issued in this order, from 0x1000)
ENTITIES=(
  "ec-p256|ec-p256|/C=EE/serialNumber=PNOEE-30303039914/GN=TEST/SN=SIGNER/CN=TEST SIGNER EC256|signer"
  "ec-p384|ec-p384|/C=EE/serialNumber=PNOEE-30303039914/GN=TEST/SN=SIGNER/CN=TEST SIGNER EC384|signer"
  "rsa-2048|rsa-2048|/C=EE/serialNumber=PNOEE-30303039914/GN=TEST/SN=SIGNER/CN=TEST SIGNER RSA2048|signer"
  "nonrep-missing|ec-p256|/C=EE/serialNumber=PNOEE-30303039914/GN=TEST/SN=SIGNER/CN=TEST SIGNER NO NONREPUDIATION|signer_nonrep_missing"
  "other-ec-p256|ec-p256|/C=EE/serialNumber=PNOEE-40404049996/GN=OTHER/SN=SIGNER/CN=TEST OTHER SIGNER EC256|signer"
  "revoked-ec-p256|ec-p256|/C=EE/serialNumber=PNOEE-50505059997/GN=REVOKED/SN=SIGNER/CN=TEST REVOKED SIGNER EC256|signer"
  "ocsp-responder|ec-p256|/C=EE/O=tamga TEST ONLY/CN=tamga Test OCSP Responder|ocsp_responder"
  "tsa|ec-p256|/C=EE/O=tamga TEST ONLY/CN=tamga Test TSA|tsa"
  # BDOC 2.1 time-marks (validated only): responders with the TM policy and with another one,
  # and a signer that expired before any time-mark the tests make.
  "ocsp-responder-tm|ec-p256|/C=EE/O=tamga TEST ONLY/CN=tamga Test TM OCSP Responder|ocsp_responder_tm"
  "ocsp-responder-other-policy|ec-p256|/C=EE/O=tamga TEST ONLY/CN=tamga Test OCSP Responder Other Policy|ocsp_responder_other_policy"
  "expired-ec-p256|ec-p256|/C=EE/serialNumber=PNOEE-60606069998/GN=EXPIRED/SN=SIGNER/CN=TEST EXPIRED SIGNER EC256|signer"
)
EXPIRED_END=20250701000000Z   # expired-ec-p256 only
mkca issuing 1000
for e in "${ENTITIES[@]}"; do
  IFS='|' read -r name ktype subj sect <<<"$e"
  genkey "$ktype" "$OUTDIR/$name.key.pem"
  cp "$OUTDIR/$name.key.pem" "$WORK/$name.csr.key"
  ISSUE_END=$END; [ "$name" != expired-ec-p256 ] || ISSUE_END=$EXPIRED_END
  ISSUE_END=$ISSUE_END issue issuing "$OUTDIR/issuing-ca.cert.pem" "$OUTDIR/issuing-ca.key.pem" \
    "$subj" "$sect" "$WORK/$name.csr" "$OUTDIR/$name.cert.pem"
  write_set "$name"
  echo "  $name: $(openssl x509 -in "$OUTDIR/$name.cert.pem" -noout -serial -subject -nameopt RFC2253 | tr '\n' ' ')"
done

# Mark revoked-ec-p256 as revoked (keyCompromise) in the issuing CA database so
# that `openssl ocsp -index issuing-ca.index.txt` answers "revoked" for it.
openssl ca -batch -config "$WORK/issuing/ca.cnf" -cert "$OUTDIR/issuing-ca.cert.pem" \
  -keyfile "$OUTDIR/issuing-ca.key.pem" -revoke "$OUTDIR/revoked-ec-p256.cert.pem" \
  -crl_reason keyCompromise 2>"$WORK/ca.log" || { cat "$WORK/ca.log" >&2; exit 1; }
# `openssl ca -revoke` stamps the current time; pin it so the database is reproducible.
sed -E 's/^R\t([0-9]+Z)\t[0-9]+Z,/R\t\1\t250601000000Z,/' "$WORK/issuing/index.txt" >"$OUTDIR/issuing-ca.index.txt"
echo "unique_subject = no" >"$OUTDIR/issuing-ca.index.txt.attr"

# ---- self-check ------------------------------------------------------------
for e in "${ENTITIES[@]}"; do
  name=${e%%|*}
  at=1767225600; [ "$name" != expired-ec-p256 ] || at=1740787200   # 2026-01-01 / 2025-03-01
  openssl verify -CAfile "$OUTDIR/root.cert.pem" -untrusted "$OUTDIR/issuing-ca.cert.pem" \
    -attime "$at" "$OUTDIR/$name.cert.pem" >/dev/null
  openssl pkcs12 -in "$OUTDIR/$name.p12" -passin "pass:$PASS" -noout
  openssl pkey -in "$OUTDIR/$name.enc.key.pem" -passin "pass:$PASS" -noout
  # key and certificate belong together
  [ "$(openssl pkey -in "$OUTDIR/$name.key.pem" -pubout)" = "$(openssl x509 -in "$OUTDIR/$name.cert.pem" -noout -pubkey)" ] \
    || { echo "make-test-pki.sh: key/cert mismatch for $name" >&2; exit 1; }
done

cat >"$OUTDIR/$MARKER" <<'EOF'
This folder is generated by scripts/make-test-pki.sh; it is wiped on every run.
EOF
# ---- README.md (lists every file; fails if a file is left undescribed) ------------
describe() { # describe FILE -> one-line description
  local f=$1 n
  case "$f" in
    README.md) echo "this file" ;;
    "$MARKER") echo "marker: lets make-test-pki.sh wipe this folder on the next run" ;;
    root.key.pem) echo "root CA private key, RSA 3072, PKCS#8 unencrypted" ;;
    root.cert.pem) echo "root CA certificate (self-signed), PEM" ;;
    root.cert.der) echo "root CA certificate, DER (what the caIssuers URL of the issuing CA serves)" ;;
    issuing-ca.key.pem) echo "issuing CA private key, EC P-256, PKCS#8 unencrypted" ;;
    issuing-ca.cert.pem) echo "issuing CA certificate (signed by the root), PEM" ;;
    issuing-ca.cert.der) echo "issuing CA certificate, DER (what the caIssuers URL of the end-entity certificates serves)" ;;
    chain.pem) echo "issuing-ca.cert.pem followed by root.cert.pem" ;;
    issuing-ca.index.txt) echo "\`openssl ca\` database of the issuing CA (for \`openssl ocsp -index\`): every certificate V, revoked-ec-p256 R" ;;
    issuing-ca.index.txt.attr) echo "attribute file that goes with issuing-ca.index.txt" ;;
    *.enc.key.pem) echo "${f%%.*} private key, PKCS#8 encrypted (PBES2 AES-256-CBC, PBKDF2-HMAC-SHA256), password test1234" ;;
    *.key.pem) echo "${f%%.*} private key, PKCS#8 unencrypted" ;;
    *.cert.pem) echo "${f%%.*} certificate, PEM" ;;
    *.cert.der) echo "${f%%.*} certificate, DER" ;;
    *.p12) echo "${f%%.*} PKCS#12: key + certificate + chain.pem (AES-256-CBC, PBKDF2, SHA-256 MAC), password test1234" ;;
    *) return 1 ;;
  esac
}
{
  cat <<EOF
# tamga test PKI — TEST ONLY

**Every key in this folder is a test key, published in the repository. Never trust
these certificates anywhere outside tamga's tests.** The subjects say TEST / TEST ONLY.

Regenerate (wipes this folder and makes new keys, so every fixture signed with the old
keys has to be remade too):

    scripts/make-test-pki.sh            # -> Fixtures/pki
    scripts/make-test-pki.sh OUTDIR     # elsewhere

Made with \`$OSSL_VER\` by \`scripts/make-test-pki.sh\`. All certificates are valid from
2025-01-01 00:00:00Z to 2045-01-01 00:00:00Z. Password \`test1234\` for every \`.p12\` and
\`.enc.key.pem\`.

## Hierarchy

* \`CN=tamga Test Root CA,O=tamga TEST ONLY,C=EE\`: RSA 3072, self-signed, serial 0x01.
* \`CN=tamga Test Issuing CA,O=tamga TEST ONLY,C=EE\`: EC P-256, signed by the root
  (sha256WithRSAEncryption), pathlen 0, AIA caIssuers $ROOT_URL.
* End-entity certificates, signed by the issuing CA (ecdsa-with-SHA256), serials from 0x1000
  in the order below. Signers have \`keyUsage\` critical digitalSignature + nonRepudiation,
  no EKU, and AIA OCSP $OCSP_URL + caIssuers $ISSUING_URL.

| name | key | subject (RFC 4514) | serial | notes |
| --- | --- | --- | --- | --- |
EOF
  for e in "${ENTITIES[@]}"; do
    IFS='|' read -r name ktype subj sect <<<"$e"
    dn=$(openssl x509 -in "$OUTDIR/$name.cert.pem" -noout -subject -nameopt RFC2253 | sed 's/^subject=//')
    ser=$(openssl x509 -in "$OUTDIR/$name.cert.pem" -noout -serial | sed 's/^serial=//')
    case "$name" in
      nonrep-missing) note="keyUsage critical digitalSignature only, for negative tests" ;;
      other-ec-p256) note="a second valid signer (e.g. to swap KeyInfo)" ;;
      revoked-ec-p256) note="valid signer, but **revoked** (keyCompromise, 2025-06-01) in issuing-ca.index.txt" ;;
      ocsp-responder) note="EKU OCSPSigning, id-pkix-ocsp-nocheck, keyUsage critical digitalSignature" ;;
      tsa) note="EKU **critical** timeStamping, keyUsage critical digitalSignature + nonRepudiation" ;;
      ocsp-responder-tm) note="as ocsp-responder, plus certificatePolicies 1.3.6.1.4.1.10015.4.1.2 (the BDOC 2.1 time-mark responder policy)" ;;
      ocsp-responder-other-policy) note="as ocsp-responder, plus certificatePolicies 1.3.6.1.4.1.10015.3.1.1 (SK's test responders' policy, not the TM one)" ;;
      expired-ec-p256) note="signer valid only 2025-01-01..2025-07-01 (expired before any time-mark the tests make)" ;;
      *) note="signer" ;;
    esac
    echo "| \`$name\` | $ktype | \`$dn\` | 0x$ser | $note |"
  done
  cat <<EOF

To serve OCSP for them (later tests), for example:

    openssl ocsp -port 8788 -index Fixtures/pki/issuing-ca.index.txt \\
      -CA Fixtures/pki/issuing-ca.cert.pem -rsigner Fixtures/pki/ocsp-responder.cert.pem \\
      -rkey Fixtures/pki/ocsp-responder.key.pem -nmin 5

and ask it with \`openssl ocsp -issuer Fixtures/pki/issuing-ca.cert.pem -cert Fixtures/pki/ec-p256.cert.pem
-url http://127.0.0.1:8788/ocsp -CAfile Fixtures/pki/root.cert.pem -verify_other Fixtures/pki/issuing-ca.cert.pem\`
(answers \`good\`; \`revoked\` for revoked-ec-p256). \`openssl ocsp\` 3.0 takes only a port number and
listens on all interfaces; it ignores the URL path \`/ocsp\`. The responses are made fresh per request.

## Files

| file | what |
| --- | --- |
EOF
} >"$OUTDIR/README.md"
for f in $(cd "$OUTDIR" && LC_ALL=C ls -A); do
  d=$(describe "$f") || { echo "make-test-pki.sh: no README description for $f" >&2; exit 1; }
  echo "| \`$f\` | $d |" >>"$OUTDIR/README.md"
done
echo "make-test-pki.sh: done ($OSSL_VER); $(find "$OUTDIR" -mindepth 1 | wc -l) files"
