"""A stand-in for batond's side of the contract (src/ipc/proto.h, shm.h):
accepts a tenant's hello with its memfd, answers, reads the telemetry ring
and writes the control block. It checks what the shim sends as strictly
as batond must, so the shim is tested against the contract, not against
the daemon's current code."""

import fcntl
import json
import mmap
import os
import socket
import struct
import time

from glharness import Fail, check

SHM_MAGIC = 0x31534D484E544142
SHM_VERSION = 2
RING_CAPACITY = 256
HEADER, CONTROL, RING, RECORD = 64, 64, 64, 64
QUALITY = 6464  # struct baton_quality (shm.h), after the records
SHM_SIZE = HEADER + CONTROL + RING + RING_CAPACITY * RECORD + QUALITY
CONTROL_OFF = HEADER
RING_OFF = HEADER + CONTROL
RECORDS_OFF = RING_OFF + RING
F_SEAL_FUTURE_WRITE = 0x10  # linux/fcntl.h; not in Python's fcntl
CONTROL_VALID = 1
FRAME_GPU_FENCE = 1
# struct baton_frame: seq, present, cpu, sleep, period, gpu, gpu_frame,
# flags, gate_us
FRAME = struct.Struct("<QqqqqqQII")
HEADER_FMT = struct.Struct("<QIIQIIIIII")


class Tenant:
    """One accepted connection: the hello, the memfd and its mapping."""

    def __init__(self, conn, hello, fd):
        self.conn = conn
        self.hello = hello
        self.fd = fd
        self.stat = os.fstat(fd)
        self.mm = None

    def close(self):
        if self.conn:
            self.conn.close()
            self.conn = None

    def send(self, obj):
        self.conn.sendall((json.dumps(obj) + "\n").encode())

    def map(self):
        seals = fcntl.fcntl(self.fd, fcntl.F_GET_SEALS)
        need = fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW
        check(seals & need == need, "memfd seals 0x%x lack shrink|grow"
              % seals)
        check(not seals & (fcntl.F_SEAL_WRITE | F_SEAL_FUTURE_WRITE),
              "memfd is write-sealed")
        check(self.stat.st_size == SHM_SIZE, "memfd is %d bytes, not %d"
              % (self.stat.st_size, SHM_SIZE))
        self.mm = mmap.mmap(self.fd, SHM_SIZE, mmap.MAP_SHARED,
                            mmap.PROT_READ | mmap.PROT_WRITE)
        (magic, version, header_size, total, control_off, ring_off,
         records_off, record_size, capacity, pid) = \
            HEADER_FMT.unpack_from(self.mm, 0)
        check(magic == SHM_MAGIC, "bad magic 0x%x" % magic)
        check((version, header_size, total, control_off, ring_off,
               records_off, record_size, capacity) ==
              (SHM_VERSION, HEADER, SHM_SIZE, CONTROL_OFF, RING_OFF,
               RECORDS_OFF, RECORD, RING_CAPACITY),
              "header does not match shm.h")
        return pid

    def set_target(self, period_ns, valid=True, cap=0.0):
        """Publishes a target (and a GPU-time cap, 0: none) under the
        seqlock, as batond does."""
        seq = struct.unpack_from("<I", self.mm, CONTROL_OFF)[0]
        struct.pack_into("<I", self.mm, CONTROL_OFF, seq + 1)
        struct.pack_into("<qQII", self.mm, CONTROL_OFF + 8, period_ns,
                         int(time.monotonic()),
                         CONTROL_VALID if valid else 0, round(cap * 1e9))
        struct.pack_into("<I", self.mm, CONTROL_OFF, seq + 2)

    def records(self):
        """Every record still in the ring, oldest first, as tuples."""
        head = struct.unpack_from("<Q", self.mm, RING_OFF)[0]
        first = max(0, head - RING_CAPACITY + 8)  # slack: a live producer
        out = []
        for i in range(first, head):
            rec = FRAME.unpack_from(
                self.mm, RECORDS_OFF + (i % RING_CAPACITY) * RECORD)
            if rec[0] == i + 1:
                out.append(rec)
        return out

    def fps_between(self, t0, t1):
        """Frame rate from the records presented in [t0, t1] (monotonic
        ns), and those records."""
        recs = [r for r in self.records() if t0 <= r[1] <= t1]
        check(len(recs) >= 3, "only %d frames between the marks"
              % len(recs))
        return (len(recs) - 1) * 1e9 / (recs[-1][1] - recs[0][1]), recs


class FakeDaemon:
    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(4)

    def close(self):
        if self.sock:
            self.sock.close()
            self.sock = None
            os.unlink(self.path)

    def accept(self, timeout):
        """The next tenant, or None if none connects in time. A client
        (`baton run` asking where to place its game) is answered as a
        batond with one GPU answers it, and the wait goes on."""
        deadline = time.monotonic() + timeout
        while True:
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                return None
            tenant = self._hello(conn)
            if tenant:
                return tenant

    @staticmethod
    def _client(conn, data):
        """A client connection: its welcome, then a one-GPU placement
        for each place request, until it closes."""
        conn.sendall(b'{"type":"welcome","version":1}\n')
        f = conn.makefile("rb")
        rest = data[data.index(b"\n") + 1:]
        while True:
            line = rest if rest.endswith(b"\n") else rest + f.readline()
            rest = b""
            if not line.strip():
                break
            req = json.loads(line)
            check(req.get("type") == "place",
                  "a client asked the fake daemon %r" % req)
            conn.sendall(json.dumps({
                "type": "place", "placed": True, "by": "only",
                "cost": "unknown",
                "gpu": {"name": "gpu0", "device": "", "pci": "", "uuid": "",
                        "cpus": "", "kind": "unknown"}}).encode() + b"\n")
        conn.close()

    def _hello(self, conn):
        """The tenant of a connection; None for a client, answered, or
        one that closed unheard (baton run's check of who listens)."""
        conn.settimeout(5)
        data, fds = b"", []
        while b"\n" not in data:
            msg, got, _, _ = socket.recv_fds(conn, 4096, 4)
            if not msg and not data:
                conn.close()
                return None
            check(msg, "connection closed before the hello ended")
            data += msg
            fds += got
        if not fds and json.loads(data.split(b"\n")[0]).get(
                "role") == "client":
            self._client(conn, data)
            return None
        check(len(fds) == 1, "hello came with %d descriptors" % len(fds))
        check(data.count(b"\n") == 1, "more than the hello: %r" % data)
        hello = json.loads(data.decode("utf-8"))
        conn.settimeout(None)
        return Tenant(conn, hello, fds[0])
