#!/usr/bin/env python3
"""pcscd-launch.py SOCKET -- PCSCD ARGS... : runs a private pcscd on its own Unix socket.

pcscd 1.9 always binds /run/pcscd/pcscd.comm itself, but takes an already-listening socket
from systemd-style socket activation (LISTEN_FDS=1, LISTEN_PID, fd 3). This launcher makes
that socket at SOCKET and execs pcscd with it, so a test rig never touches the system's
pcscd; clients reach it with PCSCLITE_CSOCK_NAME=SOCKET. The PID stays the same through the
exec, so whoever started this process stops pcscd by that PID.
"""
import os, socket, sys

if len(sys.argv) < 4 or sys.argv[2] != "--":
    sys.stderr.write("usage: pcscd-launch.py SOCKET -- pcscd ARGS...\n")
    sys.exit(2)
path, command = sys.argv[1], sys.argv[3:]
if os.path.exists(path):
    os.unlink(path)
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(path)
os.chmod(path, 0o666)
listener.listen(64)
if listener.fileno() != 3:
    os.dup2(listener.fileno(), 3)
os.set_inheritable(3, True)
# Die with the process that started us (a test runner killed mid-test must not leave pcscd behind).
try:
    import ctypes, signal
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)   # PR_SET_PDEATHSIG
except OSError:
    pass
# A parent that spawned us from a thread with signals blocked (libdispatch worker threads block
# them all) or with SIGTERM ignored would pass that on to pcscd, which then ignores the SIGTERM
# that is meant to stop it. Start pcscd with a clean slate.
import signal as _signal
_signal.pthread_sigmask(_signal.SIG_SETMASK, [])
for _number in (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP):
    _signal.signal(_number, _signal.SIG_DFL)
os.environ["LISTEN_FDS"] = "1"
os.environ["LISTEN_PID"] = str(os.getpid())
os.execvp(command[0], command)
