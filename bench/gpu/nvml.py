"""NVML through ctypes, for bench/gpu/check: the GPU's utilization and
each process's share of the SMs, sampled in a thread. Standard library
only; libnvidia-ml.so.1 comes with the NVIDIA driver.

The calls and structures are NVML's documented API (nvml.h, the NVML
API Reference): nvmlInit_v2, nvmlDeviceGetHandleByIndex_v2,
nvmlDeviceGetName, nvmlSystemGetDriverVersion,
nvmlDeviceGetUtilizationRates (nvmlUtilization_t: gpu, memory, percent
over the driver's last sample period) and nvmlDeviceGetProcessUtilization
(nvmlProcessUtilizationSample_t: pid, timeStamp, smUtil, memUtil, encUtil,
decUtil; the samples newer than lastSeenTimeStamp, in us)."""

import ctypes
import threading
import time

NVML_SUCCESS = 0
NVML_ERROR_INSUFFICIENT_SIZE = 7
NVML_ERROR_NOT_FOUND = 6


class Utilization(ctypes.Structure):
    _fields_ = [("gpu", ctypes.c_uint), ("memory", ctypes.c_uint)]


class ProcessSample(ctypes.Structure):
    _fields_ = [("pid", ctypes.c_uint), ("timeStamp", ctypes.c_ulonglong),
                ("smUtil", ctypes.c_uint), ("memUtil", ctypes.c_uint),
                ("encUtil", ctypes.c_uint), ("decUtil", ctypes.c_uint)]


class NvmlError(Exception):
    pass


class Nvml:
    """Device 0. Raises NvmlError when NVML cannot be loaded or started."""

    def __init__(self, index=0):
        try:
            self.lib = ctypes.CDLL("libnvidia-ml.so.1")
        except OSError as e:
            raise NvmlError("libnvidia-ml.so.1: %s" % e) from None
        self._ok(self.lib.nvmlInit_v2(), "nvmlInit_v2")
        self.dev = ctypes.c_void_p()
        self._ok(self.lib.nvmlDeviceGetHandleByIndex_v2(
            index, ctypes.byref(self.dev)), "nvmlDeviceGetHandleByIndex_v2")

    def _ok(self, rc, what):
        if rc != NVML_SUCCESS:
            raise NvmlError("%s returned %d" % (what, rc))

    def _string(self, fn, *args):
        buf = ctypes.create_string_buffer(96)
        self._ok(fn(*args, buf, ctypes.c_uint(96)), fn.__name__)
        return buf.value.decode(errors="replace")

    def name(self):
        return self._string(self.lib.nvmlDeviceGetName, self.dev)

    def driver(self):
        return self._string(self.lib.nvmlSystemGetDriverVersion)

    def utilization(self):
        u = Utilization()
        self._ok(self.lib.nvmlDeviceGetUtilizationRates(
            self.dev, ctypes.byref(u)), "nvmlDeviceGetUtilizationRates")
        return u.gpu / 100.0

    def process_samples(self, since_us):
        """[(pid, timeStamp us, smUtil share)] newer than since_us."""
        n = ctypes.c_uint(0)
        rc = self.lib.nvmlDeviceGetProcessUtilization(
            self.dev, None, ctypes.byref(n), ctypes.c_ulonglong(since_us))
        if rc == NVML_ERROR_NOT_FOUND or n.value == 0:
            return []
        if rc not in (NVML_SUCCESS, NVML_ERROR_INSUFFICIENT_SIZE):
            raise NvmlError("nvmlDeviceGetProcessUtilization returned %d"
                            % rc)
        arr = (ProcessSample * (n.value + 8))()
        n = ctypes.c_uint(n.value + 8)
        rc = self.lib.nvmlDeviceGetProcessUtilization(
            self.dev, arr, ctypes.byref(n), ctypes.c_ulonglong(since_us))
        if rc == NVML_ERROR_NOT_FOUND:
            return []
        self._ok(rc, "nvmlDeviceGetProcessUtilization")
        return [(s.pid, s.timeStamp, s.smUtil / 100.0)
                for s in arr[:n.value]]


class Sampler:
    """The GPU's utilization and every process's SM share, every period
    seconds, with CLOCK_MONOTONIC times, so that any window can be read
    afterwards."""

    def __init__(self, nvml, period=0.2):
        self.nvml, self.period = nvml, period
        self.util = []   # (t, share)
        self.procs = []  # (t, pid, share)
        self.errors = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.done.set()
        self.thread.join()

    def _run(self):
        seen = 0
        while not self.done.wait(self.period):
            t = time.monotonic()
            try:
                self.util.append((t, self.nvml.utilization()))
                # a query may return several samples of a process:
                # their mean is its share at this tick
                got = {}
                for pid, ts, share in self.nvml.process_samples(seen):
                    seen = max(seen, ts)
                    got.setdefault(pid, []).append(share)
                for pid, v in got.items():
                    self.procs.append((t, pid, sum(v) / len(v)))
            except NvmlError as e:
                if len(self.errors) < 5:
                    self.errors.append(str(e))

    def mean_util(self, lo, hi):
        v = [u for t, u in self.util if lo <= t <= hi]
        return sum(v) / len(v) if v else float("nan")

    def process_share(self, pids, lo, hi):
        """Mean SM share of the processes in pids over [lo, hi]: their
        shares summed at each tick (a game's helper processes count for
        it), a tick without a sample of theirs counted as 0; nan without
        ticks."""
        ticks = sum(1 for t, _ in self.util if lo <= t <= hi)
        total = sum(share for t, pid, share in self.procs
                    if lo <= t <= hi and pid in pids)
        return total / ticks if ticks else float("nan")
