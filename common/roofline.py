"""The course script's ``roofline`` module: the speed formulas with their two charts."""

from common.formulas import roofline as _formulas
from common.formulas.roofline import *  # noqa: F403
from common.plots.roofline import PngResult, save_roofline_png  # noqa: F401
from common.present.charts import ascii_roofline  # noqa: F401


def sharded_matmul_two_chips(
    B: int, D: int, F: int, peak: float, link_bw: float, elem_bytes: float = 2
) -> dict[str, float | str]:
    """``formulas.roofline.sharded_matmul_two_chips`` with the script's names: K = D, N = F."""
    return _formulas.sharded_matmul_two_chips(B, D, F, peak, link_bw, elem_bytes)
