#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# verify_unit.sh BUILD_DIR - install into a folder (as its prefix, so that
# the unit's ExecStart names a bloxd that exists), then
#   systemd-analyze verify bloxd.service: no error and no warning;
#   systemd-analyze security --offline: exposure at most 2.0 ("OK"), so
#   that dropping a hardening line is noticed.
# Exit 77 (ctest SKIP) only when systemd-analyze is not installed (setup.sh
# test installs it: package systemd).
set -uo pipefail

BUILD=${1:?usage: verify_unit.sh BUILD_DIR}
if ! command -v systemd-analyze >/dev/null; then
	echo "SKIP: systemd-analyze not found (apt-get install systemd)"
	exit 77
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/blox-deploy-verify.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
if ! cmake --install "$BUILD" --prefix "$WORK/prefix" >"$WORK/log" 2>&1; then
	cat "$WORK/log"
	echo "FAIL: cmake --install failed"
	exit 1
fi
unit=$WORK/prefix/lib/systemd/system/bloxd.service
grep '^ExecStart=' "$unit"
systemd-analyze verify "$unit" >"$WORK/verify" 2>&1
rc=$?
cat "$WORK/verify"
if [[ $rc -ne 0 || -s $WORK/verify ]]; then
	echo "FAIL: systemd-analyze verify: exit $rc, or warnings above"
	exit 1
fi
echo "systemd-analyze verify: clean"
# Exposure is 0-100 here (shown as 0.0-10.0).
if ! systemd-analyze security --offline=true --threshold=20 "$unit" >"$WORK/security" 2>&1; then
	grep -E '✗|Overall|rror' "$WORK/security"
	echo "FAIL: systemd-analyze security: exposure above 2.0"
	exit 1
fi
grep 'Overall exposure' "$WORK/security"
echo "unit verified"
