#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# run_faults.sh BLOXD BLOXCTL [6.1|6.12] - faults on demand seen by a Linux
# host: starts BLOXD with one subsystem (a 128 MiB nand namespace) on a free
# port from 4421 in a temporary data directory, runs guest_faults.sh in the
# initiator VM (kernel 6.1 or 6.12) and does what it asks on its console
# ("GUEST-FL ask: read-unc LBA NLB", "clear", "latency US", "host-drop",
# "ka-ignore", "fabrics US") with BLOXCTL fault inject / clear. Needs root and ../shared/initiator-vm (exit 77 without).
# Exit 0 when the guest's checks passed, every bloxctl request succeeded and
# bloxd stopped cleanly. The harness: lib.sh.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
BLOXD=${1:?usage: run_faults.sh BLOXD BLOXCTL [6.1|6.12]}
BLOXCTL=${2:?usage: run_faults.sh BLOXD BLOXCTL [6.1|6.12]}
NQN=nqn.2026-12.io.blox:faults
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:5f0c1c64-8a3b-4d2e-9b57-1f6a2c3d4e5f
interop_init faults "${3:-6.1}"
port=$(free_port "$PORT_BASE")
cat >"$work/bloxd.json" <<JSON
{ "listeners": [ { "address": "127.0.0.1", "port": $port } ],
  "subsystems": [ { "nqn": "$NQN", "allow_any_host": true, "namespaces": [ { "nsid": 1,
    "backend": "nand", "size": "128M",
    "nand": { "channels": 2, "dies_per_channel": 2, "pages_per_block": 96 } } ] } ] }
JSON
bloxd_up "$port"
# What the guest asks for, done once each, in order.
# shellcheck disable=SC2317 # called by ask_watch
request() {
	case $1 in
	read-unc) asked fault inject read-unc "$NQN" 1 --lba "$2" --nlb "$3" ;;
	clear) asked fault clear --all ;;
	host-drop) asked fault inject host-drop "$NQN" --host "$HOSTNQN" ;;
	latency) asked fault inject latency "$NQN" 1 --op read --delay-us "$2" ;;
	ka-ignore) asked fault inject ka-ignore "$NQN" --host "$HOSTNQN" ;;
	fabrics) asked fault inject latency "$NQN" --op fabrics --host "$HOSTNQN" --delay-us "$2" ;;
	*) asked unknown-request "$1" ;;
	esac
}
ask_watch GUEST-FL request
rc=0
vm_run 400 "PORT=$port NQN=$NQN HOSTNQN=$HOSTNQN" "$HERE/guest_faults.sh" >/dev/null || rc=1
guest_lines 'GUEST-FL\|^[a-z_]*[[:space:]]*: '
asks_check || rc=1
bloxd_stop "$pid" "$work/bloxd.log" || rc=1
interop_end $rc
