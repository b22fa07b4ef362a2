#!/usr/bin/env bash
# test-services-selftest.sh — self-test of scripts/test-services.py with the openssl CLI and curl
# (no Swift involved): starts it on a free port, checks every endpoint, stops it by PID and
# checks that it exited 0, removed its temporary state and freed the port.
#
#   scripts/test-services-selftest.sh [-v]
#
# Needs Fixtures/pki (scripts/make-test-pki.sh), /usr/bin/python3 with python3-cryptography,
# openssl and curl. Ends with "N passed, N failed"; exit 1 on a failure. Takes ~3 s.
# ok/bad always return 0, so "A && ok || bad" is an if-then-else here.
# shellcheck disable=SC2015,SC2001
set -uo pipefail

VERBOSE=0
case "${1:-}" in
  "") ;;
  -v) VERBOSE=1 ;;
  *) echo "usage: test-services-selftest.sh [-v]" >&2; exit 2 ;;
esac

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
PKI=${TAMGA_TEST_PKI:-$REPO_ROOT/Fixtures/pki}
[ -f "$PKI/ec-p256.cert.pem" ] || { echo "test-services-selftest.sh: no test PKI in $PKI (run scripts/make-test-pki.sh)" >&2; exit 1; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/tamga-services-selftest.XXXXXX")
SERVER_PID=
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
  fi
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

PASS=0
FAIL=0
ok()  { PASS=$((PASS + 1)); [ "$VERBOSE" = 1 ] && echo "ok   $1"; return 0; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && sed 's/^/     | /' <<<"$2"; return 0; }
# check NAME OUTPUT REGEX...: every (grep -E) REGEX must match OUTPUT; "!REGEX" must not
check() {
  local name=$1 out=$2 re
  shift 2
  for re in "$@"; do
    if [ "${re:0:1}" = "!" ]; then
      if grep -qE -- "${re:1}" <<<"$out"; then bad "$name (unexpected /${re:1}/)" "$out"; return; fi
    elif ! grep -qE -- "$re" <<<"$out"; then bad "$name (no /$re/)" "$out"; return
    fi
  done
  ok "$name"
}

# LISTEN sockets on PORT from /proc/net/tcp{,6}: "ADDR:PORT" in kernel hex
listeners() {
  local hex
  hex=$(printf '%04X' "$1")
  awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { print $2 }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# ------------------------------------------------------------------ start
/usr/bin/python3 "$SCRIPT_DIR/test-services.py" --pki "$PKI" --port 0 >"$TMP/stdout" 2>"$TMP/stderr" &
SERVER_PID=$!
LINE=
for _ in $(seq 150); do
  IFS= read -r LINE <"$TMP/stdout" 2>/dev/null && [ -n "$LINE" ] && break
  kill -0 "$SERVER_PID" 2>/dev/null || break
  sleep 0.1
done
if [[ ! "$LINE" =~ ^listening\ http://127\.0\.0\.1:([0-9]+)$ ]]; then
  bad "start: first stdout line '$LINE'" "$(cat "$TMP/stderr")"
  echo "$PASS passed, $FAIL failed"
  exit 1
fi
PORT=${BASH_REMATCH[1]}
URL=http://127.0.0.1:$PORT
ok "start: $LINE"
STATE=$(sed -n 's/.*state in \(.*\)$/\1/p' "$TMP/stderr" | head -1)

L=$(listeners "$PORT")
if [ "$L" = "0100007F:$(printf '%04X' "$PORT")" ]; then ok "listens on 127.0.0.1 only"; else bad "listeners on port $PORT: '$L'"; fi

check "GET /health" "$(curl -s -w ' %{http_code}' "$URL/health")" '^ok' ' 200$'
check "GET /nope -> 404" "$(curl -s -o /dev/null -w '%{http_code}' "$URL/nope")" '^404$'
check "POST /tsa/nope -> 404" "$(curl -s -o /dev/null -w '%{http_code}' --data-binary x "$URL/tsa/nope")" '^404$'
check "GET /ocsp -> 405" "$(curl -s -o /dev/null -w '%{http_code}' "$URL/ocsp")" '^405$'
cmp -s <(curl -s "$URL/ca/issuing-ca.cert.der") "$PKI/issuing-ca.cert.der" && ok "GET /ca/issuing-ca.cert.der" || bad "GET /ca/issuing-ca.cert.der"

# ------------------------------------------------------------------ TSA
cd "$TMP" || exit 1
head -c 5000 /dev/urandom >data.bin
post_tsq() { # QUERYFILE PATH OUT -> http code
  curl -s -o "$3" -w '%{http_code} %{content_type}' -H 'Content-Type: application/timestamp-query' \
    --data-binary @"$1" "$URL$2"
}
tsverify() { # QUERYFILE RESPONSE [extra args]
  local q=$1 r=$2
  shift 2
  openssl ts -verify -in "$r" -queryfile "$q" -CAfile "$PKI/root.cert.pem" "$@" 2>&1
}

openssl ts -query -data data.bin -sha256 -cert -out q256.tsq 2>/dev/null
check "POST /tsa: 200 application/timestamp-reply" "$(post_tsq q256.tsq /tsa r256.tsr)" '^200 application/timestamp-reply$'
check "TSA token verifies (sha256, -untrusted issuing CA)" \
  "$(tsverify q256.tsq r256.tsr -untrusted "$PKI/issuing-ca.cert.pem")" '^Verification: OK'
check "TSA token verifies with the certificates it carries" "$(tsverify q256.tsq r256.tsr)" '^Verification: OK'
check "TSA token content" "$(openssl ts -reply -in r256.tsr -text 2>&1)" 'Status: Granted' \
  'Policy OID: (1\.2\.3\.4\.1|tsa_policy1)' 'Accuracy: 0x01 seconds' 'Ordering: yes' \
  'TSA: DirName:.*CN ?= ?tamga Test TSA' 'Nonce: 0x'
check "token signer: TSA certificate, ESSCertIDv2" \
  "$(openssl ts -reply -in r256.tsr -token_out -out tok.der 2>&1 && openssl pkcs7 -inform DER -in tok.der -print_certs -noout 2>&1; openssl cms -cmsout -inform DER -in tok.der -print 2>&1 | grep -o 'id-smime-aa-signingCertificateV2')" \
  'subject=.*CN ?= ?tamga Test TSA' 'subject=.*CN ?= ?tamga Test Issuing CA' 'signingCertificateV2'
openssl ts -query -data data.bin -sha512 -cert -out q512.tsq 2>/dev/null
post_tsq q512.tsq /tsa r512.tsr >/dev/null
check "TSA sha512 imprint verifies" "$(tsverify q512.tsq r512.tsr)" '^Verification: OK'
openssl ts -query -data data.bin -sha1 -cert -out q1.tsq 2>/dev/null
post_tsq q1.tsq /tsa r1.tsr >/dev/null
check "TSA sha1 imprint -> rejection (badAlg)" "$(openssl ts -reply -in r1.tsr -text 2>&1)" 'Status: Rejected' 'unrecognized or unsupported algorithm'
openssl ts -query -data data.bin -sha256 -out qnc.tsq 2>/dev/null
post_tsq qnc.tsq /tsa rnc.tsr >/dev/null
check "TSA without certReq: no certificates in the token" \
  "$(openssl ts -reply -in rnc.tsr -token_out -out toknc.der 2>&1; openssl pkcs7 -inform DER -in toknc.der -print_certs -noout 2>&1; echo end)" '!subject='
check "POST /tsa wrong Content-Type -> 415" \
  "$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/octet-stream' --data-binary @q256.tsq "$URL/tsa")" '^415$'

# concurrency: 4 parallel requests, all valid, distinct serials
PIDS=()
for i in 1 2 3 4; do post_tsq q256.tsq /tsa "par$i.tsr" >"par$i.code" & PIDS+=($!); done
wait "${PIDS[@]}"
out=
for i in 1 2 3 4; do
  out+="$(cat "par$i.code") $(tsverify q256.tsq "par$i.tsr" | grep -E '^Verification')"$'\n'
  openssl ts -reply -in "par$i.tsr" -text 2>/dev/null | sed -n 's/^Serial number: //p' >>serials
done
[ "$(grep -cE '^200 application/timestamp-reply Verification: OK$' <<<"$out")" = 4 ] && [ "$(sort -u serials | wc -l)" = 4 ] \
  && ok "parallel tokens: 4 OK, 4 distinct serials" || bad "parallel tokens" "$out$(cat serials)"

check "POST /tsa/unavailable -> 503" "$(post_tsq q256.tsq /tsa/unavailable x.tsr)" '^503 '
check "POST /tsa/garbage -> 200 unparseable" \
  "$(post_tsq q256.tsq /tsa/garbage g.tsr; echo; openssl ts -reply -in g.tsr -text >/dev/null 2>&1 && echo PARSED || echo unparseable)" \
  '^200 application/timestamp-reply' '^unparseable$'
check "POST /tsa/rejection -> status rejection, no token" \
  "$(post_tsq q256.tsq /tsa/rejection rej.tsr; echo; openssl ts -reply -in rej.tsr -text 2>&1; openssl asn1parse -inform DER -in rej.tsr 2>&1)" \
  '^200 application/timestamp-reply' 'Status: Rejected' 'TST info:' '!pkcs7|signedData'
check "POST /tsa/slow: client timeout after 1 s" \
  "$(curl -s -o /dev/null --max-time 1 -H 'Content-Type: application/timestamp-query' --data-binary @q256.tsq "$URL/tsa/slow"; echo "curl=$?")" '^curl=28$'

# ------------------------------------------------------------------ OCSP
# ocsp_q PATH CERT [extra args before -cert]
ocsp_q() {
  local path=$1 cert=$2
  shift 2
  openssl ocsp -issuer "$PKI/issuing-ca.cert.pem" "$@" -cert "$PKI/$cert.cert.pem" -url "$URL$path" \
    -CAfile "$PKI/root.cert.pem" -verify_other "$PKI/issuing-ca.cert.pem" -resp_text 2>&1
}
C=ec-p256.cert.pem
check "OCSP good (nonce verified)" "$(ocsp_q /ocsp ec-p256)" '^Response verify OK' "$C: good" \
  'Hash Algorithm: sha1' 'Responder Id: .*tamga Test OCSP Responder' 'OCSP Nonce' 'Next Update' \
  '!WARNING|[Ee]rror|[Ff]ailure'
check "OCSP good for ec-p384, rsa-2048, tsa" \
  "$(ocsp_q /ocsp ec-p384; ocsp_q /ocsp rsa-2048; ocsp_q /ocsp tsa)" \
  'ec-p384.cert.pem: good' 'rsa-2048.cert.pem: good' 'tsa.cert.pem: good' '!WARNING|[Ee]rror|[Ff]ailure|revoked|unknown'
check "OCSP revoked-ec-p256 -> revoked (index time, keyCompromise)" "$(ocsp_q /ocsp revoked-ec-p256)" \
  '^Response verify OK' 'revoked-ec-p256.cert.pem: revoked' 'Reason: keyCompromise' \
  'Revocation Time: Jun  1 00:00:00 2025 GMT' '!WARNING'
check "OCSP SHA-256 CertID answered with SHA-256" "$(ocsp_q /ocsp ec-p256 -sha256)" \
  '^Response verify OK' "$C: good" 'Hash Algorithm: sha256' '!Hash Algorithm: sha1|WARNING'
check "OCSP SHA-384 CertID, revoked" "$(ocsp_q /ocsp revoked-ec-p256 -sha384)" \
  '^Response verify OK' 'revoked' 'Hash Algorithm: sha384'
check "OCSP serial not in index -> unknown" \
  "$(openssl ocsp -issuer "$PKI/issuing-ca.cert.pem" -serial 0x7777 -url "$URL/ocsp" -CAfile "$PKI/root.cert.pem" \
      -verify_other "$PKI/issuing-ca.cert.pem" 2>&1)" '^Response verify OK' '0x7777: unknown'
check "OCSP CertID of another issuer -> unauthorized" \
  "$(openssl ocsp -issuer "$PKI/root.cert.pem" -cert "$PKI/issuing-ca.cert.pem" -url "$URL/ocsp" 2>&1)" \
  'Responder Error: unauthorized \(6\)'
check "OCSP without nonce in the request: none in the response" "$(ocsp_q /ocsp ec-p256 -no_nonce)" \
  '^Response verify OK' "$C: good" '!OCSP Nonce|WARNING'
check "/ocsp/unknown -> unknown" "$(ocsp_q /ocsp/unknown ec-p256)" '^Response verify OK' "$C: unknown" '!WARNING'
check "/ocsp/revoked -> revoked" "$(ocsp_q /ocsp/revoked ec-p256)" '^Response verify OK' "$C: revoked" 'Revocation Time:'
check "/ocsp/stale -> status times invalid" "$(ocsp_q /ocsp/stale ec-p256)" \
  '^Response verify OK' "$C: WARNING: Status times invalid" 'status expired' '^good$'
check "/ocsp/no-nonce -> WARNING: no nonce in response" "$(ocsp_q /ocsp/no-nonce ec-p256)" \
  'WARNING: no nonce in response' '^Response verify OK'
check "/ocsp/wrong-nonce -> Nonce Verify error" "$(ocsp_q /ocsp/wrong-nonce ec-p256)" '^Nonce Verify error' "!$C: good"
check "/ocsp/bad-signature -> verify failure" "$(ocsp_q /ocsp/bad-signature ec-p256)" \
  'Response Verify Failure' '!Response verify OK'
check "/ocsp/bad-signature is a well-formed response" \
  "$(openssl ocsp -issuer "$PKI/issuing-ca.cert.pem" -cert "$PKI/$C" -url "$URL/ocsp/bad-signature" -noverify 2>&1)" "$C: good"
check "/ocsp/wrong-signer -> verify failure" "$(ocsp_q /ocsp/wrong-signer ec-p256)" \
  'Response Verify Failure' 'Responder Id: .*TEST OTHER SIGNER EC256' '!Response verify OK'
check "/ocsp/tm -> good from the time-mark responder (TM policy), nonce echoed" "$(ocsp_q /ocsp/tm ec-p256)" \
  '^Response verify OK' "$C: good" 'Responder Id: .*tamga Test TM OCSP Responder' 'OCSP Nonce' '!WARNING|[Ee]rror|[Ff]ailure'
check "/ocsp/tm-other-policy -> signed by the other-policy responder" "$(ocsp_q /ocsp/tm-other-policy ec-p256)" \
  '^Response verify OK' "$C: good" 'Responder Id: .*Other Policy'
check "/ocsp/tm-revoked, /ocsp/tm-unknown" "$(ocsp_q /ocsp/tm-revoked ec-p256; ocsp_q /ocsp/tm-unknown ec-p256)" \
  "$C: revoked" "$C: unknown" 'Responder Id: .*tamga Test TM OCSP Responder'
check "/ocsp/tm-no-certs -> no certificate in the response" \
  "$(openssl ocsp -issuer "$PKI/issuing-ca.cert.pem" -cert "$PKI/$C" -url "$URL/ocsp/tm-no-certs" -noverify -resp_text 2>&1)" \
  "$C: good" '!Certificate:'
check "/ocsp/unauthorized -> unauthorized (6)" "$(ocsp_q /ocsp/unauthorized ec-p256)" 'Responder Error: unauthorized \(6\)'
openssl ocsp -issuer "$PKI/issuing-ca.cert.pem" -cert "$PKI/$C" -reqout req.der >/dev/null 2>&1
post_ocsp() { curl -s -o "$2" -w '%{http_code} %{content_type}' -H 'Content-Type: application/ocsp-request' --data-binary @req.der "$URL$1"; }
check "/ocsp/unavailable -> 503" "$(post_ocsp /ocsp/unavailable x.der)" '^503 '
check "/ocsp/garbage -> 200 unparseable" \
  "$(post_ocsp /ocsp/garbage g.der; echo; openssl ocsp -respin g.der -noverify >/dev/null 2>&1 && echo PARSED || echo unparseable)" \
  '^200 application/ocsp-response' '^unparseable$'
check "POST /ocsp garbage body -> malformedRequest (1)" \
  "$(curl -s -o m.der -H 'Content-Type: application/ocsp-request' --data-binary @data.bin "$URL/ocsp"; openssl ocsp -respin m.der -noverify 2>&1)" \
  'malformedrequest \(1\)'
check "POST /ocsp wrong Content-Type -> 415" \
  "$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: text/plain' --data-binary @req.der "$URL/ocsp")" '^415$'
check "/ocsp/slow: client timeout after 1 s" \
  "$(curl -s -o /dev/null --max-time 1 -H 'Content-Type: application/ocsp-request' --data-binary @req.der "$URL/ocsp/slow"; echo "curl=$?")" '^curl=28$'
check "server still answers after the slow requests" "$(ocsp_q /ocsp ec-p256)" "$C: good"

# ------------------------------------------------------------------ stop
kill -TERM "$SERVER_PID"
for _ in $(seq 100); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$SERVER_PID" 2>/dev/null; then
  bad "server still running 10 s after SIGTERM (slow requests pending?)"
else
  wait "$SERVER_PID"
  rc=$?
  [ "$rc" = 0 ] && ok "SIGTERM: exit 0" || bad "SIGTERM: exit $rc" "$(tail -5 "$TMP/stderr")"
  SERVER_PID=
fi
[ -z "$(listeners "$PORT")" ] && ok "port $PORT free" || bad "port $PORT still has a listener"
check "port $PORT refuses connections" "$(curl -s -o /dev/null --max-time 2 "$URL/health"; echo "curl=$?")" '^curl=7$'
if [ -n "$STATE" ] && [ ! -e "$STATE" ]; then ok "temporary state dir removed"; else bad "state dir '$STATE' left behind"; fi
[ "$(wc -l <"$TMP/stdout")" = 1 ] && ok "exactly one stdout line" || bad "stdout" "$(cat "$TMP/stdout")"
[ "$VERBOSE" = 1 ] && sed 's/^/     server| /' "$TMP/stderr"

echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
