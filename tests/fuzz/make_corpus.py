#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the seed corpus of every fuzz target (tests/fuzz/corpus/<target>/).

The seeds are what the targets see from working clients: the PDU streams
a host sends (ICReq, Connect, Property Get/Set, Identify, Get Log Page,
I/O, R2T answers, with and without digests), the NVMe commands behind
them, Get Log Page for every page, admin frames of every method as
bloxctl sends them, and configuration and state files. Regression seeds
(inputs a fuzzer found a bug with) live next to them as regress-*; this
script leaves those alone. Run it from anywhere:

    tests/fuzz/make_corpus.py [--bloxd build/daemon/bloxd]

With --bloxd, the state seeds are that bloxd's --print-config of each
config seed (the state file's format); without, the ones committed stay.
With --client-hello, the TLS seeds' ClientHellos are captured afresh from
openssl s_client offering the host's PSK identity (a ClientHello is random
each time: without, the ones committed stay).
"""
import argparse
import base64
import hashlib
import hmac
import os
import socket
import struct
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
SUBNQN = b"nqn.2026-12.io.blox:fuzz"
HOSTNQN = b"nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555"
DISCNQN = b"nqn.2014-08.org.nvmexpress.discovery"


def crc32c(data, crc=0xFFFFFFFF):
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def write(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# ---- NVMe commands ----

SGL_INLINE = 0x01  # data block, offset
SGL_TRANSPORT = 0x5A  # transport data block


def sqe(opcode, nsid=0, cdw=(0,) * 6, sgl_len=0, sgl_type=SGL_TRANSPORT, cid=1, flags=0x40):
    dptr = struct.pack("<QI3xB", 0, sgl_len, sgl_type)
    return struct.pack("<BBHIIIQ", opcode, flags, cid, nsid, 0, 0, 0) + dptr + \
        struct.pack("<6I", *cdw)


def connect_data(subnqn, cntlid=0xFFFF):
    return (b"\x11" * 16 + struct.pack("<H", cntlid) + bytes(238) +
            subnqn.ljust(256, b"\0") + HOSTNQN.ljust(256, b"\0") + bytes(256))


def connect(qid=0, sqsize=31, cntlid=0xFFFF, subnqn=SUBNQN, inline=True, kato=0):
    d = connect_data(subnqn, cntlid)
    s = sqe(0x7F, 0x01, (qid << 16, sqsize, kato, 0, 0, 0), len(d),
            SGL_INLINE if inline else SGL_TRANSPORT)
    return s, d


def prop_set(ofst, val, size8=False):
    return sqe(0x7F, 0x00, (1 if size8 else 0, ofst, val & 0xFFFFFFFF, val >> 32, 0, 0))


def prop_get(ofst, size8=False):
    return sqe(0x7F, 0x04, (1 if size8 else 0, ofst, 0, 0, 0, 0))


def identify(cns, nsid=0):
    return sqe(0x06, nsid, (cns, 0, 0, 0, 0, 0), 4096)


def get_log(lid, length, off=0, nsid=0xFFFFFFFF, rae=0, lsp=0, lsi=0):
    numd = length // 4 - 1
    return sqe(0x02, nsid, (lid | lsp << 8 | rae << 15 | (numd & 0xFFFF) << 16,
                            numd >> 16 | lsi << 16, off & 0xFFFFFFFF, off >> 32, 0, 0), length)


def set_feat(fid, v, nsid=0):
    return sqe(0x09, nsid, (fid, v, 0, 0, 0, 0))


def get_feat(fid, sel=0, nsid=0):
    return sqe(0x0A, nsid, (fid | sel << 8, 0, 0, 0, 0, 0))


def rw(opcode, nsid, slba, nlb, bs=512, inline=False):
    n = nlb * bs if opcode in (0x01, 0x02, 0x05) else 0
    return sqe(opcode, nsid, (slba & 0xFFFFFFFF, slba >> 32, nlb - 1, 0, 0, 0), n,
               SGL_INLINE if inline else SGL_TRANSPORT)


CC_EN = 0x00460001

# Admin and I/O commands a Linux host sends, as (SQE, data) pairs.
ADMIN = [
    (identify(0x01), b""), (identify(0x00, 1), b""), (identify(0x02), b""),
    (identify(0x03, 1), b""), (identify(0x06), b""), (identify(0x05, 1), b""),
    (identify(0x13), b""), (identify(0x04), b""),
    (get_log(0x01, 4096), b""), (get_log(0x02, 512), b""), (get_log(0x03, 512), b""),
    (get_log(0x04, 4096, rae=1), b""), (get_log(0x05, 4096), b""),
    (get_log(0x0C, 4096), b""), (get_log(0x09, 512, lsi=1), b""),
    (get_log(0x0A, 512, lsi=1), b""), (get_log(0x0B, 512), b""),
    (set_feat(0x07, 0x00030003), b""), (set_feat(0x0B, 0x900), b""),
    (set_feat(0x0F, 15000), b""), (get_feat(0x07), b""), (get_feat(0x0E, 3), b""),
    (get_feat(0x12, 0, 1), b""), (set_feat(0x06, 1), b""),
    (sqe(0x18), b""), (sqe(0x0C), b""), (sqe(0x08, 0, (0x0001_0005, 0, 0, 0, 0, 0)), b""),
    (prop_get(0x00, True), b""), (prop_get(0x08), b""), (prop_get(0x1C), b""),
    (prop_set(0x14, 0x00464001), b""),
]
BLOCK = bytes(range(256)) * 2
IO = [
    (rw(0x01, 1, 0, 1, inline=True), BLOCK), (rw(0x02, 1, 0, 1), b""),
    (rw(0x01, 1, 8, 8), BLOCK * 8), (rw(0x05, 1, 0, 1, inline=True), BLOCK),
    (rw(0x08, 1, 0, 16), b""), (rw(0x00, 1, 0, 1), b""), (rw(0x0C, 1, 0, 4), b""),
    (sqe(0x09, 1, (0, 1 << 2, 0, 0, 0, 0), 16, SGL_INLINE), struct.pack("<IIQ", 0, 8, 0)),
    (rw(0x02, 2, 0, 2, 4096), b""), (rw(0x02, 1, 2047, 2), b""),
]
DISC = [(get_log(0x70, 1024), b""), (get_log(0x70, 4096, rae=1), b""),
        (get_log(0x70, 16, 1024), b""), (identify(0x01), b""), (sqe(0x18), b""),
        (set_feat(0x0B, 1 << 31), b""), (sqe(0x0C), b"")]


# ---- NVMe/TCP PDUs ----

def pdu(ptype, psh, data=b"", hd=False, dd=False, cpda=0, flags=0):
    hlen = 8 + len(psh)
    f = flags | (1 if hd else 0) | (2 if dd and data else 0)
    hdg = 4 if hd else 0
    if data:
        align = (cpda + 1) * 4
        pdo = -(-(hlen + hdg) // align) * align
        plen = pdo + len(data) + (4 if dd else 0)
    else:
        pdo = 0
        plen = hlen + hdg
    head = struct.pack("<BBBBI", ptype, f, hlen, pdo, plen) + psh
    out = head + (struct.pack("<I", crc32c(head)) if hd else b"")
    if data:
        out += bytes(pdo - len(out)) + data
        if dd:
            out += struct.pack("<I", crc32c(data))
    return out


def icreq(hd=False, dd=False, hpda=0, maxr2t=0):
    return pdu(0x00, struct.pack("<HBBI", 0, hpda, (1 if hd else 0) | (2 if dd else 0),
                                 maxr2t) + bytes(112))


def capsule(s, data=b"", hd=False, dd=False):
    inline = data and s[39] == SGL_INLINE
    return pdu(0x04, s, data if inline else b"", hd, dd)


def h2c_data(cccid, ttag, off, data, last=True, hd=False, dd=False):
    return pdu(0x06, struct.pack("<HHII4x", cccid, ttag, off, len(data)), data, hd, dd,
               flags=4 if last else 0)


def h2c_term(fes=1):
    return pdu(0x02, struct.pack("<H4s10x", fes, bytes(4)))


def tcp_streams():
    s = {}
    for hd, dd in ((False, False), (True, False), (False, True), (True, True)):
        tag = ("hd" if hd else "") + ("dd" if dd else "") or "plain"
        c, d = connect()
        admin = icreq(hd, dd) + capsule(c, d, hd, dd) + capsule(prop_set(0x14, CC_EN), b"", hd, dd)
        s["admin-connect-" + tag] = admin
        body = b"".join(capsule(q, x, hd, dd) for q, x in ADMIN)
        s["admin-cmds-" + tag] = admin + body
    c, d = connect()
    base = icreq() + capsule(c, d) + capsule(prop_set(0x14, CC_EN))
    s["io-on-admin"] = base + b"".join(capsule(q, x) for q, x in IO)
    # Connect data by R2T: the pre-Connect context's transfer tag 0xfffe.
    c, d = connect(inline=False)
    s["connect-r2t"] = icreq() + capsule(c) + h2c_data(1, 0xFFFE, 0, d)
    s["connect-r2t-split"] = icreq() + capsule(c) + h2c_data(1, 0xFFFE, 0, d[:512], False) + \
        h2c_data(1, 0xFFFE, 512, d[512:])
    c, d = connect(qid=1, sqsize=127, cntlid=1)
    s["io-connect"] = icreq() + capsule(c, d) + b"".join(capsule(q, x) for q, x in IO)
    c, d = connect(subnqn=DISCNQN)
    s["discovery"] = icreq() + capsule(c, d) + capsule(prop_set(0x14, CC_EN)) + \
        b"".join(capsule(q, x) for q, x in DISC)
    s["term"] = icreq() + h2c_term()
    s["icreq-only"] = icreq()
    s["icreq-hpda"] = icreq(hpda=3) + capsule(c, d)
    s["bad-pdu-type"] = icreq() + pdu(0x07, bytes(16))
    out = {}
    for name, stream in s.items():
        out[name] = b"\0" + stream
    # Two connections: an admin queue, then an I/O queue of its controller
    # (controller IDs start at 1 for each input).
    for hd, dd, cut in ((False, False, 0), (True, True, 0), (False, False, 5)):
        c, d = connect()
        admin = icreq(hd, dd) + capsule(c, d, hd, dd) + capsule(prop_set(0x14, CC_EN), b"", hd, dd) + \
            capsule(set_feat(0x07, 0x00030003), b"", hd, dd)
        c, d = connect(qid=1, sqsize=127, cntlid=1)
        io = icreq(hd, dd) + capsule(c, d, hd, dd) + b"".join(capsule(q, x, hd, dd) for q, x in IO)
        name = "two-conn-io" + ("-digests" if hd else "") + ("-cut%d" % cut if cut else "")
        out[name] = bytes([0x80 | cut]) + struct.pack("<H", len(admin)) + admin + io
    # The same streams cut into small pieces.
    for name in ("admin-connect-plain", "admin-cmds-hddd", "connect-r2t-split"):
        out[name + "-cut7"] = b"\x07" + s[name]
        out[name + "-cut1"] = b"\x01" + s[name]
    return out


# ---- the core's command records (fuzz_cmd.c) and log pages (fuzz_logpage.c) ----

def cmd_record(q, s, data=b"", inline=False, fix=False):
    how = q | (0x10 if inline else 0) | (0x20 if fix else 0)
    return struct.pack("<B", how) + s + struct.pack("<H", len(data)) + data


def cmd_seeds():
    out = {}
    ADMIN_Q, IO_Q, DISC_Q, RAW_Q = 0, 1, 2, 3
    out["admin"] = b"".join(cmd_record(ADMIN_Q, s, d) for s, d in ADMIN)
    out["io"] = b"".join(cmd_record(IO_Q, s, d, s[39] == SGL_INLINE) for s, d in IO)
    out["discovery"] = b"".join(cmd_record(DISC_Q, s, d) for s, d in DISC)
    c, d = connect()
    out["raw-connect"] = cmd_record(RAW_Q, c, d, True) + cmd_record(RAW_Q, prop_set(0x14, CC_EN)) + \
        b"".join(cmd_record(RAW_Q, s, x) for s, x in ADMIN[:8])
    c2, d2 = connect(qid=2, sqsize=63, cntlid=1)
    out["raw-io-connect"] = cmd_record(RAW_Q, c2, d2, True) + \
        b"".join(cmd_record(RAW_Q, s, x, s[39] == SGL_INLINE) for s, x in IO[:4])
    c3, d3 = connect(subnqn=DISCNQN)
    out["raw-disc-connect"] = cmd_record(RAW_Q, c3, d3, True) + \
        b"".join(cmd_record(RAW_Q, s, x) for s, x in DISC)
    out["disconnect"] = cmd_record(ADMIN_Q, sqe(0x7F, 0x08)) + cmd_record(IO_Q, sqe(0x7F, 0x08))
    out["aer-then-close"] = cmd_record(ADMIN_Q, sqe(0x0C)) * 5 + \
        cmd_record(ADMIN_Q, prop_set(0x14, 0x00464000))
    return out


def log_record(q, lid, length, off=0, nsid=0xFFFFFFFF, rae=0, lsp=0, lsi=0, csi=0, ot=0, stir=False):
    return struct.pack("<BBBBIQIHBB", (q & 0x7F) | (0x80 if stir else 0), lid, lsp, rae,
                       length // 4 - 1, off, nsid, lsi, csi, ot)


def logpage_seeds():
    out = {}
    lids = [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C,
            0x0D, 0x0E, 0x0F, 0x10, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x70, 0x80, 0x81,
            0xBF, 0xC0, 0xFF]
    for lid in lids:
        recs = [log_record(0, lid, 4096), log_record(0, lid, 512, 0, 1),
                log_record(0, lid, 4, 4, stir=True), log_record(0, lid, 64, 4096),
                log_record(0, lid, 8, 1 << 40), log_record(0, lid, 131072, 0, 1, 1),
                log_record(0, lid, 16, 0, 0, 0, 0, 1)]
        out["lid-%02x" % lid] = b"".join(recs)
    out["discovery"] = b"".join([log_record(1, 0x70, 16), log_record(1, 0x70, 1024),
                                 log_record(1, 0x70, 8, 1024), log_record(1, 0x70, 4096, 0, 0, 1),
                                 log_record(1, 0x02, 512), log_record(1, 0x01, 64)])
    # Every LID on both controllers, at lengths and offsets around the edges:
    # each CI run starts with these (32 requests a file).
    for length in (4, 4096, 131072, 131076):
        for off in (0, 4092, 1 << 40):
            for first in range(0, 256, 32):
                recs = [log_record(lid % 2, lid, length, off, 0xFFFFFFFF if lid % 3 else 1,
                                   lid % 4 == 1, lid % 5) for lid in range(first, first + 32)]
                out["sweep-%d-%d-%02x" % (length, off, first)] = b"".join(recs)
    out["plm"] = b"".join(log_record(0, lid, 512, 0, 0xFFFFFFFF, 0, lsp, 1, stir=True)
                          for lid in (0x0A, 0x0B) for lsp in (0, 1))
    return out


# ---- PDU headers (fuzz_pdu.c) ----

def pdu_seeds():
    out = {}
    for i, (hd, dd) in enumerate(((False, False), (True, False), (False, True), (True, True))):
        pre = struct.pack("<BBI", (1 if hd else 0) | (2 if dd else 0), 0, 131072)
        c, d = connect()
        out["capsule-%d" % i] = pre + capsule(c, d, hd, dd)[:132].ljust(132, b"\0")
        out["h2c-%d" % i] = pre + h2c_data(1, 0, 0, BLOCK, True, hd, dd)[:132].ljust(132, b"\0")
        out["capsule-nodata-%d" % i] = pre + capsule(identify(1), b"", hd, dd).ljust(132, b"\0")
    out["term"] = struct.pack("<BBI", 0, 0, 131072) + h2c_term().ljust(132, b"\0")
    out["cpda"] = struct.pack("<BBI", 0, 3, 131072) + pdu(0x04, bytes(64), BLOCK, cpda=3)[:132]
    out["icreq"] = struct.pack("<BBI", 0, 0, 131072) + icreq()[:128] + bytes(4)
    out["r2t"] = struct.pack("<BBI", 1, 0, 131072) + pdu(0x09, bytes(16), hd=True).ljust(132, b"\0")
    out["rsp"] = struct.pack("<BBI", 0, 0, 131072) + pdu(0x05, bytes(16)).ljust(132, b"\0")
    out["c2h"] = struct.pack("<BBI", 2, 0, 131072) + pdu(0x07, bytes(16), BLOCK, dd=True)[:132]
    return out


# ---- admin frames (fuzz_adm.c) ----

def methods():
    names = []
    with open(os.path.join(TOP, "proto", "blox_admin.proto")) as f:
        for line in f:
            line = line.strip()
            if line.startswith("rpc "):
                names.append(line.split()[1].split("(")[0])
    return {n: i for i, n in enumerate(names)}


def varint(v):
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def pb(*fields):
    """Protobuf bytes from (number, value) pairs: int, bytes/str or nested bytes."""
    out = b""
    for num, val in fields:
        if isinstance(val, bool) or isinstance(val, int):
            out += varint(num << 3) + varint(int(val))
        else:
            if isinstance(val, str):
                val = val.encode()
            out += varint(num << 3 | 2) + varint(len(val)) + val
    return out


def frame(method, payload=b"", rid=1, flags=0):
    return struct.pack("<IBBHIHHI", 0x41584C42, 1, flags, method, rid, 0, 0, len(payload)) + payload


def adm_seeds():
    m = methods()
    nqn = "nqn.2026-12.io.blox:adm"
    host = HOSTNQN.decode()
    calls = {
        "version": [("GetVersion", b"")],
        "status": [("GetStatus", b""), ("ListListeners", b""), ("ListSubsystems", b""),
                   ("ListDevices", b""), ("ListControllers", b""), ("ListNamespaces", b""),
                   ("MigrationStatus", b""), ("QosShow", b"")],
        "subsystem": [("CreateSubsystem", pb((1, nqn), (2, "SN1"), (4, True))),
                      ("AllowHost", pb((1, nqn), (2, host))),
                      ("ShowSubsystem", pb((1, nqn))),
                      ("SetAllowAnyHost", pb((1, nqn), (2, False))),
                      ("DenyHost", pb((1, nqn), (2, host))),
                      ("DeleteSubsystem", pb((1, nqn), (2, True)))],
        "namespace": [("CreateSubsystem", pb((1, nqn))),
                      ("CreateNamespace", pb((1, nqn), (2, 1), (3, "ram"), (4, 1 << 20), (5, 512))),
                      ("ShowNamespace", pb((1, nqn), (2, 1))),
                      ("ListNamespaces", pb((1, nqn))),
                      ("QosSet", pb((1, nqn), (2, 1), (3, pb((1, 1000), (7, 50))))),
                      ("QosShow", pb((1, nqn), (2, 1))),
                      ("GetStats", pb((1, nqn))),
                      ("DeleteNamespace", pb((1, nqn), (2, 1), (3, True)))],
        "null-ns": [("CreateSubsystem", pb((1, nqn))),
                    ("CreateNamespace", pb((1, nqn), (3, "null"), (4, 1 << 30), (5, 4096)))],
        "device": [("CreateDevice", pb((1, "dev0"), (2, "ram"), (3, pb((1, 1), (2, 2))))),
                   ("ShowDevice", pb((1, "dev0"))), ("DeleteDevice", pb((1, "dev0")))],
        "save": [("SaveConfig", b"")],
        "listener": [("AddListener", pb((1, "127.0.0.1"), (2, 4420))),
                     ("AddListener", pb((1, "::1"), (2, 8009), (3, True))),
                     ("ListListeners", b""),
                     ("RemoveListener", pb((1, "127.0.0.1"), (2, 4420)))],
        "watch-cancel": [("WatchStats", pb((3, 10), (4, 2)))],
        "migration": [("MigrationStart", pb((1, nqn), (2, 1), (3, 1))),
                      ("MigrationPause", pb((1, 1))), ("MigrationSetShare", pb((1, 1), (2, 500))),
                      ("MigrationCancel", pb((1, 1))), ("WatchMigrations", pb((3, 1)))],
    }
    out = {}
    for name, seq in calls.items():
        out[name] = b"".join(frame(m[meth], payload, rid=i + 1) for i, (meth, payload) in enumerate(seq))
    out["watch-cancel"] += frame(m["WatchStats"], b"", rid=1, flags=2)
    out["unknown-method"] = frame(len(m) + 5, b"")
    out["bad-payload"] = frame(m["CreateSubsystem"], b"\x0a\xff\xff")
    return out


# ---- DH-HMAC-CHAP (fuzz_auth.c) ----

A_RAW, A_RECV, A_NEG, A_REPLY, A_SUCC2, A_FAIL2, A_GATED, A_ENABLE = range(8)
A_IO, A_TID, A_SECP = 0x08, 0x10, 0x80
SHA256, SHA384, SHA512 = 1, 2, 3


def a_op(op, tid=None, cdw10=None):
    return bytes([op | (A_TID if tid is not None else 0) | (A_SECP if cdw10 is not None else 0)]) + \
        (struct.pack("<H", tid) if tid is not None else b"") + \
        (struct.pack("<I", cdw10) if cdw10 is not None else b"")


def a_ids(hashes, groups):
    return bytes(hashes).ljust(30, b"\0") + bytes(groups).ljust(30, b"\0")


def a_neg(hashes=(SHA256, SHA384, SHA512), groups=(0, 1, 2, 3, 4, 5), q=0, tid=None, scc=0, napd=1):
    """A NEGOTIATE as Linux's host sends it (every hash, null group first)."""
    return a_op(A_NEG | q, tid) + bytes([scc, napd, len(hashes), len(groups)]) + a_ids(hashes, groups)


def a_recv(al=4096, q=0, cdw10=None):
    return a_op(A_RECV | q, None, cdw10) + struct.pack("<H", al)


def a_reply(how=0, q=0, c2=None, s2=1, tid=None):
    return a_op(A_REPLY | q, tid) + bytes([how | (0x10 if c2 else 0)]) + \
        ((c2 + struct.pack("<I", s2)) if c2 else b"")


def auth_seeds():
    out = {}
    c2 = bytes(range(32))
    null = (0,)
    # A transaction through, each hash, null group and FFDHE, then commands.
    ok = a_recv() + a_reply() + a_recv() + bytes([A_GATED]) + bytes([A_ENABLE]) + bytes([A_GATED]) + \
        bytes([A_ENABLE | A_IO, A_GATED | A_IO])
    for key in range(4):
        out["null-key%d" % key] = bytes([key]) + a_neg(groups=null) + ok
    out["ffdhe2048"] = b"\1" + a_neg() + ok
    out["ffdhe3072-sha384"] = b"\2" + a_neg((SHA384,), (2,)) + ok
    out["linux-list-sha512"] = b"\3" + a_neg((SHA512, SHA384, SHA256)) + ok
    # Bidirectional: R2 asked, checked, SUCCESS2 (or FAILURE2).
    bidir = a_recv() + a_reply(c2=c2, s2=7) + a_recv()
    out["bidir-null"] = b"\4" + a_neg(groups=null) + bidir + bytes([A_SUCC2, 0]) + bytes([A_GATED])
    out["bidir-ffdhe"] = b"\5" + a_neg() + bidir + bytes([A_SUCC2, 0]) + bytes([A_GATED])
    out["bidir-failure2"] = b"\4" + a_neg(groups=null) + bidir + bytes([A_FAIL2, 1]) + bytes([A_GATED])
    out["bidir-no-ctrl-key"] = b"\0" + a_neg(groups=null) + bidir
    # Both queues, re-authentication, the I/O queue before the admin queue.
    io = a_neg(groups=null, q=A_IO) + a_recv(q=A_IO) + a_reply(q=A_IO) + a_recv(q=A_IO) + \
        bytes([A_GATED | A_IO])
    out["io-then-admin"] = b"\0" + bytes([A_ENABLE | A_IO]) + a_neg(groups=null) + ok + \
        bytes([A_ENABLE | A_IO, A_GATED | A_IO]) + io + a_neg(groups=null, q=A_IO) + a_recv(q=A_IO)
    out["reauth"] = b"\1" + a_neg(groups=null) + ok + a_neg() + a_recv() + a_reply() + a_recv() + \
        bytes([A_GATED])
    # What goes wrong: bad R1, lengths, DH values, transaction ids, order.
    for name, how in (("bad-r1", 0x01), ("bad-hl", 0x02), ("bad-dh-value", 0x04),
                      ("bad-dh-len", 0x08), ("short", 0x20)):
        out["reply-" + name] = b"\1" + a_neg() + a_recv() + bytes([A_REPLY, how]) + \
            (bytes(256) if how & 0x04 else b"") + a_recv() + bytes([A_GATED])
    out["wrong-tid"] = b"\0" + a_neg(groups=null) + a_recv() + a_reply(tid=0x1234) + a_recv()
    out["out-of-order"] = b"\4" + a_recv() + bytes([A_SUCC2, 0, A_FAIL2, 0]) + a_neg(groups=null) + \
        bytes([A_SUCC2, 0]) + a_recv() + a_recv()
    out["negotiate-bad"] = b"\0" + a_neg(scc=1) + a_recv() + a_neg(napd=2) + a_neg((9,), null) + \
        a_neg(groups=(9,)) + a_recv(al=8)
    # A NEGOTIATE the controller refuses (SECP) changes nothing: the CHALLENGE is
    # the first one's (the harness once took the refused one's lists).
    out["negotiate-refused"] = b"\4" + a_neg((SHA256,), null) + \
        a_op(A_NEG, None, 0xEA010100) + bytes([0, 1, 1, 1]) + a_ids((SHA512,), (1,)) + \
        a_recv() + a_reply() + a_recv()
    out["short-al"] = b"\1" + a_neg() + a_recv(al=16) + a_recv(al=3) + a_recv()
    out["bad-secp"] = b"\0" + a_recv(cdw10=0xEA010100) + a_recv(cdw10=0xE9020100) + a_recv(cdw10=0)
    neg = struct.pack("<BBHHBB", 0, 0, 0, 1, 0, 1) + bytes([1, 0, 3, 1]) + a_ids((1, 2, 3), null)
    out["raw-negotiate"] = b"\0" + bytes([A_RAW]) + struct.pack("<HH", len(neg), len(neg)) + neg + \
        a_recv() + bytes([A_RAW]) + struct.pack("<HH", 4097, 0)
    return out


# ---- secrets and identities (fuzz_keys.c): the unit tests' ----

DHHC_KEYS = [
    b"DHHC-1:00:EzrV37kZ2MrTcnnOazt8QU+eaO4ClakD0dCUkLPXQarqn0jB:",
    b"DHHC-1:01:hkvLJezZUgf7679DpCWaKKHhPxoohyzMRldaJ4yQXuJa3ylC:",
    b"DHHC-1:02:6qfee0KJqpAkzrBxqnnM5Fd+JVXJXPhjKUvJNzntzzqASsFAhh1Gp1QP/KRVrbTynqn1Iw==:",
    b"DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:",
]
TLS_KEYS = [
    b"NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:",
    b"NVMeTLSkey-1:01:MDAxMTIyMzM0NDU1NjY3Nzg4OTlhYWJiY2NkZGVlZmZwJEiQ:",
]


def keys_seeds():
    out = {}
    for i, k in enumerate(DHHC_KEYS):
        out["dhchap-%d" % i] = b"\0" + k
    out["dhchap-bad-crc"] = b"\0" + DHHC_KEYS[0][:-2] + b"C:"
    for i, k in enumerate(TLS_KEYS):
        out["tls-key-%d" % i] = b"\1" + k
    out["tls-key-hash-05"] = b"\1" + TLS_KEYS[0].replace(b":01:", b":05:")
    digest = b"X6PYLAO1LeaqodKKFqkcgXxMtFWkQ7hpx5b7LnMdUG+yWnbh3/oCmlwmjSQQGpKh"
    for v, tail in ((1, b" " + digest), (0, b"")):
        out["ident-v%d" % v] = b"\2" + b"NVMe%dR01 " % v + HOSTNQN + b" " + SUBNQN + tail
    out["ident-sha384"] = b"\2NVMe1R02 " + HOSTNQN + b" " + SUBNQN + b" " + digest
    out["make-v1"] = b"\3\1" + HOSTNQN + b"\0" + SUBNQN
    out["make-v0"] = b"\3\0" + HOSTNQN + b"\0" + SUBNQN
    return out


# ---- TLS listeners (fuzz_tls: fuzz_tcp.c with FUZZ_TCP_TLS) ----

def hkdf_label(ikm, label, ctx, n):
    """RFC 8446 HKDF-Expand-Label(HKDF-Extract(0, ikm), label, ctx, n), SHA-256."""
    prk = hmac.new(b"\0" * 32, ikm, hashlib.sha256).digest()
    info = struct.pack(">H", n) + bytes([6 + len(label)]) + b"tls13 " + label + \
        bytes([len(ctx)]) + ctx
    return hmac.new(prk, info + b"\x01", hashlib.sha256).digest()[:n]


def tls_identity():
    """The host's PSK identity and TLS PSK of TLS_KEYS[0] (SHA-256), version 1."""
    raw = base64.b64decode(TLS_KEYS[0].split(b":")[2])[:32]
    retained = hkdf_label(raw, b"HostNQN", HOSTNQN, 32)
    digest = base64.b64encode(hmac.new(retained, HOSTNQN + b" " + SUBNQN + b" NVMe-over-Fabrics",
                                       hashlib.sha256).digest())
    ident = b"NVMe1R01 " + HOSTNQN + b" " + SUBNQN + b" " + digest
    return ident, hkdf_label(retained, b"nvme-tls-psk", b"01 " + digest, 32)


def client_hello(ident, psk):
    """The first flight of openssl s_client with that PSK (a TLS 1.3 ClientHello)."""
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(1)
    p = subprocess.Popen(["openssl", "s_client", "-connect", "127.0.0.1:%d" % ls.getsockname()[1],
                          "-tls1_3", "-ciphersuites", "TLS_AES_128_GCM_SHA256", "-psk", psk.hex(),
                          "-psk_identity", ident.decode(), "-quiet"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    c, _ = ls.accept()
    c.settimeout(5)
    data = b""
    while len(data) < 5 or len(data) < 5 + struct.unpack(">H", data[3:5])[0]:
        d = c.recv(65536)
        if not d:
            break
        data += d
    c.close()
    ls.close()
    p.kill()
    p.wait()
    return data


def tls_seeds(capture):
    """Bit 7 of the first byte: the "allowed" listener (else "required")."""
    out = {}
    plain = tcp_streams()["admin-connect-plain"][1:]
    out["allowed-plain"] = b"\x80" + plain
    out["allowed-plain-cut1"] = b"\x81" + plain
    out["required-plain"] = b"\0" + plain
    if capture:
        ident, psk = tls_identity()
        hello = client_hello(ident, psk)
        wrong = client_hello(ident, bytes(32))
        for name, h in (("hello", hello), ("hello-wrong-psk", wrong)):
            out["required-" + name] = b"\0" + h
            out["allowed-" + name] = b"\x80" + h
            out["required-" + name + "-cut5"] = b"\x05" + h
    return out


# ---- configuration and state files ----

CONFIGS = {
    "ram": """{"listeners": [{"address": "127.0.0.1", "port": 4420}],
 "subsystems": [{"nqn": "nqn.2026-12.io.blox:a", "allow_any_host": true,
   "namespaces": [{"nsid": 1, "backend": "ram", "size": "64M", "block_size": 512}]}]}""",
    "hosts": """{"subsystems": [{"nqn": "nqn.2026-12.io.blox:b", "serial": "S1", "model": "M",
   "hosts": ["%s"],
   "namespaces": [{"backend": "null", "size": 1073741824}]}],
 "listeners": [{"address": "::1", "port": 4421, "discovery_only": true}]}""" % HOSTNQN.decode(),
    "nand": """{"listeners": [{"address": "0.0.0.0", "port": 4420}],
 "subsystems": [{"nqn": "nqn.2026-12.io.blox:c", "allow_any_host": true,
   "namespaces": [{"nsid": 3, "backend": "nand", "size": "16M",
     "nand": {"channels": 1, "dies_per_channel": 1}}]}]}""",
    "listener-only": "{\"listeners\": [{\"address\": \"127.0.0.1\", \"port\": 4420}]}",
    "comment": "// a comment\n{\"listeners\": [{\"address\": \"127.0.0.1\", \"port\": 8009, \"discovery_only\": true}]} /* end */\n",
}


def config_seeds(bloxd):
    out = {n: t.encode() for n, t in CONFIGS.items()}
    with open(os.path.join(TOP, "docs", "bloxd.example.json"), "rb") as f:
        out["example"] = f.read()
    state = {}
    if bloxd:
        with tempfile.TemporaryDirectory() as tmp:
            for name, text in out.items():
                p = os.path.join(tmp, name + ".json")
                with open(p, "wb") as f:
                    f.write(text)
                r = subprocess.run([bloxd, "--config", p, "--data-dir", tmp, "--print-config"],
                                   capture_output=True)
                if r.returncode == 0 and r.stdout.strip():
                    state[name] = r.stdout
    return out, state


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bloxd", help="a bloxd to print the state seeds with")
    ap.add_argument("--client-hello", action="store_true",
                    help="capture openssl s_client's ClientHello for the TLS seeds")
    a = ap.parse_args()
    for name, data in tcp_streams().items():
        write("tcp", name, data)
    for name, data in cmd_seeds().items():
        write("cmd", name, data)
    for name, data in logpage_seeds().items():
        write("logpage", name, data)
    for name, data in pdu_seeds().items():
        write("pdu", name, data)
    for name, data in auth_seeds().items():
        write("auth", name, data)
    for name, data in keys_seeds().items():
        write("keys", name, data)
    for name, data in tls_seeds(a.client_hello).items():
        write("tls", name, data)
    for name, data in adm_seeds().items():
        write("adm", name, data)
    configs, states = config_seeds(a.bloxd)
    for name, data in configs.items():
        write("config", name, data)
        write("state", name, data)
    for name, data in states.items():
        write("state", "printed-" + name, data)


if __name__ == "__main__":
    main()
