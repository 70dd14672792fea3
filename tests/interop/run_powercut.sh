#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run_powercut.sh - interop test of power cuts with a real Linux NVMe/TCP
# initiator: ext4 on a vSSD written by a workload that fsyncs, power cut mid-
# write from the host side (bloxctl fault power-cut), e2fsck clean and every
# fsynced file intact after, with power-loss protection off and on.
#
# Usage: run_powercut.sh BLOXD BLOXCTL [KERNEL_SERIES]
#
# Starts bloxd on the host's 127.0.0.1 (a free port from 4421 up) with two
# subsystems, nqn.2026-12.io.blox:pc-off and :pc-on, each a 256 MiB nand
# namespace of its own device (ftl.plp_ms 0 and 100), and :pc-zns, a 512
# MiB zns namespace of its own device (16 zones of 32 MiB, as run_zns.sh's),
# runs guest_powercut.sh in the initiator VM (kernel 6.1 or 6.12; blkzone
# from the host added to its image) and cuts the power of the namespace the
# guest asks for (its console's "GUEST-PC ask: cut NQN N"); then stops bloxd with SIGTERM by its PID: it must exit 0.
# PC_NQNS (default: both ext4 subsystems; empty: none) narrows the ext4
# part, to run the zoned cut alone.
# Exit status: 0 passed, 1 failed, 77 (ctest SKIP) when not root or the
# harness is missing. The harness: lib.sh.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
BLOXD=${1:?usage: run_powercut.sh BLOXD BLOXCTL [6.1|6.12]}
BLOXCTL=${2:?usage: run_powercut.sh BLOXD BLOXCTL [6.1|6.12]}
NQN=nqn.2026-12.io.blox:pc
interop_init powercut "${3:-6.1}"
port=$(free_port "$PORT_BASE")
ns() {
	echo "{ \"nqn\": \"$NQN-$1\", \"allow_any_host\": true, \"namespaces\": [ { \"nsid\": 1,
	  \"backend\": \"nand\", \"size\": \"256M\",
	  \"nand\": { \"channels\": 2, \"dies_per_channel\": 2, \"pages_per_block\": 96 },
	  \"ftl\": { \"plp_ms\": $2 } } ] }"
}
cat >"$work/bloxd.json" <<JSON
{ "listeners": [ { "address": "127.0.0.1", "port": $port } ],
  "subsystems": [ $(ns off 0), $(ns on 100),
    { "nqn": "$NQN-zns", "allow_any_host": true, "namespaces": [ { "nsid": 1,
      "backend": "zns", "size": "512M",
      "nand": { "channels": 4, "dies_per_channel": 2, "pages_per_block": 96 },
      "zns": { "max_open": 8 } } ] } ] }
JSON
bloxd_up "$port"
# The guest's requests, as they appear on its console: cut the power.
# shellcheck disable=SC2317 # called by ask_watch
request() { [[ $1 != cut ]] || asked fault power-cut "$2" 1; }
ask_watch GUEST-PC request
rc=0
INITIATOR_VM_EXTRA_BINS=$(command -v blkzone) \
	vm_run 500 "PORT=$port NQNS=${PC_NQNS-$NQN-off,$NQN-on} ZNQN=$NQN-zns CYCLES=${BLOX_POWERCUT_CYCLES:-3}" \
	"$HERE/guest_powercut.sh" >/dev/null || rc=1
guest_lines GUEST-PC
asks_check || rc=1
bloxd_stop "$pid" "$work/bloxd.log" || rc=1
interop_end $rc
