#!/usr/bin/env bash
# test-install.sh — make install into a scratch DESTDIR (the debug build, already built by
# make test), check every file and the manual page (every command has its section; man(1)
# renders it when present), then make uninstall leaves nothing behind.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEST=$(mktemp -d)
trap 'rm -rf "$DEST"' EXIT
echo "== checking make install / make uninstall (DESTDIR=$DEST, PREFIX=/usr)"
make -s -C "$REPO" install DESTDIR="$DEST" PREFIX=/usr CONFIGURATION=debug > "$DEST.log" 2>&1 || { cat "$DEST.log"; rm -f "$DEST.log"; exit 1; }
rm -f "$DEST.log"
fail() { echo "test-install: $*" >&2; exit 1; }
for file in usr/bin/tamga lib/udev/rules.d/60-tamga-tokens.rules lib/systemd/system/tamga-cosigner.service lib/systemd/system/tamga-validation.service usr/share/man/man1/tamga.1 \
            usr/share/doc/tamga/cli.md usr/share/doc/tamga/cosigner-api.md usr/share/doc/tamga/siva.md usr/share/doc/tamga/udev.md usr/share/doc/tamga/README.md \
            usr/share/bash-completion/completions/tamga usr/share/zsh/vendor-completions/_tamga; do
  [ -f "$DEST/$file" ] || fail "missing $file"
done
[ "$(stat -c %a "$DEST/usr/bin/tamga")" = 755 ] || fail "tamga is not mode 0755"
[ "$(stat -c %a "$DEST/lib/udev/rules.d/60-tamga-tokens.rules")" = 644 ] || fail "the rules are not mode 0644"
for unit in tamga-cosigner tamga-validation; do
  [ "$(stat -c %a "$DEST/lib/systemd/system/$unit.service")" = 644 ] || fail "the $unit unit is not mode 0644"
  [ -e "$DEST/etc/systemd/system/multi-user.target.wants/$unit.service" ] && fail "make install enabled the $unit unit"
done
grep -q '^ExecStart=/usr/bin/tamga cosigner serve ' "$DEST/lib/systemd/system/tamga-cosigner.service" || fail "the co-signer unit does not start the installed tamga"
grep -q '^ExecStart=/usr/bin/tamga validation serve ' "$DEST/lib/systemd/system/tamga-validation.service" || fail "the validation unit does not start the installed tamga"
"$DEST/usr/bin/tamga" --version | grep -q '^tamga ' || fail "the installed binary does not run"
# The completion scripts: bash offers the commands of the installed tamga, zsh reads its own.
[ "$(bash -c 'source "$1"; COMP_WORDS=(tamga ver); COMP_CWORD=1; _tamga; echo "${COMPREPLY[*]}"' _ "$DEST/usr/share/bash-completion/completions/tamga")" = "verify" ] \
  || fail "the bash completion does not complete tamga ver"
head -1 "$DEST/usr/share/zsh/vendor-completions/_tamga" | grep -qx '#compdef tamga' || fail "the zsh completion has no #compdef line"
if command -v zsh > /dev/null; then zsh -n "$DEST/usr/share/zsh/vendor-completions/_tamga" || fail "the zsh completion does not parse"; fi
# Every command's help is in the page: one .SS per command the overview lists.
commands=$(grep -c '^\.SS "tamga ' "$DEST/usr/share/man/man1/tamga.1")
[ "$commands" -ge 24 ] || fail "the manual page has $commands command sections"
for command in "compare" "threshold enroll" "cosigner serve" "readers" "tokens" "card info" "verify"; do
  grep -q "^\.SS \"tamga $command\"" "$DEST/usr/share/man/man1/tamga.1" || fail "no section for tamga $command"
done
if command -v man > /dev/null; then
  MANWIDTH=100 man -l "$DEST/usr/share/man/man1/tamga.1" 2>&1 | grep -q "tamga compare" || fail "man cannot render the page"
fi
make -s -C "$REPO" uninstall DESTDIR="$DEST" PREFIX=/usr > /dev/null
left=$(find "$DEST" -type f | wc -l)
[ "$left" -eq 0 ] || { find "$DEST" -type f; fail "make uninstall left $left file(s)"; }
echo "install check: 10 files installed with the right modes, $commands command sections in tamga.1, uninstall removed all"
