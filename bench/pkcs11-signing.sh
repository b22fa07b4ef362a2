#!/usr/bin/env bash
# pkcs11-signing.sh BUILD_DIR [RUNS] — RUNS (default 1000) ECDSA P-256 signatures through
# PKCS11Signer against the same number of raw C_SignInit+C_Sign calls on the same key in the
# same process (interleaved in blocks), on a SoftHSM2 token made here. Module load and the
# first signature (with login) are reported separately. Target: overhead under 10%.
set -euo pipefail
BUILD=${1:?usage: pkcs11-signing.sh BUILD_DIR (e.g. .build/release) [RUNS]}
RUNS=${2:-1000}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/tokens"
printf 'directories.tokendir = %s\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n' "$WORK/tokens" > "$WORK/softhsm2.conf"
export SOFTHSM2_CONF="$WORK/softhsm2.conf"
MODULE=/usr/lib/softhsm/libsofthsm2.so
softhsm2-util --init-token --free --label bench --so-pin 12345678 --pin 123456 > /dev/null
P=(pkcs11-tool --module "$MODULE" --token-label bench --login --pin 123456)
"${P[@]}" --write-object "$REPO/Fixtures/pki/ec-p256.key.pem" --type privkey --id 01 --label bench --usage-sign > /dev/null
"${P[@]}" --write-object "$REPO/Fixtures/pki/ec-p256.cert.der" --type cert --id 01 --label bench > /dev/null
"$BUILD/tamga-bench" pkcs11-sign "$MODULE" bench 01 123456 "$RUNS" > "$WORK/times"
/usr/bin/python3 - "$WORK/times" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
values = {}
for name, seconds in rows:
    values.setdefault(name, []).append(float(seconds))
signer, raw = statistics.median(values["signer"]), statistics.median(values["raw"])
print(f"SoftHSM2 ECDSA P-256, {len(values['signer'])} signatures each, same process, median per signature:")
print(f"  PKCS11Signer.sign        {signer * 1e6:8.1f} µs")
print(f"  raw C_SignInit+C_Sign    {raw * 1e6:8.1f} µs")
print(f"  overhead                 {(signer / raw - 1) * 100:+7.1f} %   (target: under +10 %)")
print(f"  module load              {values['module-load'][0] * 1000:8.2f} ms   (separately)")
print(f"  first signature + login  {values['first-signature-with-login'][0] * 1000:8.2f} ms   (separately)")
print(f"SUMMARY|PKCS#11 signing (SoftHSM2)|PKCS11Signer.sign / raw C_SignInit+C_Sign|{signer * 1e6:.1f} µs|{raw * 1e6:.1f} µs|{signer / raw:.2f}|< 1.10 {'met' if signer / raw < 1.10 else 'NOT met'}")
PY
