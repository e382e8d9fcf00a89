"""Every lecture against every bad input: one line, the documented status, nothing lost.

The lectures and their flags are read from ``--help`` (a new lecture is covered unedited);
each bad input a lecture's flags admit is one case, run in a folder of its own beside a
valid results file (also ``$ROOFLINE_RESULTS``): no traceback, one line on stderr, the
README's status (2 usage, 1 failure, 0 done), every file kept byte for byte. Then the cases
that need a process of their own (two writers, Ctrl-C in ``import numpy``, ``| head``,
symbolic links), each lecture's own bad values (`BAD`) and --png's figures (`PNG`).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import hashlib
import json
import os
import re
import signal
import stat
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import LECTURES, REPO, lecture_path, run_lecture, run_python, selected, start_python

from common.files import results
from common.measure import machine
from common.shell import interface

PATH_METAVARS = ("FILE", "DIR")
HUGE = "1" * 300  # was an OverflowError traceback in lecture 06
BAD_VALUES = (HUGE, "nan")  # out of any range (as an integer or as a float), not finite
WORKERS = max(2, min(4, os.cpu_count() or 2))  # subprocesses at once
SAVES_EACH = 150  # saves per writer in the race
CASE_TIMEOUT_S = 90  # a refused run takes well under a second; a reader that draws, seconds


@dataclasses.dataclass(frozen=True)
class Lecture:
    path: Path
    flags: dict[str, str | None]  # --flag -> its metavar (None for a switch)
    saves: bool  # adds a section to the results file

    @property
    def name(self) -> str:
        return self.path.stem[:2]


OPTION_LINE = re.compile(r"^\s{2}(?:-\w, )?(--[a-z][\w-]*)(?:[ =]([A-Z][A-Z_]*))?")


def _read_lecture(path: Path) -> Lecture:
    proc = run_lecture(path, "--help", env={"COLUMNS": "200"}, check=True)
    flags = {}
    for line in proc.stdout.splitlines():
        match = OPTION_LINE.match(line)
        if match and match.group(1) != "--help":
            flags[match.group(1)] = match.group(2)
    return Lecture(path, flags, "adds its section" in " ".join(proc.stdout.split()))


with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
    ALL = list(pool.map(_read_lecture, sorted(LECTURES.glob("[0-9][0-9]_*.py"))))


@dataclasses.dataclass(frozen=True)
class Case:
    """One bad input for one lecture and what must come of it."""

    lecture: Lecture
    label: str
    args: Callable[[Path], list[str]]  # builds the arguments (and any file they need)
    status: int
    words: str  # in the stderr line (or in stdout when the run succeeds)
    python_flags: tuple[str, ...] = ()
    hide_matplotlib: bool = False
    statuses: tuple[int, ...] = ()  # when more than one status is right

    @property
    def id(self) -> str:
        return f"{self.lecture.name}-{self.label}"


GOOD_CALIBRATION = {"bandwidth_bytes_per_s": 2e10, "matmul_flops_per_s": 1.6e11, "ridge_point": 8.0}


def _results_doc(here: dict, **probe: object) -> dict:
    """A results document for `here`: a probe calibration (with `probe` changed) and a
    batch sweep whose calibration stays good."""
    doc = results.new_document(here)
    doc["probe"] = {"calibration": {**GOOD_CALIBRATION, **probe}, "operations": []}
    doc["batch_sweep"] = {"calibration": dict(GOOD_CALIBRATION), "rows": []}
    return doc


HERE = machine.describe()


def _write(folder: Path, name: str, text: str) -> Path:
    (folder / name).write_text(text, encoding="utf-8")
    return folder / name


def _fifo(folder: Path) -> Path:
    os.mkfifo(folder / "fifo")
    return folder / "fifo"


def _loop(folder: Path) -> Path:
    (folder / "loop-a").symlink_to(folder / "loop-b")
    (folder / "loop-b").symlink_to(folder / "loop-a")
    return folder / "loop-a"


def _device(folder: Path) -> str:
    """A character device: a private copy of /dev/null when root (so that a regression that
    replaced it could not replace the real one, as lecture 07 did to a copy), else /dev/null."""
    if os.geteuid() != 0:
        return os.devnull
    node = folder / "null-device"
    os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    return str(node)


def _blocker(folder: Path) -> Path:
    return _write(folder, "a-file", "not a folder\n")


def _figures(folder: Path) -> str:
    """A figure folder outside the case folder (a reader that draws may write there)."""
    return str(folder.parent / f"{folder.name}-figures")


RESULTS_PATHS: dict[str, tuple[Callable[[Path], str], str]] = {
    "results-empty": (lambda d: "", "expected a path, got an empty string"),
    "results-folder": (lambda d: str(d), "is a folder, not a regular file"),
    "results-through-a-file": (lambda d: str(_blocker(d) / "m.json"), "goes through a file"),
    "results-fifo": (lambda d: str(_fifo(d)), "is a FIFO"),  # lecture 05 hung on it
    "results-device": (_device, "is a device"),
    "results-proc": (lambda d: "/proc/self/status", "kernel file system"),
    "results-symlink-loop": (lambda d: str(_loop(d)), "symbolic link loop"),
}

# Files a reading lecture must report in one line and fall back from (exit 0, file kept).
# The first two spoil only the probe's calibration: a reader still has lecture 03's. The
# others spoil the whole file, and a reader that draws (lecture 04) then measures a quick
# calibration, seconds of work: those run against the readers that only print.
CALIBRATION_LEVEL = ("1e308-calibration", "tiny-bandwidth")
BAD_CONTENTS: dict[str, tuple[Callable[[], str], str]] = {
    "nested-json": (lambda: "[" * 200_000, "nested too deeply"),
    "nan-calibration": (lambda: json.dumps(_results_doc(HERE, matmul_flops_per_s=float("nan"))),
                        "non-standard number NaN"),
    "1e308-calibration": (
        lambda: json.dumps(_results_doc(HERE, matmul_flops_per_s=1e308, ridge_point=1e308 / 2e10)),
        "'matmul_flops_per_s' must be between"),
    "tiny-bandwidth": (
        lambda: json.dumps(_results_doc(HERE, bandwidth_bytes_per_s=1e-3, ridge_point=1.6e14)),
        "'bandwidth_bytes_per_s' must be between"),
    "other-machine": (lambda: json.dumps(_results_doc(dict(HERE, cpu="Another CPU", cores=4096))),
                      "another machine"),
}  # fmt: skip

OUTDIR_PATHS: dict[str, tuple[Callable[[Path], str], str]] = {
    "outdir-empty": (lambda d: "", "expected a path, got an empty string"),
    "outdir-a-file": (lambda d: str(_blocker(d)), "is a file, not a folder"),
    "outdir-through-a-file": (lambda d: str(_blocker(d) / "figs"), "goes through"),
    "outdir-device": (_device, "is a device, not a folder"),
}


#: Words a lecture's --help says beyond its flags; the flags each run it under.
HELP_WORDS = {"02": ("Roofline basics",), "06": ("llama-3-70b",), "13": ("deepseek-v3",)}
HELP_PYTHON_FLAGS = {"12": ("-S",)}  # lecture 12 explains itself without torch or numpy


def _cases_for(lecture: Lecture) -> list[Case]:
    unknown = "error: unrecognized arguments: --no-such-flag"
    helps = HELP_PYTHON_FLAGS.get(lecture.name, ())
    png = ["--png"] if "--png" in lecture.flags else []
    draws = "--outdir" in lecture.flags and not png  # always (04, 12); else only with --png
    cases = [
        Case(lecture, "unknown-flag", lambda d: ["--no-such-flag"], 2, unknown),
        Case(lecture, "help", lambda d: ["--help"], 0, "", helps),  # not bad: checked below
        # No numpy: one line, status 1, or the lecture runs (02 and 06 need nothing).
        Case(lecture, "bare-python", lambda d: ["--help"], 0, "", ("-S",), statuses=(0, 1)),
    ]
    for flag, metavar in lecture.flags.items():
        if metavar is None or metavar in PATH_METAVARS:
            continue
        for i, value in enumerate(BAD_VALUES):
            bad = lambda d, f=flag, v=value: [f, v]  # noqa: E731
            cases.append(Case(lecture, f"{flag[2:]}-bad{i}", bad, 2, flag))
    if "--precision" in lecture.flags:
        upper = lambda d: ["--precision", "BF16"]  # noqa: E731
        cases.append(Case(lecture, "precision-upper-case", upper, 0, ""))
    if "--results" in lecture.flags:
        for label, (make, words) in RESULTS_PATHS.items():
            cases.append(Case(lecture, label, lambda d, m=make: ["--results", m(d)], 2, words))
        long_name = lambda d: ["--results", str(d / ("r" * 300))]  # noqa: E731
        if lecture.saves:  # it could not save: refused before measuring
            cases.append(Case(lecture, "results-name-too-long", long_name, 2, "is too long"))
        else:  # a reader falls back (lectures 04 and 05 exited 1)
            # and, run to its end, writes nothing into the case folder: one that draws gets an
            # --outdir of its own
            extra = lambda d: ["--outdir", _figures(d)] if draws else []  # noqa: E731
            fallback = lambda d: [*long_name(d), *extra(d)]  # noqa: E731
            cases.append(Case(lecture, "results-name-too-long", fallback, 0, "cannot read"))
            for label, (content, words) in BAD_CONTENTS.items():
                if "--outdir" in lecture.flags and label not in CALIBRATION_LEVEL:
                    continue
                bad = lambda d, c=content: ["--results", str(_write(d, "bad.json", c())), *extra(d)]  # noqa: E731
                cases.append(Case(lecture, label, bad, 0, words))
    if "--outdir" in lecture.flags:
        for label, (make, words) in OUTDIR_PATHS.items():
            cases.append(Case(lecture, label, lambda d, m=make: [*png, "--outdir", m(d)], 2, words))
    if draws:  # without matplotlib: one line, status 1 and no figure folder
        figures = lambda d: ["--outdir", _figures(d)]  # noqa: E731
        words = "matplotlib is not installed"
        cases.append(Case(lecture, "without-matplotlib", figures, 1, words, hide_matplotlib=True))
    if png:
        here = lambda d: ["--outdir", str(d)]  # noqa: E731
        cases.append(Case(lecture, "outdir-without-png", here, 2, "only used with"))
        # Without matplotlib: one line on stdout, and the run goes on. A lecture that
        # measures is stopped right after the check by a results path that is a folder.
        stops = "--results" in lecture.flags
        args = lambda d: [*png, "--outdir", _figures(d), *(["--results", str(d)] if stops else [])]  # noqa: E731
        status, words = (2, "is a folder") if stops else (0, "")
        cases.append(
            Case(lecture, "png-without-matplotlib", args, status, words, hide_matplotlib=True)
        )
    return cases


CASES = [case for lecture in ALL for case in _cases_for(lecture)]


def _hashes(folder: Path) -> dict[str, str]:
    """sha256 of every regular file under `folder`; the kind of every other entry."""
    found = {}
    for path in sorted(folder.rglob("*")):
        mode = path.lstat().st_mode
        if stat.S_ISREG(mode):
            found[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
        elif not stat.S_ISDIR(mode):  # a FIFO, a device node or a link: its kind must stay
            found[str(path.relative_to(folder))] = stat.filemode(mode)
    return found


@dataclasses.dataclass
class Outcome:
    proc: subprocess.CompletedProcess[str]
    before: dict[str, str]
    after: dict[str, str]
    figures: list[str] | None  # None: the figure folder was not made


def _run_case(case: Case, folder: Path) -> Outcome:
    sentinel = folder / "machine.json"
    sentinel.write_text(json.dumps(_results_doc(HERE)), encoding="utf-8")
    args = case.args(folder)
    env = {"ROOFLINE_RESULTS": str(sentinel)}
    if case.hide_matplotlib:
        hide = folder.parent / f"{folder.name}-hide"
        hide.mkdir(exist_ok=True)
        (hide / "sitecustomize.py").write_text(
            "import sys\nsys.modules['matplotlib'] = None  # as if it were not installed\n",
            encoding="utf-8",
        )
        env["PYTHONPATH"] = str(hide)
    before = _hashes(folder)
    command = (*case.python_flags, str(case.lecture.path), *args)
    try:
        proc = run_python(*command, env=env, cwd=folder, timeout=CASE_TIMEOUT_S)
    except subprocess.TimeoutExpired:  # this case fails alone, the others still run
        proc = subprocess.CompletedProcess(command, -1, "", f"timed out after {CASE_TIMEOUT_S} s")
    figures = Path(_figures(folder))
    drawn = sorted(p.name for p in figures.iterdir()) if figures.is_dir() else None
    return Outcome(proc, before, _hashes(folder), drawn)


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest, tmp_path_factory) -> dict[str, Outcome]:
    """Run every selected case at once (WORKERS at a time); keyed by case id."""
    wanted = selected(request, "test_bad_input", "case")
    folders = {case.id: tmp_path_factory.mktemp(case.id[:40]) for case in wanted}
    with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
        futures = {case.id: pool.submit(_run_case, case, folders[case.id]) for case in wanted}
        return {key: future.result() for key, future in futures.items()}


def test_every_lecture_is_covered() -> None:
    names = {lecture.path.name for lecture in ALL}
    assert {"01_machine_probe.py", "02_roofline_basics.py", "09_hierarchical_roofline.py"} <= names
    by_name = {lecture.name: lecture for lecture in ALL}
    assert by_name["01"].saves and not by_name["05"].saves  # read from --help
    assert by_name["02"].flags == {"--png": None, "--outdir": "DIR"} and len(CASES) > 10 * len(ALL)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_bad_input(case: Case, outcomes: dict[str, Outcome]) -> None:
    outcome = outcomes[case.id]
    proc = outcome.proc
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout, proc.stderr
    assert proc.returncode in (case.statuses or (case.status,)), proc.stderr
    lines = proc.stderr.splitlines()
    if proc.returncode == 0:
        assert lines == [], proc.stderr
        assert case.words in proc.stdout
    else:
        assert len(lines) == 1, proc.stderr
        assert lines[0].startswith(f"{case.lecture.path.name}: ") and case.words in lines[0]
    if proc.returncode == 2:
        assert proc.stdout == "" or case.hide_matplotlib  # refused before any work
    if case.hide_matplotlib:
        assert outcome.figures is None
        skipped = [line for line in proc.stdout.splitlines() if "PNG skipped" in line]
        assert len(skipped) == ("--png" in case.lecture.flags) and all(
            "matplotlib" in s for s in skipped
        )
    if case.label == "bare-python" and proc.returncode == 1:
        assert "No module named" in lines[0] and "needs the course's packages" in lines[0]
    if case.label == "help":  # every flag its make_parser() declares (read unrun), and words
        declared = interface.flag_actions(interface.declared_parser(case.lecture.path))
        wanted = [*declared, *HELP_WORDS.get(case.lecture.name, ())]
        assert [word for word in wanted if word not in proc.stdout] == []
    # Nothing written, nothing changed: the results file (and every other file) by sha256.
    assert outcome.after == outcome.before


# --- Two writers, one results file (issue 16) --------------------------------
WRITER = """
import sys
sys.path.insert(0, {repo!r})
from common.files import results
here = {here!r}
for i in range({n}):
    results.save_section(sys.argv[1], {{"i": i, "pad": "x" * 2000}}, {path!r}, this_machine=here)
"""


def test_two_writers_never_lose_a_section(tmp_path: Path) -> None:
    path = tmp_path / "machine.json"
    here = {"cpu": "test CPU", "cores": 2, "blas": {"library": "x", "kernel": "y", "threads": 1}}
    results.save_section("other", {"kept": True}, path, this_machine=here)
    code = WRITER.format(repo=str(REPO), here=here, n=SAVES_EACH, path=str(path))
    writers = [start_python("-c", code, section, text=True) for section in ("probe", "batch_sweep")]
    readings = 0
    while any(w.poll() is None for w in writers):  # a reader never sees a broken file
        loaded = results.load_results(path, this_machine=here)
        assert loaded, loaded.reason
        readings += 1
    for w in writers:
        _, err = w.communicate(timeout=120)
        assert w.returncode == 0, err
    doc = results.load_results(path, this_machine=here).data
    assert doc is not None and readings > 0
    assert doc["probe"]["i"] == doc["batch_sweep"]["i"] == SAVES_EACH - 1  # both last saves
    assert doc["other"] == {"kept": True}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["machine.json"]  # no lock file left


# --- Ctrl-C while numpy is being imported (issues 5 and 17) ------------------
def _mapped(pid: int, needle: str) -> bool:
    try:
        return needle in Path(f"/proc/{pid}/maps").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return True  # it has already ended


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc to see the import")
@pytest.mark.parametrize("delay", [0.0, 0.005, 0.02])
def test_ctrl_c_during_the_numpy_import_is_one_line(delay: float, tmp_path: Path) -> None:
    path, old = tmp_path / "machine.json", json.dumps(_results_doc(HERE)).encode()
    argv = (str(lecture_path("01")), "--quick", "--results", str(path))
    for _ in range(3):  # status 0: on a loaded machine the lecture ended before the signal
        path.write_bytes(old)  # (and wrote its results: each try starts from the same file)
        with start_python(*argv, text=True) as proc:
            deadline = time.monotonic() + 60
            while not _mapped(proc.pid, "_multiarray_umath") and time.monotonic() < deadline:
                time.sleep(0.0002)  # numpy's core library is mapped: the import is under way
            time.sleep(delay)
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=60)
        if proc.returncode:
            break
    assert proc.returncode == -signal.SIGINT  # a shell shows 130
    assert err.splitlines() == ["01_machine_probe.py: interrupted; nothing half-written was kept"]
    assert path.read_bytes() == old


# --- Output piped into head (issue 7), a foreign results file kept (issue 15) ---
def test_a_measuring_lecture_under_head_still_saves_and_keeps_the_old_file(tmp_path: Path) -> None:
    """Lecture 03 into `| head -5` over another machine's file, kept as a backup."""
    path = tmp_path / "machine.json"
    path.write_text(json.dumps(_results_doc(dict(HERE, cpu="Another CPU"))), encoding="utf-8")
    old = path.read_bytes()
    with start_python(str(lecture_path("03")), "--results", str(path), cwd=tmp_path) as proc:
        for _ in range(5):
            proc.stdout.readline()
        proc.stdout.close()
        assert (proc.stderr.read(), proc.wait(timeout=300)) == (b"", 0)
    loaded = results.load_results(path)
    assert loaded, loaded.reason
    assert len(loaded.data["batch_sweep"]["rows"]) > 0  # the measurement after head left
    assert [b.read_bytes() for b in tmp_path.glob("machine.backup-*.json")] == [old]


# --- Symbolic links to a lecture or to lectures/ (issue 6) -------------------
def test_a_symlinked_script_runs_anywhere_on_its_own_checkout(tmp_path: Path) -> None:
    (tmp_path / "02.py").symlink_to(lecture_path("02"))
    (tmp_path / "lectures").symlink_to(LECTURES)
    for script in (tmp_path / "02.py", tmp_path / "lectures" / lecture_path("06").name):
        proc = run_lecture(script, python_flags=("-S",), cwd=tmp_path, timeout=60, check=True)
        assert "ridge" in proc.stdout.lower()
    # a link inside another checkout must not import that checkout's common/
    other = tmp_path / "other-checkout"
    (other / "common").mkdir(parents=True)
    (other / "common" / "__init__.py").write_text(
        "raise SystemExit('imported the wrong checkout')\n", encoding="utf-8")  # fmt: skip
    (other / "lectures").mkdir()
    link = other / "lectures" / lecture_path("02").name
    link.symlink_to(lecture_path("02"))
    run_lecture(link, timeout=60, check=True)  # the wrong checkout's common/ exits 1


#: (lecture, arguments, exit status (None: any failure), words in the one line on stderr):
#: what CASES cannot make (each valued flag's refusal of a huge and a nan value is there, and
#: each validator's own edges are tests/shell/test_cli.py's): a flag checked against another
#: (a chip's precisions, a model's window, EP against the experts) and the choices listed.
BAD = [
    ("04", ["--colour", "red", "--outdir", "{tmp}/figs"], 2, "--colour"),
    ("05", ["--chip", "x100"], None, "unknown chip 'x100'; choose one of: a100, h100"),
    ("05", ["--precision", "fp8"], None,
     "the table gives A100 40GB SXM no 'fp8' peak; choose one of: bf16, int8"),
    ("06", ["--model", "gpt-5"], None, "choose one of: llama-2-7b, llama-3-8b, llama-3-70b"),
    ("06", ["--chip", "tpu"], None, "choose one of: a100, h100"),
    ("06", ["--precision", "nvfp4"], None,
     "the table gives H100 SXM no 'nvfp4' peak; choose one of: bf16, fp8, int8"),
    ("06", ["--weights", "fp7"], None, "unknown weight precision 'fp7'; choose one of: bf16"),
    ("06", ["--kv", "int3"], None, "unknown KV-cache precision 'int3'; choose one of: bf16"),
    ("06", ["--context", "9000"], None, "exceeds Llama-3-8B's window of 8,192 tokens"),
    ("06", ["--model", "llama-2-7b", "--context", "4097"], None, "window of 4,096 tokens"),
    ("07", ["--context", "9000"], None, "exceeds Llama-3-8B's window of 8,192 tokens"),
    ("13", ["--model", "llama-3-8b"], None,
     "choose one of: mixtral-8x7b, qwen3-30b-a3b, deepseek-v3"),
    ("13", ["--chip", "a100", "--precision", "fp8"], None, "no 'fp8' peak"),
    ("13", ["--ep", "3"], None, "3 GPUs cannot share DeepSeek-V3's 256 experts evenly"),
    ("13", ["--model", "mixtral-8x7b", "--ep", "16"], None, "choose one of: 1, 2, 4, 8"),
    ("13", ["--context", "200000"], None, "exceeds DeepSeek-V3's window of 163,840 tokens"),
    ("14", ["--budget", "64"], 2, "--budget 64 must exceed --batch 64 (the decode tokens"),
    ("14", ["--prompt", "8192"], 2, "--prompt 8192 and --output 512 need 8,703 positions"),
    ("14", ["--batch", "100000"], 2, "--budget 2048 must exceed --batch 100000"),
    ("14", ["--prompt", "8000", "--output", "512"], 2, "past Llama-3-8B's window of 8,192"),
    ("14", ["--batch", "500", "--budget", "4096"], 2, "500 sequences of 2,304 tokens do not fit"),
    ("14", ["--model", "gpt-5"], 2, "unknown model 'gpt-5'"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "args", "status", "says"), BAD, ids=lambda v: str(v))
def test_a_bad_value_is_one_line(
    name: str, args: list[str], status: int | None, says: str, tmp_path: Path
) -> None:
    proc = run_lecture(name, *(a.format(tmp=tmp_path) for a in args), cwd=tmp_path, timeout=60)
    assert proc.returncode == status if status else proc.returncode != 0
    assert proc.stdout == "" and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], proc.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written


#: (lecture, arguments beside --png --outdir, the figure it writes)
PNG = [
    ("02", [], "02_roofline.png"),
    ("05", ["--results", "{tmp}/x"], "05_operator_rooflines.png"),
    ("06", ["--chip", "b200"], "06_prefill_decode_roofline.png"),
    ("07", ["--model", "llama-3-70b"], "07_memory_ledger.png"),  # nothing fits: still drawn
    ("08", ["--chip", "b200"], "08_decode_throughput.png"),
    ("13", [], "13_moe_throughput.png"),
    ("14", ["--batch", "16"], "14_cost_per_token.png"),
]


@pytest.mark.parametrize(("name", "args", "figure"), PNG, ids=[r[0] for r in PNG])
def test_png_is_written_into_outdir(name: str, args: list, figure: str, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    outdir = tmp_path / "figs"
    args = [a.format(tmp=tmp_path) for a in args]
    proc = run_lecture(name, "--png", "--outdir", str(outdir), *args, cwd=tmp_path, check=True)
    png = outdir / figure
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    assert f"saved figure: {png}" in proc.stdout and [p.name for p in outdir.iterdir()] == [figure]
