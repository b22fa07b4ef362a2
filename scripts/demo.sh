#!/usr/bin/env bash
# demo.sh TAMGA — the main job on the embedded default, unattended: pack a few files into an
# ASiC-E container, sign it with the test PKI's keys and with a (virtual) ID card in a USB
# reader behind a private pcscd, verify it with tamga and with independent verifiers, then show
# that a tampered copy is caught.
# The results stay in .build/demo/ for a look afterwards.
set -euo pipefail
TAMGA=${1:?usage: demo.sh PATH-TO-TAMGA}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PKI=$REPO/Fixtures/pki
OUT=$REPO/.build/demo
rm -rf "$OUT" && mkdir -p "$OUT/files"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@"; }

step "Start a local time-stamping authority and OCSP responder for the test PKI (127.0.0.1 only)"
/usr/bin/python3 "$REPO/scripts/test-services.py" --pki "$PKI" --port 0 --exit-with-parent > "$OUT/services.out" 2> "$OUT/services.log" &
SERVICES_PID=$!
PIDS=("$SERVICES_PID")
trap 'for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done; wait 2>/dev/null' EXIT
for _ in $(seq 100); do grep -q '^listening ' "$OUT/services.out" 2>/dev/null && break; sleep 0.1; done
SERVICES=$(sed -n 's/^listening //p' "$OUT/services.out")
[ -n "$SERVICES" ] || { echo "demo: the test services did not start (see $OUT/services.log)" >&2; exit 1; }
echo "TSA:  $SERVICES/tsa"
echo "OCSP: $SERVICES/ocsp   (pid $SERVICES_PID, stopped when the demo ends)"
export TAMGA_TSA_URL="$SERVICES/tsa"

step "Sample documents"
printf 'Lease agreement\n\nThe tenant rents the flat at Ülikooli 18, Tartu, from 1 December 2026.\n' > "$OUT/files/agreement ö #1.txt"
printf '{"invoice": 2026117, "total": "1250.00", "currency": "EUR"}\n' > "$OUT/files/invoice.json"
head -c 2000000 /dev/urandom > "$OUT/files/scan.bin"
ls -l "$OUT/files"

step "Pack them into a container (mimetype first and stored; random data stored, text deflated)"
show "$TAMGA" container create "$OUT/demo.asice" "$OUT/files/agreement ö #1.txt" "$OUT/files/invoice.json" "$OUT/files/scan.bin" --force

step "Sign with an EC P-256 key from a PKCS#12 file: LT profile (time-stamp + OCSP), the password from a file here, a prompt otherwise"
printf 'test1234\n' > "$OUT/pin.txt"
show "$TAMGA" sign "$OUT/demo.asice" --with "key:$PKI/ec-p256.p12" --pin-file "$OUT/pin.txt" --ocsp "$SERVICES/ocsp" \
  --role "Tenant" --city "Tartu" --country "EE"

step "Add a second signature with an RSA-2048 key and its certificate"
show "$TAMGA" sign "$OUT/demo.asice" --with "key:$PKI/rsa-2048.key.pem" --cert "$PKI/rsa-2048.cert.pem" \
  --certs "$PKI/issuing-ca.cert.pem" --ocsp "$SERVICES/ocsp" --role "Landlord"

step "Start a private pcscd with a virtual USB reader (vpcd) and a virtual EstEID IDEMIA card in it"
BIN=$(dirname "$TAMGA")
source "$REPO/scripts/pcsc-rig.sh"
pcsc_rig_start "$OUT/pcsc" "Demo USB Reader"
pcsc_rig_insert "$BIN/tamga-vcard" "$PCSC_RIG_PORT" idemia
sleep 1.5
echo "pcscd socket $PCSCLITE_CSOCK_NAME (pids ${PIDS[*]:1}, stopped when the demo ends)"
show "$TAMGA" readers
show "$TAMGA" card info

step "Sign with the ID card: PIN2 read from TAMGA_PIN here (12345, the virtual card's test PIN), asked on the terminal otherwise"
echo "$ TAMGA_PIN=12345 $TAMGA sign $OUT/demo.asice --with card --ocsp $SERVICES/ocsp --certs $PKI/issuing-ca.cert.pem --role Witness"
TAMGA_PIN=12345 "$TAMGA" sign "$OUT/demo.asice" --with card --ocsp "$SERVICES/ocsp" --certs "$PKI/issuing-ca.cert.pem" --role "Witness"

step "A wrong PIN2 is refused with the tries left (exit 9), never retried, and the container is unchanged"
cp "$OUT/demo.asice" "$OUT/before-wrong-pin.asice"
set +e
TAMGA_PIN=99999 "$TAMGA" sign "$OUT/demo.asice" --with card --ocsp "$SERVICES/ocsp" --certs "$PKI/issuing-ca.cert.pem"
status=$?
set -e
echo "exit code: $status"
[ "$status" -eq 9 ] && cmp -s "$OUT/demo.asice" "$OUT/before-wrong-pin.asice" || { echo "demo: a wrong PIN was not handled as it must be" >&2; exit 1; }
rm "$OUT/before-wrong-pin.asice"

step "Add an archive time-stamp to all three signatures (LTA)"
show "$TAMGA" extend "$OUT/demo.asice" --to LTA

step "List the container"
show "$TAMGA" container ls "$OUT/demo.asice"

step "Verify with tamga against the test root CA"
show "$TAMGA" verify "$OUT/demo.asice" --trust "$PKI/root.cert.pem" --certs "$PKI/issuing-ca.cert.pem"

step "Independent check 1: xmlsec1 (the reference validator's XML-DSig engine), each signature with its own KeyInfo key"
show "$REPO/scripts/xmlsec-check.sh" "$OUT/demo.asice"

step "Independent check 2: pyasice, plus its own digest checks"
show "$REPO/.build/pyasice-venv/bin/python" "$REPO/scripts/pyasice-check.py" "$OUT/demo.asice"

step "Independent check 3: the time-stamps and OCSP responses with the openssl command line"
show /usr/bin/python3 "$REPO/scripts/lt-check.py" "$OUT/demo.asice" --ca "$PKI/root.cert.pem" --untrusted "$PKI/issuing-ca.cert.pem"

step "Tamper with one byte of a signed document: verification must fail (exit 1)"
cp "$OUT/demo.asice" "$OUT/tampered.asice"
/usr/bin/python3 "$REPO/scripts/asice-tamper.py" "$OUT/demo.asice" "$OUT/tampered.asice" flip-byte invoice.json >/dev/null
set +e
"$TAMGA" verify "$OUT/tampered.asice" --trust "$PKI/chain.pem"
status=$?
set -e
echo "exit code: $status"
[ "$status" -eq 1 ] || { echo "demo: the tampered container was not rejected" >&2; exit 1; }

step "Done. The containers are in $OUT"
