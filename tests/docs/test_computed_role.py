"""The :computed: Sphinx role: prose quotes numbers computed from common/ at build time."""

from __future__ import annotations

import dataclasses
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest
from conftest import computed_project, load_extension, sphinx

from common import hw_specs

computed = load_extension("computed")


# Reference numbers from every namespace module (ridges, bytes, intensities, the critical
# batch), each as the role evaluates it on a page: test_pages_unit.py's SUBSTITUTIONS.


def test_the_namespace_holds_public_names_and_follows_the_table() -> None:
    namespace = computed.build_namespace()
    public = "A100 H100 CHIPS get_chip ridge_point lower_bound_time gemm_counts memory_ledger"
    public += " largest_batch_that_fits GIB fmt_bytes fmt_time fmt_ratio math"
    assert [name for name in public.split() if name not in namespace] == []
    assert not [name for name in namespace if name.startswith("_")]
    for imported in ("dataclass", "field", "NamedTuple", "Sequence", "annotations"):
        assert imported not in namespace, imported
    bigger = {"bf16": hw_specs.flops(1979e12, "exercise 3")}
    edited = {**namespace, "A100": dataclasses.replace(hw_specs.A100, peak_flops_table=bigger)}
    assert computed.evaluate("f\"{A100.ridge_point('bf16'):.1f}\"", edited) == "1272.7"
    # each evaluation gets a fresh namespace
    assert computed.evaluate("(leak := 3)") == "3"
    with pytest.raises(computed.ComputedError, match="NameError"):
        computed.evaluate("leak")


@pytest.fixture
def modules(monkeypatch: pytest.MonkeyPatch):
    """Set the role's NAMESPACE_MODULES (its cached namespace cleared before and after)."""

    def use(*names: str) -> None:
        monkeypatch.setattr(computed, "NAMESPACE_MODULES", names)
        computed._base_namespace.cache_clear()

    yield use
    computed._base_namespace.cache_clear()


def test_modules_sharing_a_constant_are_fine_but_a_real_clash_is_an_error(
    monkeypatch: pytest.MonkeyPatch, modules
) -> None:
    for name, values in {"fake_a": {"KIB": 1024, "X": 1}, "fake_b": {"KIB": 1024}}.items():
        monkeypatch.setitem(sys.modules, name, ModuleType(name))
        vars(sys.modules[name]).update(values)
    monkeypatch.setitem(sys.modules, "fake_c", ModuleType("fake_c"))
    sys.modules["fake_c"].X = 2
    modules("fake_a", "fake_b")
    assert computed.evaluate("f'{KIB + X}'") == "1025"
    modules("fake_a", "fake_c")
    with pytest.raises(computed.ComputedError, match=r"name clash.*'X'"):
        computed.build_namespace()
    modules("common.no_such_module")
    with pytest.raises(computed.ComputedError, match=r"cannot import common\.no_such_module"):
        computed.evaluate("1")


@pytest.mark.parametrize(
    ("expression", "reason"),
    [("A100.ridge_point('bf16')", "float"), ("speedup_2x_at_ratio(0.5)", "tuple"),
     ("True", "bool"), ("A100.ridge_point(", "SyntaxError"), ("no_such_name + 1", "NameError"),
     ("get_chip('not-a-chip')", "unknown chip"), ("   ", "empty")],
)  # fmt: skip
def test_bad_expressions_raise_an_error_naming_the_expression(expression: str, reason: str) -> None:
    from sphinx.errors import SphinxError

    with pytest.raises(computed.ComputedError) as info:
        computed.evaluate(expression)
    message = str(info.value)
    assert expression.strip() in message and reason in message
    assert isinstance(info.value, SphinxError)  # so the build reports it as its own


def test_sphinx_build_inserts_the_computed_text_and_fails_under_w_on_a_bad_one(tmp_path: Path):
    page = textwrap.dedent(
        """
        Ridge
        =====

        The ridge point is :computed:`f"{A100.ridge_point('bf16'):.1f}"` FLOP/byte.

        .. |kv| replace:: :computed:`fmt_bytes(kv_cache_bytes(1, 32, 4096), binary=True, digits=0)`

        The KV cache costs |kv| per token.
        """)  # fmt: skip
    done = sphinx(computed_project(tmp_path / "src", page), tmp_path / "out", "-b", "html")
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert "The ridge point is 200.6 FLOP/byte." in html
    # The number keeps its unit on one line: a no-break space, however it is written.
    text = html.replace("&nbsp;", "\u00a0").replace("&#160;", "\u00a0")
    assert "The KV cache costs 512\u00a0KiB per token." in text
    # a bad expression fails the build under -W, naming its line
    page = "Broken\n======\n\nA number: :computed:`A100.ridge_point('bf16') + 1`.\n"
    done = sphinx(computed_project(tmp_path / "bad", page), tmp_path / "bad-out", "-b", "html")
    assert done.returncode != 0 and "A100.ridge_point('bf16') + 1" in done.stderr
    assert "index.rst:4" in done.stderr
