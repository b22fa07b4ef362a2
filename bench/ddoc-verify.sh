#!/usr/bin/env bash
# ddoc-verify.sh TAMGA [SIZE_MB] — verify a DigiDoc XML (DDOC 1.3) holding one SIZE_MB (default
# 20) random data file, signed with the test PKI and notarised by the loopback OCSP responder
# (scripts/make-ddoc.py), against `openssl dgst -sha1` of the decoded data, and an ASiC-E of the
# same file verified beside it: all measured in this run on this machine. Target:
# verify within 1.5x openssl dgst -sha1 of the decoded data, under 128 MB RSS (the base64 is
# streamed, never held). Each figure is the median of ROUNDS (default 25) interleaved rounds, with
# the floors /bin/true and `tamga --version` printed beside them, and a DDOC of one small file: the fixed
# cost (loading OpenSSL and libxml2 with ICU, OpenSSL 3 decoding each certificate's key) that
# the 20 MB figure carries above its hashing.
set -euo pipefail
TAMGA=${1:?usage: ddoc-verify.sh PATH-TO-TAMGA [SIZE_MB]}
SIZE_MB=${2:-20}
ROUNDS=${ROUNDS:-25}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PKI=$REPO/Fixtures/pki
WORK=$REPO/.build/bench-ddoc
rm -rf "$WORK" && mkdir -p "$WORK"
SERVICES_PID=
cleanup() { [ -n "$SERVICES_PID" ] && kill "$SERVICES_PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

/usr/bin/python3 "$REPO/scripts/test-services.py" --pki "$PKI" --port 0 --exit-with-parent > "$WORK/services.out" 2> "$WORK/services.log" &
SERVICES_PID=$!
for _ in $(seq 100); do grep -q '^listening ' "$WORK/services.out" 2>/dev/null && break; sleep 0.1; done
SERVICES=$(sed -n 's/^listening //p' "$WORK/services.out")
[ -n "$SERVICES" ] || { echo "ddoc-verify: the test services did not start" >&2; exit 1; }

head -c "$((SIZE_MB * 1024 * 1024))" /dev/urandom > "$WORK/data.bin"
/usr/bin/python3 "$REPO/scripts/make-ddoc.py" --pki "$PKI" --ocsp "$SERVICES/ocsp" --file "data.bin=$WORK/data.bin" \
  --mime application/octet-stream --out "$WORK/big.ddoc" > /dev/null
/usr/bin/python3 "$REPO/scripts/make-ddoc.py" --pki "$PKI" --ocsp "$SERVICES/ocsp" --out "$WORK/small.ddoc" > /dev/null
"$TAMGA" container create "$WORK/big.asice" "$WORK/data.bin" -q --force
"$TAMGA" sign "$WORK/big.asice" --with "key:$PKI/ec-p256.key.pem" --cert "$PKI/ec-p256.cert.pem" --profile B -q > /dev/null
TRUST=(--trust "$PKI/root.cert.pem" --certs "$PKI/issuing-ca.cert.pem")
"$TAMGA" verify "$WORK/big.ddoc" "${TRUST[@]}" -q > /dev/null || { echo "ddoc-verify: the DDOC does not verify" >&2; exit 1; }

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "DDOC: $(du -h "$WORK/big.ddoc" | cut -f1) (${SIZE_MB} MB of data as base64)"
RSS=$( { /usr/bin/time -f '%M' "$TAMGA" verify "$WORK/big.ddoc" "${TRUST[@]}" -q > /dev/null; } 2>&1 | tail -1)
# Interleaved: each round runs every command once, in turn, so that a busy moment of a shared
# machine falls on all of them alike instead of on whichever command hyperfine was repeating.
/usr/bin/python3 - "$RSS" "$ROUNDS" \
  "true" "/bin/true" \
  "tamga --version" "$TAMGA --version" \
  "openssl dgst -sha1 (decoded data)" "openssl dgst -sha1 $WORK/data.bin" \
  "tamga verify DDOC of a small file" "$TAMGA verify $WORK/small.ddoc ${TRUST[*]} -q" \
  "tamga verify DDOC" "$TAMGA verify $WORK/big.ddoc ${TRUST[*]} -q" \
  "tamga verify ASiC-E" "$TAMGA verify $WORK/big.asice ${TRUST[*]} --min-profile B -q" <<'PY'
import os, shutil, statistics, sys, time
rss, rounds = int(sys.argv[1]) / 1024, int(sys.argv[2])
pairs = list(zip(sys.argv[3::2], sys.argv[4::2]))
null = os.open(os.devnull, os.O_WRONLY)
def once(command):
    argv = command.split()
    program = shutil.which(argv[0]) or argv[0]
    start = time.perf_counter()
    pid = os.posix_spawn(program, argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)])
    _, status = os.waitpid(pid, 0)
    elapsed = time.perf_counter() - start
    if status != 0:
        sys.exit(f"ddoc-verify: {command} failed ({status})")
    return elapsed
for name, command in pairs:
    once(command)   # warm-up: page cache, the loader's caches
times = {name: [] for name, _ in pairs}
for _ in range(rounds):
    for name, command in pairs:
        times[name].append(once(command))
results = {name: statistics.median(values) for name, values in times.items()}
floor = results["openssl dgst -sha1 (decoded data)"]
print(f"median of {rounds} interleaved rounds; the commands are spawned directly (posix_spawn), /bin/true is the spawn floor")
for name, seconds in results.items():
    print(f"{name:38s} {seconds * 1000:8.1f} ms  {seconds / floor:5.2f}x openssl dgst -sha1")
ratio = results["tamga verify DDOC"] / floor
print(f"target: DDOC verify <= 1.50x openssl dgst -sha1: {ratio:.2f}x ({'met' if ratio <= 1.5 else 'NOT met'}); "
      f"max RSS {rss:.0f} MB <= 128 MB ({'met' if rss <= 128 else 'NOT met'})")
print(f"SUMMARY|DDOC verify (20 MB data)|median per process|{results['tamga verify DDOC'] * 1000:.1f} ms|{floor * 1000:.1f} ms (openssl dgst -sha1)|{ratio:.2f}|bound 1.5")
PY
