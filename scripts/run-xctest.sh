#!/usr/bin/env bash
# run-xctest.sh BINARY LOG [XCTEST ARGUMENTS...] — runs the XCTest binary with its output in
# LOG, under a watchdog, and exits with the binary's status.
#
# Why: a test that hangs (a deadlock, a wait on a service that never answers) would otherwise
# hold the whole run until CI's own limit kills it, with nothing said about which test it was
# or where it waited. The watchdog ends the run instead, and says both:
#   - a test still running after XCTEST_TEST_LIMIT seconds (default 600; the slowest test takes
#     about 35 s on 2 cores, so this is over ten times that on a loaded machine);
#   - a binary still alive XCTEST_EXIT_LIMIT seconds (default 60) after XCTest printed its total
#     (stuck at exit: a library's destructor waiting on a lock another thread holds).
# Before it kills the binary (and whatever the tests started, in its process group) it prints
# the test, the processes, and every thread's stack (gdb), to the terminal and to LOG.
# It exits 124 when it had to stop the run.
set -uo pipefail
BINARY=$1
LOG=$2
shift 2
TEST_LIMIT=${XCTEST_TEST_LIMIT:-600}
EXIT_LIMIT=${XCTEST_EXIT_LIMIT:-60}

# A session of its own: the tests' child processes (pcscd, haproxy, co-signers) share its
# process group, so one kill stops all that is left of them.
setsid "$BINARY" "$@" > "$LOG" 2>&1 &
PID=$!

stacks() {   # stacks PID FRAMES LINES: every thread's stack, FRAMES deep, at most LINES lines
  timeout 120 gdb -batch -nx -p "$1" -ex 'set pagination off' -ex "thread apply all bt $2" 2>&1 \
    | grep -E '^(Thread|#)' | cut -c1-220 | head -"$3"
}

diagnose() {   # diagnose WHY
  {
    echo
    echo "== watchdog: $1"
    echo "== processes of the test run (pid ppid elapsed state command)"
    ps -o pid=,ppid=,etime=,stat=,args= -g "$PID" 2>/dev/null | cut -c1-200
    echo "== the test binary's threads (gdb)"
    if command -v gdb > /dev/null; then
      stacks "$PID" 40 400
      # A program the tests ran and wait for (tamga, a co-signer) may be the one that is stuck.
      for child in $(ps -o pid=,etimes= -g "$PID" 2>/dev/null | awk -v self="$PID" '$1 != self && $2 >= 60 {print $1}' | head -3); do
        echo "== threads of $(ps -o args= -p "$child" 2>/dev/null | cut -c1-120) (pid $child)"
        stacks "$child" 25 120
      done
    else
      echo "(no gdb: apt-get install gdb for the stacks)"
    fi
  } | tee -a "$LOG"
}

stop_run() {
  kill -TERM -- -"$PID" 2>/dev/null
  for _ in 1 2 3 4 5; do kill -0 "$PID" 2>/dev/null || break; sleep 1; done
  kill -KILL -- -"$PID" 2>/dev/null
  wait "$PID" 2>/dev/null
}
trap 'stop_run; exit 130' INT TERM

current="" since=$(date +%s) finished_at=""
while kill -0 "$PID" 2>/dev/null; do
  sleep 5
  now=$(date +%s)
  # One read of the log per tick: its last test line, or the end of the outermost suite (every
  # suite prints an "Executed" line; only 'All tests' ending says the run is over).
  last=$(grep -E "^(Test Case '.*' (started|passed|failed|skipped)|Test Suite 'All tests' (passed|failed) at)" "$LOG" 2>/dev/null | tail -1)
  case "$last" in
    "Test Case "*" started at "*) name=${last#Test Case \'}; name=${name%%\'*} ;;
    *) name="" ;;
  esac
  case "$last" in "Test Suite 'All tests' "*) [ -n "$finished_at" ] || finished_at=$now ;; esac
  if [ "$name" != "$current" ]; then current=$name since=$now; fi
  if [ -n "$current" ] && [ $(( now - since )) -ge "$TEST_LIMIT" ]; then
    diagnose "$current has run for $(( now - since )) s (limit $TEST_LIMIT s): stopping the run"
    stop_run
    exit 124
  fi
  if [ -n "$finished_at" ] && [ $(( now - finished_at )) -ge "$EXIT_LIMIT" ]; then
    diagnose "every test ended, but the binary has not exited $(( now - finished_at )) s after its total: stopping it"
    stop_run
    exit 124
  fi
done
wait "$PID"
