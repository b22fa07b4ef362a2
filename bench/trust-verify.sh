#!/usr/bin/env bash
# trust-verify.sh TAMGA [RUNS] — what trust from the trust cache costs a verify. One LT container
# (Fixtures/pki ec-p256, loopback TSA/OCSP of scripts/test-services.py) is verified RUNS times
# (default 30) each way, alternating: with the cache that `tamga trust update` left from the test
# LOTL of Fixtures/tsl/lotl (the list of lists and two national lists, served on loopback by
# scripts/test-trust-server.py); with a cache the size of the EU's (scripts/make-eu-sized-lotl.py:
# the signer's EE list and 27 lists of other countries, about 27 MB, which verify reads only when
# the signer's own country's list does not settle the verdict); and, as the peer in the same run,
# with `--trust` PEM anchors. Every list read is parsed and signature-checked in every process.
# Whole processes, wall clock, median and p95. The issue's bound: cached trust at most 1.5x the
# PEM anchors.
set -euo pipefail
TAMGA=${1:?usage: trust-verify.sh PATH-TO-TAMGA [RUNS]}
RUNS=${2:-30}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PKI=$REPO/Fixtures/pki
WORK=$(mktemp -d)
mkdir -p "$WORK/www"
cp "$REPO"/Fixtures/tsl/lotl/{eu-lotl.xml,EE.xml,LV.xml} "$WORK/www/"
/usr/bin/python3 "$REPO/scripts/make-eu-sized-lotl.py" "$WORK/eu" > /dev/null
/usr/bin/python3 "$REPO/scripts/test-services.py" --pki "$PKI" --port 0 --exit-with-parent > "$WORK/services.out" 2> "$WORK/services.log" &
SERVICES_PID=$!
/usr/bin/python3 "$REPO/scripts/test-trust-server.py" --root "$WORK/www" > "$WORK/lists.out" 2> "$WORK/lists.log" &
LISTS_PID=$!
/usr/bin/python3 "$REPO/scripts/test-trust-server.py" --root "$WORK/eu" > "$WORK/eu.out" 2> "$WORK/eu.log" &
EU_PID=$!
trap 'kill "$SERVICES_PID" "$LISTS_PID" "$EU_PID" 2>/dev/null; wait "$SERVICES_PID" "$LISTS_PID" "$EU_PID" 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do grep -q '^listening ' "$WORK/services.out" 2>/dev/null && grep -q '^listening ' "$WORK/lists.out" 2>/dev/null \
  && grep -q '^listening ' "$WORK/eu.out" 2>/dev/null && break; sleep 0.1; done
URL=$(sed -n 's/^listening //p' "$WORK/services.out")
LISTS=$(sed -n 's/^listening //p' "$WORK/lists.out")
EU=$(sed -n 's/^listening //p' "$WORK/eu.out")
XDG_CACHE_HOME=$WORK/cache "$TAMGA" trust update --lotl "$LISTS/eu-lotl.xml" --proxy "$LISTS" --lotl-cert "$REPO/Fixtures/tsl/lotl/lotl-signer.cert.pem" -q > /dev/null
XDG_CACHE_HOME=$WORK/eu-cache "$TAMGA" trust update --lotl "$EU/eu-lotl.xml" --proxy "$EU" --lotl-cert "$REPO/Fixtures/tsl/lotl/lotl-signer.cert.pem" -q > /dev/null
EU_MB=$(du -sm "$WORK/eu-cache/tamga/trust" | cut -f1)
export XDG_CACHE_HOME=$WORK/cache
printf 'A short contract.\n' > "$WORK/contract.txt"
"$TAMGA" container create "$WORK/c.asice" "$WORK/contract.txt" -q > /dev/null
"$TAMGA" sign "$WORK/c.asice" --with "key:$PKI/ec-p256.key.pem" --cert "$PKI/ec-p256.cert.pem" \
  --tsa "$URL/tsa" --ocsp "$URL/ocsp" --certs "$PKI/issuing-ca.cert.pem" -q > /dev/null
/usr/bin/python3 - "$TAMGA" "$WORK/c.asice" "$PKI/root.cert.pem" "$RUNS" "$WORK/eu-cache" "$EU_MB" <<'PY'
import os, statistics, subprocess, sys, time
tamga, container, root, runs, eu_cache, eu_mb = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6]
eu_name = f"cached trust (EU-sized, {eu_mb} MB)"
ways = {"cached trust (LOTL + EE + LV)": [tamga, "verify", container],
        eu_name: [tamga, "verify", container],
        "--trust PEM anchors": [tamga, "verify", container, "--trust", root]}
environments = {name: dict(os.environ) for name in ways}
environments[eu_name]["XDG_CACHE_HOME"] = eu_cache
times = {name: [] for name in ways}
for name, command in ways.items():   # warm the page cache once each
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=environments[name])
for _ in range(runs):
    for name, command in ways.items():
        started = time.perf_counter()
        result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=environments[name])
        times[name].append(time.perf_counter() - started)
        if result.returncode != 0:
            sys.exit(f"{name}: exit {result.returncode}: {result.stderr.decode()}")
def stat(values):
    values = sorted(v * 1000 for v in values)
    return statistics.median(values), values[max(0, int(len(values) * 0.95) - 1)]
print(f"verify of one LT signature, {runs} processes each way, alternating (milliseconds)")
for name in ways:
    median, p95 = stat(times[name])
    print(f"  {name:<32} median {median:7.1f}   p95 {p95:7.1f}")
cached, eu, pem = (stat(times[name])[0] for name in ways)
print(f"  ratio cached / PEM: {cached / pem:.2f}, EU-sized cache / PEM: {eu / pem:.2f} (bound 1.5)")
print(f"SUMMARY|verify with cached trust|median per process|{cached:.1f} ms|{pem:.1f} ms (--trust PEM)|{cached / pem:.2f}|bound 1.5")
print(f"SUMMARY|verify with an EU-sized cache ({eu_mb} MB)|median per process|{eu:.1f} ms|{pem:.1f} ms (--trust PEM)|{eu / pem:.2f}|bound 1.5")
sys.exit(0 if max(cached, eu) / pem <= 1.5 else 1)
PY
