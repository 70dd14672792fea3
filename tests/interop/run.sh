#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run.sh - interop test of bloxd with a real Linux NVMe/TCP initiator.
#
# Usage: run.sh [BLOXD [KERNEL_SERIES]]
#   BLOXD          the bloxd binary (default: $BLOXD)
#   KERNEL_SERIES  initiator kernel: 6.1 or 6.12 (default: $INITIATOR_VM_KERNEL
#                  or 6.1)
#
# Starts bloxd on the host's 127.0.0.1 with a generated config (subsystem
# nqn.2026-12.io.blox:interop, one 1 GiB "nand" namespace (a channel vSSD on an
# emulated 8-channel device; a second subsystem has two software vSSDs) of 4096-byte
# blocks: the FTL on emulated flash, kept in a file store in a temporary
# --data-dir; an NVM listener and a discovery-only listener), then runs
# guest.sh inside a QEMU VM (../shared/initiator-vm/run-in-vm.sh beside the
# repository), whose kernel initiator reaches bloxd as 10.0.2.2.  bloxd is
# then stopped with SIGTERM by its PID and must exit 0 (a clean stop writes
# the FTL checkpoint), started again on the same data dir and config, and a
# second VM runs guest.sh with MODE=verify: the ext4 files (sha256) and the
# raw fio regions written by the first run must all read back.  bloxd is
# stopped with SIGTERM again and must exit 0.  With the 6.12 kernel, bloxd
# is started a third time and a third VM runs guest.sh with MODE=auth: in-band
# authentication (DH-HMAC-CHAP) against nqn.2026-12.io.blox:interop-auth,
# which admits one host NQN with a host and a controller secret (nvme-cli's
# --dhchap-secret / --dhchap-ctrl-secret; refused without, with a wrong one;
# re-authentication through sysfs).  The 6.1 kernel is built without NVMe
# in-band authentication (CONFIG_NVME_AUTH is not set): that phase is skipped
# there, and said so.  Exit status: 0 when the runs passed, 1 if bloxd misbehaved or the guest failed, 77 (ctest SKIP)
# if not root or the harness is missing, unless skipping is refused (below).
#
# Environment (all optional):
#   BLOX_INITIATOR_VM        the initiator-vm folder (or its run-in-vm.sh);
#                            default $(git rev-parse --show-toplevel)/../shared/initiator-vm
#   BLOX_INTEROP_REQUIRE     1: a missing harness or non-root is a failure,
#                            not a skip (default 1 when CI=true, else 0)
#   BLOX_INTEROP_NVM_PORT / BLOX_INTEROP_DISC_PORT   preferred ports (4420 /
#                            8009); a busy one is replaced by a free port
#   BLOX_INTEROP_LOG_LEVEL   bloxd --log-level (2)
#   BLOX_INTEROP_REACTORS    bloxd --reactors (2, whatever the CPU count)
#   BLOX_INTEROP_GUEST_ENV   more NAME=VALUE pairs for guest.sh
#   BLOX_INTEROP_KEEP        1: keep the work folder (config, logs) on success
#   BLOX_INTEROP_AUTH_ONLY   1: only the in-band authentication phase (6.12)
#   INITIATOR_VM_TIMEOUT     timeout of each VM run in seconds (default here 500)
#   INITIATOR_VM_LOGLEVEL    guest console log level (default here 4; 7 shows
#                            the kernel's nvme messages live)
#   other INITIATOR_VM_* settings (PCAP, QUIET, CACHE, ...) are passed on.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BLOXD=${1:-${BLOXD:-}}
SERIES=${2:-${INITIATOR_VM_KERNEL:-6.1}}
NQN=nqn.2026-12.io.blox:interop
NS_SIZE=1073741824
# A second subsystem with two software vSSDs sharing a pool of dies (one Endurance Group).
POOL_NQN=nqn.2026-12.io.blox:interop-pool
NS_BLOCK=4096
# In-band authentication (6.12): one host with nvme gen-dhchap-key's secrets
# (-m 1 for the host, -m 2 for the controller; -m 0 the wrong one).
AUTH_NQN=nqn.2026-12.io.blox:interop-auth
AUTH_HOSTID=b10c0a07-0000-4000-8000-000000000001
AUTH_HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:$AUTH_HOSTID
AUTH_KEY='DHHC-1:01:VOVRdykyBHiWiC7rWh+tawLtEMnWmG//33NTBSJOr5I1ETgX:'
AUTH_CTRL_KEY='DHHC-1:02:Zw6Gpnn7z54YyHObwGwQKCBIR3aEfWhpLOOHyk14u0qmbeZ12BXfeF1Xoy0EDgoUrSCiwg==:'
AUTH_WRONG_KEY='DHHC-1:00:LUTixfk9pUMu5O4Qo4CwSF+ZzurjCBYtoyKtx0xdqNRN8ojY:'
NAME="interop_linux_${SERIES//./_}"
# CTest SIGKILLs a test at its TIMEOUT (1200 s), which no trap can catch: a
# watchdog stops bloxd by then in any case (two VM runs of at most
# VM_TIMEOUT each fit).
DEADLINE=${BLOX_INTEROP_DEADLINE:-1150}
VM_TIMEOUT=${INITIATOR_VM_TIMEOUT:-500}

. "$HERE/lib.sh"
die() {
	say "FAIL: $*"
	exit 1
}
TEST=$NAME
[[ $SERIES == 6.1 || $SERIES == 6.12 ]] || die "kernel series must be 6.1 or 6.12, not '$SERIES'"
# The harness (or exit 77), the work folder.
interop_init linux "$SERIES"
[[ -n $BLOXD ]] || die "usage: run.sh BLOXD [6.1|6.12]"
[[ -x $BLOXD ]] || die "bloxd binary '$BLOXD' is not an executable file"
BLOXD=$(cd "$(dirname "$BLOXD")" && pwd)/$(basename "$BLOXD")

# --- ports -------------------------------------------------------------------
# pick_port PREFERRED OTHER: PREFERRED if free, else a free port not OTHER.
pick_port() {
	local p=$1 i
	if ! listening "$p" && [[ $p != "$2" ]]; then
		echo "$p"
		return 0
	fi
	for i in $(seq 200); do
		p=$((20000 + RANDOM % 30000))
		[[ $p != "$2" ]] && ! listening "$p" && echo "$p" && return 0
	done
	return 1
}
NVM_PORT=$(pick_port "${BLOX_INTEROP_NVM_PORT:-4420}" 0) || die "no free TCP port"
DISC_PORT=$(pick_port "${BLOX_INTEROP_DISC_PORT:-8009}" "$NVM_PORT") || die "no free TCP port"
[[ $NVM_PORT == "${BLOX_INTEROP_NVM_PORT:-4420}" ]] || say "port ${BLOX_INTEROP_NVM_PORT:-4420} is busy; NVM port $NVM_PORT"
[[ $DISC_PORT == "${BLOX_INTEROP_DISC_PORT:-8009}" ]] || say "port ${BLOX_INTEROP_DISC_PORT:-8009} is busy; discovery port $DISC_PORT"

# --- work folder, config -------------------------------------------------------
DIR=$work
CFG=$DIR/bloxd.json
DATA=$DIR/data
BLOG=$DIR/bloxd.log
CLOG=$DIR/console.log
CLOG2=$DIR/console-verify.log
mkdir -p "$DATA" || die "mkdir $DATA failed"
cat >"$CFG" <<EOF
{
  "listeners": [
    { "address": "127.0.0.1", "port": $NVM_PORT },
    { "address": "127.0.0.1", "port": $DISC_PORT, "discovery_only": true }
  ],
  "devices": [ { "name": "nand0" } ],
  "subsystems": [
    {
      "nqn": "$NQN",
      "allow_any_host": true,
      "namespaces": [
        { "nsid": 1, "backend": "nand", "size": "1G", "block_size": $NS_BLOCK,
          "device": "nand0", "isolation": "channel:1" }
      ]
    },
    {
      "nqn": "$POOL_NQN",
      "allow_any_host": true,
      "namespaces": [
        { "nsid": 1, "backend": "nand", "size": "64M", "device": "nand0", "isolation": "software" },
        { "nsid": 2, "backend": "nand", "size": "64M", "device": "nand0", "isolation": "software" }
      ]
    },
    {
      "nqn": "$AUTH_NQN",
      "allow_any_host": false,
      "hosts": [ { "nqn": "$AUTH_HOSTNQN", "dhchap_key": "$AUTH_KEY",
                   "dhchap_ctrl_key": "$AUTH_CTRL_KEY" } ],
      "namespaces": [ { "nsid": 1, "backend": "ram", "size": "16M" } ]
    }
  ]
}
EOF

BLOXD_PID=
VM_PID=
WATCHDOG_PID=
T_START=$SECONDS
BLOXD_REAL=$(readlink -f "$BLOXD")
# stop_bloxd: SIGTERM by PID, wait up to 30 s (then SIGKILL); sets BLOXD_RC.
BLOXD_RC=
stop_bloxd() {
	local i
	if [[ -n $WATCHDOG_PID ]]; then
		kill "$WATCHDOG_PID" 2>/dev/null
		wait "$WATCHDOG_PID" 2>/dev/null
		WATCHDOG_PID=
	fi
	[[ -n $BLOXD_PID ]] || return 0
	if kill -0 "$BLOXD_PID" 2>/dev/null; then
		kill -TERM "$BLOXD_PID" 2>/dev/null
		for ((i = 0; i < 300; i++)); do
			kill -0 "$BLOXD_PID" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$BLOXD_PID" 2>/dev/null; then
			say "bloxd (pid $BLOXD_PID) still running 30 s after SIGTERM; SIGKILL"
			kill -KILL "$BLOXD_PID" 2>/dev/null
		fi
	fi
	wait "$BLOXD_PID" 2>/dev/null
	BLOXD_RC=$?
	BLOXD_PID=
}
# shellcheck disable=SC2317 # invoked by the trap
on_signal() {
	say "interrupted; stopping the VM and bloxd"
	[[ -z $VM_PID ]] || kill -TERM "$VM_PID" 2>/dev/null
	[[ -z $VM_PID ]] || wait "$VM_PID" 2>/dev/null
	stop_bloxd
	say "work folder kept: $DIR"
	exit 130
}
trap on_signal INT TERM
trap 'stop_bloxd' EXIT

fail_log() {
	say "FAIL: $*"
	say "---- bloxd log ($BLOG), last 150 lines ----"
	tail -n 150 "$BLOG"
	say "---- end of bloxd log; work folder kept: $DIR"
}

# start_bloxd WHAT: start bloxd on $CFG and $DATA (log appended to $BLOG)
# with a watchdog, and wait until both ports listen; exits 1 on failure.
start_bloxd() {
	local what=$1 t0=$SECONDS ready=0 i left
	echo "==== run.sh: $what ====" >>"$BLOG"
	say "$what: bloxd $BLOXD -c $CFG --data-dir $DATA --reactors ${BLOX_INTEROP_REACTORS:-2} (NVM 127.0.0.1:$NVM_PORT, discovery 127.0.0.1:$DISC_PORT); log $BLOG"
	# --reactors 2 whatever the CPU count: the guest's two I/O queues land
	# on reactors 1 and 0 (qid % 2).
	"$BLOXD" -c "$CFG" --data-dir "$DATA" --log-level "${BLOX_INTEROP_LOG_LEVEL:-2}" \
		--reactors "${BLOX_INTEROP_REACTORS:-2}" </dev/null >>"$BLOG" 2>&1 &
	BLOXD_PID=$!
	# Watchdog (survives a SIGKILL of this script): SIGTERM bloxd at the
	# deadline, if that PID is still this bloxd.
	left=$((DEADLINE - (SECONDS - T_START)))
	((left > 0)) || left=1
	(
		trap - EXIT INT
		sleep "$left" &
		s=$!
		trap 'kill "$s" 2>/dev/null; exit 0' TERM
		wait "$s"
		[[ $(readlink "/proc/$BLOXD_PID/exe" 2>/dev/null) == "$BLOXD_REAL" ]] && kill -TERM "$BLOXD_PID"
	) </dev/null >/dev/null 2>&1 &
	WATCHDOG_PID=$!
	for ((i = 0; i < 300; i++)); do
		if ! kill -0 "$BLOXD_PID" 2>/dev/null; then
			wait "$BLOXD_PID"
			BLOXD_RC=$?
			BLOXD_PID=
			fail_log "$what: bloxd exited (status $BLOXD_RC) before listening"
			exit 1
		fi
		listening "$NVM_PORT" && listening "$DISC_PORT" && ready=1 && break
		sleep 0.1
	done
	if ((!ready)); then
		stop_bloxd
		fail_log "$what: bloxd not listening on ports $NVM_PORT and $DISC_PORT after 30 s"
		exit 1
	fi
	say "$what: bloxd (pid $BLOXD_PID) listening after $((SECONDS - t0))s"
	grep -a 'nand:' "$BLOG" | tail -n 1 | sed "s/^/[$NAME] /"
}

# run_vm MODE LOG: guest.sh in the VM with MODE (full or verify); sets
# VM_RC and VM_SECS.
GUEST_ENV="TARGET_NQN=$NQN POOL_NQN=$POOL_NQN NVM_PORT=$NVM_PORT DISC_PORT=$DISC_PORT EXPECT_SIZE=$NS_SIZE"
GUEST_ENV+=" EXPECT_BLOCK_SIZE=$NS_BLOCK EXPECT_TRSVCID=$NVM_PORT NR_IO_QUEUES=2 ${BLOX_INTEROP_GUEST_ENV:-}"
#
# The guest kernel runs under TCG (no KVM); once in a while 6.12 panics while
# it boots (an int3 Oops from live code patching on a second vCPU), before
# init has run anything.  Such a boot never reached guest.sh, so nothing of
# the test has happened yet: it is booted again, at most twice, and said so.
# A panic after guest.sh started is a failure like any other.
run_vm() {
	local mode=$1 log=$2 t1=$SECONDS boot
	for boot in 1 2 3; do
		say "run-in-vm.sh guest.sh MODE=$mode: kernel $SERIES, VM timeout ${VM_TIMEOUT}s, console log $log"
		INITIATOR_VM_KERNEL=$SERIES INITIATOR_VM_KERNEL_PKG='' INITIATOR_VM_LOGLEVEL=${INITIATOR_VM_LOGLEVEL:-4} \
			INITIATOR_VM_TIMEOUT=$VM_TIMEOUT INITIATOR_VM_LOG=$log INITIATOR_VM_HOSTFWD='' \
			INITIATOR_VM_ENV="MODE=$mode $GUEST_ENV" "$VM" "$HERE/guest.sh" "$HERE/guest_resv.sh" "$HERE/guest_plm.sh" "$HERE/guest_auth.sh" </dev/null &
		VM_PID=$!
		wait "$VM_PID"
		VM_RC=$?
		VM_PID=
		((VM_RC != 0 && VM_RC != 130)) || break
		grep -a -q 'Kernel panic' "$log" 2>/dev/null || break
		! grep -a -q 'guest script .* starting' "$log" 2>/dev/null || break
		[[ $boot == 3 ]] && break
		say "the guest kernel panicked while booting, before guest.sh ran (boot $boot):"
		grep -a -m 3 -E 'Oops|RIP:|Kernel panic' "$log" | sed "s/^/[$NAME]   /"
		cp "$log" "$log.boot$boot"
	done
	VM_SECS=$((SECONDS - t1))
}

# phase WHAT MODE LOG: run the VM, then SIGTERM bloxd; the problems found
# go to PROBLEMS, the guest's summary line to SUMMARY.
PROBLEMS=()
phase() {
	local what=$1 mode=$2 log=$3 alive=1
	run_vm "$mode" "$log"
	kill -0 "$BLOXD_PID" 2>/dev/null || alive=0
	stop_bloxd
	SUMMARY=$(grep -a -E '^interop: [0-9]+ passed, [0-9]+ failed' "$log" 2>/dev/null | tail -n1)
	case $VM_RC in
	0) ;;
	124) PROBLEMS+=("$what: the VM timed out after ${VM_TIMEOUT}s") ;;
	125) PROBLEMS+=("$what: the initiator-vm harness failed (exit 125)") ;;
	130) PROBLEMS+=("$what: the VM was interrupted") ;;
	*) PROBLEMS+=("$what: guest checks failed (exit $VM_RC): ${SUMMARY:-no summary line}") ;;
	esac
	((alive)) || PROBLEMS+=("$what: bloxd died during the run (status $BLOXD_RC)")
	((!alive)) || [[ $BLOXD_RC == 0 ]] || PROBLEMS+=("$what: bloxd exited with status $BLOXD_RC after SIGTERM, not 0")
	grep -a -E '^FAIL: ' "$log" 2>/dev/null | sed "s/^/[$NAME] $what: guest /"
	say "$what: VM ${VM_SECS}s, ${SUMMARY:-no summary}; bloxd exit status $BLOXD_RC after SIGTERM"
	[[ $VM_RC == 0 ]] && ((alive)) && [[ $BLOXD_RC == 0 ]]
}

# --- run 1: the full checks; run 2, after a clean restart: verify -----------------
# --- run 3 (6.12): in-band authentication ------------------------------------------
AUTH_ENV="AUTH_NQN=$AUTH_NQN AUTH_HOSTNQN=$AUTH_HOSTNQN AUTH_HOSTID=$AUTH_HOSTID"
AUTH_ENV+=" AUTH_KEY=$AUTH_KEY AUTH_CTRL_KEY=$AUTH_CTRL_KEY AUTH_WRONG_KEY=$AUTH_WRONG_KEY"
rc=0
done_what="run 1 and, after SIGTERM and a restart on the same data dir, run 2 (verify) passed"
if [[ ${BLOX_INTEROP_AUTH_ONLY:-0} != 1 ]]; then
	start_bloxd "start"
	if phase "run 1" full "$CLOG"; then
		start_bloxd "restart on the same data dir"
		phase "run 2 (verify after restart)" verify "$CLOG2"
	fi
	rc=$VM_RC
else
	done_what="(BLOX_INTEROP_AUTH_ONLY=1: runs 1 and 2 left out)"
fi
if [[ $SERIES == 6.1 ]]; then
	say "SKIP: in-band authentication (DH-HMAC-CHAP): the Debian 6.1 guest kernel is built without it (CONFIG_NVME_AUTH is not set); the 6.12 run checks it"
elif ((${#PROBLEMS[@]} == 0)); then
	start_bloxd "start for in-band authentication"
	GUEST_ENV_SAVED=$GUEST_ENV
	GUEST_ENV="$GUEST_ENV $AUTH_ENV"
	phase "run 3 (in-band authentication)" auth "$DIR/console-auth.log"
	GUEST_ENV=$GUEST_ENV_SAVED
	rc=$VM_RC
	done_what+="; run 3 (DH-HMAC-CHAP: refused without or with a wrong secret, unidirectional, re-authentication, bidirectional) passed"
fi
if ((${#PROBLEMS[@]} == 0)); then
	say "PASS: $done_what; bloxd exited 0 on SIGTERM each time; $((SECONDS - T_START))s"
	if [[ ${BLOX_INTEROP_KEEP:-0} == 1 ]]; then say "work folder kept: $DIR"; else rm -rf "$DIR"; fi
	exit 0
fi
msg=$(printf '%s; ' "${PROBLEMS[@]}")
fail_log "${msg}"
# Never let a failure look like a ctest skip (77).
((rc != 0 && rc != 77)) || rc=1
exit "$rc"
