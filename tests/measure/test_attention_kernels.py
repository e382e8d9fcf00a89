"""The numpy attention kernels agree with a float64 softmax(Q K^T) V written here, and the tiled
kernel's reads, counted by arrays that log every slice taken, are its byte count."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fakes import FakeClock

from common.formulas import numpy_ops
from common.measure import attention

TOLERANCE = 1e-4  # the bound on the relative error between the kernels


def reference(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """softmax(Q K^T) V in float64, one head, no scaling."""
    s = q.astype(np.float64) @ k.astype(np.float64).T
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return (p / p.sum(axis=1, keepdims=True)) @ v.astype(np.float64)


def rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


CASES = [
    # (N, d_h, Br, Bc)
    (64, 16, 16, 16),  # blocks divide N
    (100, 32, 7, 13),  # neither divides N
    (257, 64, 31, 47),
    (128, 128, 128, 128),  # one block of everything
    (50, 8, 1, 1),  # single rows
    (300, 16, 300, 7),  # one query block, many key blocks
    (300, 16, 11, 300),  # one key block
    (1, 4, 1, 1),
]


@pytest.mark.parametrize(("n", "d", "br", "bc"), CASES)
@pytest.mark.parametrize("scale", [1.0, 0.125, 4.0])
def test_tiled_equals_naive_and_the_reference(
    n: int, d: int, br: int, bc: int, scale: float
) -> None:
    q, k, v = attention.random_qkv(n, d, seed=n + d, scale=scale)
    want = reference(q, k, v)
    naive = attention.make_naive(q, k, v)().copy()
    tiled = attention.make_tiled(q, k, v, br, bc)().copy()
    assert naive.dtype == tiled.dtype == np.float32 and rel(tiled, want) <= TOLERANCE
    assert rel(naive, want) <= TOLERANCE and attention.relative_error(tiled, naive) <= TOLERANCE


def test_a_kernel_can_be_called_again_and_gives_the_same_result() -> None:
    q, k, v = attention.random_qkv(90, 16, seed=3)
    kernel = attention.make_tiled(q, k, v, 20, 30)
    first = kernel().copy()
    assert np.array_equal(kernel(), first)  # buffers reset at every outer step
    naive = attention.make_naive(q, k, v)
    once = naive().copy()
    assert np.array_equal(naive(), once)
    q, k, v = attention.random_qkv(10, 3, seed=1, scale=0.5)
    q1, k1, _ = attention.random_qkv(10, 3, seed=1)
    assert q.dtype == k.dtype == v.dtype == np.float32
    assert np.allclose(q, 0.5 * q1) and np.array_equal(k, k1)
    assert numpy_ops.attention_naive_counts(4, 2) == (208.0, 768.0)
    assert attention.block_count(100, 7, 13) == 15 * 8 and attention.block_count(64, 64, 64) == 1
    # O (100 x 8) + S (7 x 13) + tail S (7 x 9) + accumulator and P V (2 x 7 x 8) + 5 x 7.
    assert attention.tiled_memory_bytes(100, 8, 7, 13) == 4 * (800 + 91 + 63 + 112 + 35)
    assert attention.naive_memory_bytes(100, 8) == 4 * (10_000 + 800 + 200)
    # U(7, 13) in fp32 at d = 8 = 224 + 832 + 364 + 224 + 56, plus P V 224 and 3 x 7 x 4.
    assert attention.tiled_cache_bytes(8, 7, 13) == 1700 + 224 + 84
    assert attention.relative_error(np.array([1.0, 2.5]), np.array([1.0, 2.0])) == 0.25
    assert attention.relative_error(np.zeros(3), np.zeros(3)) == 0.0
    clock, calls = FakeClock(start=0.0), []
    durations = {"a": iter([2.0, 2.0]), "b": iter([5.0, 1.0])}

    def kernel(name: str):
        def run() -> None:
            calls.append(name)
            clock.now += next(durations[name])

        return run

    best = attention.best_times(
        {"a": kernel("a"), "b": kernel("b")}, 0.0, rounds=2, warmup=0, clock=clock)  # fmt: skip
    assert best == {"a": 2.0, "b": 1.0} and calls == ["a", "b", "a", "b"]
    step = attention.fixed_cost_per_block(0.02, rows=4)
    exp = attention.exp_seconds_per_element(16, 16, 0.01)
    assert 0 < step < 0.01  # one step of 1 x 1 blocks: microseconds, not milliseconds
    assert 0 < exp < 1e-6


class Tracked(np.ndarray):
    """An array that adds the bytes of every row slice taken of it to a shared log."""

    log: list[int]

    def __getitem__(self, index: object) -> object:
        view = super().__getitem__(index)
        if self.base is None or getattr(self, "_root", False):
            Tracked.log.append(int(np.asarray(view).nbytes))
        return view


def tracked(a: np.ndarray) -> Tracked:
    out = np.array(a, dtype=np.float32).view(Tracked)
    out._root = True  # type: ignore[attr-defined]
    return out


@pytest.mark.parametrize(("n", "d", "br", "bc"),
                         [(64, 16, 16, 16), (100, 8, 7, 13), (60, 4, 9, 60)])  # fmt: skip
def test_tiled_reads_match_the_byte_count(n: int, d: int, br: int, bc: int) -> None:
    q, k, v = attention.random_qkv(n, d, seed=5)
    Tracked.log = []
    kernel = attention.make_tiled(tracked(q), tracked(k), tracked(v), br, bc)
    Tracked.log = []  # count one call, not the set-up
    kernel()
    read = sum(Tracked.log)
    t_r, t_c = math.ceil(n / br), math.ceil(n / bc)
    # Q once; K and V once per query block; each slice of K or V counted as taken.
    assert read == 4 * n * d * (1 + 2 * t_r)
    flops, nbytes = attention.tiled_counts(n, d, br, bc)
    written = 4 * n * d  # O, once
    if t_c == 1:  # one key block: the model charges K and V once (they stay on chip)
        assert nbytes == 4 * n * d * 4
    else:
        assert nbytes == read + written
    assert flops == 4 * n * n * d + 5 * n * n
