#!/usr/bin/env bash
# make-startup-order.sh [TAMGA] — writes scripts/startup-order.txt: the functions of the release
# binary that run when the short commands start (`--version`, `help`, `readers`, `readers
# --json` with six readers on a private pcscd), in the order they first run, as callgrind sees
# them. The release link (Makefile RELEASE) places them side by side (lld --symbol-ordering-file),
# so a start touches a few dozen pages of code instead of one in each 64 KB of an 11 MB .text,
# and pays fewer page faults (bench/readers-listing.sh: 312 -> 291 for --version, about 0.1 ms
# when the binary's pages come back from disk). Names that no longer exist are ignored by the
# linker, so a stale list costs speed, never correctness; run this again after large changes.
# Needs valgrind (Debian's) and a release build (make release).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TAMGA=${1:-$REPO/.build/x86_64-unknown-linux-gnu/release/tamga}
VCARD="$(dirname "$TAMGA")/tamga-vcard"
command -v valgrind > /dev/null || { echo "make-startup-order.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
WORK=$(mktemp -d)
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
# valgrind cannot read the release binary's DWARF 5 debug information: profile a copy without it.
strip --strip-debug -o "$WORK/tamga" "$TAMGA"
source "$REPO/scripts/pcsc-rig.sh"
pcsc_rig_start "$WORK" "Order Reader 0" "Order Reader 1" "Order Reader 2"
for slot in 0 1 2 4; do pcsc_rig_insert "$VCARD" $((PCSC_RIG_PORT + slot)) idemia; done
sleep 1.5
index=0
for arguments in "--version" "help" "readers" "readers --json"; do
  # shellcheck disable=SC2086
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$WORK/profile$index" "$WORK/tamga" $arguments > /dev/null 2>&1
  index=$((index + 1))
done
/usr/bin/python3 - "$WORK" "$REPO/scripts/startup-order.txt" <<'PY'
import glob, re, sys
work, out = sys.argv[1], sys.argv[2]
names, seen = [], set()
for profile in sorted(glob.glob(f"{work}/profile*")):
    objects, functions, current = {}, {}, None
    for line in open(profile):
        line = line.rstrip("\n")
        match = re.match(r"^(c?ob)=\((\d+)\)(?: (.*))?$", line)
        if match:
            if match.group(3):
                objects[match.group(2)] = match.group(3)
            if match.group(1) == "ob":
                current = objects.get(match.group(2))
            continue
        match = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line)
        if match:
            if match.group(3):
                functions[match.group(2)] = match.group(3)
            name = functions.get(match.group(2))
            if match.group(1) == "fn" and current == f"{work}/tamga" and name and not name.startswith("0x") and name not in seen:
                seen.add(name)
                names.append(name)
if len(names) < 100:
    sys.exit(f"make-startup-order.sh: only {len(names)} functions seen; the profiles are not what was expected")
with open(out, "w") as handle:
    handle.write("\n".join(names) + "\n")
print(f"{out}: {len(names)} functions")
PY
