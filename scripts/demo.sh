#!/usr/bin/env bash
# demo.sh TAMGA — the main job on the embedded default, unattended: pack a few files into an
# ASiC-E container, sign it with the test PKI's keys, with a (virtual) ID card in a USB reader
# behind a private pcscd, with a key on a SoftHSM token, and with a split (2-of-2 threshold)
# key shared with a local co-signer; verify it with tamga and with independent verifiers,
# compare the card, the token and the split key side by side, then show that a tampered copy
# is caught. Every process it starts is stopped at the end.
# The results stay in .build/demo/ for a look afterwards.
set -euo pipefail
TAMGA=${1:?usage: demo.sh PATH-TO-TAMGA}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${DEMO_OUT:-$REPO/.build/demo}   # DEMO_OUT: elsewhere (the demo's test)
# Never delete a folder that is not a demo's own: DEMO_OUT must be new, empty or a former demo's.
if [ -n "${DEMO_OUT:-}" ] && [ -d "$OUT" ] && [ -n "$(ls -A "$OUT")" ] && [ ! -f "$OUT/services.out" ]; then
  echo "demo: DEMO_OUT=$OUT is a folder with other files in it; give a new or empty one" >&2; exit 2
fi
rm -rf "$OUT" && mkdir -p "$OUT/files"
# A copy of the test PKI: the co-signer's CA appends the split key's certificate to its index,
# which the OCSP responder reads; the repository's fixtures stay as they are.
cp -r "$REPO/Fixtures/pki" "$OUT/pki"
PKI=$OUT/pki

cd "$OUT"

# Headings in bold only on a terminal that has it, and never with NO_COLOR set (no-color.org):
# `make demo > demo.log` gives a plain text log.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ] && [ "${TERM:-dumb}" != dumb ]; then BOLD=$'\033[1m' PLAIN=$'\033[0m'; else BOLD='' PLAIN=''; fi
step() { printf '\n%s== %s%s\n' "$BOLD" "$*" "$PLAIN"; }

# A command as a person types it in .build/demo with tamga on the PATH: the built binary is
# `tamga`, paths under .build/demo are relative, the repository's scripts are ../../scripts/…,
# and a word with spaces or shell characters is quoted. Leading NAME=value words are the
# command's environment (as `env` takes them).
[ "$OUT" = "$REPO/.build/demo" ] && REPO_SHOWN=../.. || REPO_SHOWN=$REPO
typed() {
  local line='' word
  for word in "$@"; do
    word=${word//"$TAMGA"/tamga}
    word=${word//"$OUT/"/}
    word=${word//"$REPO/"/"$REPO_SHOWN/"}
    if [ -z "$word" ] || [[ $word =~ [^A-Za-z0-9_./:=@%+,-] ]]; then word="'${word//\'/\'\\\'\'}'"; fi
    line+="${line:+ }$word"
  done
  printf '%s' "$line"
}
show() { printf '$ %s\n' "$(typed "$@")"; env "$@"; }
# show, and keep the output in FILE too (for the closing table).
show_kept() { local file=$1; shift; show "$@" | tee "$file"; }
# What signed each signature, in the order they are added (for the closing table).
SIGNED_WITH=()

step "Start a local time-stamping authority and OCSP responder for the test PKI (127.0.0.1 only)"
/usr/bin/python3 "$REPO/scripts/test-services.py" --pki "$PKI" --port 0 --exit-with-parent > "$OUT/services.out" 2> "$OUT/services.log" &
SERVICES_PID=$!
PIDS=("$SERVICES_PID")
trap 'for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done; wait 2>/dev/null' EXIT
for _ in $(seq 100); do grep -q '^listening ' "$OUT/services.out" 2>/dev/null && break; sleep 0.1; done
SERVICES=$(sed -n 's/^listening //p' "$OUT/services.out")
[ -n "$SERVICES" ] || { echo "demo: the test services did not start (see $OUT/services.log)" >&2; exit 1; }
echo "Commands are shown as you would type them in $OUT with tamga on your PATH (tamga here: $TAMGA)."
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
SIGNED_WITH+=("key file (PKCS#12, EC P-256)")

step "Add a second signature with an RSA-2048 key and its certificate"
show "$TAMGA" sign "$OUT/demo.asice" --with "key:$PKI/rsa-2048.key.pem" --cert "$PKI/rsa-2048.cert.pem" \
  --certs "$PKI/issuing-ca.cert.pem" --ocsp "$SERVICES/ocsp" --role "Landlord"
SIGNED_WITH+=("key file (PEM, RSA-2048)")

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
show TAMGA_PIN=12345 "$TAMGA" sign "$OUT/demo.asice" --with card --ocsp "$SERVICES/ocsp" --certs "$PKI/issuing-ca.cert.pem" --role "Witness"
SIGNED_WITH+=("ID card (virtual EstEID IDEMIA, PIN2)")

step "A wrong PIN2 is refused with the tries left (exit 9), never retried, and the container is unchanged"
cp "$OUT/demo.asice" "$OUT/before-wrong-pin.asice"
set +e
show TAMGA_PIN=99999 "$TAMGA" sign "$OUT/demo.asice" --with card --ocsp "$SERVICES/ocsp" --certs "$PKI/issuing-ca.cert.pem"
status=$?
set -e
echo "exit code: $status"
[ "$status" -eq 9 ] && cmp -s "$OUT/demo.asice" "$OUT/before-wrong-pin.asice" || { echo "demo: a wrong PIN was not handled as it must be" >&2; exit 1; }
rm "$OUT/before-wrong-pin.asice"

step "Start a SoftHSM token (a PKCS#11 token in files, private to this demo) holding an EC P-256 key and its certificate"
export SOFTHSM2_CONF=$OUT/softhsm/softhsm2.conf
mkdir -p "$OUT/softhsm/tokens"
printf 'directories.tokendir = %s\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n' "$OUT/softhsm/tokens" > "$SOFTHSM2_CONF"
SOFTHSM=/usr/lib/softhsm/libsofthsm2.so
softhsm2-util --init-token --free --label demo-token --so-pin 12345678 --pin 123456 > /dev/null
pkcs11-tool --module "$SOFTHSM" --token-label demo-token --login --pin 123456 --write-object "$PKI/other-ec-p256.key.pem" --type privkey \
  --id 01 --label demo-key --usage-sign > /dev/null
pkcs11-tool --module "$SOFTHSM" --token-label demo-token --login --pin 123456 --write-object "$PKI/other-ec-p256.cert.der" --type cert \
  --id 01 --label demo-key > /dev/null
show "$TAMGA" tokens --module "$SOFTHSM" --token demo-token

step "Sign with the token's key: the token PIN from TAMGA_PIN here (123456), asked on the terminal otherwise"
show TAMGA_PIN=123456 "$TAMGA" sign "$OUT/demo.asice" --with pkcs11:demo-token:01 --module "$SOFTHSM" --ocsp "$SERVICES/ocsp" \
  --certs "$PKI/issuing-ca.cert.pem" --role "Notary"
SIGNED_WITH+=("PKCS#11 token (SoftHSM, EC P-256)")

step "Start the co-signer (the server half of split keys): SQLite file, the test CA certifies enrolled keys, 127.0.0.1 only"
"$TAMGA" cosigner serve --db "$OUT/cosigner.db" --ca-cert "$PKI/issuing-ca.cert.pem" --ca-key "$PKI/issuing-ca.key.pem" \
  --ca-index "$PKI/issuing-ca.index.txt" --ocsp "$SERVICES/ocsp" > "$OUT/cosigner.out" 2> "$OUT/cosigner.log" &
COSIGNER_PID=$!
PIDS+=("$COSIGNER_PID")
for _ in $(seq 100); do grep -q '^listening ' "$OUT/cosigner.out" 2>/dev/null && break; sleep 0.1; done
COSIGNER=$(sed -n 's/^listening //p' "$OUT/cosigner.out")
[ -n "$COSIGNER" ] || { echo "demo: the co-signer did not start (see $OUT/cosigner.log)" >&2; exit 1; }
echo "co-signer: $COSIGNER (pid $COSIGNER_PID, stopped when the demo ends)"

step "The operator issues a one-time enrollment code; this device enrolls a split signing key (PIN2 24680 from TAMGA_PIN here)"
export XDG_DATA_HOME=$OUT/device   # where this device keeps its share, device key and certificate
printf '$ %s\n' "$(typed "$TAMGA" cosigner issue-code 38001085718 --db "$OUT/cosigner.db")"
CODE=$("$TAMGA" cosigner issue-code 38001085718 --db "$OUT/cosigner.db")
echo "$CODE"
show TAMGA_PIN=24680 "$TAMGA" threshold enroll --server "$COSIGNER" --code "$CODE" --account 38001085718

step "Sign with the split key: neither this device nor the co-signer ever holds the whole key"
show TAMGA_PIN=24680 "$TAMGA" sign "$OUT/demo.asice" --with threshold:38001085718 --ocsp "$SERVICES/ocsp" --certs "$PKI/issuing-ca.cert.pem" --role "Guarantor"
SIGNED_WITH+=("split key (this device + the co-signer)")
show "$TAMGA" threshold activity --account 38001085718

step "Add an archive time-stamp to all five signatures (LTA)"
show "$TAMGA" extend "$OUT/demo.asice" --to LTA

step "List the container"
show "$TAMGA" container ls "$OUT/demo.asice"

step "Verify with tamga against the test root CA"
show "$TAMGA" verify "$OUT/demo.asice" --trust "$PKI/root.cert.pem" --certs "$PKI/issuing-ca.cert.pem"
"$TAMGA" verify "$OUT/demo.asice" --trust "$PKI/root.cert.pem" --certs "$PKI/issuing-ca.cert.pem" --json > "$OUT/verify.json"

step "Set up trust as a user does: tamga trust update from a list of lists, here a TEST LOTL served on loopback"
# Fixtures/tsl/lotl: a list of lists signed by a test key, pointing to an EE list (the test CA and
# OCSP responder) and an LV list (the test TSA) at http://lists.tamga.test/, which the loopback
# server also answers as an HTTP proxy. Real use: `tamga trust update` with no options reads the
# EU LOTL and checks it with the six EU LOTL signer certificates built into tamga.
mkdir -p "$OUT/lists"
cp "$REPO"/Fixtures/tsl/lotl/{eu-lotl.xml,EE.xml,LV.xml} "$OUT/lists/"
/usr/bin/python3 "$REPO/scripts/test-trust-server.py" --root "$OUT/lists" > "$OUT/lists.out" 2> "$OUT/lists.log" &
LISTS_PID=$!
PIDS+=("$LISTS_PID")
for _ in $(seq 100); do grep -q '^listening ' "$OUT/lists.out" 2>/dev/null && break; sleep 0.1; done
LISTS=$(sed -n 's/^listening //p' "$OUT/lists.out")
[ -n "$LISTS" ] || { echo "demo: the list server did not start (see $OUT/lists.log)" >&2; exit 1; }
echo "lists: $LISTS (pid $LISTS_PID, stopped when the demo ends)"
export XDG_CACHE_HOME=$OUT/cache   # the trust cache: $XDG_CACHE_HOME/tamga/trust
show "$TAMGA" trust update --lotl "$LISTS/eu-lotl.xml" --proxy "$LISTS" --lotl-cert "$REPO/Fixtures/tsl/lotl/lotl-signer.cert.pem"
show "$TAMGA" trust show

step "Verify with no trust options: the cached lists decide (CA and OCSP from EE, the TSA from LV)"
"$TAMGA" container create "$OUT/trusted.asice" "$OUT/files/invoice.json" --force -q > /dev/null
"$TAMGA" sign "$OUT/trusted.asice" --with "key:$PKI/ec-p256.key.pem" --cert "$PKI/ec-p256.cert.pem" --certs "$PKI/issuing-ca.cert.pem" \
  --ocsp "$SERVICES/ocsp" --role "Buyer" -q > /dev/null
show "$TAMGA" verify "$OUT/trusted.asice"
echo "... and with no cache at all, tamga says so (exit 5):"
set +e
show XDG_CACHE_HOME="$OUT/no-cache" "$TAMGA" verify "$OUT/trusted.asice" -q
status=$?
set -e
echo "exit code: $status"
[ "$status" -eq 5 ] || { echo "demo: verify without trust did not report UNKNOWN" >&2; exit 1; }

step "Independent check 1: xmlsec1 (the reference validator's XML-DSig engine), each signature with its own KeyInfo key"
show_kept "$OUT/check-xmlsec1.txt" "$REPO/scripts/xmlsec-check.sh" "$OUT/demo.asice"

step "Independent check 2: pyasice, plus its own digest checks"
show_kept "$OUT/check-pyasice.txt" "$REPO/.build/pyasice-venv/bin/python" "$REPO/scripts/pyasice-check.py" "$OUT/demo.asice"

step "Independent check 3: the time-stamps and OCSP responses with the openssl command line"
show_kept "$OUT/check-openssl.txt" /usr/bin/python3 "$REPO/scripts/lt-check.py" "$OUT/demo.asice" --ca "$PKI/root.cert.pem" --untrusted "$PKI/issuing-ca.cert.pem"

step "Compare the card, the split key and the token on the same content: 3 runs each, every result verified, one combined container"
"$TAMGA" container create "$OUT/compare.asice" "$OUT/files/agreement ö #1.txt" "$OUT/files/invoice.json" --force -q
# Paths relative to the demo's folder (the working directory): the report shows its command as given.
show TAMGA_CARD_PIN=12345 TAMGA_THRESHOLD_PIN=24680 TAMGA_PKCS11_PIN=123456 "$TAMGA" compare compare.asice \
  --with card --with threshold --with pkcs11:demo-token:01 --module "$SOFTHSM" --runs 3 --combined all-three.asice \
  --ocsp "$SERVICES/ocsp" --certs pki/issuing-ca.cert.pem --trust pki/root.cert.pem --quiet \
  --report compare.html --force
echo "The comparison as a page: $OUT/compare.html (open it in a browser; it fetches nothing)"
# A picture of it for the README (docs/compare-report.png is a copy), when Chromium is there.
# The whole page, as tall as it is (scripts/page-screenshot.py).
if [ -x /usr/bin/chromium ] && /usr/bin/python3 "$REPO/scripts/page-screenshot.py" "$OUT/compare.html" "$OUT/compare.png" > /dev/null; then
  echo "Its screenshot: $OUT/compare.png"
fi

step "Tamper with one byte of a signed document: verification must fail (exit 1)"
cp "$OUT/demo.asice" "$OUT/tampered.asice"
/usr/bin/python3 "$REPO/scripts/asice-tamper.py" "$OUT/demo.asice" "$OUT/tampered.asice" flip-byte invoice.json >/dev/null
set +e
show "$TAMGA" verify "$OUT/tampered.asice" --trust "$PKI/chain.pem"
status=$?
set -e
echo "exit code: $status"
[ "$status" -eq 1 ] || { echo "demo: the tampered container was not rejected" >&2; exit 1; }

step "What was signed, by what, at which profile, and what each independent checker said"
/usr/bin/python3 "$REPO/scripts/demo-summary.py" "$OUT/verify.json" "$OUT/check-xmlsec1.txt" "$OUT/check-pyasice.txt" \
  "$OUT/check-openssl.txt" -- "${SIGNED_WITH[@]}"
echo
echo "The containers, the comparison page and the checkers' outputs are in $OUT"
