#!/usr/bin/env bash
# test-deb.sh — the Debian package as a user gets it: make deb (the release build), lintian
# (no error and no warning: the tags it may say are information only), dpkg -i into this machine,
# the installed tamga runs (--version; man -w finds its page; readers without pcscd gives the
# clear error and exit 10), then dpkg --purge leaves none of its files and no trace in dpkg.
# Needs root (dpkg -i). A tamga package already installed is put back afterwards.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fail() { echo "test-deb: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "test-deb: skipped (dpkg -i needs root)"; exit 0; }
echo "== checking the Debian package (make deb, lintian, dpkg -i, dpkg --purge)"
if dpkg-query -W -f='${Status}' tamga 2>/dev/null | grep -q 'install ok installed'; then
  fail "a tamga package is installed on this machine already; remove it first (dpkg --purge tamga)"
fi
DEB=$(make -s -C "$REPO" deb | tail -1)
[ -f "$DEB" ] || fail "make deb did not say where the package is ($DEB)"
case "$(basename "$DEB")" in tamga_*_amd64.deb|tamga_*_arm64.deb) ;; *) fail "unexpected name $(basename "$DEB")" ;; esac
LINTIAN=$(mktemp)
trap 'rm -f "$LINTIAN"; dpkg --purge tamga > /dev/null 2>&1 || true' EXIT
lintian --fail-on error,warning --display-info "$DEB" > "$LINTIAN" 2>&1 || { cat "$LINTIAN"; fail "lintian found errors or warnings"; }
! grep -E '^(E|W):' "$LINTIAN" || fail "lintian: errors or warnings"
infos=$(grep -c '^I:' "$LINTIAN" || true)
# What the package must hold.
contents=$(dpkg-deb -c "$DEB")
for file in ./usr/bin/tamga ./usr/share/man/man1/tamga.1.gz ./usr/lib/udev/rules.d/60-tamga-tokens.rules \
            ./usr/lib/systemd/system/tamga-cosigner.service ./usr/lib/systemd/system/tamga-validation.service ./usr/share/doc/tamga/copyright ./usr/share/doc/tamga/changelog.gz \
            ./usr/share/bash-completion/completions/tamga ./usr/share/zsh/vendor-completions/_tamga; do
  grep -q " $file\$" <<< "$contents" || fail "the package lacks $file"
done
dpkg-deb -f "$DEB" Depends | grep -q 'libpcsclite1' || fail "Depends does not name libpcsclite1: $(dpkg-deb -f "$DEB" Depends)"
# Loaded only when the co-signer needs them (dlopen), so dpkg-shlibdeps cannot see them.
for package in libpq5 libmicrohttpd12; do
  dpkg-deb -f "$DEB" Depends | grep -q "$package (>= " || fail "Depends does not name $package with a version: $(dpkg-deb -f "$DEB" Depends)"
done
dpkg -i "$DEB" > /dev/null || fail "dpkg -i failed"
/usr/bin/tamga --version | grep -q '^tamga ' || fail "the installed tamga does not run"
# libpq is loaded only when the co-signer needs it: the installed one finds it (Depends) and
# gets as far as connecting.
pq=$(/usr/bin/tamga cosigner migrate --db "postgresql:///tamga?host=/nonexistent-tamga-socket" 2>&1 || true)
grep -q 'cannot connect to PostgreSQL' <<< "$pq" || fail "the installed co-signer did not reach libpq: $pq"
[ "$(man -w tamga)" = /usr/share/man/man1/tamga.1.gz ] || fail "man -w tamga: $(man -w tamga 2>&1)"
[ ! -e /etc/systemd/system/multi-user.target.wants/tamga-cosigner.service ] || fail "the package enabled the co-signer's unit"
[ ! -e /etc/systemd/system/multi-user.target.wants/tamga-validation.service ] || fail "the package enabled the validation service's unit"
if ! pgrep -x pcscd > /dev/null; then
  set +e
  error=$(/usr/bin/tamga readers 2>&1 > /dev/null); status=$?
  set -e
  [ "$status" -eq 10 ] || fail "tamga readers without pcscd exited $status (expected 10): $error"
  grep -q 'pcscd' <<< "$error" || fail "tamga readers without pcscd did not say so: $error"
fi
files=$(dpkg -L tamga | while read -r path; do if [ -f "$path" ]; then echo "$path"; fi; done)
dpkg --purge tamga > /dev/null || fail "dpkg --purge failed"
left=$(for path in $files; do if [ -e "$path" ]; then echo "$path"; fi; done)
[ -z "$left" ] || fail "dpkg --purge left: $left"
[ ! -e /usr/share/doc/tamga ] || fail "dpkg --purge left /usr/share/doc/tamga"
! dpkg-query -W tamga > /dev/null 2>&1 || fail "dpkg still knows tamga after --purge"
echo "package check: $(basename "$DEB"), $(du -k "$DEB" | cut -f1) kB, lintian clean ($infos information tags), installed, ran, purged without a trace"
