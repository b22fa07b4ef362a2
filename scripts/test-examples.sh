#!/usr/bin/env bash
# test-examples.sh [SWIFT] — builds each package under Examples/ (they depend on tamga by path, as
# another team's package would) and runs it: SignAndVerify signs a file with the test PKI's
# PKCS#12 key and must find the container VALID; the container is then checked by tamga verify
# and by pyasice (scripts/pyasice-check.py), which we did not write. Run by make test.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SWIFT=${1:-$(command -v swift || echo /opt/swift/usr/bin/swift)}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "test-examples: $*" >&2; exit 1; }
echo "== the example packages (Examples/)"
# Its own .build beside it: the example is a separate package, as a user's would be.
"$SWIFT" build --package-path "$REPO/Examples/SignAndVerify" > "$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; fail "SignAndVerify did not build"; }
! grep -E '(^|: )warning: ' "$WORK/build.log" | grep -v 'you may be able to install' || fail "SignAndVerify built with warnings"
BIN=$("$SWIFT" build --package-path "$REPO/Examples/SignAndVerify" --show-bin-path)
printf 'test1234\n' > "$WORK/password"
printf 'An example document.\n' > "$WORK/document.txt"
PKI=$REPO/Fixtures/pki
"$BIN/SignAndVerify" "$WORK/out.asice" "$WORK/document.txt" "$PKI/ec-p256.p12" "$WORK/password" \
  "$PKI/root.cert.pem" "$PKI/issuing-ca.cert.pem" > "$WORK/run.txt" || { cat "$WORK/run.txt"; fail "SignAndVerify did not find its container VALID"; }
grep -qx "$WORK/out.asice: VALID" "$WORK/run.txt" || { cat "$WORK/run.txt"; fail "SignAndVerify printed no verdict"; }
# And a root of another PKI: the example must say INVALID or UNKNOWN and exit 1, not 0.
set +e
"$BIN/SignAndVerify" "$WORK/other.asice" "$WORK/document.txt" "$PKI/ec-p256.p12" "$WORK/password" \
  "$REPO/Fixtures/tsl/lotl/lotl-signer.cert.pem" > /dev/null
wrong=$?
set -e
[ "$wrong" -eq 1 ] || fail "SignAndVerify with the wrong root exited $wrong, not 1"
TAMGA=$("$SWIFT" build --show-bin-path)/tamga
if [ -x "$TAMGA" ]; then
  "$TAMGA" verify "$WORK/out.asice" --trust "$PKI/root.cert.pem" --certs "$PKI/issuing-ca.cert.pem" --min-profile B -q \
    | grep -qx "$WORK/out.asice: VALID" || fail "tamga verify does not find the example's container VALID"
fi
if [ -x "$REPO/.build/pyasice-venv/bin/python" ]; then
  "$REPO/.build/pyasice-venv/bin/python" "$REPO/scripts/pyasice-check.py" --require-raw-ecdsa "$WORK/out.asice" > "$WORK/pyasice.txt" \
    || { cat "$WORK/pyasice.txt"; fail "pyasice refuses the example's container"; }
fi
echo "examples: SignAndVerify built, signed and verified (VALID; the wrong root refused; tamga verify and pyasice agree)"
