#!/usr/bin/env bash
# setup-pyasice.sh — make a Python venv with pyasice for the cross-checks
# (scripts/pyasice-check.py, scripts/pyasice-sign.py).
#
#   scripts/setup-pyasice.sh            # venv at ${PYASICE_VENV:-<repo>/.build/pyasice-venv}
#   scripts/setup-pyasice.sh --force    # delete the venv and make it again
#
# The venv is made from /usr/bin/python3 with --system-site-packages so that Debian's
# python3-lxml / python3-cryptography / python3-asn1crypto / python3-oscrypto are used
# (no lxml build from source). pyasice is installed with --no-deps, plus the pure-Python
# packages it imports that Debian does not provide here (requests and its deps), all pinned.
# A second run is a no-op when `import pyasice` already works in the venv.
set -euo pipefail

usage() {
  cat >&2 <<'EOF'
usage: setup-pyasice.sh [--force]

Creates (or checks) the pyasice venv at ${PYASICE_VENV:-<repo>/.build/pyasice-venv}.
  --force   remove the venv first and build it again
Missing Debian packages (python3-venv python3-lxml python3-cryptography python3-asn1crypto
python3-oscrypto) are installed with apt-get when running as root.
EOF
  exit 2
}

FORCE=0
case "${1:-}" in
  "") ;;
  --force) FORCE=1; [ $# -eq 1 ] || usage ;;
  -h|--help) usage ;;
  *) echo "setup-pyasice.sh: unknown argument: $1" >&2; usage ;;
esac

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
VENV=${PYASICE_VENV:-$REPO_ROOT/.build/pyasice-venv}
SYS_PY=/usr/bin/python3

# Pinned versions. pyasice 1.2.0 imports requests at module level (ocsp.py, tsa.py), so
# requests and its dependencies must be importable even though we never go online.
PYASICE_VERSION=1.2.0
PIP_PACKAGES=(
  "pyasice==$PYASICE_VERSION"
  "requests==2.32.3"
  "urllib3==2.2.3"
  "idna==3.10"
  "charset-normalizer==3.4.0"
  "certifi==2024.8.30"
)
# oscrypto from PyPI, only used if the system one cannot be imported (see fix_oscrypto).
OSCRYPTO_VERSION=1.3.0

say() { echo "setup-pyasice.sh: $*"; }

# The check that decides whether anything needs doing.
venv_ok() {
  [ -x "$VENV/bin/python" ] || return 1
  "$VENV/bin/python" - "$PYASICE_VERSION" <<'EOF' >/dev/null 2>&1
import sys
import pyasice, lxml.etree, cryptography, asn1crypto, oscrypto.asymmetric, requests
assert pyasice.__version__ == sys.argv[1], pyasice.__version__
EOF
}

if [ "$FORCE" -eq 0 ] && venv_ok; then
  say "venv $VENV already works (pyasice $PYASICE_VERSION importable); nothing to do"
  exit 0
fi

# ---- Debian packages ---------------------------------------------------------
missing=()
"$SYS_PY" -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
"$SYS_PY" -c 'import lxml.etree' 2>/dev/null || missing+=(python3-lxml)
"$SYS_PY" -c 'import cryptography' 2>/dev/null || missing+=(python3-cryptography)
"$SYS_PY" -c 'import asn1crypto' 2>/dev/null || missing+=(python3-asn1crypto)
"$SYS_PY" -c 'import oscrypto' 2>/dev/null || missing+=(python3-oscrypto)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    say "installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "setup-pyasice.sh: missing Debian packages: ${missing[*]} (run: apt-get install ${missing[*]})" >&2
    exit 1
  fi
fi

# ---- venv ----------------------------------------------------------------
if [ "$FORCE" -eq 1 ] && [ -e "$VENV" ]; then
  say "removing $VENV (--force)"
  rm -rf "$VENV"
fi
if [ ! -x "$VENV/bin/python" ]; then
  say "creating venv $VENV ($($SYS_PY --version), --system-site-packages)"
  mkdir -p "$(dirname "$VENV")"
  "$SYS_PY" -m venv --system-site-packages "$VENV"
fi
PY="$VENV/bin/python"
PIP=("$PY" -m pip --disable-pip-version-check --no-input --quiet)

say "pip install --no-deps --only-binary :all: ${PIP_PACKAGES[*]}"
"${PIP[@]}" install --no-deps --only-binary :all: "${PIP_PACKAGES[@]}"

# ---- oscrypto: "Error detecting the version of libcrypto" ---------------------
# oscrypto 1.3.0 from PyPI parses the OpenSSL version with \d\.\d\.\d, which fails for
# "3.0.10" and later. Debian 12's python3-oscrypto (1.3.0-1+deb12u1) already carries the
# upstream fix. If the import fails anyway, put oscrypto into the venv and patch that copy
# with the upstream regex (\d+\.\d+\.\d+).
oscrypto_ok() { "$PY" -c 'import oscrypto.asymmetric' >/dev/null 2>&1; }
patch_oscrypto() {
  "$PY" - <<'EOF'
import os, sys, importlib.util
spec = importlib.util.find_spec("oscrypto")
base = os.path.join(os.path.dirname(spec.origin), "_openssl")
if not os.path.realpath(base).startswith(os.path.realpath(sys.prefix) + os.sep):
    sys.exit("oscrypto at %s is not inside the venv; not patching it" % base)
for name in ("_libcrypto_cffi.py", "_libcrypto_ctypes.py"):
    path = os.path.join(base, name)
    src = open(path, encoding="utf-8").read()
    new = src.replace(r"'\\b(\\d\\.\\d\\.\\d[a-z]*)\\b'", r"'\\b(\\d+\\.\\d+\\.\\d+[a-z]*)\\b'")
    new = new.replace(r"'(?<=LibreSSL )(\\d\\.\\d(\\.\\d)?)\\b'", r"'(?<=LibreSSL )(\\d+\\.\\d+(\\.\\d+)?)\\b'")
    if new != src:
        open(path, "w", encoding="utf-8").write(new)
        print("setup-pyasice.sh: patched the OpenSSL version regex in", path)
EOF
}
if ! oscrypto_ok; then
  err=$("$PY" -c 'import oscrypto.asymmetric' 2>&1 | tail -1 || true)
  say "import oscrypto.asymmetric fails: $err"
  if ! "$PY" -c 'import oscrypto,sys; sys.exit(0 if oscrypto.__file__.startswith(sys.prefix) else 1)' 2>/dev/null; then
    say "installing oscrypto==$OSCRYPTO_VERSION into the venv to patch it there"
    "${PIP[@]}" install --no-deps --ignore-installed --only-binary :all: "oscrypto==$OSCRYPTO_VERSION"
  fi
  patch_oscrypto
  oscrypto_ok || { echo "setup-pyasice.sh: oscrypto still does not import:" >&2; "$PY" -c 'import oscrypto.asymmetric' >&2 || true; exit 1; }
fi

if ! venv_ok; then
  echo "setup-pyasice.sh: the venv still does not import pyasice:" >&2
  "$PY" -c 'import pyasice' >&2 || true
  exit 1
fi
say "ok: $("$PY" - <<'EOF'
import pyasice, lxml.etree as e, cryptography, asn1crypto, oscrypto, requests
print("pyasice %s, lxml %s (libxml2 %s), cryptography %s, asn1crypto %s, oscrypto %s, requests %s" % (
    pyasice.__version__, e.__version__, ".".join(map(str, e.LIBXML_VERSION)), cryptography.__version__,
    asn1crypto.__version__, oscrypto.__version__, requests.__version__))
EOF
)"
say "python: $PY"
