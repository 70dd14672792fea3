#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run_discovery.sh - nvme connect-all from a Linux host that reaches the
# target through NAT: the guest of the initiator VM reaches the host's
# 127.0.0.1 only as 10.0.2.2, so the NVM listeners advertise that address
# (config key "advertise") for their discovery log entries.
#
# Usage: run_discovery.sh BLOXD [KERNEL_SERIES]
#
# Starts two bloxd on the host's 127.0.0.1 (free ports from 4421 up, their
# own data directories): node A with subsystem
# nqn.2026-12.io.blox:disc-interop-a (two 32 MiB ram namespaces) and a
# referral to node B's discovery service at 10.0.2.2, node B with
# nqn.2026-12.io.blox:disc-interop-b (one 32 MiB nand namespace); each has
# a discovery-only listener and an NVM listener advertising 10.0.2.2.
# guest_discovery.sh runs nvme discover and nvme connect-all against node A
# in the initiator VM (kernel 6.1 or 6.12) and writes and reads back every
# namespace it connected. Both bloxd are stopped with SIGTERM by their PIDs
# and must exit 0. Exit status: 0 passed, 1 failed, 77 (ctest SKIP) when
# not root or the harness is missing. The harness: lib.sh.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"
BLOXD=${1:?usage: run_discovery.sh BLOXD [6.1|6.12]}
NQN=nqn.2026-12.io.blox:disc-interop
GUEST_IP=10.0.2.2 # the host as the guest reaches it
interop_init discovery "${2:-6.1}"
pa=$(free_port "$PORT_BASE")
da=$(free_port $((pa + 1)))
pb=$(free_port $((da + 1)))
db=$(free_port $((pb + 1)))
cat >"$work/node-a.json" <<JSON
{ "listeners": [ { "address": "127.0.0.1", "port": $pa, "advertise": "$GUEST_IP" },
                 { "address": "127.0.0.1", "port": $da, "discovery_only": true } ],
  "referrals": [ { "address": "$GUEST_IP", "port": $db } ],
  "subsystems": [ { "nqn": "$NQN-a", "allow_any_host": true,
    "namespaces": [ { "nsid": 1, "backend": "ram", "size": "32M" },
                    { "nsid": 2, "backend": "ram", "size": "32M" } ] } ] }
JSON
cat >"$work/node-b.json" <<JSON
{ "listeners": [ { "address": "127.0.0.1", "port": $pb, "advertise": "$GUEST_IP" },
                 { "address": "127.0.0.1", "port": $db, "discovery_only": true } ],
  "subsystems": [ { "nqn": "$NQN-b", "allow_any_host": true,
    "namespaces": [ { "nsid": 1, "backend": "nand", "size": "32M",
      "nand": { "channels": 2, "dies_per_channel": 2, "pages_per_block": 96 } } ] } ] }
JSON
mkdir -p "$work/data-a" "$work/data-b"
# --referral-probe-ms 0: the referral's 10.0.2.2 is node B as the guest
# reaches it, which node A on the host cannot reach.
bloxd_start "$work/bloxd-a.log" --config "$work/node-a.json" --data-dir "$work/data-a" \
	--admin-socket "$work/a.sock" --log-level 2 --reactors 2 --referral-probe-ms 0
pida=$BLOXD_PID
bloxd_start "$work/bloxd-b.log" --config "$work/node-b.json" --data-dir "$work/data-b" \
	--admin-socket "$work/b.sock" --log-level 2
pidb=$BLOXD_PID
bloxd_wait "$pa" "$da" "$pb" "$db"
rc=0
vm_run 400 "PA=$pa DA=$da PB=$pb DB=$db NQN=$NQN" "$HERE/guest_discovery.sh" >/dev/null || rc=1
guest_lines 'GUEST-DISC\|traddr\|subnqn\|subtype\|^nvme[0-9]'
bloxd_stop "$pida" "$work/bloxd-a.log" || rc=1
bloxd_stop "$pidb" "$work/bloxd-b.log" || rc=1
interop_end $rc
