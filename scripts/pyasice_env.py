"""Shared by scripts/pyasice-*.py: run under the pyasice venv (scripts/setup-pyasice.sh)."""
import os
import sys


def ensure_pyasice(script_path):
    """Re-exec `script_path` under the pyasice venv's python if pyasice is not importable here;
    exit 3 with a hint when there is no venv."""
    try:
        import pyasice  # noqa: F401
        return
    except ImportError:
        pass
    here = os.path.dirname(os.path.abspath(script_path))
    venv = os.environ.get("PYASICE_VENV") or os.path.join(here, "..", ".build", "pyasice-venv")
    py = os.path.join(venv, "bin", "python")
    if os.path.exists(py) and os.path.realpath(sys.prefix) != os.path.realpath(venv) \
            and not os.environ.get("_PYASICE_REEXEC"):
        os.environ["_PYASICE_REEXEC"] = "1"
        os.execv(py, [py, os.path.abspath(script_path)] + sys.argv[1:])
    sys.stderr.write("%s: cannot import pyasice; run scripts/setup-pyasice.sh "
                     "(venv: %s)\n" % (os.path.basename(script_path), venv))
    sys.exit(3)
