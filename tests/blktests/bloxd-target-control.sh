#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# bloxd-target-control.sh - blktests' NVME_TARGET_CONTROL hook for a bloxd
# target (blktests' Documentation/running-tests.md, "NVME_TARGET_CONTROL").
#
#   config --show-trtype|--show-blkdev-type|--show-hostnqn|--show-hostid|
#          --show-host-traddr|--show-traddr|--show-trsvid|
#          --show-subsys-uuid|--show-subsysnqn
#       prints the value blktests' nvme tests are to use
#   setup --subsysnqn NQN --subsys-uuid UUID --hostnqn HOSTNQN
#         [--hostkey KEY] [--ctrlkey KEY]
#       the subsystem on bloxd: it allows HOSTNQN only (authenticating it
#       with the DH-HMAC-CHAP secrets given) and has namespace 1 with UUID
#       (BLOX_NS_SIZE bytes)
#   cleanup --subsysnqn NQN
#       the subsystem deleted on bloxd
#
# It runs where blktests runs (the initiator VM) and reaches bloxd's admin
# API through control.py on the host, BLOX_CONTROL_URL (http://10.0.2.2:PORT),
# with busybox's or GNU wget. Environment: BLOX_TRADDR (10.0.2.2),
# BLOX_TRSVCID (bloxd's NVMe/TCP port), BLOX_CONTROL_URL, BLOX_NS_SIZE
# (64M), BLOX_SUBSYSNQN (the subsystem the tests use; blktests' own
# blktests-subsystem-1 is not an NQN, which bloxd refuses as SPDK does:
# nqn.2014-08.org.blktests:subsystem-1), BLOX_HOSTID (blktests' default),
# BLOX_HOOK_LOG (a file each call is appended to,
# /tmp/bloxd-target-control.log). Exit status: 0 done, 1 the target
# refused or could not be reached (the reason on stderr and in the log), 2
# a usage error.
set -u

hostid=${BLOX_HOSTID:-0f01fb42-9f7f-4856-b0b3-51e60b8de349}
hooklog=${BLOX_HOOK_LOG:-/tmp/bloxd-target-control.log}

# die MESSAGE [STATUS]: MESSAGE on stderr and in the log, exit STATUS (1).
die() { echo "bloxd-target-control: $1" >&2; echo "error: $1" >>"$hooklog"; exit "${2:-1}"; }
usage() { die "usage: $0 config --show-... | setup --subsysnqn NQN ... | cleanup --subsysnqn NQN" 2; }

# urlencode TEXT: TEXT with every byte but [A-Za-z0-9._~-] as %XX.
urlencode() {
	local LC_ALL=C s=$1 out='' c i
	for ((i = 0; i < ${#s}; i++)); do
		c=${s:i:1}
		case $c in
		[A-Za-z0-9._~-]) out+=$c ;;
		*) printf -v c '%%%02X' "'$c"; out+=$c ;;
		esac
	done
	printf '%s' "$out"
}

# ask PATH QUERY: GET BLOX_CONTROL_URL/PATH?QUERY; its answer on stdout.
ask() {
	local url="${BLOX_CONTROL_URL:?BLOX_CONTROL_URL is not set}/$1?$2" out
	echo "$(date '+%T') $1 $2" | sed 's/key=[^&]*/key=<key>/g' >>"$hooklog"
	# control.py answers "ok", or "error: " and what bloxctl said.
	if ! out=$(wget -q -O - "$url" 2>&1); then
		die "$1: no answer from $BLOX_CONTROL_URL (wget failed${out:+: $out})"
	fi
	echo "  $out" >>"$hooklog"
	[[ $out == ok ]] || die "$1: $out"
}

(($# >= 1)) || usage
action=$1
shift
case $action in
config)
	(($# == 1)) || usage
	case $1 in
	--show-trtype) echo tcp ;;
	# The namespace is bloxd's; blktests only prepares (and removes) an
	# image file in its TMPDIR for "file", no loop device.
	--show-blkdev-type) echo file ;;
	--show-hostnqn) echo "nqn.2014-08.org.nvmexpress:uuid:$hostid" ;;
	--show-hostid) echo "$hostid" ;;
	--show-host-traddr) echo "" ;;
	--show-traddr) echo "${BLOX_TRADDR:-10.0.2.2}" ;;
	--show-trsvid) echo "${BLOX_TRSVCID:?BLOX_TRSVCID is not set}" ;;
	--show-subsys-uuid) echo 91fdba0d-f87b-4c25-b80f-db7be1418b9e ;;
	--show-subsysnqn) echo "${BLOX_SUBSYSNQN:-nqn.2014-08.org.blktests:subsystem-1}" ;;
	*) die "config: unknown option $1" 2 ;;
	esac
	;;
setup | cleanup)
	nqn='' uuid='' hostnqn='' hostkey='' ctrlkey=''
	while (($# > 0)); do
		(($# >= 2)) || die "$action: $1 needs a value" 2
		case $1 in
		--subsysnqn) nqn=$2 ;;
		--subsys-uuid) uuid=$2 ;;
		--hostnqn) hostnqn=$2 ;;
		--hostkey) hostkey=$2 ;;
		# blktests' _nvmet_target_setup passes the controller key as
		# --ctrkey (common/nvme); the documented name is --ctrlkey.
		--ctrlkey | --ctrkey) ctrlkey=$2 ;;
		*) die "$action: unknown option $1" 2 ;;
		esac
		shift 2
	done
	[[ -n $nqn ]] || die "$action: --subsysnqn is required" 2
	if [[ $action == cleanup ]]; then
		ask cleanup "subsysnqn=$(urlencode "$nqn")"
		exit 0
	fi
	[[ -n $uuid && -n $hostnqn ]] || die "setup: --subsys-uuid and --hostnqn are required" 2
	q="subsysnqn=$(urlencode "$nqn")&subsys_uuid=$(urlencode "$uuid")"
	q+="&hostnqn=$(urlencode "$hostnqn")&size=$(urlencode "${BLOX_NS_SIZE:-64M}")"
	[[ -z $hostkey ]] || q+="&hostkey=$(urlencode "$hostkey")"
	[[ -z $ctrlkey ]] || q+="&ctrlkey=$(urlencode "$ctrlkey")"
	ask setup "$q"
	;;
*) usage ;;
esac
