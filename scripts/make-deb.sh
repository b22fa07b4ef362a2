#!/usr/bin/env bash
# make-deb.sh BINARY [OUTDIR] — builds tamga_<version>_amd64.deb with dpkg-deb from a built tamga
# (the release build, whose Swift runtime is linked in: every library it needs then comes from a
# Debian package, which dpkg-shlibdeps turns into Depends). The package holds the stripped
# binary, the manual page made from the built-in help, the udev rules, the co-signer's systemd
# unit (installed, not enabled, as make install does), and the documents. Its maintainer scripts
# reload udev only when udev runs (not in a container or a chroot). Prints the .deb's path.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BINARY=${1:?usage: make-deb.sh BINARY [OUTDIR]}
OUT=${2:-$REPO/.build}
for tool in dpkg-deb dpkg-shlibdeps strip gzip; do
  command -v "$tool" > /dev/null || { echo "make-deb.sh: $tool is missing (apt-get install dpkg-dev binutils)" >&2; exit 1; }
done
VERSION=$("$BINARY" --version | sed -n '1s/^tamga \([0-9][0-9.]*\).*/\1/p')
[ -n "$VERSION" ] || { echo "make-deb.sh: $BINARY --version did not say a version" >&2; exit 1; }
ARCH=$(dpkg --print-architecture)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
ROOT=$WORK/root
DOC=$ROOT/usr/share/doc/tamga

install -D -m 0755 "$BINARY" "$ROOT/usr/bin/tamga"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$ROOT/usr/bin/tamga"
install -D -m 0644 "$REPO/udev/60-tamga-tokens.rules" "$ROOT/usr/lib/udev/rules.d/60-tamga-tokens.rules"
install -D -m 0644 "$REPO/systemd/tamga-cosigner.service" "$ROOT/usr/lib/systemd/system/tamga-cosigner.service"
install -D -m 0644 "$REPO/systemd/tamga-validation.service" "$ROOT/usr/lib/systemd/system/tamga-validation.service"
install -d -m 0755 "$ROOT/usr/share/man/man1" "$DOC"
"$BINARY" help --man | gzip -9n > "$ROOT/usr/share/man/man1/tamga.1.gz"
chmod 0644 "$ROOT/usr/share/man/man1/tamga.1.gz"
install -d -m 0755 "$ROOT/usr/share/bash-completion/completions" "$ROOT/usr/share/zsh/vendor-completions"
"$BINARY" help --completion bash > "$ROOT/usr/share/bash-completion/completions/tamga"
"$BINARY" help --completion zsh > "$ROOT/usr/share/zsh/vendor-completions/_tamga"
chmod 0644 "$ROOT/usr/share/bash-completion/completions/tamga" "$ROOT/usr/share/zsh/vendor-completions/_tamga"
for file in README.md docs/cli.md docs/cosigner-api.md docs/siva.md docs/threshold-pin.md docs/threshold-proofs.md; do
  install -m 0644 "$REPO/$file" "$DOC/$(basename "$file")"
done
install -m 0644 "$REPO/udev/README.md" "$DOC/udev.md"
# Debian policy 12.7: documents over 4 kB compressed.
find "$DOC" -name '*.md' -size +4k -exec gzip -9n {} +
# A native package: its changelog is the project's, one entry per version.
cat > "$WORK/changelog" <<EOF
tamga ($VERSION) unstable; urgency=medium

  * Built from the tamga source tree with make deb.

 -- tamga maintainers <maintainers@users.noreply.a-seed-c1f08e8a.example>  $(date -R -d @"${SOURCE_DATE_EPOCH:-$(git -C "$REPO" log -1 --format=%ct 2>/dev/null || date +%s)}")
EOF
gzip -9n -c "$WORK/changelog" > "$DOC/changelog.gz"
chmod 0644 "$DOC/changelog.gz"
cat > "$DOC/copyright" <<'EOF'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: tamga
Comment: Sign ASiC-E containers with smart cards, PKCS#11 tokens and split keys.

Files: *
Copyright: 2026 tamga maintainers
License: MIT
 Permission is hereby granted, free of charge, to any person obtaining a copy
 of this software and associated documentation files (the "Software"), to deal
 in the Software without restriction, including without limitation the rights
 to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
 copies of the Software, and to permit persons to whom the Software is
 furnished to do so, subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included in
 all copies or substantial portions of the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN
 THE SOFTWARE.
EOF
chmod 0644 "$DOC/copyright"
# Depends: from the libraries the binary links, via dpkg-shlibdeps (it reads debian/control).
mkdir -p "$WORK/src/debian"
printf 'Source: tamga\n\nPackage: tamga\nArchitecture: any\n' > "$WORK/src/debian/control"
DEPENDS=$(cd "$WORK/src" && dpkg-shlibdeps -O "$ROOT/usr/bin/tamga" 2> "$WORK/shlibdeps.log" | sed -n 's/^shlibs:Depends=//p') || {
  cat "$WORK/shlibdeps.log" >&2; exit 1; }
[ -n "$DEPENDS" ] || { echo "make-deb.sh: dpkg-shlibdeps found no dependencies" >&2; cat "$WORK/shlibdeps.log" >&2; exit 1; }
# libpq and libmicrohttpd (the co-signer), OpenSSL, libxml2, SQLite, p11-kit and ICU are loaded
# when a command first needs them (dlopen, so that other commands start without them:
# Sources/CDeferredLibraries, Sources/CICU), so the binary does not name them and
# dpkg-shlibdeps cannot see them: their dependencies come from the same shlibs files
# dpkg-shlibdeps reads ("libpq 5 libpq5 (>= 15.18)"). ICU's soname has its major version, the
# one of the headers tamga was built with.
ICU_MAJOR=$(sed -n 's/^#define U_ICU_VERSION_MAJOR_NUM \([0-9]*\).*/\1/p' /usr/include/unicode/uvernum.h)
[ -n "$ICU_MAJOR" ] || { echo "make-deb.sh: no ICU headers (apt-get install libicu-dev)" >&2; exit 1; }
for soname in libpq.so.5 libmicrohttpd.so.12 libssl.so.3 libcrypto.so.3 libxml2.so.2 libsqlite3.so.0 libp11-kit.so.0 "libicuuc.so.$ICU_MAJOR"; do
  owner=$(dpkg-query -S "*/$soname" 2>/dev/null | head -1 | cut -d: -f1,2)
  [ -n "$owner" ] || { echo "make-deb.sh: no installed package holds $soname" >&2; exit 1; }
  name=${soname%%.so.*}; major=${soname##*.so.}
  dependency=$(awk -v name="$name" -v major="$major" '$1 == name && $2 == major { $1 = ""; $2 = ""; sub(/^  /, ""); print; exit }' \
    "/var/lib/dpkg/info/$owner.shlibs" 2>/dev/null)
  [ -n "$dependency" ] || dependency=${owner%%:*}
  # libssl.so.3 and libcrypto.so.3 are one package: name it once.
  case ", $DEPENDS," in *", $dependency,"*) ;; *) DEPENDS="$DEPENDS, $dependency" ;; esac
done

install -d -m 0755 "$ROOT/DEBIAN"
cat > "$ROOT/DEBIAN/control" <<EOF
Package: tamga
Version: $VERSION
Architecture: $ARCH
Maintainer: tamga maintainers <maintainers@users.noreply.a-seed-c1f08e8a.example>
Installed-Size: $(du -sk --exclude=DEBIAN "$ROOT" | cut -f1)
Depends: $DEPENDS
Recommends: pcscd
Suggests: p11-kit-modules, opensc-pkcs11
Section: utils
Priority: optional
Description: sign ASiC-E containers with smart cards, tokens and split keys
 tamga builds, signs and verifies ASiC-E containers (ETSI EN 319 162, XAdES
 signatures, as the DigiDoc tools make them) with eID smart cards through
 pcscd, PKCS#11 tokens through p11-kit, and a 2-of-2 threshold ECDSA key
 shared with a co-signer server, which the same program also runs.
 .
 The package holds the command line tool and its manual page, udev rules that
 give the logged-in user access to USB readers and tokens, and a systemd unit
 for the co-signer (installed, not enabled).
EOF
# Maintainer scripts: udev is told about the new rules only when it runs (not in containers,
# chroots or image builds, where udevadm would fail).
cat > "$ROOT/DEBIAN/postinst" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = configure ] && [ -d /run/udev ] && command -v udevadm > /dev/null; then
    udevadm control --reload-rules || true
    udevadm trigger --subsystem-match=usb --action=change || true
fi
EOF
cat > "$ROOT/DEBIAN/postrm" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = remove ] && [ -d /run/udev ] && command -v udevadm > /dev/null; then
    udevadm control --reload-rules || true
fi
EOF
chmod 0755 "$ROOT/DEBIAN/postinst" "$ROOT/DEBIAN/postrm"
(cd "$ROOT" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) > "$ROOT/DEBIAN/md5sums"
chmod 0644 "$ROOT/DEBIAN/control" "$ROOT/DEBIAN/md5sums"
mkdir -p "$OUT"
DEB=$OUT/tamga_${VERSION}_$ARCH.deb
dpkg-deb --root-owner-group -Zxz -z6 --build "$ROOT" "$DEB" > /dev/null
echo "$DEB"
