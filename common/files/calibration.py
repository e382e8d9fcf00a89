"""The one reader of a saved calibration: lecture 01's two roofs, or why they are unusable."""

from __future__ import annotations

import math
import os
from typing import Any, NamedTuple

from common.files.results import Loaded, get_section, load_results, positive_number
from common.formulas.roofline import ridge_point
from common.measure import roofs
from common.shell.paths import display_path
from common.tables.validate import plausible


class SavedCalibration(NamedTuple):
    """A calibration record read from a results section, or None and why not."""

    calibration: dict[str, Any] | None
    reason: str  # '' when usable
    source: str  # where it came from, for printing
    loaded: Loaded

    @property
    def peak_flops_per_s(self) -> float:
        """The measured matmul roof P, in FLOP/s."""
        if self.calibration is None:
            raise ValueError(self.reason)
        return float(self.calibration["matmul_flops_per_s"])

    @property
    def bandwidth_bytes_per_s(self) -> float:
        """The measured bandwidth roof beta, in bytes/s."""
        if self.calibration is None:
            raise ValueError(self.reason)
        return float(self.calibration["bandwidth_bytes_per_s"])


SECTION_OWNERS = {"probe": "lecture 01", "batch_sweep": "lecture 03", "hierarchy": "lecture 09"}


def check_calibration(calib: object) -> dict[str, Any]:
    """calib if its roofs are plausible and its ridge (FLOP/byte) consistent; else ValueError."""
    if not isinstance(calib, dict):
        raise ValueError("it has no calibration record")
    bw, peak = (
        plausible(positive_number(calib, key), unit, f"results entry {key!r}")
        for key, unit in (("bandwidth_bytes_per_s", "B/s"), ("matmul_flops_per_s", "FLOP/s"))
    )
    if "ridge_point" in calib:
        ridge = positive_number(calib, "ridge_point")
        if not math.isclose(ridge, ridge_point(peak, bw), rel_tol=1e-6):
            raise ValueError("ridge_point is not matmul_flops_per_s / bandwidth_bytes_per_s")
    return calib


def saved_calibration(
    path: str | os.PathLike[str] | None = None, section: str = "probe", loaded: Loaded | None = None
) -> SavedCalibration:
    """The ``calibration`` record of a results section (lecture 01's ``probe`` by default)."""
    doc = loaded if loaded is not None else load_results(path)
    payload, reason = get_section(doc, section)
    if payload is not None:
        try:
            calib = check_calibration(payload.get("calibration"))
        except ValueError as exc:
            reason = f"results file {display_path(doc.path)} has a bad {section} section ({exc})"
        else:
            owner = SECTION_OWNERS.get(section, section)
            return SavedCalibration(
                calib, "", f"{owner}'s calibration from {display_path(doc.path)}", doc)  # fmt: skip
    return SavedCalibration(None, reason, "", doc)


def load_or_calibrate(path: object = None) -> tuple[dict[str, Any], str]:
    """The probe's saved calibration, or a fresh quick one; returns (calibration, where from)."""
    saved = saved_calibration(path)  # type: ignore[arg-type]
    if saved.calibration is not None:
        return saved.calibration, saved.source
    return roofs.calibrate(quick=True), f"{saved.reason}; measured a quick calibration instead"
