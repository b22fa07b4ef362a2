#!/usr/bin/env bash
# setup-xmlsec13.sh — make a Python venv with python-xmlsec, whose wheel carries libxmlsec1 1.3
# (Debian 12's xmlsec1 is 1.2.37, which has no RSA-PSS; 1.3 verifies
# http://www.w3.org/2007/05/xmldsig-more#sha256-rsa-MGF1). Used by scripts/xmlsec13-check.py.
#
#   scripts/setup-xmlsec13.sh            # venv at ${XMLSEC13_VENV:-<repo>/.build/xmlsec13-venv}
#   scripts/setup-xmlsec13.sh --force    # delete the venv and make it again
#
# No --system-site-packages: python-xmlsec must run with the lxml wheel built on the same
# libxml2 as its own (Debian's python3-lxml is on another one, and the two refuse to mix).
# Both are pinned, binary wheels only. A second run is a no-op when the venv works.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
VENV=${XMLSEC13_VENV:-$REPO_ROOT/.build/xmlsec13-venv}
SYS_PY=/usr/bin/python3
PACKAGES=("xmlsec==1.3.17" "lxml==6.1.3")
say() { echo "setup-xmlsec13.sh: $*"; }

case "${1:-}" in
  "") ;;
  --force) rm -rf "$VENV" ;;
  *) echo "usage: setup-xmlsec13.sh [--force]" >&2; exit 2 ;;
esac

venv_ok() {
  [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import xmlsec, lxml.etree, sys; sys.exit(0 if xmlsec.get_libxmlsec_version() >= (1, 3, 0) else 1)' >/dev/null 2>&1
}
if venv_ok; then
  say "venv $VENV already works; nothing to do"
  exit 0
fi
"$SYS_PY" -c 'import venv, ensurepip' 2>/dev/null || { echo "setup-xmlsec13.sh: python3-venv is missing (apt-get install python3-venv)" >&2; exit 1; }
rm -rf "$VENV"
mkdir -p "$(dirname "$VENV")"
"$SYS_PY" -m venv "$VENV"
"$VENV/bin/python" -m pip --disable-pip-version-check --no-input --quiet install --only-binary :all: "${PACKAGES[@]}"
venv_ok || { echo "setup-xmlsec13.sh: the venv does not import xmlsec with libxmlsec1 1.3" >&2; exit 1; }
say "ok: $("$VENV/bin/python" -c 'import xmlsec, lxml.etree as e; print("python-xmlsec with libxmlsec1 %s, lxml %s (libxml2 %s)" % (".".join(map(str, xmlsec.get_libxmlsec_version())), e.__version__, ".".join(map(str, e.LIBXML_VERSION))))')"
