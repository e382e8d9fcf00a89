"""The course script's ``roofline`` module: the speed formulas with their two charts.

The formulas live in ``common.formulas.roofline``, the ASCII chart in
``common.present.charts`` and the PNG in ``common.plots.roofline`` (matplotlib only
when a PNG is drawn); this module gathers the names the lecture script imports.
"""

from common.formulas.roofline import *  # noqa: F403
from common.plots.roofline import PngResult, save_roofline_png  # noqa: F401
from common.present.charts import ascii_roofline  # noqa: F401
