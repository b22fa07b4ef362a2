#!/usr/bin/env bash
# readers-listing.sh TAMGA [RUNS] — start-up and reader listing: `tamga readers
# --json` against `pcsc_scan -r` and `opensc-tool -l` with 6 readers (3 vpcd entries × 2 slots,
# 4 cards), all against the same private pcscd in this one run, and `tamga --version` against
# its 2.5 ms target. Timed by hyperfine (Debian's; no shell, output to /dev/null) in three
# interleaved rounds of RUNS each (default 200); the median of the rounds' means is printed.
# Targets: `readers --json` no slower than `pcsc_scan -r`; `--version` ≤ 2.5 ms.
# What each does: `pcsc_scan -r` lists reader names only (SCardListReaders); `opensc-tool -l` and
# tamga also report each reader's state and card (tamga: one SCardGetStatusChange, which
# pcsc-lite runs as extra round trips to pcscd, plus the ATR lookup and JSON). `/bin/true` and a
# Swift hello world (static runtime, built here) are printed as floors of the machine and of Swift.
set -euo pipefail
TAMGA=${1:?usage: readers-listing.sh PATH-TO-TAMGA [RUNS]}
RUNS=${2:-200}
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
command -v hyperfine > /dev/null || { echo "readers-listing.sh: needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
# A Swift program that only prints, linked as tamga is (static runtime): the language's floor.
printf 'print("hello")\n' > "$WORK/hello.swift"
SWIFTC=$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)
"$SWIFTC" -O -static-stdlib "$WORK/hello.swift" -o "$WORK/swift-hello" 2> /dev/null || true
/usr/bin/python3 - "$RUNS" "$TAMGA" "$WORK" <<'PY'
import json, os, statistics, subprocess, sys
runs, tamga, work = int(sys.argv[1]), sys.argv[2], sys.argv[3]
commands = {"tamga readers --json": [tamga, "readers", "--json"], "pcsc_scan -r": ["pcsc_scan", "-r"], "opensc-tool -l": ["opensc-tool", "-l"],
            "tamga --version": [tamga, "--version"], "/bin/true": ["/bin/true"]}
if os.access(f"{work}/swift-hello", os.X_OK):
    commands["swift hello world"] = [f"{work}/swift-hello"]
for label, command in commands.items():
    out = subprocess.run(command, capture_output=True, text=True)
    assert out.returncode == 0, (label, out.stderr)
means = {label: [] for label in commands}
for round in range(3):
    export = f"{work}/round{round}.json"
    subprocess.run(["hyperfine", "-N", "--style", "none", "-w", "20", "-r", str(runs), "--export-json", export]
                   + [" ".join(command) for command in commands.values()], check=True, capture_output=True)
    for label, result in zip(commands, json.load(open(export))["results"]):
        means[label].append(result["mean"])
results = {label: statistics.median(values) for label, values in means.items()}
print(f"6 readers (4 cards), same pcscd; hyperfine, median of 3 rounds of {runs} runs:")
for label, seconds in results.items():
    print(f"  {label:<24}{seconds * 1000:8.2f} ms   tamga readers / this = {results['tamga readers --json'] / seconds:.2f}")
t = results['tamga readers --json']
for peer in ["pcsc_scan -r", "opensc-tool -l"]:
    print(f"SUMMARY|reader listing (6 readers, 4 cards)|tamga readers --json / {peer}|{t * 1000:.2f} ms|{results[peer] * 1000:.2f} ms|{t / results[peer]:.2f}|target ≤ 1.00")
v = results['tamga --version']
print(f"SUMMARY|start-up|tamga --version / 2.5 ms target|{v * 1000:.2f} ms|2.50 ms|{v / 0.0025:.2f}|target ≤ 1.00")
PY
