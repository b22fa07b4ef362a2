#!/usr/bin/env bash
# test-crosscheck.sh — self-test of the cross-check tools (no Swift involved):
# pyasice-sign.py makes containers with the fixture keys, pyasice-check.py and
# xmlsec-check.sh must accept them and must reject tampered copies.
#
#   scripts/test-crosscheck.sh [-v]
#
# Needs Fixtures/pki (scripts/make-test-pki.sh) and runs scripts/setup-pyasice.sh
# (a no-op when the venv already works). Ends with "N passed, N failed"; exit 1 on a failure.
set -euo pipefail

VERBOSE=0
case "${1:-}" in
  "") ;;
  -v) VERBOSE=1 ;;
  *) echo "usage: test-crosscheck.sh [-v]" >&2; exit 2 ;;
esac

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
PKI=${TAMGA_TEST_PKI:-$REPO_ROOT/Fixtures/pki}
[ -f "$PKI/ec-p256.cert.pem" ] || { echo "test-crosscheck.sh: no test PKI in $PKI (run scripts/make-test-pki.sh)" >&2; exit 1; }

"$SCRIPT_DIR/setup-pyasice.sh"
"$SCRIPT_DIR/setup-xmlsec13.sh"
VENV=${PYASICE_VENV:-$REPO_ROOT/.build/pyasice-venv}
X13PY=${XMLSEC13_VENV:-$REPO_ROOT/.build/xmlsec13-venv}/bin/python
X13CHECK=("$X13PY" "$SCRIPT_DIR/xmlsec13-check.py")
VPY=$VENV/bin/python
SIGN=("$VPY" "$SCRIPT_DIR/pyasice-sign.py")
PCHECK=("$VPY" "$SCRIPT_DIR/pyasice-check.py")
XCHECK=("$SCRIPT_DIR/xmlsec-check.sh")
TAMPER=(/usr/bin/python3 "$SCRIPT_DIR/asice-tamper.py")

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tamga-crosscheck.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

PASSED=0
FAILED=0
# expect RC DESCRIPTION CMD... : run CMD, compare its exit status with RC
expect() {
  local want=$1 desc=$2 rc
  shift 2
  set +e
  "$@" >"$WORK/out" 2>&1
  rc=$?
  set -e
  if [ "$rc" -eq "$want" ]; then
    PASSED=$((PASSED + 1))
    echo "ok   - $desc (exit $rc)"
    [ "$VERBOSE" -eq 0 ] || sed 's/^/       | /' "$WORK/out"
  else
    FAILED=$((FAILED + 1))
    echo "FAIL - $desc (exit $rc, want $want)"
    sed 's/^/       | /' "$WORK/out"
  fi
}

# data files: a space, a '#' and a non-ASCII letter in the first name
mkdir data
printf 'hello, world\n' >"data/my file ö #1.txt"
printf 'second file\n' >data/test1.txt
"$VPY" -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 40)' >data/data.bin
FILES=("data/my file ö #1.txt" data/test1.txt data/data.bin)
F1="my file ö #1.txt"

echo "# signing with pyasice"
expect 0 "pyasice-sign ec-p256" "${SIGN[@]}" ec256.asice "$PKI/ec-p256.key.pem" "$PKI/ec-p256.cert.pem" "${FILES[@]}"
expect 0 "pyasice-sign rsa-2048" "${SIGN[@]}" rsa.asice "$PKI/rsa-2048.key.pem" "$PKI/rsa-2048.cert.pem" "${FILES[@]}"
expect 0 "pyasice-sign ec-p384 (encrypted key)" "${SIGN[@]}" --key-password test1234 ec384.asice "$PKI/ec-p384.enc.key.pem" "$PKI/ec-p384.cert.pem" "${FILES[@]}"
expect 0 "pyasice-sign ec-p256 --ecdsa-der" "${SIGN[@]}" --ecdsa-der ec256-der.asice "$PKI/ec-p256.key.pem" "$PKI/ec-p256.cert.pem" "${FILES[@]}"
expect 0 "pyasice-sign ec-p256 --raw-uris" "${SIGN[@]}" --raw-uris ec256-rawuri.asice "$PKI/ec-p256.key.pem" "$PKI/ec-p256.cert.pem" "${FILES[@]}"
expect 1 "pyasice-sign refuses a key that is not the certificate's" "${SIGN[@]}" x.asice "$PKI/ec-p256.key.pem" "$PKI/rsa-2048.cert.pem" data/test1.txt
expect 2 "pyasice-sign usage error" "${SIGN[@]}" x.asice

echo "# valid containers"
for c in ec256:ec-p256 rsa:rsa-2048 ec384:ec-p384; do
  f=${c%%:*}.asice k=${c#*:}
  expect 0 "pyasice-check $f" "${PCHECK[@]}" --require-raw-ecdsa "$f"
  expect 0 "xmlsec-check $f with $k.cert.pem" "${XCHECK[@]}" "$f" "$PKI/$k.cert.pem"
  expect 0 "xmlsec-check $f with the KeyInfo certificate" "${XCHECK[@]}" "$f"
  expect 1 "xmlsec-check $f with other-ec-p256.cert.pem" "${XCHECK[@]}" "$f" "$PKI/other-ec-p256.cert.pem"
done

echo "# tampered copies"
for c in ec256:ec-p256 rsa:rsa-2048; do
  b=${c%%:*} k=${c#*:}
  "${TAMPER[@]}" "$b.asice" "$b-data.asice" flip-byte "$F1" 3
  expect 1 "pyasice-check $b: data file byte changed" "${PCHECK[@]}" "$b-data.asice"
  expect 1 "xmlsec-check $b: data file byte changed" "${XCHECK[@]}" "$b-data.asice" "$PKI/$k.cert.pem"
  "${TAMPER[@]}" "$b.asice" "$b-sp.asice" sub META-INF/signatures1.xml '(SigningTime>)(\d{4})' '\g<1>1999'
  expect 1 "pyasice-check $b: SigningTime changed" "${PCHECK[@]}" "$b-sp.asice"
  expect 1 "xmlsec-check $b: SigningTime changed" "${XCHECK[@]}" "$b-sp.asice" "$PKI/$k.cert.pem"
  "${TAMPER[@]}" "$b.asice" "$b-sv.asice" sigvalue
  expect 1 "pyasice-check $b: SignatureValue bit flipped" "${PCHECK[@]}" "$b-sv.asice"
  expect 1 "xmlsec-check $b: SignatureValue bit flipped" "${XCHECK[@]}" "$b-sv.asice" "$PKI/$k.cert.pem"
  "${TAMPER[@]}" "$b.asice" "$b-ki.asice" keyinfo "$PKI/other-ec-p256.cert.pem"
  expect 1 "pyasice-check $b: KeyInfo swapped to other-ec-p256" "${PCHECK[@]}" "$b-ki.asice"
  expect 1 "xmlsec-check $b: KeyInfo swapped (key from KeyInfo)" "${XCHECK[@]}" "$b-ki.asice"
  "${TAMPER[@]}" "$b.asice" "$b-add.asice" add-file extra.txt "added after signing"
  expect 1 "pyasice-check $b: unsigned file added (coverage)" "${PCHECK[@]}" "$b-add.asice"
  "${TAMPER[@]}" "$b.asice" "$b-rm.asice" remove test1.txt
  expect 1 "pyasice-check $b: signed file removed" "${PCHECK[@]}" "$b-rm.asice"
  expect 1 "xmlsec-check $b: signed file removed" "${XCHECK[@]}" "$b-rm.asice" "$PKI/$k.cert.pem"
done

echo "# RSA-PSS (xmldsig-more#sha256-rsa-MGF1): pyasice-check (cryptography's PSS) and libxmlsec1 1.3"
expect 0 "pyasice-sign rsa-2048 --rsa-pss" "${SIGN[@]}" --rsa-pss pss.asice "$PKI/rsa-2048.key.pem" "$PKI/rsa-2048.cert.pem" "${FILES[@]}"
expect 1 "pyasice-sign --rsa-pss refuses an EC key" "${SIGN[@]}" --rsa-pss x.asice "$PKI/ec-p256.key.pem" "$PKI/ec-p256.cert.pem" data/test1.txt
expect 0 "pyasice-check pss.asice" "${PCHECK[@]}" pss.asice
expect 0 "xmlsec13-check pss.asice" "${X13CHECK[@]}" pss.asice
expect 0 "xmlsec13-check rsa.asice (PKCS#1 v1.5 too)" "${X13CHECK[@]}" rsa.asice
expect 1 "xmlsec-check pss.asice: xmlsec1 1.2.37 has no RSA-PSS" "${XCHECK[@]}" pss.asice "$PKI/rsa-2048.cert.pem"
"${TAMPER[@]}" pss.asice pss-data.asice flip-byte "$F1" 3
expect 1 "pyasice-check pss: data file byte changed" "${PCHECK[@]}" pss-data.asice
expect 1 "xmlsec13-check pss: data file byte changed" "${X13CHECK[@]}" pss-data.asice
"${TAMPER[@]}" pss.asice pss-sp.asice sub META-INF/signatures1.xml '(SigningTime>)(\d{4})' '\g<1>1999'
expect 1 "pyasice-check pss: SigningTime changed" "${PCHECK[@]}" pss-sp.asice
expect 1 "xmlsec13-check pss: SigningTime changed" "${X13CHECK[@]}" pss-sp.asice
"${TAMPER[@]}" pss.asice pss-sv.asice sigvalue
expect 1 "pyasice-check pss: SignatureValue bit flipped" "${PCHECK[@]}" pss-sv.asice
expect 1 "xmlsec13-check pss: SignatureValue bit flipped" "${X13CHECK[@]}" pss-sv.asice
"${TAMPER[@]}" pss.asice pss-ki.asice keyinfo "$PKI/other-ec-p256.cert.pem"
expect 1 "xmlsec13-check pss: KeyInfo swapped (key from KeyInfo)" "${X13CHECK[@]}" pss-ki.asice
"${TAMPER[@]}" pss.asice pss-rm.asice remove test1.txt
expect 1 "xmlsec13-check pss: signed file removed" "${X13CHECK[@]}" pss-rm.asice
"${TAMPER[@]}" pss.asice pss-method.asice sub META-INF/signatures1.xml 'sha256-rsa-MGF1' 'rsa-sha256'
expect 1 "pyasice-check pss: SignatureMethod changed to PKCS#1 v1.5" "${PCHECK[@]}" pss-method.asice
expect 1 "xmlsec13-check pss: SignatureMethod changed to PKCS#1 v1.5" "${X13CHECK[@]}" pss-method.asice

echo "# pyasice's own habits"
expect 0 "pyasice-check accepts DER ECDSA (as pyasice does)" "${PCHECK[@]}" ec256-der.asice
expect 1 "pyasice-check --require-raw-ecdsa rejects DER ECDSA" "${PCHECK[@]}" --require-raw-ecdsa ec256-der.asice
expect 1 "xmlsec-check rejects DER ECDSA (xmlsec1 1.2.37 wants raw r||s)" "${XCHECK[@]}" ec256-der.asice "$PKI/ec-p256.cert.pem"
expect 1 "pyasice-check rejects a raw '#' in a data URI" "${PCHECK[@]}" ec256-rawuri.asice
expect 0 "pyasice-check --lenient-uris accepts raw URIs" "${PCHECK[@]}" --lenient-uris ec256-rawuri.asice
expect 1 "xmlsec-check fails on a raw '#' in a data URI" "${XCHECK[@]}" ec256-rawuri.asice "$PKI/ec-p256.cert.pem"

echo "# usage"
expect 2 "pyasice-check without arguments" "${PCHECK[@]}"
expect 2 "xmlsec-check without arguments" "${XCHECK[@]}"
expect 2 "xmlsec13-check without arguments" "${X13CHECK[@]}"
expect 2 "xmlsec-check with a missing certificate file" "${XCHECK[@]}" ec256.asice /nonexistent.pem

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
