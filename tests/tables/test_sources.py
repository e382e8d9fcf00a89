"""Every figure says where it comes from precisely enough to find it, and estimates say so."""

from __future__ import annotations

import re

import pytest

from common import hw_specs
from common.tables import assumptions
from common.tables.models import MODELS, MOE_MODELS

DATE = re.compile(r"checked \d{4}-\d{2}-\d{2}")
LOCATORS = ("table", "ch. ", "section", "column", "config.json", "figures")

FIGURES = [
    (chip.key, label, fig) for chip in hw_specs.CHIPS.values() for label, fig in chip.figures()
]


@pytest.mark.parametrize(("chip", "label", "fig"),
                         FIGURES, ids=[f"{c}-{lab}" for c, lab, _ in FIGURES])  # fmt: skip
def test_every_hardware_figure_names_its_document_place_and_date_and_what_estimates_it(
    chip, label, fig
) -> None:
    assert DATE.search(fig.source), f"{chip} {label}: no date in {fig.source!r}"
    assert any(word in fig.source for word in LOCATORS), f"{chip} {label}: where in the document?"
    if fig.estimate:
        assert fig.note.startswith("estimated:"), f"{chip} {label}: {fig.note!r}"
        assert len(fig.note) > len("estimated: ") + 20


def test_the_estimates_are_the_ones_vendors_do_not_state_per_gpu() -> None:
    # B200's peaks come from 8-GPU sparse totals and B300's bf16 from a ratio; every
    # other figure is stated by its document.
    estimated = {(c, label) for c, label, fig in FIGURES if fig.estimate}
    b200 = {("b200", f"peak {p}") for p in ("bf16", "fp8", "int8", "nvfp4")}
    assert estimated == b200 | {("b300", "peak bf16")}


@pytest.mark.parametrize("model", [*MODELS.values(), *MOE_MODELS.values()],
                         ids=[*MODELS, *MOE_MODELS])  # fmt: skip
def test_every_model_names_its_file_and_date(model) -> None:
    assert DATE.search(model.config_source) and "config.json" in model.config_source
    assert DATE.search(model.params_source)


@pytest.mark.parametrize("record", assumptions.ASSUMPTIONS, ids=lambda a: a.name)
def test_every_assumption_has_a_source_and_says_when_it_applies(record) -> None:
    assert record.name and record.source and len(record.applies.split()) >= 8
    assert record.value > 0 and record.unit
