#!/usr/bin/env bash
# ensure-packages.sh PKG... — install the Debian packages that are missing (apt-get update
# first: a fresh machine has no package lists). Does nothing when all are installed.
# Another apt or dpkg at work (unattended-upgrades on a fresh machine, say) is waited for, up
# to APT_LOCK_WAIT seconds (default 600), saying what it waits for; a failure says which
# packages were needed and how to install them by hand.
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
WAIT=${APT_LOCK_WAIT:-600}
failed() {
  echo "ensure-packages: $1" >&2
  echo "ensure-packages: these packages are needed: ${missing[*]}" >&2
  echo "ensure-packages: install them by hand (apt-get update && apt-get install ${missing[*]}) and run make again" >&2
  exit 1
}
# The lock files apt and dpkg hold while they work. `apt-get update` takes the lists lock, which
# apt's DPkg::Lock::Timeout does not wait for: this loop does, for all of them (and apt's own
# timeout covers the moment between the loop and apt taking the lock).
# APT_LOCKS (space-separated) replaces the list, for the tests.
read -r -a locks <<< "${APT_LOCKS:-/var/lib/apt/lists/lock /var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/cache/apt/archives/lock}"
held_lock() {   # prints the first lock file another process holds, with its PID
  local lock inode holder
  for lock in "${locks[@]}"; do
    [ -e "$lock" ] || continue
    # apt and dpkg take POSIX (fcntl) locks, which /proc/locks lists as MAJOR:MINOR:INODE (hex
    # device numbers, as the kernel's new_encode_dev splits them).
    local dev
    dev=$(stat -c %d "$lock")
    inode=$(printf '%02x:%02x:%s' $(( (dev >> 8) & 0xfff )) $(( (dev & 0xff) | ((dev >> 12) & 0xfff00) )) "$(stat -c %i "$lock")")
    holder=$(awk -v id="$inode" '$2 == "POSIX" && $6 == id { print $5; exit }' /proc/locks)
    if [ -n "$holder" ] && [ "$holder" != "$$" ]; then echo "$lock $holder"; return 0; fi
  done
  return 1
}
waited=0
while held=$(held_lock); do
  lock=${held% *}; holder=${held##* }
  if [ "$waited" -eq 0 ]; then
    echo "== waiting for another apt or dpkg to finish (process $holder, $(ps -o comm= -p "$holder" 2>/dev/null || echo gone), holds $lock), up to ${WAIT}s"
  fi
  [ "$waited" -lt "$WAIT" ] || failed "another apt or dpkg still holds $lock after ${WAIT}s"
  sleep 2
  waited=$((waited + 2))
done
apt-get -o DPkg::Lock::Timeout="$WAIT" update -qq || failed "apt-get update failed (see above)"
apt-get -o DPkg::Lock::Timeout="$WAIT" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
  || failed "apt-get install failed (see above)"
