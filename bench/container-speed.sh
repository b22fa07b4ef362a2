#!/usr/bin/env bash
# container-speed.sh TAMGA [SIZE_MB] — create + sign + verify a container holding one large
# random (incompressible) file and one large text file, against sha256sum and zip of the same
# files, all measured in this one run on this machine. Prints wall time, max RSS and ratios.
# Targets: create + sign of incompressible data within 1.5x of sha256sum (the
# one-pass `tamga sign NEW.asice FILE` row), RSS under 64 MB whatever the size. And the
# same against `openssl dgst -sha256` of the file: create + sign <= 1.25x, verify <= 1.15x; text
# (deflated) create + sign <= 0.5x `zip -6` at a size within 1% of its; `pigz -6` (Debian pigz)
# and the DigiDoc reference tool (`digidoc-tool`, when installed) are printed beside them.
# Two separate commands (create, then sign) write the container twice: that row is printed too.
# Signatures are made at profile B (and verified with --min-profile B): the time-stamp and OCSP
# round trips are the same few milliseconds whatever the size (bench/signing-phases.sh times them).
# Needs 4 x SIZE_MB of free disk in .build/bench.
set -euo pipefail
TAMGA=${1:?usage: container-speed.sh PATH-TO-TAMGA [SIZE_MB]}
SIZE_MB=${2:-1024}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PKI=$REPO/Fixtures/pki
WORK=$REPO/.build/bench
rm -rf "$WORK" && mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT

echo "== making ${SIZE_MB} MB of random data and ${SIZE_MB} MB of text"
head -c "$((SIZE_MB * 1024 * 1024))" /dev/urandom > "$WORK/random.bin"
/usr/bin/python3 - "$WORK/text.txt" "$SIZE_MB" <<'PY'
import sys, random
random.seed(1)
words = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua".split()
target = int(sys.argv[2]) * 1024 * 1024
with open(sys.argv[1], "w") as f:
    written = 0
    while written < target:
        line = " ".join(random.choice(words) for _ in range(12)) + "\n"
        f.write(line); written += len(line)
PY
truncate -s "$((SIZE_MB * 1024 * 1024))" "$WORK/text.txt"

# measure LABEL COMMAND... -> prints "LABEL seconds maxrss_kb" into $WORK/results
measure() {
  local label=$1; shift
  cat "${FILE}" > /dev/null   # same page-cache state for everyone: the input is cached
  /usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$@" > /dev/null 2> "$WORK/stderr.txt" || { cat "$WORK/stderr.txt"; exit 1; }
  read -r seconds rss < "$WORK/time.txt"
  echo "$label $seconds $rss" >> "$WORK/results"
}

for kind in random text; do
  case $kind in random) FILE=$WORK/random.bin ;; text) FILE=$WORK/text.txt ;; esac
  : > "$WORK/results"
  rm -f "$WORK/c.asice" "$WORK/z.zip"
  measure sha256sum sha256sum "$FILE"
  measure openssl-dgst openssl dgst -sha256 "$FILE"
  measure zip zip -q -6 "$WORK/z.zip" "$FILE"
  if command -v pigz > /dev/null; then measure pigz-6 sh -c 'pigz -6 -c "$1" > "$2"' pigz "$FILE" "$WORK/p.gz"; fi
  measure tamga-create "$TAMGA" container create "$WORK/c.asice" "$FILE" -q
  measure tamga-sign "$TAMGA" sign "$WORK/c.asice" --with "key:$PKI/ec-p256.key.pem" --cert "$PKI/ec-p256.cert.pem" --profile B -q
  measure tamga-verify "$TAMGA" verify "$WORK/c.asice" --trust "$PKI/chain.pem" --min-profile B -q
  rm -f "$WORK/c.asice"
  measure tamga-create+sign-1-pass "$TAMGA" sign "$WORK/c.asice" "$FILE" --with "key:$PKI/ec-p256.key.pem" --cert "$PKI/ec-p256.cert.pem" --profile B -q
  if command -v digidoc-tool > /dev/null; then
    rm -f "$WORK/d.asice"
    measure digidoc-tool-create digidoc-tool create --file="$FILE" "$WORK/d.asice"
  fi
  echo
  echo "== ${SIZE_MB} MB ${kind} file ($(stat -c %s "$WORK/c.asice") byte container, zip -6: $(stat -c %s "$WORK/z.zip"))"
  command -v digidoc-tool > /dev/null || echo "(digidoc-tool, the DigiDoc reference tool, is not installed: no figures for it)"
  /usr/bin/python3 - "$WORK/results" "$kind" "$SIZE_MB" "$(stat -c %s "$WORK/c.asice")" "$(stat -c %s "$WORK/z.zip")" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    label, seconds, rss = line.split()
    rows[label] = (float(seconds), int(rss) / 1024)
sha = rows["sha256sum"][0]
baseline = sha + rows["zip"][0]
print(f"{'operation':<26}{'wall s':>9}{'max RSS MB':>12}{'/ sha256sum':>13}{'/ (sha256sum+zip)':>19}")
for label, (seconds, rss) in rows.items():
    print(f"{label:<26}{seconds:>9.2f}{rss:>12.1f}{seconds / max(sha, 0.01):>13.2f}{seconds / max(baseline, 0.01):>19.2f}")
cs = rows["tamga-create"][0] + rows["tamga-sign"][0]
print(f"{'create, then sign':<26}{cs:>9.2f}{'':>12}{cs / max(sha, 0.01):>13.2f}{cs / max(baseline, 0.01):>19.2f}")
worst = max(v[1] for k, v in rows.items() if k.startswith("tamga"))
print(f"largest tamga RSS: {worst:.1f} MB (target < 64 MB)")
kind, size = sys.argv[2], sys.argv[3]
one = rows["tamga-create+sign-1-pass"][0]
print(f"SUMMARY|container, {size} MB {kind}|create+sign / (sha256sum+zip -6)|{cs:.2f} s|{baseline:.2f} s|{cs / max(baseline, 0.01):.2f}|RSS {worst:.0f} MB < 64 {'met' if worst < 64 else 'NOT met'}")
note = f"< 1.5 {'met' if one / max(sha, 0.01) < 1.5 else 'NOT met'}" if kind == "random" else "deflate bound (zip -6 alone above)"
print(f"SUMMARY|container, {size} MB {kind}|one-pass create+sign / sha256sum|{one:.2f} s|{sha:.2f} s|{one / max(sha, 0.01):.2f}|{note}")
dgst = rows["openssl-dgst"][0]
verify = rows["tamga-verify"][0]
if kind == "random":
    print(f"SUMMARY|container, {size} MB {kind}|one-pass create+sign / openssl dgst -sha256|{one:.2f} s|{dgst:.2f} s|{one / max(dgst, 0.01):.2f}|<= 1.25 {'met' if one / max(dgst, 0.01) <= 1.25 else 'NOT met'}")
    print(f"SUMMARY|container, {size} MB {kind}|verify / openssl dgst -sha256|{verify:.2f} s|{dgst:.2f} s|{verify / max(dgst, 0.01):.2f}|<= 1.15 {'met' if verify / max(dgst, 0.01) <= 1.15 else 'NOT met'}")
else:
    zip6 = rows["zip"][0]
    container, zipped = int(sys.argv[4]), int(sys.argv[5])
    size_ratio = container / max(zipped, 1)
    met = one / max(zip6, 0.01) <= 0.5 and size_ratio <= 1.01
    print(f"SUMMARY|container, {size} MB {kind}|one-pass create+sign / zip -6|{one:.2f} s|{zip6:.2f} s|{one / max(zip6, 0.01):.2f}|<= 0.5 at size <= 1.01x zip's ({size_ratio:.3f}x): {'met' if met else 'NOT met'}")
PY
done
