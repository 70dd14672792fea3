# SPDX-License-Identifier: BSD-3-Clause
"""What the real-daemon benches' reports share (lib_daemon.sh puts this on PYTHONPATH):
spdk_nvme_perf logs, bloxctl --json answers, medians and table cells."""
import json
import os
import re
import statistics


def load(path):
    with open(path) as f:
        return json.load(f)


def perf(path):
    """One spdk_nvme_perf log: the Total line's iops, mibs, mean (us); p50, p99, p999 (us)
    of its first -L summary; per namespace ("ns": {nsid: {"iops", "mibs", "mean"}}).
    {} when the file is absent."""
    r = {}
    if not os.path.exists(path):
        return r
    r["ns"] = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"^Total\s*:\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)", line)
            if m:
                r["iops"], r["mibs"], r["mean"] = (float(m.group(i)) for i in (1, 2, 3))
            m = re.match(r"^TCP \(.*\) NSID (\d+) from core\s*\d+:\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)", line)
            if m:
                r["ns"][int(m.group(1))] = {"iops": float(m.group(2)), "mibs": float(m.group(3)),
                                            "mean": float(m.group(4))}
            m = re.match(r"^\s*([\d.]+)%\s*:\s*([\d.]+)us", line)
            if m:
                for name, want in (("p50", 50.0), ("p99", 99.0), ("p999", 99.9)):
                    if abs(float(m.group(1)) - want) < 1e-6 and name not in r:
                        r[name] = float(m.group(2))
    return r


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(v, w, n=0):
    return f"{'NA' if v is None else f'{v:.{n}f}':>{w}}"


def sched(path):
    """(cpu %, waiting-for-a-CPU %) of wall time between the two `sched` lines in @path, or None."""
    try:
        a, b = [list(map(float, line.split())) for line in open(path).read().split("\n") if line.strip()][:2]
        dt = b[2] - a[2]
        return (100 * (b[0] - a[0]) / dt, 100 * (b[1] - a[1]) / dt) if dt > 0 else None
    except Exception:
        return None


def sample(ctl, sock, nqn, out, stop, qos_nsid="", period=1.0):
    """Every @period s until the file @stop exists: `bloxctl --json stats NQN`, one JSON
    line per sample in @out: the daemon's uptime_ns when it read the counters, the
    sampler's clock, how long the call took, and per namespace (read_cmds, write_cmds,
    read_bytes, write_bytes). With @qos_nsid, also `bloxctl --json qos show NQN NSID`
    right after: "qos": [full_ns per bucket, full_held_ns]. A failed call is skipped
    (the next one is taken)."""
    import subprocess
    import time

    t0 = time.monotonic()
    i = 0
    with open(out, "w") as f:
        while True:
            a = time.monotonic()
            try:
                r = subprocess.run([ctl, "-s", sock, "--timeout", "10", "--json", "stats", nqn],
                                   capture_output=True, text=True, timeout=15)
                j = json.loads(r.stdout) if r.returncode == 0 else None
            except Exception:
                j = None
            b = time.monotonic()
            if j:
                ns = {x["nsid"]: [x["io"].get(k, 0) for k in
                                  ("read_cmds", "write_cmds", "read_bytes", "write_bytes")]
                      for x in j.get("namespaces", [])}
                rec = {"up": j["uptime_ns"], "t": (a + b) / 2, "call": b - a, "ns": ns}
                if qos_nsid:
                    try:
                        r = subprocess.run([ctl, "-s", sock, "--timeout", "10", "--json", "qos", "show", nqn,
                                            str(qos_nsid)], capture_output=True, text=True, timeout=15)
                        q = json.loads(r.stdout)["namespaces"][0]
                        rec["qos"] = [[int(x) for x in q.get("full_ns", [])], int(q.get("full_held_ns", 0))]
                    except Exception:
                        pass
                f.write(json.dumps(rec) + "\n")
                f.flush()
            if os.path.exists(stop):
                return
            i += 1
            d = t0 + i * period - time.monotonic()
            if d > 0:
                time.sleep(d)
