#!/bin/bash
# bloxperf_spdk.sh: bloxperf against SPDK's nvmf_tgt (../shared/anchors/spdk; one reactor on
# CPU 0, Malloc bdev, TCP on 127.0.0.1:4541), three short runs; a check that
# bloxperf works against another target, not a measurement.
set -u
S=$(readlink -f "$(dirname "$0")/../../../shared/anchors/spdk")
export LD_LIBRARY_PATH=$S/lib
W=$(mktemp -d /tmp/spdk-try.XXXXXX)
taskset -c 0 $S/bin/nvmf_tgt -m 0x1 --disable-cpumask-locks --no-huge -s 2048 -r $W/spdk.sock > $W/tgt.log 2>&1 &
T=$!
rpc() { python3 $S/bin/rpc.py -s $W/spdk.sock "$@"; }
for _ in $(seq 150); do [ -S $W/spdk.sock ] && rpc -t 1 spdk_get_version >/dev/null 2>&1 && break; sleep 0.2; done
rpc framework_wait_init && rpc nvmf_create_transport -t TCP -q 256 && rpc bdev_malloc_create -b Malloc0 512 4096 >/dev/null &&
rpc nvmf_create_subsystem nqn.2016-06.io.spdk:cnode1 -a -s SPDK00000000000001 -d SPDK_Malloc &&
rpc nvmf_subsystem_add_ns nqn.2016-06.io.spdk:cnode1 Malloc0 >/dev/null &&
rpc nvmf_subsystem_add_listener nqn.2016-06.io.spdk:cnode1 -t tcp -f ipv4 -a 127.0.0.1 -s 4541
P=${1:?usage: bloxperf_spdk.sh BLOXPERF}
for args in "-q 1 -t 3 -w randread" "-q 32 -t 3 -w randrw -Q 2 -H -D" "-q 8 -o 131072 -t 3 -w write -C 2"; do
  echo "== bloxperf $args"
  taskset -c 1 $P -a 127.0.0.1 -p 4541 -n nqn.2016-06.io.spdk:cnode1 $args; echo "rc $?"
done
kill $T; wait $T
rm -rf $W
