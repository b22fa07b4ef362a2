#!/usr/bin/env bash
# fuzz.sh [SECONDS] [TARGET...] — builds the libFuzzer targets of Fuzz/ (-sanitize=fuzzer,address),
# seeds their corpora from Fixtures/ and from a container tamga signs with the test PKI, and runs
# each target for SECONDS (default 60; FUZZ_RUNS=N ends a target after N executions). An input
# that crashes, leaks, takes over one second (FUZZ_TIMEOUT) or more than 2 GB fails the run; its
# reproducer lands in .build/fuzz/artifacts/TARGET/.
# Corpora are kept in .build/fuzz/corpus/TARGET between runs. `make fuzz` runs this; `make test`
# runs every target for a few seconds so they keep building and keep passing.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
SECONDS_EACH=${1:-60}
shift || true
SWIFT=${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}
ALL=(FuzzZip FuzzManifest FuzzSignatureXML FuzzTrustedList FuzzOCSP FuzzTimeStamp FuzzBERTLV FuzzWireMessages FuzzPINMessages
     FuzzCoSignerRouter FuzzRemoteMessages FuzzKoreanMobileID FuzzTextCodecs FuzzJSON FuzzDistinguishedName FuzzArchiveManifest
     FuzzCommandLineInput FuzzDatabaseRows FuzzProxyHeader FuzzDDOC FuzzDDOCStartTag FuzzValidationService)
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL[@]}")
WORK=$REPO/.build/fuzz
mkdir -p "$WORK/corpus" "$WORK/artifacts"

# FUZZ_CONFIGURATION=release runs several times faster (long campaigns); debug (the default)
# builds sooner and gives exact stack traces.
BUILD=(--package-path Fuzz -Xswiftc -sanitize=fuzzer,address)
if [ "${FUZZ_CONFIGURATION:-debug}" = release ]; then BUILD+=(-c release -Xswiftc -enable-testing); fi
echo "== fuzz: building ${#TARGETS[@]} targets with -sanitize=fuzzer,address (${FUZZ_CONFIGURATION:-debug})"
"$SWIFT" build "${BUILD[@]}" 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' | grep -v '^warning: you may be able' | grep -v '^    apt-get install' || true
BIN=$("$SWIFT" build "${BUILD[@]}" --show-bin-path)
for target in "${TARGETS[@]}"; do [ -x "$BIN/$target" ] || { echo "fuzz: $target did not build" >&2; exit 1; }; done
# FUZZ_BUILD_ONLY=1: stop here (make test builds the targets while the unit tests run).
[ -z "${FUZZ_BUILD_ONLY:-}" ] || { echo "fuzz: ${#TARGETS[@]} targets built"; exit 0; }

# --- Seeds: fixtures, plus the parts of a real LT container signed through the loopback TSA/OCSP.
seed() { mkdir -p "$WORK/corpus/$1"; cp "${@:2}" "$WORK/corpus/$1/" 2>/dev/null || true; }
seed FuzzTrustedList Fixtures/tsl/*.xml Fixtures/tsl/lotl/*.xml
# Smart-ID v3 replies as the RP API 3.2 description shows them: a signature, a refusal, a problem.
mkdir -p "$WORK/corpus/FuzzRemoteMessages"
printf '%s' '{"state":"COMPLETE","result":{"endResult":"OK","documentNumber":"PNOEE-40504040001-DEM0-Q"},"signatureProtocol":"RAW_DIGEST_SIGNATURE","signature":{"value":"AAEC","flowType":"Notification","signatureAlgorithm":"rsassa-pss","signatureAlgorithmParameters":{"hashAlgorithm":"SHA-256","maskGenAlgorithm":{"algorithm":"id-mgf1","parameters":{"hashAlgorithm":"SHA-256"}},"saltLength":32,"trailerField":"0xbc"}},"cert":{"value":"MIIB","certificateLevel":"QUALIFIED"},"interactionTypeUsed":"displayTextAndPIN"}' \
    > "$WORK/corpus/FuzzRemoteMessages/v3-signature.json"
printf '%s' '{"state":"COMPLETE","result":{"endResult":"USER_REFUSED_INTERACTION","details":{"interaction":"displayTextAndPIN"}}}' > "$WORK/corpus/FuzzRemoteMessages/v3-refused.json"
printf '%s' '{"type":"about:blank","title":"Not Found","status":404,"detail":"No suitable account","errors":[{"code":"NO_SUITABLE_ACCOUNT_FOUND","detail":"x"}]}' > "$WORK/corpus/FuzzRemoteMessages/v3-problem.json"
# config.json as docs/cli.md shows it, and a name that is not UTF-8.
mkdir -p "$WORK/corpus/FuzzCommandLineInput"
printf '%s' '{ "tsa": "https://tsa.example/tsa", "trust": { "anchors": ["root.pem"], "intermediates": ["ca.pem"] }, "pkcs11Module": "/usr/lib/x.so", "cosigner": "https://cosigner.example", "mobileID": { "url": "https://mid.example" } }' \
    > "$WORK/corpus/FuzzCommandLineInput/config.json"
printf 'd\376/a\377.txt' > "$WORK/corpus/FuzzCommandLineInput/latin1-name"
# A PostgreSQL int8 column value, a --db URI with passwords, a statement with placeholders.
mkdir -p "$WORK/corpus/FuzzDatabaseRows"
printf '\004\377\377\377\377\377\377\377\376' > "$WORK/corpus/FuzzDatabaseRows/int8"
printf '\010tamga:s3cret@db.example:5432/cosigner?sslmode=require&password=x' > "$WORK/corpus/FuzzDatabaseRows/uri"
printf "\011SELECT '?', ? -- ?\n/* ? */ ?" > "$WORK/corpus/FuzzDatabaseRows/statement"
# PROXY v2 headers as HAProxy's send-proxy-v2 writes them (the first byte 0: the target puts the
# signature in front): TCP over IPv4 with ALPN, TCP over IPv6, LOCAL (a health check); and ranges.
mkdir -p "$WORK/corpus/FuzzProxyHeader"
printf '\000\041\021\000\021\300\000\002\007\177\000\000\001\307\070\037\220\001\000\002h2' > "$WORK/corpus/FuzzProxyHeader/ipv4-alpn"
printf '\000\041\041\000\044\040\001\015\270\000\000\000\000\000\000\000\000\000\000\000\001\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\001\001\273\037\220' \
    > "$WORK/corpus/FuzzProxyHeader/ipv6"
printf '\000\040\000\000\000' > "$WORK/corpus/FuzzProxyHeader/local"
printf '\00110.0.0.0/8' > "$WORK/corpus/FuzzProxyHeader/range4"
printf '\001fd00::/8' > "$WORK/corpus/FuzzProxyHeader/range6"
# JSON as the co-signer, Smart-ID and config.json see it: nesting, escapes, numbers at the edges.
mkdir -p "$WORK/corpus/FuzzJSON"
printf '%s' '{"a":[1,-0,2.5e-3,1E+2,true,false,null,{"k":"\u00e9\ud83d\ude00\n\/"}],"b":{}}' > "$WORK/corpus/FuzzJSON/mixed.json"
printf '%s' '[[[[[[[[[[[[[[[[{"x":"y"}]]]]]]]]]]]]]]]]' > "$WORK/corpus/FuzzJSON/nested.json"
printf '%s' '[9223372036854775807,9223372036854775808,-9223372036854775808,1.7976931348623157e308]' > "$WORK/corpus/FuzzJSON/numbers.json"
# DDOC start tags as libdigidoc, DigiDoc4j and old writers wrote them (FuzzDDOCStartTag).
mkdir -p "$WORK/corpus/FuzzDDOCStartTag"
printf '%s' '<DataFile ContentType="EMBEDDED_BASE64" Filename="data.bin" Id="D0" MimeType="application/octet-stream" Size="20" xmlns="http://www.sk.ee/DigiDoc/v1.3.0#">' > "$WORK/corpus/FuzzDDOCStartTag/datafile-13"
printf "<DataFile Id='D1' Filename='l\303\265pp.txt' ContentType='HASHCODE' DigestType='sha1' DigestValue='AAAA'/>" > "$WORK/corpus/FuzzDDOCStartTag/hashcode"
printf '%s' '<SignedDoc format="DIGIDOC-XML" version="1.3" xmlns="http://www.sk.ee/DigiDoc/v1.3.0#">' > "$WORK/corpus/FuzzDDOCStartTag/signeddoc"
# SiVa requests as libdigidocpp and the interface document write them (the first byte picks the
# route: 0 POST /validate with a body), and a document for the harness to wrap (0x80|extension).
mkdir -p "$WORK/corpus/FuzzValidationService"
printf '\000%s' '{"filename":"a.ddoc","document":"PFNpZ25lZERvYz48L1NpZ25lZERvYz4=","signaturePolicy":"POLv4"}' > "$WORK/corpus/FuzzValidationService/validate.json"
printf '\000%s' '{"document":"","filename":"","signaturePolicy":"x;","reportType":"Full","documentType":"BDOC"}' > "$WORK/corpus/FuzzValidationService/errors.json"
printf '\204%s' '<?xml version="1.0"?><SignedDoc format="DIGIDOC-XML" version="1.3" xmlns="http://www.sk.ee/DigiDoc/v1.3.0#"></SignedDoc>' > "$WORK/corpus/FuzzValidationService/ddoc"
printf '\007' > "$WORK/corpus/FuzzValidationService/metrics"
printf '\006' > "$WORK/corpus/FuzzValidationService/ready"
# An ASiC-S archive manifest as DigiDoc writes one (ETSI EN 319 162-1).
mkdir -p "$WORK/corpus/FuzzArchiveManifest"
cat > "$WORK/corpus/FuzzArchiveManifest/digidoc-manifest.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<asic:ASiCManifest xmlns:asic="http://uri.etsi.org/02918/v1.2.1#">
  <asic:SigReference MimeType="application/vnd.etsi.timestamp-token" URI="META-INF/timestamp001.tst"/>
  <asic:DataObjectReference MimeType="text/plain" URI="a.txt">
    <ds:DigestMethod xmlns:ds="http://www.w3.org/2000/09/xmldsig#" Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/>
    <ds:DigestValue xmlns:ds="http://www.w3.org/2000/09/xmldsig#">n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=</ds:DigestValue>
  </asic:DataObjectReference>
  <asic:DataObjectReference MimeType="text/xml" Rootfile="true" URI="META-INF/ASiCArchiveManifest001.xml">
    <ds:DigestMethod xmlns:ds="http://www.w3.org/2000/09/xmldsig#" Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/>
    <ds:DigestValue xmlns:ds="http://www.w3.org/2000/09/xmldsig#">47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=</ds:DigestValue>
  </asic:DataObjectReference>
</asic:ASiCManifest>
XML
printf '\x30\x31\x30\x0d\x06\x09\x60\x86\x48\x01\x65\x03\x04\x02\x01\x05\x00\x04\x20%s' "$(head -c 32 /dev/zero | tr '\0' 'A')" \
  > "$WORK/corpus/FuzzArchiveManifest/digestinfo-sha256"
# Issuer names in the forms real CAs write them.
mkdir -p "$WORK/corpus/FuzzDistinguishedName"
for name in 'CN=TEST of ESTEID2018,2.5.4.97=#0c0e4e545245452d3130373437303133,O=SK ID Solutions AS,C=EE' \
            'CN=Test CA,1.2.840.113549.1.9.1=#1609706b6940736b2e6565,O=T\C3\B5nu \C5\AAdens,C=EE' \
            'CN=Multi CA+serialNumber=123,OU=Unit B,OU=Unit A,C=EE' 'C=EE, O=Org\, Inc., CN=\#hash\20'; do
  printf '%s' "$name" > "$WORK/corpus/FuzzDistinguishedName/$(printf '%s' "$name" | sha1sum | cut -c1-16)"
done
if [ ! -e "$WORK/seeded" ]; then
  TAMGA=$REPO/.build/debug/tamga
  SEEDS=$(mktemp -d)
  SERVICES_PID=
  cleanup() { [ -n "$SERVICES_PID" ] && kill "$SERVICES_PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$SEEDS"; }
  trap cleanup EXIT
  if [ -x "$TAMGA" ]; then
    /usr/bin/python3 scripts/test-services.py --pki Fixtures/pki --port 0 --exit-with-parent > "$SEEDS/services.out" 2> "$SEEDS/services.log" &
    SERVICES_PID=$!
    for _ in $(seq 100); do grep -q '^listening ' "$SEEDS/services.out" 2>/dev/null && break; sleep 0.1; done
    SERVICES=$(sed -n 's/^listening //p' "$SEEDS/services.out")
    printf 'fuzz seed\n' > "$SEEDS/a.txt"; printf '{"n": 1}\n' > "$SEEDS/b.json"
    if [ -n "$SERVICES" ] && "$TAMGA" container create "$SEEDS/seed.asice" "$SEEDS/a.txt" "$SEEDS/b.json" -q --force \
       && "$TAMGA" sign "$SEEDS/seed.asice" --with "key:Fixtures/pki/ec-p256.key.pem" --cert Fixtures/pki/ec-p256.cert.pem \
            --certs Fixtures/pki/issuing-ca.cert.pem --tsa "$SERVICES/tsa" --ocsp "$SERVICES/ocsp" -q >/dev/null; then
      seed FuzzZip "$SEEDS/seed.asice"
      # DigiDoc XML of each version, a hashcode one, and one with two signatures and two files
      # (scripts/make-ddoc.py, the test PKI, the same loopback OCSP).
      for version in 1.3 1.2 1.1 1.0; do
        /usr/bin/python3 scripts/make-ddoc.py --pki Fixtures/pki --ocsp "$SERVICES/ocsp" --version "$version" --out "$SEEDS/v$version.ddoc" >/dev/null \
          && seed FuzzDDOC "$SEEDS/v$version.ddoc"
      done
      /usr/bin/python3 scripts/make-ddoc.py --hashcode-of "$SEEDS/v1.3.ddoc" --out "$SEEDS/hashcode.ddoc" >/dev/null && seed FuzzDDOC "$SEEDS/hashcode.ddoc"
      /usr/bin/python3 scripts/make-ddoc.py --pki Fixtures/pki --ocsp "$SERVICES/ocsp" --signatures 2 --file "a.txt=$SEEDS/a.txt" \
        --file "b.json=$SEEDS/b.json" --out "$SEEDS/two.ddoc" >/dev/null && seed FuzzDDOC "$SEEDS/two.ddoc"
      # A data file of 4 KB with CR LF line ends: its base64 spans several of FuzzDDOC's 1 KB
      # chunks, so mutations start on the read-ahead path with CR LF pairs split between chunks.
      head -c 4096 /dev/urandom > "$SEEDS/c.bin"
      /usr/bin/python3 scripts/make-ddoc.py --pki Fixtures/pki --ocsp "$SERVICES/ocsp" --crlf --file "c.bin=$SEEDS/c.bin" \
        --mime application/octet-stream --out "$SEEDS/crlf.ddoc" >/dev/null && seed FuzzDDOC "$SEEDS/crlf.ddoc"
      # The same files as documents of a /validate request (0x80: .asice, 0x84: .ddoc).
      { printf '\200'; cat "$SEEDS/seed.asice"; } > "$WORK/corpus/FuzzValidationService/seed-asice"
      # Its signature file for /validateHashcode, with the data files' digests (0x41) and without (0x40).
      /usr/bin/python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("META-INF/signatures0.xml"))' \
        "$SEEDS/seed.asice" > "$SEEDS/signatures0.xml" && {
        { printf '\101'; cat "$SEEDS/signatures0.xml"; } > "$WORK/corpus/FuzzValidationService/hashcode-files"
        { printf '\100'; cat "$SEEDS/signatures0.xml"; } > "$WORK/corpus/FuzzValidationService/hashcode-stated"
      }
      for ddoc in v1.3 hashcode two; do
        [ -f "$SEEDS/$ddoc.ddoc" ] && { printf '\204'; cat "$SEEDS/$ddoc.ddoc"; } > "$WORK/corpus/FuzzValidationService/$ddoc-ddoc"
      done
      # The shapes that once had two readings (scripts/make-ambiguous-zip.py): refused now, and
      # what mutations of them reach is what the FuzzZip oracle is for.
      for shape in appended appended-missing-comment-byte zip64-locator trailing-bytes plain-comment; do
        /usr/bin/python3 scripts/make-ambiguous-zip.py "$shape" "$SEEDS/seed.asice" "$SEEDS/$shape.asice" "other text" \
          && seed FuzzZip "$SEEDS/$shape.asice"
      done
      /usr/bin/python3 - "$SEEDS/seed.asice" "$WORK/corpus" <<'PY'
import base64, re, sys, zipfile, os
container, corpus = sys.argv[1], sys.argv[2]
def put(target, name, data):
    os.makedirs(os.path.join(corpus, target), exist_ok=True)
    open(os.path.join(corpus, target, name), "wb").write(data)
with zipfile.ZipFile(container) as z:
    put("FuzzManifest", "manifest.xml", z.read("META-INF/manifest.xml"))
    xml = z.read("META-INF/signatures0.xml")
    put("FuzzSignatureXML", "signatures0.xml", xml)
    text = xml.decode()
    for i, m in enumerate(re.findall(r"EncapsulatedTimeStamp[^>]*>([^<]+)<", text)):
        put("FuzzTimeStamp", "token%d.der" % i, base64.b64decode(m))
    for i, m in enumerate(re.findall(r"EncapsulatedOCSPValue[^>]*>([^<]+)<", text)):
        put("FuzzOCSP", "ocsp%d.der" % i, base64.b64decode(m))
PY
    else
      echo "fuzz: could not sign a seed container (continuing with fixture seeds; see $SEEDS/services.log)" >&2
    fi
  fi
  # Threshold messages from the golden transcript: a selector byte, then the JSON object.
  /usr/bin/python3 - "$WORK/corpus/FuzzWireMessages" <<'PY'
import json, os, sys
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
transcript = json.load(open("Fixtures/threshold/transcript.json"))
messages = transcript.get("messages", {})
items = messages.items() if isinstance(messages, dict) else enumerate(messages)
for index, (name, message) in enumerate(items):
    body = message if isinstance(message, dict) else {"value": message}
    for selector in range(9):
        open(os.path.join(out, "m%d-%d" % (index, selector)), "wb").write(bytes([selector]) + json.dumps(body).encode())
# An enroll/complete request with every fixed-width field at its width (the Π^mod and
# Π^fac fields included) and the short NiCorrectKey list, so mutations start past the field
# checks; the 128-entry lists would not fit -max_len and are refused on their count anyway.
g = "036b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
widths = {"blind": 32, "n": 256, "ckey": 512, "pdlS": 256, "pdlA": 512, "pdlD": 256, "pdlZ1": 97, "pdlZ2": 256, "pdlZ3": 353,
          "facP": 256, "facQ": 256, "facA": 256, "facB": 256, "facT": 256, "facSigma": 544, "facZ1": 224, "facZ2": 224,
          "facW1": 353, "facW2": 353, "facV": 609, "modW": 256, "modA": 16, "modB": 16}
complete = {name: "01" * width for name, width in widths.items()}
complete.update({"q1": g, "pdlY": g, "proofQ1": g + "00" * 31 + "01", "proofN": ["01" * 256] * 11})
open(os.path.join(out, "enroll-complete-fields"), "wb").write(bytes([2]) + json.dumps(complete).encode())
PY
  touch "$WORK/seeded"
fi

# The co-signer's stored states (selector 0xFF): a committed signing session, a proved one and a
# pending enrollment, each well formed (small scalars), so mutations start past the size checks.
if [ ! -e "$WORK/corpus/FuzzWireMessages/state-committed" ]; then
  mkdir -p "$WORK/corpus/FuzzWireMessages"
  /usr/bin/python3 - "$WORK/corpus/FuzzWireMessages" <<'PY'
import os, sys
out = sys.argv[1]
scalar = bytes(31) + b"\x05"
open(os.path.join(out, "state-committed"), "wb").write(bytes([0xFF, 1, 1]) + b"\x11" * 160 + scalar)
open(os.path.join(out, "state-proved"), "wb").write(bytes([0xFF, 1, 2]) + scalar)
open(os.path.join(out, "state-enrollment"), "wb").write(bytes([0xFF, 1, 3]) + b"\x22" * 128 + scalar)
PY
fi

# PIN endpoint bodies (a selector byte, then the JSON): well-formed ones around P-256's generator.
if [ ! -e "$WORK/corpus/FuzzPINMessages/evaluate" ]; then
  mkdir -p "$WORK/corpus/FuzzPINMessages"
  G=036b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296
  H=$(printf '%064d' 1)
  printf '\000{"keyID":"%s","blindedElement":"%s"}' "$H" "$G" > "$WORK/corpus/FuzzPINMessages/evaluate"
  printf '\001{"evaluatedElement":"%s","attempt":"%s","attemptsLeft":4}' "$G" "$H" > "$WORK/corpus/FuzzPINMessages/answer"
  printf '\002{"keyID":"%s","attempt":"%s","proof":"%s","verifier":"%s"}' "$H" "$H" "$H" "$H" > "$WORK/corpus/FuzzPINMessages/confirm"
fi

# Co-signer requests (FuzzCoSignerRouter's layout: route byte, flag byte, five header lines,
# the body): every route attested by the harness's enrolled device (flag 1) on each of its
# sessions, with the relying party's key (flag 4), and on the service without attestation (8).
if [ ! -e "$WORK/corpus/FuzzCoSignerRouter/route-0-1" ]; then
  /usr/bin/python3 - "$WORK/corpus/FuzzCoSignerRouter" <<'PY'
import json, os, sys
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
G = "036b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
bodies = {5: {"keyID": "{k}", "digest": "07" * 32, "displayText": "seed"}, 3: {"keyID": "{k}", "digest": "07" * 32, "displayText": "seed"},
          13: {"keyID": "{k}", "request": "3000", "digest": "07" * 32}, 14: {"sessionID": "{s}", "request": "3000"},
          15: {"keyID": "{k}", "blindedElement": G}, 16: {"keyID": "{k}", "attempt": "00" * 32, "proof": "00" * 32},
          12: {"reason": "c3-not-received"}, 9: {"message": {}}, 10: {"message": {}}, 11: {"message": {}}}
for route in range(17):
    body = json.dumps(bodies.get(route, {})).encode()
    for flags in (0x01, 0x11, 0x31, 0x05, 0x09, 0x0d):
        query = b"limit=2&offset=1" if route == 6 else b""
        open(os.path.join(out, "route-%d-%d" % (route, flags)), "wb").write(bytes([route, flags]) + b"\n\n\n\n" + query + b"\n" + body)
PY
fi

# --- Run.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export LSAN_OPTIONS=suppressions=$REPO/Fuzz/lsan.supp:print_suppressions=0
failed=0
passed_count=0
failed_count=0
printf '%-22s %12s %8s %8s %8s %8s  %s\n' target executions cov corpus slowest rss_mb result
for target in "${TARGETS[@]}"; do
  mkdir -p "$WORK/corpus/$target" "$WORK/artifacts/$target"
  log=$WORK/$target.log
  runs_flag=()
  [ -n "${FUZZ_RUNS:-}" ] && runs_flag=(-runs="$FUZZ_RUNS")
  # The co-signer router keeps state between inputs (attestation nonces live 120 s, SQLite's
  # page cache grows), so libFuzzer's per-input leak check (run whenever an input allocates
  # more than it frees) fires on nearly every input and makes it 40 times slower (12 against
  # 480 executions a second, debug). Leaks are still reported when the run ends.
  [ "$target" = FuzzCoSignerRouter ] && runs_flag+=(-detect_leaks=0)
  if "$BIN/$target" "$WORK/corpus/$target" "${runs_flag[@]}" -max_total_time="$SECONDS_EACH" -timeout="${FUZZ_TIMEOUT:-1}" -rss_limit_mb=2048 -max_len=65536 \
       -artifact_prefix="$WORK/artifacts/$target/" -print_final_stats=1 > "$log" 2>&1; then
    result=ok
    passed_count=$((passed_count + 1))
  else
    result="FAILED (see $log)"
    failed=1
    failed_count=$((failed_count + 1))
  fi
  # A target that died at start has no statistics: "?" in the table, never the end of the script.
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$({ grep -oE 'cov: [0-9]+' "$log" || true; } | tail -1 | cut -d' ' -f2)
  files=$(ls "$WORK/corpus/$target" | wc -l)
  slowest=$(sed -n 's/^stat::slowest_unit_time_sec: *//p' "$log" | tail -1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
  printf '%-22s %12s %8s %8s %7ss %8s  %s\n' "$target" "${runs:-?}" "${cov:-?}" "$files" "${slowest:-?}" "${rss:-?}" "$result"
done
echo "fuzz targets: $passed_count passed, $failed_count failed"
if [ "$failed" -ne 0 ]; then
  echo "fuzz: a target failed; reproducers are in $WORK/artifacts" >&2
  for log in "$WORK"/*.log; do grep -qE 'ERROR|deadly|Fatal|timeout' "$log" && { echo "--- $log"; grep -E -A25 'ERROR|deadly signal|Fatal error|ALARM' "$log" | head -60; }; done
  exit 1
fi
