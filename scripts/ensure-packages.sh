#!/usr/bin/env bash
# ensure-packages.sh PKG... — install the Debian packages that are missing (apt-get update
# first: a fresh machine has no package lists). Does nothing when all are installed.
set -euo pipefail
missing=()
for package in "$@"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "== installing Debian packages: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "ensure-packages: need root to install ${missing[*]} (or install them yourself)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
