#!/usr/bin/env bash
# card-signing.sh BUILD_DIR [RUNS] — one EstEID IDEMIA signature (PIN2 counter, select, MSE:SET,
# VERIFY, PSO:CDS, signature check) through tamga's IDCardSigner, against bench/apdu-loop.c,
# a plain C loop sending the same PC/SC calls and APDUs, both against the same virtual card
# behind the same private pcscd, interleaved in rounds in this one run. Prints the medians and
# the overhead. Target: the stack's overhead under 10%.
set -euo pipefail
BUILD=${1:?usage: card-signing.sh BUILD_DIR (e.g. .build/release) [RUNS]}
RUNS=${2:-200}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d)
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
gcc -O2 -o "$WORK/apdu-loop" "$REPO/bench/apdu-loop.c" $(pkg-config --cflags --libs libpcsclite)
source "$REPO/scripts/pcsc-rig.sh"
pcsc_rig_start "$WORK" "Bench Card Reader"
pcsc_rig_insert "$BUILD/tamga-vcard" "$PCSC_RIG_PORT" idemia
sleep 1.5
READER="Bench Card Reader 00 00"
ROUNDS=5
PER=$(( (RUNS + ROUNDS - 1) / ROUNDS ))
: > "$WORK/stack"; : > "$WORK/loop"
for _ in $(seq $ROUNDS); do
  "$BUILD/tamga-bench" card-sign "$READER" "$PER" 12345 >> "$WORK/stack"
  "$WORK/apdu-loop" "$READER" "$PER" 12345 >> "$WORK/loop"
done
# TRACE=1: also count system calls of both under strace (/tmp/st.stack, /tmp/st.loop), to see where the stack differs.
[ -n "${TRACE:-}" ] && { strace -f -c -o /tmp/st.stack "$BUILD/tamga-bench" card-sign "$READER" 100 12345 > /dev/null; strace -f -c -o /tmp/st.loop "$WORK/apdu-loop" "$READER" 100 12345 > /dev/null; }
/usr/bin/python3 - "$WORK/stack" "$WORK/loop" <<'PY'
import statistics, sys
stack = [float(x) for x in open(sys.argv[1])]
loop = [float(x) for x in open(sys.argv[2])]
s, l = statistics.median(stack), statistics.median(loop)
print(f"EstEID IDEMIA virtual card, {len(stack)} signatures each, median per signature, same pcscd:")
print(f"  tamga IDCardSigner.sign   {s * 1000:7.2f} ms")
print(f"  plain APDU loop (C)       {l * 1000:7.2f} ms")
print(f"  stack overhead            {(s / l - 1) * 100:+6.1f} %   (target: under +10 %)")
print(f"SUMMARY|card signing (virtual EstEID, pcscd)|IDCardSigner.sign / plain C APDU loop|{s * 1000:.2f} ms|{l * 1000:.2f} ms|{s / l:.2f}|< 1.10 {'met' if s / l < 1.10 else 'NOT met'}")
PY
