#!/usr/bin/env bash
# test-all.sh SWIFT — what `make test` runs once the packages are in: the debug build, the
# checks of the independent checkers and of the test services, the install check, the unit
# and integration tests, every fuzz target for a few seconds, and the Debian package check;
# then one summary of all of it.
#
# The release build (for the package) and the fuzz targets' build (-sanitize=fuzzer,address)
# run while the tests run, at the lowest priority (nice 19): the tests spend most of their time
# waiting on services and processes (three quarters of a core of two, measured), so the builds
# take the idle core and not the tests' time. The tests run as their XCTest binary, not through
# `swift test`, which would hold the lock on .build for the whole run and make the release
# build wait.
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT=${1:-swift}
LOG=.build/test-logs
mkdir -p "$LOG"
START=$(date +%s)
declare -a SUMMARY=()
status=0
timed() {   # timed LABEL COMMAND...: runs it, notes how long it took and whether it passed
  local label=$1; shift
  local began=$(date +%s)
  if "$@"; then SUMMARY+=("$(printf '%-28s ok      %5ss' "$label" $(( $(date +%s) - began )))")
  else SUMMARY+=("$(printf '%-28s FAILED  %5ss' "$label" $(( $(date +%s) - began )))"); status=1; fi
}
summary() {
  echo
  echo "== summary"
  printf '%s\n' "${SUMMARY[@]}"
  [ -n "${TESTS_LINE:-}" ] && echo "tests: $TESTS_LINE"
  grep -h '^== watchdog: ' "$LOG/xctest.log" 2>/dev/null
  [ -n "${FUZZ_LINE:-}" ] && echo "$FUZZ_LINE"
  echo "total: $(( $(date +%s) - START ))s on $(nproc) cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1))"
  [ "$status" -eq 0 ] && echo "make test: passed" || echo "make test: FAILED (logs in $LOG)"
}
BACKGROUND=""
stop_background() { [ -n "$BACKGROUND" ] && kill -- -"$BACKGROUND" 2>/dev/null; true; }
trap stop_background EXIT

# A warning fails the build as an error would (with the same flags as every later build here, so
# nothing is compiled twice; a fresh clone compiles, and so shows, every file).
build_without_warnings() {
  "$SWIFT" build --build-tests 2>&1 | tee "$LOG/build.log"
  local built=${PIPESTATUS[0]}
  [ "$built" -eq 0 ] || return "$built"
  local warnings
  warnings=$(grep -E '(^|: )warning: ' "$LOG/build.log" | grep -v 'you may be able to install' | sort -u || true)
  [ -z "$warnings" ] || { printf 'make test: the build printed warnings, which count as errors here:\n%s\n' "$warnings" >&2; return 1; }
}
timed "build (debug, with tests)" build_without_warnings
# The style of .swift-format, enforced: `make format` rewrites the tree to it.
FORMATTED=(Sources Tests Plugins Fuzz/Sources Examples Package.swift Fuzz/Package.swift)
timed "swift-format lint --strict" "$SWIFT" format lint --strict --recursive --parallel "${FORMATTED[@]}"
[ "$status" -eq 0 ] || { summary; exit 1; }
echo "== checking the independent checkers and the test services themselves"
timed "checkers" scripts/test-crosscheck.sh
timed "test services" scripts/test-services-selftest.sh
timed "make install/uninstall" scripts/test-install.sh

echo "== release and fuzz builds in the background (nice 19; log: $LOG/background-builds.log)"
setsid bash -c "nice -n 19 make -s release && FUZZ_BUILD_ONLY=1 nice -n 19 scripts/fuzz.sh" > "$LOG/background-builds.log" 2>&1 &
BACKGROUND=$!

echo "== tests (XCTest; full output in $LOG/xctest.log)"
BIN=$("$SWIFT" build --show-bin-path)
began=$(date +%s)
# Under a watchdog (scripts/run-xctest.sh): a test that hangs ends the run with its name and
# every thread's stack, instead of holding it until CI's own limit.
scripts/run-xctest.sh "$BIN/tamgaPackageTests.xctest" "$LOG/xctest.log"
tests_status=$?
echo "== tests ended after $(( $(date +%s) - began )) s (exit $tests_status)"
# The failures, then XCTest's own total, here; the rest stays in the log.
grep -E ': error: |^Test Case .* failed' "$LOG/xctest.log" | head -100
TESTS_LINE=$(grep -E '^[[:space:]]*Executed [0-9]+ tests?' "$LOG/xctest.log" | tail -1 | sed 's/^[[:space:]]*//')
[ -n "$TESTS_LINE" ] || { tests_status=1; TESTS_LINE="no total: the test binary did not finish (see $LOG/xctest.log)"; tail -20 "$LOG/xctest.log"; }
SUMMARY+=("$(printf '%-28s %-7s %5ss' "tests" "$([ $tests_status -eq 0 ] && echo ok || echo FAILED)" $(( $(date +%s) - began )))")
[ "$tests_status" -eq 0 ] || status=1

began=$(date +%s)
# The builds had the whole test run to finish; if they are still going 20 minutes after it,
# something is stuck: say what, and stop them.
echo "== waiting for the release and fuzz builds"
for _ in $(seq 240); do kill -0 "$BACKGROUND" 2>/dev/null || break; sleep 5; done
if kill -0 "$BACKGROUND" 2>/dev/null; then
  echo "the background builds still run 20 minutes after the tests; their processes:"
  ps -o pid=,etime=,stat=,args= -g "$BACKGROUND" | cut -c1-200
  kill -- -"$BACKGROUND" 2>/dev/null
fi
wait "$BACKGROUND"; built=$?
BACKGROUND=""
SUMMARY+=("$(printf '%-28s %-7s %5ss' "release + fuzz builds (wait)" "$([ $built -eq 0 ] && echo ok || echo FAILED)" $(( $(date +%s) - began )))")
if [ "$built" -ne 0 ]; then status=1; tail -40 "$LOG/background-builds.log"; summary; exit 1; fi

echo "== fuzz targets, a few seconds each (make fuzz runs them longer)"
began=$(date +%s)
FUZZ_TIMEOUT=10 scripts/fuzz.sh 3 > "$LOG/fuzz.log" 2>&1; fuzzed=$?
sed -n '/^target /,$p' "$LOG/fuzz.log"
FUZZ_LINE=$(grep '^fuzz targets:' "$LOG/fuzz.log" | tail -1)
[ -n "$FUZZ_LINE" ] || FUZZ_LINE="fuzz targets: did not run (see $LOG/fuzz.log)"
SUMMARY+=("$(printf '%-28s %-7s %5ss' "fuzz targets" "$([ $fuzzed -eq 0 ] && echo ok || echo FAILED)" $(( $(date +%s) - began )))")
[ "$fuzzed" -eq 0 ] || { status=1; tail -60 "$LOG/fuzz.log"; }

timed "example packages" scripts/test-examples.sh "$SWIFT"
timed "Debian package" scripts/test-deb.sh
summary
exit "$status"
