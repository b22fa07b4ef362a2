#!/usr/bin/env bash
# validation-serve.sh TAMGA [SECONDS] — `tamga validation serve` under load, in one run: 8
# concurrent clients (wrk, keep-alive) post a 100 KB one-signature LT ASiC-E (Fixtures/pki
# ec-p256, loopback TSA/OCSP of scripts/test-services.py) for SECONDS (default 6) each, in ROUNDS (default 3) interleaved rounds, with
# the trust cache warm (`tamga trust update` from the test LOTL of Fixtures/tsl/lotl on
# loopback, so every validation checks the chain against the EE and LV lists). Shapes: one
# instance; two instances behind HAProxy (PROXY v2, as the README's sample). Measured beside
# them, in the same run: the same server answering SiVa's /monitoring/heartbeat (the HTTP
# floor: what the server does without validating), and `tamga verify` of the same file as a
# process (median of 20). Each instance's peak RSS is read from /proc (VmHWM) after its load,
# and its /metrics must count every request as a passed signature (a fast wrong answer is not
# a validation). Targets: ≥ 100 validations/s, p99 ≤ 150 ms, RSS ≤ 128 MB per
# instance, two instances behind HAProxy ≥ 1.0× one.
set -euo pipefail
TAMGA=${1:?usage: validation-serve.sh PATH-TO-TAMGA [SECONDS]}
SECONDS_EACH=${2:-6}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PKI=$REPO/Fixtures/pki
for tool in wrk haproxy curl; do command -v "$tool" > /dev/null || { echo "needs $tool (apt-get install wrk haproxy curl)" >&2; exit 1; }; done
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
wait_listening() { for _ in $(seq 200); do grep -q '^listening ' "$1" 2>/dev/null && return 0; sleep 0.05; done; echo "no listening line in $1" >&2; cat "$1" >&2; exit 1; }
free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

mkdir -p "$WORK/www"
cp "$REPO"/Fixtures/tsl/lotl/{eu-lotl.xml,EE.xml,LV.xml} "$WORK/www/"
/usr/bin/python3 "$REPO/scripts/test-services.py" --pki "$PKI" --port 0 --exit-with-parent > "$WORK/services.out" 2> "$WORK/services.log" &
PIDS+=($!)
/usr/bin/python3 "$REPO/scripts/test-trust-server.py" --root "$WORK/www" > "$WORK/lists.out" 2> "$WORK/lists.log" &
PIDS+=($!)
wait_listening "$WORK/services.out"
wait_listening "$WORK/lists.out"
SERVICES=$(sed -n 's/^listening //p' "$WORK/services.out")
LISTS=$(sed -n 's/^listening //p' "$WORK/lists.out")
export XDG_CACHE_HOME=$WORK/cache
"$TAMGA" trust update --lotl "$LISTS/eu-lotl.xml" --proxy "$LISTS" --lotl-cert "$REPO/Fixtures/tsl/lotl/lotl-signer.cert.pem" -q > /dev/null

# A 100 KB container: a 96 KB document that does not compress (as a PDF or a scan does not),
# one LT signature.
/usr/bin/python3 -c 'import os, sys; sys.stdout.buffer.write(os.urandom(96000))' > "$WORK/report.bin"
"$TAMGA" container create "$WORK/bench.asice" "$WORK/report.bin" -q > /dev/null
"$TAMGA" sign "$WORK/bench.asice" --with "key:$PKI/ec-p256.key.pem" --cert "$PKI/ec-p256.cert.pem" \
  --tsa "$SERVICES/tsa" --ocsp "$SERVICES/ocsp" --certs "$PKI/issuing-ca.cert.pem" -q > /dev/null
SIZE=$(stat -c %s "$WORK/bench.asice")
/usr/bin/python3 - "$WORK/bench.asice" "$WORK/request.json" <<'PY'
import base64, json, sys
document = base64.b64encode(open(sys.argv[1], "rb").read()).decode()
json.dump({"filename": "bench.asice", "document": document, "signaturePolicy": "POLv3"}, open(sys.argv[2], "w"))
PY
cat > "$WORK/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local file = io.open("$WORK/request.json", "rb")
wrk.body = file:read("*a")
file:close()
LUA

# One instance: PORT, extra options; its PID in INSTANCE.
start_instance() {
  local out=$WORK/instance-$1.out
  "$TAMGA" validation serve --port "$1" --metrics --quiet "${@:2}" > "$out" 2> "$WORK/instance-$1.log" &
  INSTANCE=$!
  PIDS+=("$INSTANCE")
  wait_listening "$out"
}
# The passed signatures an instance counted.
passed() { curl -s "http://127.0.0.1:$1/metrics" | awk '/^tamga_validation_valid_signatures_total / {print $2}'; }
peak_rss_mb() { awk '/^VmHWM:/ {printf "%.1f", $2 / 1024}' "/proc/$1/status"; }
# wrk's requests/s, p99 (ms), requests, and non-2xx answers.
load() {
  local url=$1 script=${2:-}
  local args=(-t2 -c8 -d"${SECONDS_EACH}s" --latency --timeout 10s)
  [ -n "$script" ] && args+=(-s "$script")
  wrk "${args[@]}" "$url" > "$WORK/wrk.out" 2>&1 || { cat "$WORK/wrk.out" >&2; exit 1; }
  /usr/bin/python3 - "$WORK/wrk.out" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
def ms(value, unit):
    return float(value) * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[unit]
rate = float(re.search(r"Requests/sec:\s+([0-9.]+)", text).group(1))
p99 = re.search(r"\s99%\s+([0-9.]+)(us|ms|s|m)\b", text)
count = int(re.search(r"(\d+) requests in", text).group(1))
bad = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
socket_errors = sum(int(x) for x in errors.groups()) if errors else 0
print(f"{rate:.1f} {ms(*p99.groups()):.1f} {count} {int(bad.group(1)) if bad else 0} {socket_errors}")
PY
}

# INSTANCE_OPTIONS (environment, words): extra options for every instance, to try levers.
read -r -a INSTANCE_OPTIONS <<< "${INSTANCE_OPTIONS:-}"
# Behind HAProxy, which passes each client's address with PROXY v2: one instance (what the
# proxy itself costs), then two. HAProxy connects from 127.0.0.2, the only address whose PROXY
# headers the instances believe; this script reads their metrics from 127.0.0.1, without one.
# Arguments: the instances' ports; prints the rate, p99, requests, bad answers, socket errors.
behind_haproxy() {
  local front servers="" port
  front=$(free_port)
  for port in "$@"; do servers+="    server validation$port 127.0.0.1:$port"$'\n'; done
  cat > "$WORK/haproxy.cfg" <<CFG
global
    maxconn 512
    nbthread ${HAPROXY_THREADS:-1}
defaults
    mode http
    timeout connect 5s
    timeout http-request 60s
    timeout client 60s
    timeout server 60s
frontend validation
    bind 127.0.0.1:$front
    default_backend validators
backend validators
    balance ${HAPROXY_BALANCE:-leastconn}
    http-reuse never
    default-server send-proxy-v2 source 127.0.0.2
$servers
CFG
  haproxy -db -f "$WORK/haproxy.cfg" > "$WORK/haproxy.log" 2>&1 &
  local proxy=$!
  PIDS+=("$proxy")
  for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$front/monitoring/heartbeat" && break; sleep 0.05; done
  load "http://127.0.0.1:$front/validate" "$WORK/post.lua"
  kill "$proxy"; wait "$proxy" 2>/dev/null || true
}
PORT1=$(free_port)
start_instance "$PORT1" "${INSTANCE_OPTIONS[@]}"; PID1=$INSTANCE
answer=$(curl -s -H 'Content-Type: application/json' --data-binary "@$WORK/request.json" "http://127.0.0.1:$PORT1/validate")
grep -q '"validSignaturesCount":1' <<< "$answer" || { echo "the bench container does not validate: $answer" >&2; exit 1; }
PORT2=$(free_port)
PORT3=$(free_port)
start_instance "$PORT2" --trusted-proxy 127.0.0.2 "${INSTANCE_OPTIONS[@]}"; PIDA=$INSTANCE
start_instance "$PORT3" --trusted-proxy 127.0.0.2 "${INSTANCE_OPTIONS[@]}"; PIDB=$INSTANCE

# The three shapes interleaved ROUNDS times, so that the shared machine's noise falls on all
# of them; medians are compared. Every answer must be a passed signature on the instances' own
# counts.
ROUNDS=${ROUNDS:-3}
: > "$WORK/results"
total_passed() { local sum=0 port; for port in "$@"; do sum=$((sum + $(passed "$port"))); done; echo "$sum"; }
measure() {   # SHAPE PORTS... -- LOAD COMMAND
  local shape=$1 ports=() before after
  shift
  while [ "$1" != -- ]; do ports+=("$1"); shift; done
  shift
  before=$(total_passed "${ports[@]}")
  read -r rate p99 count bad errors < <("$@")
  after=$(total_passed "${ports[@]}")
  [ "$bad" = 0 ] && [ "$errors" = 0 ] || { echo "$shape: $bad answers not 2xx, $errors socket errors" >&2; exit 1; }
  [ $((after - before)) -ge "$count" ] || { echo "$shape: $count answers but $((after - before)) passed signatures counted" >&2; exit 1; }
  echo "$shape $rate $p99 $count" >> "$WORK/results"
  echo "  $shape: $rate validations/s, p99 $p99 ms"
}
for round in $(seq "$ROUNDS"); do
  echo "round $round"
  measure direct "$PORT1" -- load "http://127.0.0.1:$PORT1/validate" "$WORK/post.lua"
  measure haproxy1 "$PORT2" -- behind_haproxy "$PORT2"
  measure haproxy2 "$PORT2" "$PORT3" -- behind_haproxy "$PORT2" "$PORT3"
done
RSS1=$(peak_rss_mb "$PID1"); RSSA=$(peak_rss_mb "$PIDA"); RSSB=$(peak_rss_mb "$PIDB")
read -r FLOOR _ _ _ _ < <(load "http://127.0.0.1:$PORT1/monitoring/heartbeat")

# tamga verify of the same file, one process each.
VERIFY=$(/usr/bin/python3 - "$TAMGA" "$WORK/bench.asice" <<'PY'
import statistics, subprocess, sys, time
times = []
subprocess.run([sys.argv[1], "verify", sys.argv[2]], check=True, stdout=subprocess.DEVNULL)
for _ in range(20):
    started = time.perf_counter()
    subprocess.run([sys.argv[1], "verify", sys.argv[2]], check=True, stdout=subprocess.DEVNULL)
    times.append(time.perf_counter() - started)
print(f"{statistics.median(times) * 1000:.1f}")
PY
)

/usr/bin/python3 - "$WORK/results" "$SIZE" "$RSS1" "$RSSA" "$RSSB" "$FLOOR" "$VERIFY" "$(nproc)" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    shape, rate, p99, count = line.split()
    runs.setdefault(shape, []).append((float(rate), float(p99), int(count)))
size, rss1, rssa, rssb, floor, verify = (float(x) for x in sys.argv[2:8])
cores = int(sys.argv[8])
def median(shape, column): return statistics.median(run[column] for run in runs[shape])
rate1, p99_1 = median("direct", 0), median("direct", 1)
rate1h, p99_1h = median("haproxy1", 0), median("haproxy1", 1)
rate2, p99_2 = median("haproxy2", 0), median("haproxy2", 1)
answers = sum(run[2] for shape in runs.values() for run in shape)
rss = max(rss1, rssa, rssb)
print(f"{size / 1000:.0f} KB LT ASiC-E, 8 clients, keep-alive, {cores} cores, {len(runs['direct'])} interleaved rounds, medians; {answers} answers, every one a passed signature")
print(f"  one instance                 {rate1:7.1f} validations/s   p99 {p99_1:6.1f} ms   peak RSS {rss1:6.1f} MB")
print(f"  one instance behind HAProxy  {rate1h:7.1f} validations/s   p99 {p99_1h:6.1f} ms   (the proxy's cost: {rate1h / rate1:.2f}x direct)")
print(f"  two instances behind HAProxy {rate2:7.1f} validations/s   p99 {p99_2:6.1f} ms   peak RSS {rssa:.1f} / {rssb:.1f} MB   ({rate2 / rate1h:.2f}x one behind HAProxy, {rate2 / rate1:.2f}x direct)")
print(f"  floor: the same server's /monitoring/heartbeat {floor:.0f} answers/s (a validation costs {floor / rate1:.0f} heartbeats)")
print(f"  tamga verify of the same file, one process: {verify:.1f} ms median ({1000 / verify:.1f} files/s on one core; the service does {rate1 * verify / 1000 / cores:.2f}x that per core)")
# On one machine the two instances share its cores with HAProxy and the clients: the second
# instance is judged against one instance behind the same proxy (whose own cost is the line
# above), so that the figure says whether adding an instance ever costs throughput.
targets = [("validations/s, one instance", f"{rate1:.1f}/s", "100/s", rate1 / 100, rate1 >= 100),
           ("p99 latency, one instance", f"{p99_1:.1f} ms", "150 ms", p99_1 / 150, p99_1 <= 150),
           ("peak RSS per instance", f"{rss:.1f} MB", "128 MB", rss / 128, rss <= 128),
           ("two instances / one, both behind HAProxy", f"{rate2:.1f}/s", f"{rate1h:.1f}/s", rate2 / rate1h, rate2 >= rate1h)]
for name, value, target, ratio, met in targets:
    print(f"SUMMARY|validation serve|{name}|{value}|{target}|{ratio:.2f}|{'met' if met else 'NOT met'}")
print(f"SUMMARY|validation serve|HAProxy in front / direct|{rate1h:.1f}/s|{rate1:.1f}/s|{rate1h / rate1:.2f}|the proxy's cost on the same cores")
print(f"SUMMARY|validation serve|service per core vs tamga verify per process|{1000 * cores / rate1:.1f} ms|{verify:.1f} ms|{1000 * cores / rate1 / verify:.2f}|floor: heartbeat {floor:.0f}/s")
sys.exit(0 if all(met for *_, met in targets) else 1)
PY
