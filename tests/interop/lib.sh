# shellcheck shell=bash disable=SC2034 # the variables are the run*.sh's
# SPDX-License-Identifier: BSD-3-Clause
# lib.sh - the harness the interop tests' run*.sh share; sourced, never run.
#
#   interop_init NAME SERIES    TEST=interop_NAME_6_1 (or _6_12), VM (the
#                               run-in-vm.sh of $BLOX_INITIATOR_VM, by default
#                               ../shared/initiator-vm beside the repository),
#                               work (a new temporary folder), log (its
#                               console.log), sock (its bloxd.sock), PORT_BASE
#                               ($BLOX_INTEROP_PORT_BASE, 4421); exits 77 (ctest
#                               SKIP) when not root or without the harness
#                               (1 with BLOX_INTEROP_REQUIRE=1 or CI=true);
#                               traps INT and TERM (interop_signal)
#   say TEXT...                 prints "[TEST] TEXT"
#   listening PORT              something listens on TCP PORT
#   free_port FIRST [NOT...]    the first port from FIRST up that nothing
#                               listens on and that is none of NOT
#   bloxd_start LOG ARGS...     "$BLOXD" ARGS in the background, its output to
#                               LOG; its PID in BLOXD_PID (and in PIDS/LOGS)
#   bloxd_wait PORT...          up to 10 s until every PORT listens; if one
#                               does not: FAIL, every bloxd stopped, exit 1
#   bloxd_up PORT...            bloxd_start of the one bloxd on $work/bloxd.json
#                               (data directory $work/data, admin socket $sock,
#                               --log-level 2 --reactors 2, log $work/bloxd.log)
#                               and bloxd_wait PORT...; its PID in pid
#   ask_watch TAG HANDLER       in the background until vm_run ends: HANDLER
#                               WORD... once for each "TAG ask: WORD..." line
#                               of the console log, in order
#   asked ARGS...               "$BLOXCTL" -s "$sock" ARGS (a handler's helper):
#                               its output noted in $work/done, or in
#                               $work/failed when it fails
#   vm_run TIMEOUT ENV SCRIPT [FILE...]
#                               SCRIPT in the VM (kernel SERIES, console to
#                               $log, INITIATOR_VM_ENV=ENV, INITIATOR_VM_TIMEOUT
#                               unless set); returns 1 when it failed
#   guest_lines PATTERN         the console's lines matching PATTERN but the asks
#   asks_check                  prints what the host did; 1 if a request failed
#   bloxd_stop PID LOG          SIGTERM by PID, wait; 1 (and LOG's tail) unless
#                               it exited 0
#   interop_end RC              PASS (work removed) or FAIL (work kept); exits RC
#
# A run*.sh sets BLOXD (and BLOXCTL when it asks for requests) before these.

interop_init() {
	TEST=interop_${1}_${2//./_}
	SERIES=$2
	local top req=${BLOX_INTEROP_REQUIRE:-}
	VM=${BLOX_INITIATOR_VM:-}
	if [[ -z $VM ]]; then
		top=$(git -C "$HERE" rev-parse --show-toplevel 2>/dev/null) || top=$(cd "$HERE/../.." && pwd)
		VM=$top/../shared/initiator-vm
	fi
	[[ -d $VM ]] && VM=$VM/run-in-vm.sh
	if [[ -z $req ]]; then
		case ${CI:-} in true | 1 | yes) req=1 ;; *) req=0 ;; esac
	fi
	if [[ ! -f $VM || ! -x $VM || $EUID -ne 0 ]]; then
		if [[ $req == 1 ]]; then
			say "FAIL: needs root and $VM (and BLOX_INTEROP_REQUIRE=1 / CI: not skipping)"
			exit 1
		fi
		say "SKIP: needs root and $VM"
		exit 77
	fi
	PORT_BASE=${BLOX_INTEROP_PORT_BASE:-4421}
	work=$(mktemp -d "${TMPDIR:-/tmp}/blox-$TEST-XXXXXX") || exit 1
	log=$work/console.log
	sock=$work/bloxd.sock
	: >"$log"
	PIDS=() LOGS=() VM_PID='' WATCH_PID=''
	trap interop_signal INT TERM
}

say() { printf '[%s] %s\n' "$TEST" "$*"; }

listening() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }

free_port() {
	local p=$1 n
	shift
	while :; do
		listening "$p" || {
			for n in "$@"; do [[ $p != "$n" ]] || continue 2; done
			echo "$p"
			return 0
		}
		p=$((p + 1))
	done
}

bloxd_start() {
	local out=$1
	shift
	"$BLOXD" "$@" </dev/null >"$out" 2>&1 &
	BLOXD_PID=$!
	PIDS+=("$BLOXD_PID")
	LOGS+=("$out")
}

bloxd_wait() {
	local p i
	for p in "$@"; do
		for ((i = 0; i < 50; i++)); do
			listening "$p" && continue 2
			sleep 0.2
		done
		say "FAIL: nothing listens on port $p (kept $work)"
		kill -TERM "${PIDS[@]}" 2>/dev/null
		wait "${PIDS[@]}"
		tail -20 "${LOGS[@]}"
		exit 1
	done
}

bloxd_up() {
	mkdir -p "$work/data"
	bloxd_start "$work/bloxd.log" --config "$work/bloxd.json" --data-dir "$work/data" \
		--admin-socket "$sock" --log-level 2 --reactors 2
	pid=$BLOXD_PID
	bloxd_wait "$@"
}

ask_watch() {
	local tag=$1 handler=$2
	(
		seen=0
		while [[ ! -e $work/stop ]]; do
			mapfile -t asks < <(tr -d '\r' <"$log" | grep -a -o "$tag ask: .*")
			for ((i = seen; i < ${#asks[@]}; i++)); do
				read -r -a words <<<"${asks[i]#"$tag ask: "}"
				"$handler" "${words[@]}"
			done
			seen=${#asks[@]}
			sleep 0.1
		done
	) &
	WATCH_PID=$!
}

asked() {
	if "$BLOXCTL" -s "$sock" "$@" >"$work/req.out" 2>&1; then
		echo "$*: $(tr -s ' \n' ' ' <"$work/req.out")" >>"$work/done"
	else
		echo "bloxctl $*: $(cat "$work/req.out")" >>"$work/failed"
	fi
}

vm_run() {
	local timeout=$1 env=$2 rc=0
	shift 2
	INITIATOR_VM_KERNEL=$SERIES INITIATOR_VM_LOG=$log INITIATOR_VM_ENV=$env \
		INITIATOR_VM_LOGLEVEL=${INITIATOR_VM_LOGLEVEL:-4} \
		INITIATOR_VM_TIMEOUT=${INITIATOR_VM_TIMEOUT:-$timeout} "$VM" "$@" </dev/null &
	VM_PID=$!
	wait "$VM_PID" || rc=1
	VM_PID=
	touch "$work/stop"
	[[ -z $WATCH_PID ]] || wait "$WATCH_PID"
	WATCH_PID=
	return $rc
}

guest_lines() {
	tr -d '\r' <"$log" | grep -a -- "$1" | grep -av 'ask:' | sed "s/^/[$TEST] guest: /"
}

asks_check() {
	[[ -f $work/done ]] && sed "s/^/[$TEST] host: /" "$work/done"
	[[ -f $work/failed ]] || return 0
	say "FAIL: a bloxctl request failed"
	cat "$work/failed"
	return 1
}

bloxd_stop() {
	local st
	kill -TERM "$1"
	wait "$1"
	st=$?
	[[ $st == 0 ]] && return 0
	say "FAIL: bloxd ($2) exited $st"
	tail -20 "$2"
	return 1
}

interop_end() {
	if [[ $1 == 0 ]]; then
		rm -rf "$work"
		say "PASS"
	else
		say "FAIL (kept $work)"
	fi
	exit "$1"
}

# shellcheck disable=SC2317 # the trap's
interop_signal() {
	touch "$work/stop"
	[[ -z $VM_PID ]] || kill -TERM "$VM_PID" 2>/dev/null
	[[ -z $WATCH_PID ]] || wait "$WATCH_PID" 2>/dev/null
	((${#PIDS[@]} == 0)) || kill -TERM "${PIDS[@]}" 2>/dev/null
	((${#PIDS[@]} == 0)) || wait "${PIDS[@]}" 2>/dev/null
	say "interrupted (kept $work)"
	exit 130
}
