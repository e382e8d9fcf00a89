"""PyTorch's two roofs on this machine, and what its profiler recorded (lecture 12 only)."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any, NamedTuple

from common.formulas.roofline import ridge_point
from common.hw_specs import bytes_per_elem
from common.measure import roofs
from common.measure.budget import Budget
from common.measure.timing import best_time
from common.shell.paths import display_path

TORCH_DTYPES = {"fp32": "float32", "bf16": "bfloat16"}  # the course's precision -> torch's name
#: The profiler's names of the matrix products: weight matmuls and attention's batched ones.
WEIGHT_MATMULS = ("aten::mm", "aten::addmm")
BATCHED_MATMULS = ("aten::bmm", "aten::baddbmm")
#: Operators whose work the ledger counts (matmuls, softmax, the norms' and MLP's elementwise
#: arithmetic, the lookup); any other operator's time is one the ledger does not explain.
LEDGER_OPS = (*WEIGHT_MATMULS, *BATCHED_MATMULS, "aten::_softmax", "aten::mul", "aten::add",
              "aten::silu", "aten::mean", "aten::pow", "aten::rsqrt", "aten::index")  # fmt: skip


def check_import() -> None:
    """Import torch; a torch that is installed but fails to load is one line (ValueError)."""
    try:
        import torch  # noqa: F401
    except Exception as exc:  # a broken or half-installed torch: any error its import raises
        said = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
        raise ValueError(
            f"torch is installed but failed to load ({type(exc).__name__}: {said}); "
            'reinstall it: pip install --force-reinstall -e ".[profile]"'
        ) from None


class Roofs(NamedTuple):
    """One precision's measured roofs: matmul FLOP/s and streaming bytes/s."""

    precision: str
    peak: float
    bw: float
    matmul_n: int
    stream_bytes: int

    @property
    def ridge(self) -> float:
        """I* = P / beta, in FLOP/byte."""
        return ridge_point(self.peak, self.bw)


def _synced(fn: Callable[[], object], device: str) -> Callable[[], object]:
    """fn, followed by torch.cuda.synchronize() on a GPU."""
    if device != "cuda":
        return fn
    import torch

    def call() -> None:
        fn()
        torch.cuda.synchronize()

    return call


def measure(precision: str, device: str, quick: bool, plan: Budget) -> Roofs:
    """Time torch.mm on n x n and torch.add over W bytes: P = 2 n^3 / t, beta = W / t."""
    import torch

    dtype, size = getattr(torch, TORCH_DTYPES[precision]), bytes_per_elem(precision)
    times = roofs.QUICK_BUDGET if quick else roofs.FULL_BUDGET

    def square(n: int) -> tuple[Any, Any]:
        a = torch.rand(n, n, device=device).to(dtype)
        return a, torch.empty_like(a)

    def time_call(n: int) -> float:
        a, c = square(n)
        return best_time(_synced(partial(torch.mm, a, a, out=c), device), repeat=2)

    n = roofs.matmul_size_for(times["matmul_call_s"], plan.arrays_bytes // 8, time_call)
    a, c = square(n)
    stream_bytes = roofs.bandwidth_working_set_bytes(plan, int(3 * size * n * n))
    x = torch.ones(int(stream_bytes // (3 * size)), dtype=dtype, device=device)
    y, z = torch.ones_like(x), torch.empty_like(x)
    add, mm = partial(torch.add, x, y, out=z), partial(torch.mm, a, a, out=c)
    kernels = roofs.Kernels(_synced(add, device), int(3 * size * x.numel()), _synced(mm, device), n)
    cal = roofs.RoofRun(kernels, quick, seconds=plan.seconds).start().calibration()
    return Roofs(precision, cal["matmul_flops_per_s"], cal["bandwidth_bytes_per_s"], n, kernels[1])


@contextlib.contextmanager
def kineto_quiet() -> Iterator[None]:
    """File descriptor 2 goes to /dev/null for the block: the profiler's C++ side prints a
    line there at every start and stop, and no setting turns it off."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


class OpStat(NamedTuple):
    """One row of key_averages(): calls, self and total time (us) and FLOPs."""

    name: str
    calls: int
    self_us: float
    total_us: float
    flops: float


def op_stats(averages: Any, device: bool = False) -> list[OpStat]:
    """key_averages() as plain records; with device=True the times are the GPU's."""
    kind = "device" if device else "cpu"
    return [OpStat(e.key, e.count, getattr(e, f"self_{kind}_time_total"),
                   getattr(e, f"{kind}_time_total"), float(e.flops or 0))
            for e in averages]  # fmt: skip


class Span(NamedTuple):
    """One complete event of a Chrome trace: start and duration in us, name, category."""

    start_us: float
    dur_us: float
    name: str
    cat: str


def export_trace(
    prof: Any, path: str | os.PathLike[str], folder: str | os.PathLike[str] | None = None
) -> None:
    """Write the profile's Chrome trace to `path`; OSError naming `folder` (default: the path's)
    and the space left there when the profiler could not (it prints a line and goes on)."""
    with kineto_quiet():
        prof.export_chrome_trace(str(path))
    try:
        with open(path, "rb") as f:
            json.load(f)
    except (OSError, ValueError):
        folder = folder or os.path.dirname(os.path.abspath(path))
        free = shutil.disk_usage(folder).free / 2**20
        raise OSError(
            errno.ENOSPC, f"the profiler could not write its trace there ({free:.1f} MiB free)",
            display_path(folder)) from None  # fmt: skip


def read_trace(
    path: str | os.PathLike[str], kind: int = 0
) -> tuple[list[Span], list[tuple[float, int]]]:
    """A Chrome trace's complete events ("ph": "X") and its memory events of one device
    `kind` (0 CPU, 1 CUDA) as (time in us, bytes allocated since the profiler started)."""
    with open(path, encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    spans = [Span(float(e["ts"]), float(e["dur"]), e["name"], e.get("cat", ""))
             for e in events if e.get("ph") == "X"]  # fmt: skip
    memory = [(float(e["ts"]), int(e["args"]["Total Allocated"])) for e in events
              if e.get("name") == "[memory]" and e["args"].get("Device Type") == kind]  # fmt: skip
    return spans, sorted(memory)


class Trace(NamedTuple):
    """A read trace: its spans, memory events and the category of record_function ranges."""

    spans: list[Span]
    memory: list[tuple[float, int]]
    cat: str  # 'user_annotation' on a CPU, 'gpu_user_annotation' for the GPU's side

    def phase(self, name: str) -> list[Span]:
        """The record_function ranges called `name`, in time order."""
        return sorted(s for s in self.spans if s.name == name and s.cat == self.cat)

    def rows(self, names: list[str], window: Span) -> list[tuple[str, list[tuple[float, float]]]]:
        """Per distinct name, its ranges in `window`: (start, duration) in ms from its start."""
        out: dict[str, list[tuple[float, float]]] = {n: [] for n in names}
        for s in self.spans:
            if s.cat == self.cat and s.name in out and _within(s, window):
                out[s.name].append(((s.start_us - window.start_us) / 1e3, s.dur_us / 1e3))
        return list(out.items())

    def busy_us(self, window: Span) -> float:
        """Microseconds of `window` covered by at least one operator (kernel on a GPU)."""
        kind = "kernel" if self.cat.startswith("gpu") else "cpu_op"
        busy, reach = 0.0, window.start_us
        for s in sorted(s for s in self.spans if s.cat == kind and _within(s, window)):
            end = s.start_us + s.dur_us
            busy += max(0.0, end - max(reach, s.start_us))
            reach = max(reach, end)
        return busy

    def peak_above(self, window: Span) -> int:
        """Most bytes allocated during `window` above what was allocated when it began."""
        before = [b for t, b in self.memory if t < window.start_us]
        during = [b for t, b in self.memory if _within(Span(t, 0.0, "", ""), window)]
        base = before[-1] if before else 0
        return max([base, *during]) - base


def _within(span: Span, window: Span) -> bool:
    """True when `span` starts and ends inside `window`."""
    return window.start_us <= span.start_us and (
        span.start_us + span.dur_us <= window.start_us + window.dur_us)  # fmt: skip
