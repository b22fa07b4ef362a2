#!/usr/bin/env bash
# cosigner.sh BUILD_DIR [RUNS] — the co-signer over loopback HTTP as a separate process with its
# SQLite file: enrollment latency, the device's approve latency (commit → prove → finish,
# median and p95 of RUNS, default 50), sustained signatures per second with 8 concurrent
# clients (500 signatures), the PIN's unlock with the co-signer's OPRF round trip and its
# confirmation (docs/threshold-pin.md), and the server's resident memory afterwards.
# Targets: approve ≤ 40 ms median, ≥ 50 signatures/s with 8 clients on 2 cores.
set -euo pipefail
BUILD=${1:?usage: cosigner.sh BUILD_DIR (e.g. .build/release) [RUNS]}
RUNS=${2:-50}
WORK=$(mktemp -d)
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
# COSIGNER_DB=postgresql://… runs the same against a PostgreSQL database (empty or made by
# tamga; the server key is made in the work folder). COSIGNER_INSTANCES=N (default 1) starts N
# instances on that database behind HAProxy (Debian haproxy, round robin, on loopback); the
# clients then talk to HAProxy only (COSIGNER_HAPROXY=1 puts HAProxy in front of one instance too).
# COSIGNER_THREADS=N passes --threads N to each instance. The throughput phase's CPU per
# signature is broken down by process (the instances, HAProxy, the clients, the rest of the
# machine: PostgreSQL, the kernel's network work).
DB=${COSIGNER_DB:-$WORK/cosigner.db}
KEY=$WORK/cosigner.key
INSTANCES=${COSIGNER_INSTANCES:-1}
STORE=$([ -n "${COSIGNER_DB:-}" ] && echo PostgreSQL || echo "SQLite WAL")
URLS=()
for n in $(seq "$INSTANCES"); do
  "$BUILD/tamga" cosigner serve --db "$DB" --key "$KEY" ${COSIGNER_THREADS:+--threads "$COSIGNER_THREADS"} > "$WORK/out$n" 2> "$WORK/err$n" &
  PIDS+=($!)
  # The first makes the database and the server's identity; the others start after it.
  for _ in $(seq 600); do grep -q '^listening ' "$WORK/out$n" 2>/dev/null && break; sleep 0.1; done
  URL=$(sed -n 's/^listening //p' "$WORK/out$n")
  [ -n "$URL" ] || { echo "co-signer $n did not start: $(cat "$WORK/err$n")" >&2; exit 1; }
  URLS+=("$URL")
done
SERVER_PIDS=("${PIDS[@]}")
WATCH=""
for n in "${!SERVER_PIDS[@]}"; do WATCH="$WATCH cosigner$n=${SERVER_PIDS[$n]}"; done
if [ "$INSTANCES" -gt 1 ] || [ -n "${COSIGNER_HAPROXY:-}" ]; then
  command -v haproxy >/dev/null || { echo "COSIGNER_INSTANCES=$INSTANCES needs haproxy (apt-get install haproxy)" >&2; exit 1; }
  PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  {
    printf 'global\n    maxconn 512\ndefaults\n    mode http\n    timeout connect 2s\n    timeout client 30s\n    timeout server 30s\n'
    printf 'frontend cosigner\n    bind 127.0.0.1:%s\n    default_backend cosigners\n' "$PORT"
    # http-reuse always: the clients close each connection (one request each), and HAProxy then
    # keeps its connections to the instances open for the next request, whoever sends it (the
    # co-signer keeps no state per connection); it took HAProxy from 5.2% to 4.5% of a core.
    printf 'backend cosigners\n    balance roundrobin\n    http-reuse always\n    option httpchk\n    http-check send meth GET uri /v3/ready\n'
    for n in "${!URLS[@]}"; do printf '    server c%s %s check\n' "$n" "${URLS[$n]#http://}"; done
  } > "$WORK/haproxy.cfg"
  haproxy -db -f "$WORK/haproxy.cfg" > "$WORK/haproxy.log" 2>&1 &
  PIDS+=($!)
  WATCH="$WATCH haproxy=$!"
  URL=http://127.0.0.1:$PORT
  for _ in $(seq 100); do curl -sf -o /dev/null "$URL/v3/health" && break; sleep 0.1; done
  STORE="$STORE, $INSTANCES instance(s) behind HAProxy"
fi
TAMGA_BENCH_WATCH="$WATCH" "$BUILD/tamga-bench" cosigner "$URL" "$DB" "$RUNS" "$KEY" > "$WORK/times"
RSS=0
for pid in "${SERVER_PIDS[@]}"; do RSS=$((RSS + $(awk '/VmRSS/ {print $2}' /proc/$pid/status))); done
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
cpu = {name[4:]: value[0] * 1000 for name, value in values.items() if name.startswith("cpu-")}
if cpu:
    instances = sum(v for k, v in cpu.items() if k.startswith("cosigner"))
    # Clock ticks are 10 ms, so a store that runs inside the instances (SQLite) can show a
    # slightly negative rest.
    rest = max(0.0, cpu["machine"] - instances - cpu.get("haproxy", 0) - cpu["client"])
    parts = f"instances {instances:.1f}" + (f", HAProxy {cpu['haproxy']:.2f}" if "haproxy" in cpu else "") + f", clients {cpu['client']:.1f}, the rest (PostgreSQL, kernel) {rest:.1f}"
    print(f"  CPU per signature   {cpu['machine']:7.1f} ms of CPU: {parts}")
    print(f"CPU|{cpu['machine']:.2f}|{instances:.2f}|{cpu.get('haproxy', 0):.2f}|{cpu['client']:.2f}|{rest:.2f}")
print(f"  server RSS          {int(sys.argv[2]) / 1024:7.1f} MiB after the load (all instances)")
print(f"SUMMARY|co-signer over loopback|approve median / 40 ms target|{statistics.median(approve):.1f} ms|40 ms|{statistics.median(approve) / 40:.2f}|{'met' if statistics.median(approve) <= 40 else 'NOT met'}")
print(f"SUMMARY|co-signer over loopback|8 clients: signatures/s vs 50/s target|{rate:.1f}/s|50/s|{rate / 50:.2f}|{'met' if rate >= 50 else 'NOT met'}")
PY
