#!/usr/bin/env bash
# signing-phases.sh TAMGA [RUNS] — LT signing latency split into phases (prepare, sign, TSA,
# OCSP, write), median and p95 over RUNS (default 20) per key, against the loopback TSA and
# OCSP responder of scripts/test-services.py, all in this one run. Later signers (card, token,
# threshold key) are compared against these rows phase by phase.
set -euo pipefail
TAMGA=${1:?usage: signing-phases.sh PATH-TO-TAMGA [RUNS]}
RUNS=${2:-20}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PKI=$REPO/Fixtures/pki
WORK=$(mktemp -d)
/usr/bin/python3 "$REPO/scripts/test-services.py" --pki "$PKI" --port 0 --exit-with-parent > "$WORK/services.out" 2> "$WORK/services.log" &
SERVICES_PID=$!
trap 'kill "$SERVICES_PID" 2>/dev/null; wait "$SERVICES_PID" 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do grep -q '^listening ' "$WORK/services.out" 2>/dev/null && break; sleep 0.1; done
URL=$(sed -n 's/^listening //p' "$WORK/services.out")
head -c 1000000 /dev/urandom > "$WORK/document.bin"
printf 'A short contract.\n' > "$WORK/contract.txt"

for key in ec-p256 ec-p384 rsa-2048; do
  : > "$WORK/$key.jsonl"
  "$TAMGA" container create "$WORK/base.asice" "$WORK/document.bin" "$WORK/contract.txt" --force -q > /dev/null
  for i in $(seq "$RUNS"); do
    cp "$WORK/base.asice" "$WORK/run.asice"
    "$TAMGA" sign "$WORK/run.asice" --with "key:$PKI/$key.key.pem" --cert "$PKI/$key.cert.pem" \
      --tsa "$URL/tsa" --ocsp "$URL/ocsp" --certs "$PKI/issuing-ca.cert.pem" --json -q >> "$WORK/$key.jsonl"
  done
done
/usr/bin/python3 - "$WORK" "$RUNS" <<'PY'
import json, sys, statistics
work, runs = sys.argv[1], int(sys.argv[2])
phases = ["prepare", "sign", "timeStamp", "ocsp", "write"]
print(f"LT signing of a 1 MB + 18 B container, {runs} runs per key (milliseconds, median / p95)")
print(f"{'key':<10}" + "".join(f"{p:>16}" for p in phases + ["total"]))
for key in ["ec-p256", "ec-p384", "rsa-2048"]:
    text, rows, decoder, at = open(f"{work}/{key}.jsonl").read(), [], json.JSONDecoder(), 0
    while at < len(text.rstrip()):
        value, at = decoder.raw_decode(text, at)
        rows.append(value["phases"])
        while at < len(text) and text[at].isspace(): at += 1
    def stat(values):
        values = sorted(v * 1000 for v in values)
        return f"{statistics.median(values):7.1f} / {values[max(0, int(len(values) * 0.95) - 1)]:6.1f}"
    totals = [sum(r[p] for p in phases) for r in rows]
    print(f"{key:<10}" + "".join(f"{stat([r[p] for r in rows]):>16}" for p in phases) + f"{stat(totals):>16}")
    network = statistics.median([r["timeStamp"] + r["ocsp"] for r in rows])
    print(f"SUMMARY|LT signing, key file {key}|total / TSA+OCSP round trips|{statistics.median(totals) * 1000:.1f} ms|{network * 1000:.1f} ms|{statistics.median(totals) / network:.2f}|")
PY
