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
# namespace of its own device (ftl.plp_ms 0 and 100), runs
# guest_powercut.sh in the initiator VM (kernel 6.1 or 6.12) and cuts the
# power of the namespace the guest asks for (its console's "GUEST-PC ask:
# cut NQN N"); then stops bloxd with SIGTERM by its PID: it must exit 0.
# Exit status: 0 passed, 1 failed, 77 (ctest SKIP) when not root or the
# harness is missing.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BLOXD=${1:?usage: run_powercut.sh BLOXD BLOXCTL [6.1|6.12]}
BLOXCTL=${2:?usage: run_powercut.sh BLOXD BLOXCTL [6.1|6.12]}
SERIES=${3:-6.1}
NQN=nqn.2026-12.io.blox:pc
VM=${BLOX_INITIATOR_VM:-$(git -C "$HERE" rev-parse --show-toplevel 2>/dev/null)/../shared/initiator-vm}
[[ -d $VM ]] && VM=$VM/run-in-vm.sh
say() { printf '[interop_powercut_%s] %s\n' "${SERIES//./_}" "$*"; }
if [[ $(id -u) != 0 || ! -x $VM ]]; then
	say "SKIP: needs root and $VM"
	exit 77
fi
port=${BLOX_INTEROP_PORT_BASE:-4421}
while ss -ltn "sport = :$port" | grep -q LISTEN; do port=$((port + 1)); done
work=$(mktemp -d /tmp/blox-interop-pc-XXXXXX)
sock=$work/bloxd.sock
ns() {
	echo "{ \"nqn\": \"$NQN-$1\", \"allow_any_host\": true, \"namespaces\": [ { \"nsid\": 1,
	  \"backend\": \"nand\", \"size\": \"256M\",
	  \"nand\": { \"channels\": 2, \"dies_per_channel\": 2, \"pages_per_block\": 96 },
	  \"ftl\": { \"plp_ms\": $2 } } ] }"
}
cat >"$work/bloxd.json" <<JSON
{ "listeners": [ { "address": "127.0.0.1", "port": $port } ],
  "subsystems": [ $(ns off 0), $(ns on 100) ] }
JSON
mkdir -p "$work/data"
"$BLOXD" --config "$work/bloxd.json" --data-dir "$work/data" --admin-socket "$sock" \
	--log-level 2 --reactors 2 >"$work/bloxd.log" 2>&1 &
pid=$!
vm= watch=
on_signal() {
	touch "$work/stop"
	[[ -z $vm ]] || kill -TERM "$vm" 2>/dev/null
	[[ -z $watch ]] || wait "$watch" 2>/dev/null
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	say "interrupted (kept $work)"
	exit 130
}
trap on_signal INT TERM
for _ in $(seq 50); do
	ss -ltn "sport = :$port" | grep -q LISTEN && break
	sleep 0.2
done
nqns=$NQN-off,$NQN-on
log=$work/console.log
: >"$log"
# The guest's requests, as they appear on its console: cut the power.
(
	seen=0
	while [[ ! -e $work/stop ]]; do
		mapfile -t asks < <(tr -d '\r' <"$log" | grep -a -o 'GUEST-PC ask: .*')
		for ((i = seen; i < ${#asks[@]}; i++)); do
			read -r _ _ what nqn cycle <<<"${asks[i]}"
			[[ $what == cut ]] || continue
			if "$BLOXCTL" -s "$sock" fault power-cut "$nqn" 1 >"$work/cut.out" 2>&1; then
				echo "$nqn cycle $cycle: $(tr -s ' \n' ' ' <"$work/cut.out")" >>"$work/cuts"
			else
				echo "bloxctl failed: cut $nqn $cycle: $(cat "$work/cut.out")" >>"$work/host.log"
			fi
		done
		seen=${#asks[@]}
		sleep 0.1
	done
) &
watch=$!
rc=0
INITIATOR_VM_KERNEL=$SERIES INITIATOR_VM_LOG=$log \
	INITIATOR_VM_ENV="PORT=$port NQNS=$nqns CYCLES=${BLOX_POWERCUT_CYCLES:-3}" \
	INITIATOR_VM_LOGLEVEL=${INITIATOR_VM_LOGLEVEL:-4} INITIATOR_VM_TIMEOUT=${INITIATOR_VM_TIMEOUT:-500} \
	"$VM" "$HERE/guest_powercut.sh" >/dev/null &
vm=$!
wait "$vm" || rc=1
vm=
grep -a 'GUEST-PC' "$log" | grep -av 'ask:' | sed "s/^/[interop_powercut_${SERIES//./_}] guest: /"
touch "$work/stop"
wait "$watch"
[[ -f $work/cuts ]] && sed "s/^/[interop_powercut_${SERIES//./_}] host: /" "$work/cuts"
if [[ -f $work/host.log ]]; then
	say "FAIL: a bloxctl request failed"
	cat "$work/host.log"
	rc=1
fi
kill -TERM "$pid"
wait "$pid"
st=$?
if [[ $st != 0 ]]; then
	say "FAIL: bloxd exited $st"
	tail -20 "$work/bloxd.log"
	rc=1
fi
[[ $rc == 0 ]] && rm -rf "$work" && say "PASS" || say "FAIL (kept $work)"
exit $rc
