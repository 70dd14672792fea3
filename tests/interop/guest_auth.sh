#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# guest_auth.sh: the MODE=auth run of guest.sh (in-band DH-HMAC-CHAP through nvme-cli),
# sourced by guest.sh before its first connection: it defines auth_run and its helpers
# on guest.sh's step/pass/fail/check and variables. Not run on its own.
# shellcheck disable=SC2154 # the variables are guest.sh's

# --- MODE=auth: DH-HMAC-CHAP ------------------------------------------------------
# refused WHAT ARGS...: nvme connect with ARGS must fail, the kernel saying
# why (PATTERN in $REFUSED_WHY).
refused() {
	nvme_connect "$@"
	if [ $rc -eq 0 ]; then
		fail "$what: nvme connect succeeded; it must be refused"
		timeout "$T" nvme disconnect -n "$NQN" >/dev/null 2>&1
		return 1
	fi
	if dmesg_since | grep -qE "$REFUSED_WHY"; then
		pass "$what: refused (kernel: $(dmesg_since | grep -oE "$REFUSED_WHY" | head -n1))"
	else
		fail "$what: refused, but the kernel did not say '$REFUSED_WHY'"
	fi
}
# io_check WHAT: 1 MiB of random data written to the namespace and read back.
io_check() {
	head -c 1048576 /dev/urandom >"$W/auth-w.bin"
	if dd if="$W/auth-w.bin" of="$DEV" bs=65536 oflag=direct 2>/dev/null &&
		dd if="$DEV" of="$W/auth-r.bin" bs=65536 count=16 iflag=direct 2>/dev/null &&
		cmp "$W/auth-w.bin" "$W/auth-r.bin"; then
		pass "$1: 1 MiB written and read back"
	else
		fail "$1: 1 MiB write and read-back on $DEV"
	fi
}
# authenticated WHAT PATTERN: the kernel logged PATTERN since the mark.
authenticated() {
	if dmesg_since | grep -qE "$2"; then
		pass "$1 (kernel: $(dmesg_since | grep -oE "$2" | tail -n1))"
	else
		fail "$1: the kernel did not log '$2'"
	fi
}
auth_run() {
	check "modprobe nvme-tcp" modprobe nvme-tcp || exit 1
	NQN=$AUTH_NQN
	H="--hostnqn=$AUTH_HOSTNQN --hostid=$AUTH_HOSTID"
	REFUSED_WHY='qid 0: no key'
	# shellcheck disable=SC2086
	refused "no secret" $H
	REFUSED_WHY='qid 0: authentication failed'
	# shellcheck disable=SC2086
	refused "wrong host secret" $H \
		--dhchap-secret="$AUTH_WRONG_KEY"
	# shellcheck disable=SC2086
	if connect "host secret (unidirectional)" $H --dhchap-secret="$AUTH_KEY"; then
		authenticated "host secret: admin queue authenticated" \
			'qid 0: authenticated with hash [a-z0-9()]+ dhgroup [a-z0-9]+'
		io_check "host secret"
		step "re-authenticate the live controller: write /sys/class/nvme/$CTRL/dhchap_secret"
		dmesg_mark
		if printf '%s' "$AUTH_KEY" >"/sys/class/nvme/$CTRL/dhchap_secret"; then
			sleep 2
			dmesg_since | sed 's/^/    kernel: /'
			authenticated "re-authentication" 're-authenticating controller'
			authenticated "re-authentication: admin queue authenticated again" \
				'qid 0: authenticated'
			if dmesg_since | grep -qE 'authentication failed|qid [0-9]+: error'; then
				fail "re-authentication: the kernel reports a failure"
			fi
			io_check "after re-authentication"
		else
			fail "re-authentication: writing dhchap_secret"
		fi
		disconnect "host secret"
	fi
	# shellcheck disable=SC2086
	if connect "host + controller secrets (bidirectional)" $H --dhchap-secret="$AUTH_KEY" \
		--dhchap-ctrl-secret="$AUTH_CTRL_KEY"; then
		authenticated "bidirectional: the controller authenticated" 'qid 0: controller authenticated'
		io_check "bidirectional"
		disconnect "bidirectional"
	fi
	REFUSED_WHY='controller authentication failed'
	# shellcheck disable=SC2086
	refused "wrong controller secret" $H \
		--dhchap-secret="$AUTH_KEY" --dhchap-ctrl-secret="$AUTH_WRONG_KEY"
	t_end=$(cut -d' ' -f1 /proc/uptime)
	echo "guest checks took $(awk -v a="$t_start" -v b="$t_end" 'BEGIN { printf "%.1f", b - a }')s"
	echo "interop: $passed passed, $failed failed"
	[ "$failed" -eq 0 ] && exit 0
	exit 1
}

step "MODE=$MODE, kernel $(uname -r); target $NQN at $ADDR: NVM port $NVM_PORT, discovery port $DISC_PORT"
[ "$MODE" != auth ] || auth_run
check "modprobe nvme-tcp" modprobe nvme-tcp || finish
discover "$DISC_PORT" || finish
[ "$NVM_PORT" = "$DISC_PORT" ] || discover "$NVM_PORT"

