"""The hierarchy sweep's measurements (common.measure.hierarchy): structure, not speed."""

from __future__ import annotations

import itertools

import pytest

from common.measure import hierarchy as sweep


# ---------------------------------------------------------------------------
# Measuring half (tiny and quick: structure, not speed)
# ---------------------------------------------------------------------------
def test_stream_arrays_and_timers() -> None:
    np = pytest.importorskip("numpy")
    arrays = sweep.StreamArrays(4096)
    x, y, z = arrays.views(1000)
    assert x.shape == y.shape == z.shape == (1000,) and x.dtype == np.float32
    assert not np.shares_memory(x, z) and not np.shares_memory(y, z)
    # the arrays start 1 KiB apart modulo 4 KiB (no 4K aliasing)
    starts = [a.__array_interface__["data"][0] for a in (x, y, z)]
    assert {(b - a) % 4096 for a, b in itertools.pairwise(starts)} == {1024}
    arrays.add_call(1000)()
    assert float(z[0]) == 2.0
    with pytest.raises(ValueError):
        arrays.views(0)
    with pytest.raises(ValueError):
        arrays.views(4097)

    costs = sweep.measure_call_costs(arrays, budget_s=0.01)
    assert costs["call_seconds"] > 0 and costs["gil_seconds"] >= 0
    points = sweep.run_sweep(arrays, [16, 256, 4096], budget_s=0.01)
    assert [p["working_set_bytes"] for p in points] == [192, 3072, 49152]
    assert all(p["seconds"] > 0 and p["batches"] >= 3 for p in points)
    threads = sweep.measure_threads(arrays, 4096, threads=2, repeat=2)
    assert threads["threads"] == 2
    assert threads["one_thread_bytes_per_s"] > 0 and threads["all_thread_bytes_per_s"] > 0
    single = sweep.measure_threads(arrays, 4096, threads=1, repeat=2)
    assert single["all_thread_bytes_per_s"] is None
