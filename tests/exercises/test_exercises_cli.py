"""``python3 -m common.exercises`` behaves like a lecture: statuses (0 done, 1 a full disk, 2 an
unknown key, 130 Ctrl-C), one-line errors, quiet exits."""

from __future__ import annotations

import dataclasses
import fcntl
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, child_env, run_python, start_python
from strategies import SHIPPED, patched_hardware

from common.exercises import EXERCISES, Answer, Exercise, Table, get_exercise, text

CMD = ("-m", "common.exercises")


def test_help_lists_the_keys(capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    done = run_python(*CMD, "nope")
    assert done.returncode == 2 and done.stderr.splitlines() == [done.stderr.strip()]
    assert done.stderr.startswith("common.exercises: error: unknown exercise 'nope'; choose one")
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, *CMD], cwd=REPO, stdout=full, stderr=subprocess.PIPE, text=True,
            env=child_env(), check=False,
        )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.splitlines() == ["common.exercises: error: No space left on device"]
    with start_python(*CMD, cwd=REPO) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.close()  # like `| head -1`
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=60) == 0
    assert err == ""
    for flag in ("--help", "-h"):
        assert text.main([flag]) == 0
        assert capsys.readouterr().out.splitlines() == [
            "usage: python3 -m common.exercises [KEY ...]",
            "keys: " + ", ".join(e.key for e in EXERCISES),
        ]
    monkeypatch.setattr(sys, "argv", ["common.exercises", "gqa-decode"])
    assert text.main() == 0  # the keys come from sys.argv[1:]
    lines = capsys.readouterr().out.splitlines()
    title = "Decode attention with MHA, GQA and MQA"
    assert lines[:4] == [title, "=" * len(title), "(from this course)", ""]
    assert any("MQA (1 KV head)" in line for line in lines)  # the answer's table
    shown = text.format_exercise(get_exercise("a100-peak-edit"))
    assert "In common/hw_specs.py set the A100's bf16 peak_flops to 1979e12" in shown
    # Issue 34: a deleted shared-memory figure stopped all 17 exercises with one line.
    table = dict(SHIPPED, h100=dataclasses.replace(SHIPPED["h100"], smem_per_sm_figure=None))
    with patched_hardware(table):
        assert text.main([]) == 0
        out = capsys.readouterr().out
        why = "No worked answer with this table: H100 SXM has no shared-memory-per-SM figure"
        # the two tiled-attention exercises read the H100's shared memory; the rest answer
        assert out.count(why) == 2 and out.count("Worked answer:") == len(EXERCISES) - 2
        assert text.main(["tiled-compute-bound"]) == 1
        err = capsys.readouterr().err
        assert err.splitlines() == [
            "common.exercises: error: tiled-compute-bound: H100 SXM has no shared-memory-per-SM "
            "figure in the table"
        ]

    # Title, rule, origin, question, a blank line, the answer (or why there is none); code marks
    # dropped; exercises apart by one blank line.
    def solve() -> Answer:
        return Answer(("one ``step``",), {}, r"F = 2\,M", Table(("a", "b"), (("1", "2"),)))

    def fail() -> Answer:
        raise ValueError("no ``B300`` link")

    ok = Exercise("ok", "Title", "here", "Is ``x`` big?", solve)
    bad = Exercise("bad", "Other", "there", "And ``y``?", fail)
    head = ["Title", "=====", "(from here)", "", "Is x big?", "", "Worked answer:"]
    shown = text.format_exercise(ok).splitlines()
    assert shown[:7] == head and shown[8:10] == ["- one step", ""]
    assert shown[7].startswith("  F = 2") and shown[10].split() == ["a", "b"]
    why = ["Other", "=====", "(from there)", "", "And y?", ""]
    why.append("No worked answer with this table: no B300 link.")
    monkeypatch.setattr(text, "EXERCISES", (ok, bad))
    assert text.main([]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("Title\n=====\n") and printed.endswith("\n\n" + "\n".join(why) + "\n")
    assert "\n\n\nOther" not in printed


@pytest.mark.skipif(not Path("/proc/self/wchan").exists(), reason="needs /proc to see the wait")
def test_ctrl_c_is_one_line_and_ends_by_sigint() -> None:
    """Interrupted while it writes into a full pipe: one line, then the SIGINT status."""
    with start_python(*CMD, cwd=REPO) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        fcntl.fcntl(proc.stdout.fileno(), 1031, 4096)  # F_SETPIPE_SZ: the output cannot fit
        wchan = Path(f"/proc/{proc.pid}/wchan")
        deadline = time.monotonic() + 60
        while "pipe" not in wchan.read_text() and time.monotonic() < deadline:
            time.sleep(0.01)  # blocked writing its answers
        proc.send_signal(signal.SIGINT)
        time.sleep(0.5)
        proc.stdout.close()
        err = proc.stderr.read().decode()
        status = proc.wait(timeout=60)
    assert status == -signal.SIGINT  # a shell shows 130
    assert err.splitlines() == ["common.exercises: interrupted; nothing half-written was kept"]
