#!/usr/bin/env bash
# cosigner.sh BUILD_DIR [RUNS] — the co-signer over loopback HTTP as a separate process with its
# SQLite file: enrollment latency, the device's approve latency (commit → prove → finish,
# median and p95 of RUNS, default 50), sustained signatures per second with 8 concurrent
# clients (500 signatures), the PIN's unlock with the co-signer's OPRF round trip and its
# confirmation (docs/threshold-pin.md), and the server's resident memory afterwards.
# Targets (issue 8): approve ≤ 40 ms median, ≥ 50 signatures/s with 8 clients on 2 cores.
set -euo pipefail
BUILD=${1:?usage: cosigner.sh BUILD_DIR (e.g. .build/release) [RUNS]}
RUNS=${2:-50}
WORK=$(mktemp -d)
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
# COSIGNER_DB=postgresql://… runs the same against a PostgreSQL database (empty or made by
# tamga; the server key is made in the work folder).
DB=${COSIGNER_DB:-$WORK/cosigner.db}
KEY=$WORK/cosigner.key
STORE=$([ -n "${COSIGNER_DB:-}" ] && echo PostgreSQL || echo "SQLite WAL")
"$BUILD/tamga" cosigner serve --db "$DB" --key "$KEY" > "$WORK/out" 2> "$WORK/err" &
PID=$!
for _ in $(seq 100); do grep -q '^listening ' "$WORK/out" 2>/dev/null && break; sleep 0.1; done
URL=$(sed -n 's/^listening //p' "$WORK/out")
[ -n "$URL" ] || { echo "the co-signer did not start: $(cat "$WORK/err")" >&2; exit 1; }
"$BUILD/tamga-bench" cosigner "$URL" "$DB" "$RUNS" "$KEY" > "$WORK/times"
RSS=$(awk '/VmRSS/ {print $2}' /proc/$PID/status)
/usr/bin/python3 - "$WORK/times" "$RSS" "$STORE" <<'PY'
import statistics, sys
values = {}
for line in open(sys.argv[1]):
    name, value = line.split()
    values.setdefault(name, []).append(float(value))
def p95(xs):
    xs = sorted(xs); return xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]
approve = [x * 1000 for x in values["approve"]]
enroll = [x * 1000 for x in values["enroll"]]
rate = values["throughput"][0]
store = sys.argv[3]
print(f"co-signer over loopback HTTP, separate process, {store}:")
print(f"  enrollment          median {statistics.median(enroll):7.1f} ms  p95 {p95(enroll):7.1f} ms")
print(f"  approve             median {statistics.median(approve):7.1f} ms  p95 {p95(approve):7.1f} ms   target <= 40 ms: {'met' if statistics.median(approve) <= 40 else 'NOT met'}")
print(f"  8 clients, 500 sig  {rate:7.1f} signatures/s               target >= 50/s: {'met' if rate >= 50 else 'NOT met'}")
for name, label in [("pin-unlock", "PIN unlock (all)"), ("pin-evaluate", "  OPRF round trip"), ("pin-confirm", "  confirm round trip")]:
    xs = [x * 1000 for x in values.get(name, [])]
    if xs:
        print(f"  {label:<19} median {statistics.median(xs):7.1f} ms  p95 {p95(xs):7.1f} ms")
print(f"  server RSS          {int(sys.argv[2]) / 1024:7.1f} MiB after the load")
print(f"SUMMARY|co-signer over loopback|approve median / 40 ms target|{statistics.median(approve):.1f} ms|40 ms|{statistics.median(approve) / 40:.2f}|{'met' if statistics.median(approve) <= 40 else 'NOT met'}")
print(f"SUMMARY|co-signer over loopback|8 clients: signatures/s vs 50/s target|{rate:.1f}/s|50/s|{rate / 50:.2f}|{'met' if rate >= 50 else 'NOT met'}")
PY
