#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""control.py - the host's end of blktests' NVME_TARGET_CONTROL for bloxd.

blktests runs in the initiator VM; its target hook (bloxd-target-control.sh)
cannot reach bloxd's admin socket, so it asks this small HTTP server on the
host's 127.0.0.1 (10.0.2.2 from the guest), which carries each request out
with bloxctl over the admin socket:

  GET /setup?subsysnqn=NQN&subsys_uuid=U&hostnqn=H[&hostkey=K][&ctrlkey=C][&size=S]
      a subsystem NQN with namespace 1 of SIZE with UUID U that allows host
      H only (with DH-HMAC-CHAP secrets when given), and the listener
      (--listener) added back if a cleanup removed it, as blktests'
      _nvmet_target_setup makes subsystem and port on the Linux target
  GET /cleanup?subsysnqn=NQN
      the listener removed with its hosts' connections (unless another
      subsystem is still set up), then the subsystem deleted, as blktests'
      _nvmet_target_cleanup removes the Linux target's port and subsystem

The answer's body is "ok" when every bloxctl call succeeded, else "error:"
and the failing call with its output (a setup that fails part-way is
undone); HTTP 200 either way, so that busybox wget shows the body (400 and
404 for a malformed request). Every request and its answer is appended to
--log.

Usage: control.py --port P --bloxctl BLOXCTL --socket SOCK --log FILE
                  --listener ADDR:PORT [--backend nand|ram] [--size-default 64M]
Stops on SIGTERM (the runner sends it by PID).
"""
import argparse
import http.server
import json
import re
import signal
import subprocess
import sys
import urllib.parse

NQN_RE = re.compile(r"^[\x21-\x7e]{1,223}$")
UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
SIZE_RE = re.compile(r"^[0-9]+[kKmMgG]?$")
KEY_RE = re.compile(r"^DHHC-1:[0-9]{2}:[A-Za-z0-9+/=]+:$")


class Control:
    def __init__(self, args):
        self.args = args

    def ctl(self, *words):
        cmd = [self.args.bloxctl, "-s", self.args.socket] + list(words)
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=60)
        return p.returncode, p.stdout.strip()

    def setup(self, q):
        nqn = q.get("subsysnqn", "")
        host = q.get("hostnqn", "")
        uuid = q.get("subsys_uuid", "")
        size = q.get("size", "") or self.args.size_default
        hostkey = q.get("hostkey", "")
        ctrlkey = q.get("ctrlkey", "")
        for name, val, rx in (("subsysnqn", nqn, NQN_RE), ("hostnqn", host, NQN_RE),
                              ("subsys_uuid", uuid, UUID_RE), ("size", size, SIZE_RE)):
            if not rx.match(val):
                return 400, f"bad {name}: {val!r}"
        for name, val in (("hostkey", hostkey), ("ctrlkey", ctrlkey)):
            if val and not KEY_RE.match(val):
                return 400, f"bad {name}"
        if ctrlkey and not hostkey:
            return 400, "ctrlkey without hostkey"
        # The host is allowed, then the listener comes back, last: a host
        # reconnecting while this runs (nvme/061) finds no listener (it
        # retries) until the subsystem has its namespace and allows it
        # (else its reads would fail with Invalid Namespace or Format, its
        # Connect with Invalid Host, DNR set). The first setup finds the
        # listener of bloxd's configuration there (exit 3).
        allow = ["host", "allow", nqn, host]
        if hostkey:
            allow += ["--dhchap-key", hostkey]
        if ctrlkey:
            allow += ["--dhchap-ctrl-key", ctrlkey]
        steps = [["subsys", "create", nqn],
                 ["ns", "create", nqn, "--nsid", "1", "--size", size,
                  "--backend", self.args.backend, "--uuid", uuid],
                 allow,
                 ["listener", "add", self.args.listener]]
        for i, step in enumerate(steps):
            rc, out = self.ctl(*step)
            if rc == 3 and step[0] == "listener":
                continue
            if rc != 0:
                if i > 0:
                    self.ctl("subsys", "delete", nqn, "--force")
                shown = [w if not w.startswith("DHHC-1:") else "<key>" for w in step]
                return 200, f"error: bloxctl {' '.join(shown)}: exit {rc}: {out}"
        return 200, "ok"

    def cleanup(self, q):
        nqn = q.get("subsysnqn", "")
        if not NQN_RE.match(nqn):
            return 400, f"bad subsysnqn: {nqn!r}"
        # The listener goes first, with every connection through it, as
        # blktests' cleanup removes the Linux target's port: a host still
        # connected (nvme/061) then finds no listener and retries its
        # Connect until the next setup adds it back. With the listener kept
        # its Connect would reach the subsystem gone and fail with DNR set
        # (Connect Invalid Parameters, as the Linux target answers), which
        # Linux 6.12 does not retry. The Linux target gives each subsystem
        # a port of its own; here they share bloxd's one listener, which
        # stays while another subsystem is set up.
        rc, out = self.ctl("--json", "subsys", "list")
        if rc != 0:
            return 200, f"error: bloxctl subsys list: exit {rc}: {out}"
        others = [x.get("nqn") for x in json.loads(out).get("subsystems", [])
                  if x.get("nqn") != nqn]
        if not others:
            rc, out = self.ctl("listener", "remove", self.args.listener, "--force")
            # 2: not there (a cleanup without a setup between).
            if rc not in (0, 2):
                return 200, (f"error: bloxctl listener remove {self.args.listener} --force: "
                             f"exit {rc}: {out}")
        rc, out = self.ctl("subsys", "delete", nqn, "--force")
        if rc != 0:
            return 200, f"error: bloxctl subsys delete {nqn} --force: exit {rc}: {out}"
        return 200, "ok"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--bloxctl", required=True)
    ap.add_argument("--socket", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--listener", required=True,
                    help="bloxd's NVMe/TCP listener ADDR:PORT the hosts connect to")
    ap.add_argument("--backend", default="nand", choices=["nand", "ram"])
    ap.add_argument("--size-default", default="64M")
    args = ap.parse_args()
    control = Control(args)
    log = open(args.log, "a", buffering=1)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            q = {k: v[0] for k, v in urllib.parse.parse_qs(url.query).items()}
            if url.path == "/setup":
                code, text = control.setup(q)
            elif url.path == "/cleanup":
                code, text = control.cleanup(q)
            else:
                code, text = 404, f"no such action: {url.path}"
            shown = {k: ("<key>" if k.endswith("key") else v) for k, v in q.items()}
            log.write(f"{url.path} {shown} -> {code} {text}\n")
            body = (text + "\n").encode()
            self.send_response(code)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    srv = http.server.HTTPServer(("127.0.0.1", args.port), Handler)
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    try:
        srv.serve_forever()
    finally:
        srv.server_close()


if __name__ == "__main__":
    main()
