#!/usr/bin/env python3
"""postgres-launch.py USER -- POSTGRES ARGS... : runs a test PostgreSQL server as USER.

PostgreSQL refuses to run as root, and `runuser` would stand between the test and the server
(a second PID to stop). This launcher drops to USER itself and execs the server, so the PID
the test started is the postmaster's, and the test stops it by that PID (SIGINT: fast shutdown).
"""
import os, pwd, signal, sys

if len(sys.argv) < 4 or sys.argv[2] != "--":
    sys.stderr.write("usage: postgres-launch.py USER -- postgres ARGS...\n")
    sys.exit(2)
user, command = pwd.getpwnam(sys.argv[1]), sys.argv[3:]
if os.getuid() == 0:
    os.setgroups([])
    os.setgid(user.pw_gid)
    os.setuid(user.pw_uid)
os.environ["HOME"] = user.pw_dir
os.environ["USER"] = os.environ["LOGNAME"] = user.pw_name
# Die with the process that started us (a test runner killed mid-test must not leave the server
# behind). Set after setuid: a change of user clears it.
try:
    import ctypes
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGINT)   # PR_SET_PDEATHSIG
except (OSError, ImportError):
    pass
# A parent that spawned us from a thread with signals blocked would pass that on to the server,
# which then ignores the signal meant to stop it. Start it with a clean slate.
signal.pthread_sigmask(signal.SIG_SETMASK, [])
for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT):
    signal.signal(number, signal.SIG_DFL)
os.execvp(command[0], command)
