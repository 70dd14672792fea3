#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# guest_plm.sh: Predictable Latency Mode on NVM Set 1 through nvme-cli, sourced by
# guest.sh (MODE=full) on its first connection: it uses guest.sh's step/pass/fail/check
# helpers and its CTRL, W and friends. Not run on its own.
# shellcheck disable=SC2154 # the variables are guest.sh's

# --- Predictable Latency Mode on NVM Set 1 ----------------------------------------
# feat_value FILE: the value nvme get-feature printed ("... Current value:0x00000001").
feat_value() { sed -n 's/^get-feature:.*value: *\(0x\)\{0,1\}\([0-9a-fA-F]*\).*/0x\2/p' "$1" | head -n1; }
# plm_cmd WHAT FILE ARGS...: nvme ARGS into FILE (shown); PASS/FAIL on its exit status.
plm_cmd() {
	what=$1
	out=$2
	shift 2
	step "$what: nvme $*"
	t0=$(cut -d' ' -f1 /proc/uptime)
	timeout "$T" nvme "$@" >"$out" 2>&1
	rc=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	cat "$out"
	echo "($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s)"
	if [ $rc -eq 0 ]; then
		pass "$what"
		return 0
	fi
	fail "$what (exit $rc)"
	return 1
}
# plm_log WHAT STATUS: nvme predictable-lat-log for set 1; its Status must be STATUS.
plm_log() {
	if plm_cmd "$1: nvme predictable-lat-log --nvmset-id=1" "$W/plm-log.txt" \
		predictable-lat-log "/dev/$CTRL" --nvmset-id=1; then
		expect "$1: predictable-lat-log Status" "$(logfield "$W/plm-log.txt" Status)" -eq "$2"
	fi
}
ctratt=$(num "$(idfield "$W/id-ctrl.txt" ctratt)")
if [ -n "$ctratt" ] && [ $((ctratt & 0x28)) -eq $((0x28)) ]; then
	pass "id-ctrl ctratt $(idfield "$W/id-ctrl.txt" ctratt): Predictable Latency Mode (0x20) and Read Recovery Levels (0x8)"
else
	fail "id-ctrl ctratt '$(idfield "$W/id-ctrl.txt" ctratt)' lacks Predictable Latency Mode (0x20) or Read Recovery Levels (0x8)"
fi
expect "id-ctrl rrls (levels 4 and 15)" "$(idfield "$W/id-ctrl.txt" rrls)" -eq $((0x8010))
oaes=$(num "$(idfield "$W/id-ctrl.txt" oaes)")
if [ -n "$oaes" ] && [ $((oaes & 0x1000)) -ne 0 ]; then
	pass "id-ctrl oaes $(idfield "$W/id-ctrl.txt" oaes): Predictable Latency Event Aggregate Log Change notices"
else
	fail "id-ctrl oaes '$(idfield "$W/id-ctrl.txt" oaes)' lacks the PLM event notices (0x1000)"
fi
if plm_cmd "get-feature 0x12 (Read Recovery Level) of set 1" "$W/rrl.txt" \
	get-feature "/dev/$CTRL" -f 0x12 --cdw11=1; then
	expect "Read Recovery Level of set 1 (the default)" "$(feat_value "$W/rrl.txt")" -eq 4
fi
plm_log "before" 0
# The Deterministic Threshold Configuration: 512 bytes, no warnings enabled.
dd if=/dev/zero of="$W/plm0.bin" bs=512 count=1 2>/dev/null
plm_cmd "set-feature 0x13: Predictable Latency Mode enabled on set 1" "$W/plm-set.txt" \
	set-feature "/dev/$CTRL" -f 0x13 -v 1 --cdw12=1 -l 512 -d "$W/plm0.bin"
if plm_cmd "get-feature 0x13 of set 1" "$W/plm-get.txt" get-feature "/dev/$CTRL" -f 0x13 --cdw11=1; then
	expect "get-feature 0x13: Predictable Latency Enable" "$(feat_value "$W/plm-get.txt")" -eq 1
fi
plm_log "enabled" 2
if [ -f "$W/plm-log.txt" ]; then
	L=$W/plm-log.txt
	expect "predictable-lat-log DTWIN Reads Typical" "$(logfield "$L" 'DTWIN Reads Typical')" -ge 1
	expect "predictable-lat-log DTWIN Writes Typical" "$(logfield "$L" 'DTWIN Writes Typical')" -ge 1
	expect "predictable-lat-log DTWIN Time Maximum (ms)" "$(logfield "$L" 'DTWIN Time Maximum')" -eq 10000
	expect "predictable-lat-log NDWIN Time Minimum Low (ms)" "$(logfield "$L" 'NDWIN Time Minimum Low')" -ge 1
	lo=$(num "$(logfield "$L" 'NDWIN Time Minimum Low')")
	expect "predictable-lat-log NDWIN Time Minimum High (ms)" "$(logfield "$L" 'NDWIN Time Minimum High')" -ge "${lo:-1}"
	expect "predictable-lat-log DTWIN Writes Estimate" "$(logfield "$L" 'DTWIN Writes Estimate')" -ge 1
fi
# DTWIN: held by the target until the NDWIN minimum has passed, then done.
plm_cmd "set-feature 0x14: set 1 to the deterministic window" "$W/plm-win.txt" \
	set-feature "/dev/$CTRL" -f 0x14 -v 1 --cdw12=1
plm_log "deterministic" 1
if plm_cmd "get-feature 0x14 of set 1" "$W/plm-getw.txt" get-feature "/dev/$CTRL" -f 0x14 --cdw11=1; then
	expect "get-feature 0x14: Window Select" "$(feat_value "$W/plm-getw.txt")" -eq 1
fi
step "set-feature 0x14 with a reserved Window Select (3): refused"
if timeout "$T" nvme set-feature "/dev/$CTRL" -f 0x14 -v 1 --cdw12=3 >"$W/plm-bad.txt" 2>&1; then
	cat "$W/plm-bad.txt"
	fail "set-feature 0x14 --cdw12=3 succeeded; Window Select 011b is reserved"
else
	cat "$W/plm-bad.txt"
	if grep -qi 'invalid field' "$W/plm-bad.txt"; then
		pass "set-feature 0x14 --cdw12=3 refused: Invalid Field in Command"
	else
		fail "set-feature 0x14 --cdw12=3 refused, but not with Invalid Field in Command"
	fi
fi
plm_cmd "set-feature 0x14: set 1 to the non-deterministic window" "$W/plm-win2.txt" \
	set-feature "/dev/$CTRL" -f 0x14 -v 1 --cdw12=2
plm_log "non-deterministic" 2
if plm_cmd "nvme pred-lat-event-agg-log (no events)" "$W/plm-agg.txt" pred-lat-event-agg-log "/dev/$CTRL"; then
	expect "pred-lat-event-agg-log entries" "$(logfield "$W/plm-agg.txt" 'Number of Entries Available')" -eq 0
fi
# A DTWIN Reads Warning enabled with a threshold above any estimate: an event at once.
printf '\001\000' | dd of="$W/plm0.bin" conv=notrunc 2>/dev/null
printf '\377\377\377\377\377\377\377\377' | dd of="$W/plm0.bin" bs=1 seek=32 conv=notrunc 2>/dev/null
plm_cmd "set-feature 0x13: reads warning threshold on set 1" "$W/plm-set2.txt" \
	set-feature "/dev/$CTRL" -f 0x13 -v 1 --cdw12=1 -l 512 -d "$W/plm0.bin"
plm_cmd "set-feature 0x14: set 1 to the deterministic window again" "$W/plm-win3.txt" \
	set-feature "/dev/$CTRL" -f 0x14 -v 1 --cdw12=1
if plm_cmd "nvme pred-lat-event-agg-log (set 1 has an event)" "$W/plm-agg.txt" pred-lat-event-agg-log "/dev/$CTRL"; then
	expect "pred-lat-event-agg-log entries" "$(logfield "$W/plm-agg.txt" 'Number of Entries Available')" -eq 1
	expect "pred-lat-event-agg-log entry 1 (the NVM Set)" "$(logfield "$W/plm-agg.txt" 'Entry\[1\]')" -eq 1
fi
# Reading set 1's log (RAE cleared) shows the event and clears it.
plm_log "with its event" 1
expect "predictable-lat-log Event Type (DTWIN Reads Warning)" "$(logfield "$W/plm-log.txt" 'Event Type')" -eq 1
if plm_cmd "nvme pred-lat-event-agg-log (event read)" "$W/plm-agg.txt" pred-lat-event-agg-log "/dev/$CTRL"; then
	expect "pred-lat-event-agg-log entries" "$(logfield "$W/plm-agg.txt" 'Number of Entries Available')" -eq 0
fi
# NDWIN, then DTWIN at once: the target holds the DTWIN until the NDWIN minimum has passed.
step "NDWIN then DTWIN back to back: the DTWIN completes no sooner than NDWIN Time Minimum Low after"
lo=$(num "$(logfield "$W/plm-log.txt" 'NDWIN Time Minimum Low')")
t0=$(cut -d' ' -f1 /proc/uptime)
if timeout "$T" nvme set-feature "/dev/$CTRL" -f 0x14 -v 1 --cdw12=2 >"$W/plm-b2b.txt" 2>&1 &&
	timeout "$T" nvme set-feature "/dev/$CTRL" -f 0x14 -v 1 --cdw12=1 >>"$W/plm-b2b.txt" 2>&1; then
	t1=$(cut -d' ' -f1 /proc/uptime)
	cat "$W/plm-b2b.txt"
	took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }')
	echo "NDWIN + DTWIN took $took ms; NDWIN Time Minimum Low $lo ms"
	expect "NDWIN + DTWIN back to back (ms)" "$took" -ge "${lo:-1}"
else
	cat "$W/plm-b2b.txt"
	fail "NDWIN then DTWIN back to back"
fi
plm_log "deterministic after the held request" 1
plm_cmd "set-feature 0x13: Predictable Latency Mode disabled on set 1" "$W/plm-set3.txt" \
	set-feature "/dev/$CTRL" -f 0x13 -v 1 --cdw12=0 -l 512 -d "$W/plm0.bin"
plm_log "disabled" 0

