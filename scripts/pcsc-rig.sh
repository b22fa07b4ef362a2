# pcsc-rig.sh — sourced by the demo and the bench scripts: a private pcscd with vpcd readers
# and tamga-vcard cards, every process recorded in the caller's PIDS array so its EXIT trap
# stops exactly those. (The Swift tests have the same rig in Tests/TamgaTestSupport/PCSCRig.)
#
#   PIDS=(); trap '...kill "${PIDS[@]}"...' EXIT
#   pcsc_rig_start DIR READER_NAME... # one vpcd reader (2 slots) per name; exports
#                                     # PCSCLITE_CSOCK_NAME; sets PCSC_RIG_PORT (first slot
#                                     # of reader N is PCSC_RIG_PORT + 2N)
#   pcsc_rig_insert VCARD PORT PROFILE [ARGS...]   # a virtual card into the slot on PORT

pcsc_rig_start() {
  local dir=$1
  shift
  local repo
  repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  mkdir -p "$dir/conf"
  PCSC_RIG_PORT=$((42000 + $$ % 500 * 16))
  local index=0 port
  for name in "$@"; do
    # One copy of the driver per reader: its slot table is static (docs/design/smartcard.md §5).
    cp "$(readlink -f /usr/lib/pcsc/drivers/serial/libifdvpcd.so)" "$dir/vpcd$index.so"
    port=$((PCSC_RIG_PORT + index * 2))
    printf 'FRIENDLYNAME "%s"\nDEVICENAME   /dev/null:0x%x\nLIBPATH      %s\nCHANNELID    0x%x\n' \
      "$name" "$port" "$dir/vpcd$index.so" "$port" > "$dir/conf/reader$index"
    index=$((index + 1))
  done
  /usr/bin/python3 "$repo/scripts/pcscd-launch.py" "$dir/pcscd.comm" -- /usr/sbin/pcscd -f -c "$dir/conf" > "$dir/pcscd.log" 2>&1 &
  PIDS+=($!)
  export PCSCLITE_CSOCK_NAME="$dir/pcscd.comm"
  for _ in $(seq 50); do [ -S "$PCSCLITE_CSOCK_NAME" ] && break; sleep 0.1; done
  sleep 0.5
}

pcsc_rig_insert() {
  local vcard=$1 port=$2 profile=$3
  shift 3
  "$vcard" --port "$port" --profile "$profile" "$@" > /dev/null 2>&1 &
  PIDS+=($!)
}
