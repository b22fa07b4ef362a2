#!/usr/bin/env bash
# readers-listing.sh TAMGA [RUNS] — `tamga readers --json` against `opensc-tool -l` and
# `pcsc_scan -r` with 6 readers (3 vpcd entries × 2 slots, 4 cards), all against the same private
# pcscd in this one run. Prints the median wall time of RUNS (default 30) and the ratios.
# Target (issue 4): tamga no slower than either.
# What each does: `pcsc_scan -r` lists reader names only (SCardListReaders); `opensc-tool -l` and
# tamga also report each reader's state and card (tamga: one SCardGetStatusChange, which
# pcsc-lite runs as extra round trips to pcscd, plus the ATR lookup and JSON). Most of tamga's
# time is process start-up: `tamga --version` is printed below for that floor (Swift runtime,
# Foundation with ICU, OpenSSL, libxml2 with ICU loaded and initialised before main).
set -euo pipefail
TAMGA=${1:?usage: readers-listing.sh PATH-TO-TAMGA [RUNS]}
RUNS=${2:-30}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VCARD="$(dirname "$TAMGA")/tamga-vcard"
WORK=$(mktemp -d)
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
source "$REPO/scripts/pcsc-rig.sh"
pcsc_rig_start "$WORK" "Bench Reader 0" "Bench Reader 1" "Bench Reader 2"
BASE=$PCSC_RIG_PORT
for slot in 0 1 2 4; do
  pcsc_rig_insert "$VCARD" $((BASE + slot)) idemia
done
sleep 1.5
/usr/bin/python3 - "$RUNS" "$TAMGA" <<'PY'
import statistics, subprocess, sys, time
runs, tamga = int(sys.argv[1]), sys.argv[2]
commands = {"tamga readers --json": [tamga, "readers", "--json"], "opensc-tool -l": ["opensc-tool", "-l"], "pcsc_scan -r": ["pcsc_scan", "-r"],
            "tamga --version (floor)": [tamga, "--version"]}
results = {}
for label, command in commands.items():
    out = subprocess.run(command, capture_output=True, text=True)
    assert out.returncode == 0, (label, out.stderr)
    times = []
    for _ in range(runs):
        start = time.perf_counter(); subprocess.run(command, capture_output=True); times.append(time.perf_counter() - start)
    results[label] = statistics.median(times)
print(f"6 readers (4 cards), median of {runs} runs, same pcscd:")
for label, seconds in results.items():
    print(f"  {label:<22}{seconds * 1000:8.1f} ms   tamga / this = {results['tamga readers --json'] / seconds:.2f}")
t = results['tamga readers --json']
for peer in ["pcsc_scan -r", "opensc-tool -l"]:
    print(f"SUMMARY|reader listing (6 readers, 4 cards)|tamga readers --json / {peer}|{t * 1000:.1f} ms|{results[peer] * 1000:.1f} ms|{t / results[peer]:.2f}|floor (tamga --version) {results['tamga --version (floor)'] * 1000:.1f} ms")
PY
