"""The command line (common.shell.cli) and the bootstrap (common.shell.boot): flags against a
small parser here; the error handler, Ctrl-C and closed pipes in a child Python."""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, default_signals, demo_script, run_python

from common.shell import boot, cli


@pytest.fixture
def usage_error(capsys: pytest.CaptureFixture[str]):
    """usage_error(fn, *args): call it, expect a usage error (exit 2), return its one line."""

    def call(fn, *args) -> str:
        with pytest.raises(SystemExit) as info:
            fn(*args)
        assert info.value.code == 2
        err = capsys.readouterr().err
        lines = err.splitlines()
        assert len(lines) == 1, err
        return lines[0]

    return call


def _parser(*, png: bool = False, results: bool | None = None):
    parser = cli.lecture_parser("Demo\n====\n\nA demo lecture.", prog="demo.py")
    if png:
        cli.add_png_flags(parser)
    if results is not None:
        cli.add_results_flag(parser, saves=results)
    cli.add_budget_flag(parser)
    parser.add_argument("--batch", type=cli.batch_size, default=1)
    parser.add_argument("--context", type=cli.positive_int, default=16)
    return parser


@pytest.mark.parametrize(("flag", "value"), [
    ("--batch", "1" * 300),  # was an OverflowError traceback in lecture 06
    ("--batch", str(10**18)),  # was accepted
    ("--batch", str(2**64)),
    ("--batch", str(2**20 + 1)),  # one past the limit
    ("--batch", "0"), ("--batch", "1.5"),
    ("--context", "9" * 5000),  # beyond int()'s digit limit: ValueError, not a crash
    ("--context", str(2**30 + 1)),
    ("--budget-gib", "1e308"),  # was accepted; lectures 03 and 04 failed late
    ("--budget-gib", "100001"),
    ("--budget-gib", "1e400"),  # float('1e400') is inf
    ("--budget-gib", "nan"), ("--budget-gib", "-3"), ("--budget-gib", "0"),
])  # fmt: skip
def test_out_of_range_numbers_are_one_line_usage_errors(flag: str, value: str, usage_error) -> None:
    line = usage_error(_parser().parse_args, [flag, value])
    assert line.startswith("demo.py: error: argument ") and flag in line
    assert len(line) < 200  # a 300-digit value is quoted short
    if flag == "--batch" and value.isdigit():  # the words the lectures promise
        assert "expected a positive integer from 1 to 1,048,576" in line


def test_numbers_at_the_edges_of_their_ranges_and_choices_in_any_case_pass() -> None:
    args = _parser().parse_args(["--batch", str(2**20), "--context", "1", "--budget-gib", "1e5"])
    assert (args.batch, args.context, args.budget_gib) == (2**20, 1, 1e5)
    args = _parser().parse_args(["--budget-gib", "0.5"])
    assert args.budget_gib == 0.5
    # choices are case-insensitive
    parse = cli.one_of(["bf16", "fp8"], "precision")
    assert parse("BF16") == "bf16" and parse(" fp8 ") == "fp8"
    with pytest.raises(argparse.ArgumentTypeError, match="choose one of: bf16, fp8"):
        parse("fp64")


def test_outdir_and_default_results_are_checked_and_explained(
    tmp_path, usage_error, capsys, monkeypatch
):
    args = cli.parse_args(_parser(png=True), ["--png", "--outdir", str(tmp_path / "new")])
    assert args.png and args.outdir == tmp_path / "new" and not hasattr(args, "_given")
    assert not (tmp_path / "new").exists()  # checked, not created: the figure creates it
    assert not cli.parse_args(_parser(png=True), []).png  # the default outdir alone is fine
    # the default results path is checked too
    monkeypatch.setenv("ROOFLINE_RESULTS", str(tmp_path))  # a folder
    line = usage_error(cli.parse_args, _parser(results=True), [])
    assert "argument --results" in line and "is a folder" in line
    # --help states the --png behaviour and the results file
    with pytest.raises(SystemExit):
        _parser(png=True, results=True).parse_args(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "needs matplotlib (without it, one line says so and the lecture runs on" in text
    assert "results file that this lecture adds its section to" in text


def _run(script: Path) -> subprocess.CompletedProcess[str]:
    return run_python(str(script), timeout=60, preexec_fn=default_signals)


# An OSError's one line: test_robust.py (a newline in the name).
@pytest.mark.parametrize(("body", "words"), [
    ("raise ValueError('H100 peak must be positive\\nsecond line')", "H100 peak must be"),
    ("import numpy_that_is_not_there", "this lecture needs the course's packages"),
])  # fmt: skip
def test_errors_are_one_line_with_status_1(tmp_path, body: str, words: str) -> None:
    proc = _run(demo_script(tmp_path, body))
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("99_demo.py: error: ") and words in proc.stderr


def test_a_keyboard_interrupt_that_breaks_an_import_still_reads_as_an_interrupt(tmp_path) -> None:
    # numpy re-raises some failures inside its import as ImportError (issue 5: a 42-line
    # message). The handler sees the Ctrl-C behind it: one line, and the run ends by SIGINT.
    body = """
    import signal
    try:
        os.kill(os.getpid(), signal.SIGINT)
        import time
        time.sleep(5)
    except KeyboardInterrupt as exc:
        raise ImportError("IMPORTANT: PLEASE READ THIS\\n" * 40) from exc
    """
    proc = _run(demo_script(tmp_path, body))
    assert proc.returncode == -signal.SIGINT  # a shell shows 130
    assert proc.stderr.splitlines() == ["99_demo.py: interrupted; nothing half-written was kept"]


# A closed pipe (`| head`): tests/lectures/test_reliability.py, a measuring lecture that
# still saves its sweep after the pipe closed, and a bare one that ends quietly.


def test_the_bootstrap_does_nothing_when_not_run_as_a_script(monkeypatch) -> None:
    # Under sphinx-gallery the lecture runs inside the docs build: no signal or stream changes.
    before = (signal.getsignal(signal.SIGINT), sys.stdout, sys.stderr, sys.excepthook)
    monkeypatch.setattr(sys, "argv", [str(REPO / "lectures" / "02_roofline_basics.py")])
    boot.start()
    assert (signal.getsignal(signal.SIGINT), sys.stdout, sys.stderr, sys.excepthook) == before


def test_the_exit_statuses_are_written_down() -> None:
    assert (cli.EXIT_FAILURE, cli.EXIT_USAGE, cli.EXIT_INTERRUPT) == (1, 2, 130)
    for doc in (cli.__doc__ or "", boot.__doc__ or ""):
        assert "130" in doc and "2" in doc and "interrupt" in doc.lower()
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "## Exit codes and errors" in readme
    section = readme.split("## Exit codes and errors", 1)[1].split("\n## ", 1)[0]
    for status in ("| 0 |", "| 1 |", "| 2 |", "| 130 |"):
        assert status in section
