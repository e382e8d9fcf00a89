"""The shipped figures (common/tables/shipped.py): made from the committed table, never typed."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import REPO, run_python

from common import hw_specs
from common.exercises import shipped_chip, with_peak
from common.tables import shipped


def table_is_committed() -> bool:
    """True when common/hw_specs.py is the committed one (a student's edit skips the check)."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        return False
    done = subprocess.run(
        ["git", "diff", "--quiet", "HEAD", "--", "common/hw_specs.py", "common/tables/shipped.py"],
        cwd=REPO,
        check=False,
    )
    return done.returncode == 0


@pytest.mark.skipif(not table_is_committed(), reason="the table has uncommitted edits")
def test_the_shipped_file_is_the_committed_table() -> None:
    done = run_python("tools/shipped_table.py", "--check")
    assert done.returncode == 0, done.stdout


def test_published_figures_are_there() -> None:
    # NVIDIA A100 datasheet: 312 TFLOPS dense bf16, 1,555 GB/s; H100 SXM: 3.35 TB/s
    assert shipped.FIGURES["a100"]["peak bf16"] == 312e12
    assert shipped.FIGURES["a100"]["mem_bw_figure"] == 1555e9
    assert shipped.FIGURES["h100"]["mem_bw_figure"] == 3.35e12
    assert set(shipped.FIGURES) == set(hw_specs.CHIPS)
    back = shipped_chip(with_peak(hw_specs.A100, "bf16", 1979e12))
    assert (back.name, back.peak_flops("bf16"), back.mem_bw) == (hw_specs.A100.name, 312e12, 1555e9)
    assert back.peak_flops("int8") == 624e12  # the figures not edited stay as they were
