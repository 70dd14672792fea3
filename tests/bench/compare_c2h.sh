#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# compare_c2h.sh: the SPDK anchor's compare.sh with SPDK's target sending a
# CapsuleResp after every read's data, as bloxd and Linux nvmet do
# (docs/PERFORMANCE.md, "The CapsuleResp after a read").
#
#   compare_c2h.sh BLOXD [compare.sh options]
#
# spdk_nvme_perf keeps SQ flow control on. NVMe/TCP lets a controller end
# a read with a C2HData PDU carrying the SUCCESS flag (and no CapsuleResp)
# only when the host disabled it; SPDK's nvmf_tgt sets the flag anyway
# by default (its TCP transport's c2h_success option). This runs the same
# compare.sh with that option off (nvmf_create_transport -o) and nothing
# else changed, so that both targets send the same PDUs. The anchor is
# ../shared/anchors/spdk beside the repository, or $SPDK_ANCHOR.
set -u -o pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
ANCHOR=${SPDK_ANCHOR:-$REPO/../shared/anchors/spdk}
[ -x "$ANCHOR/compare.sh" ] || { echo "compare_c2h.sh: no compare.sh in $ANCHOR (set SPDK_ANCHOR)" >&2; exit 2; }
[ $# -ge 1 ] || { sed -n '3,16p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

TMP=$(mktemp -d /tmp/compare_c2h.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
for d in bin lib python; do
	ln -s "$(readlink -f "$ANCHOR/$d")" "$TMP/$d"
done
sed -e 's/rpc nvmf_create_transport -t TCP -q 256 /rpc nvmf_create_transport -t TCP -q 256 -o /' \
	-e 's/echo "# bloxd vs SPDK nvmf_tgt, /echo "# bloxd vs SPDK nvmf_tgt with c2h_success off (-o), /' \
	"$ANCHOR/compare.sh" >"$TMP/compare.sh"
if ! grep -q 'nvmf_create_transport -t TCP -q 256 -o ' "$TMP/compare.sh" ||
	! grep -q 'c2h_success off (-o)' "$TMP/compare.sh"; then
	echo "compare_c2h.sh: compare.sh no longer creates the transport as expected; not run" >&2
	exit 2
fi
chmod +x "$TMP/compare.sh"
echo "compare_c2h.sh: SPDK's TCP transport with c2h_success off (nvmf_create_transport -o)"
"$TMP/compare.sh" "$@"
