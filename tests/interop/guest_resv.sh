#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# guest_resv.sh - NVMe reservations through nvme-cli's resv-register,
# resv-acquire, resv-report and resv-release, sourced by guest.sh (which
# defines step, pass, fail, check, expect, T and W) and run on a namespace
# of the pool subsystem (no filesystem on it). One host: this guest, with
# the host identifier its connect carried; conflicts between two hosts are
# the integration test's (tests/integration/test_reservations.c).

# resv_field FILE NAME: the first numeric value of "NAME" in nvme-cli's JSON.
resv_field() { grep -o "\"$2\" *: *[0-9]*" "$1" | head -n1 | sed 's/.*: *//'; }

# resv_report WHAT DEV: nvme resv-report --eds -o json into $W/resv.json.
resv_report() {
	if timeout "$T" nvme resv-report "$2" --eds -o json >"$W/resv.json" 2>&1; then
		cat "$W/resv.json"
		return 0
	fi
	cat "$W/resv.json"
	fail "$1: nvme resv-report --eds"
	return 1
}

resv_checks() {
	dev=$1
	step "reservations on $dev: register, acquire, report, release, unregister"
	check "resv-register key 0xa1" timeout "$T" nvme resv-register "$dev" --nrkey=0xa1 --rrega=0
	if resv_report "registered" "$dev"; then
		expect "resv-report regctl after register" "$(resv_field "$W/resv.json" regctl)" -eq 1
		expect "resv-report rtype after register" "$(resv_field "$W/resv.json" rtype)" -eq 0
		expect "resv-report rkey" "$(resv_field "$W/resv.json" rkey)" -eq 161
	fi
	# Refusals are the integration test's: the guest's kernel may log a failed
	# passthrough command, which finish() in guest.sh counts as a failure.
	check "resv-register replace 0xa1 -> 0xa2" timeout "$T" nvme resv-register "$dev" \
		--crkey=0xa1 --nrkey=0xa2 --rrega=2
	check "resv-acquire Write Exclusive" timeout "$T" nvme resv-acquire "$dev" --crkey=0xa2 \
		--rtype=1 --racqa=0
	if resv_report "acquired" "$dev"; then
		expect "resv-report rtype after acquire" "$(resv_field "$W/resv.json" rtype)" -eq 1
		expect "resv-report rcsts (holder)" "$(resv_field "$W/resv.json" rcsts)" -eq 1
		expect "resv-report rkey after replace" "$(resv_field "$W/resv.json" rkey)" -eq 162
	fi
	# The holder writes.
	check "write by the holder (dd, O_DIRECT)" timeout "$T" dd if=/dev/zero of="$dev" bs=4096 \
		count=8 oflag=direct
	check "resv-release" timeout "$T" nvme resv-release "$dev" --crkey=0xa2 --rtype=1 --rrela=0
	check "resv-acquire Exclusive Access - Registrants Only" timeout "$T" nvme resv-acquire \
		"$dev" --crkey=0xa2 --rtype=4 --racqa=0
	check "resv-release clear" timeout "$T" nvme resv-release "$dev" --crkey=0xa2 --rrela=1
	if resv_report "cleared" "$dev"; then
		expect "resv-report regctl after clear" "$(resv_field "$W/resv.json" regctl)" -eq 0
		expect "resv-report rtype after clear" "$(resv_field "$W/resv.json" rtype)" -eq 0
	fi
	check "resv-register again, then unregister" sh -c \
		"timeout $T nvme resv-register $dev --nrkey=0xb1 --rrega=0 &&
		 timeout $T nvme resv-register $dev --crkey=0xb1 --rrega=1"
	if resv_report "unregistered" "$dev"; then
		expect "resv-report regctl after unregister" "$(resv_field "$W/resv.json" regctl)" -eq 0
	fi
}
