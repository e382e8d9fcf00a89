"""Where place_labels puts a label, checked against a brute-force reading of its rule.

The axes fill a 288 x 288 px figure at 72 dpi, with data limits 0..288 on linear axes,
so a data unit is a pixel and a point is a pixel: every box below is hand arithmetic.
The rule (place_labels' docstring): try the offsets in order, the eight near ones and
then the six far ones (joined by a leader line), and take the first whose box stays
inside the axes and clear of other markers (5 pt either side), obstacles (2.5 pt either
side), earlier labels and texts already on the axes; with none clear, the one with the
fewest clashes (leaving the axes counts 100), the first among equals. A label's box is
0.62 x font size per character wide and one font size tall, to the right of its anchor
for a positive or zero dx and to its left for a negative dx.
"""

from __future__ import annotations

import itertools
import random

import pytest

pytest.importorskip("matplotlib")

from matplotlib.figure import Figure

from common.plots import article

SIZE = 288.0
# The candidate offsets (points), written out: near ring, then far ring (dx x 3, dy x 2
# above, dy x 1.6 below) for the near offsets that move sideways.
NEAR = [(4, 3), (4, -11), (-4, 3), (-4, -11), (6, -4), (-6, -4), (0, 7), (0, -15)]
FAR = [(12, 6), (12, -17.6), (-12, 6), (-12, -17.6), (18, -6.4), (-18, -6.4)]


def padded(pad: float) -> tuple[list, list]:
    """The same rings with every non-zero component pushed `pad` further from zero."""

    def push(v: float) -> float:
        return 0 if v == 0 else v + (pad if v > 0 else -pad)

    near = [(push(dx), push(dy)) for dx, dy in NEAR]
    far = [(dx * 3, dy * 2 if dy > 0 else dy * 1.6) for dx, dy in near if dx]
    return near, far


def pixel_axes(dpi: int = 72):
    fig = Figure(figsize=(4 * 72 / dpi, 4 * 72 / dpi), dpi=dpi)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, SIZE)
    ax.set_ylim(0, SIZE)
    return fig, ax


def box(x, y, dx, dy, text, size):
    width = 0.62 * size * max(len(text), 1)
    left = x + dx if dx >= 0 else x + dx - width
    return (left, y + dy, left + width, y + dy + size)


def hits(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def expected(points, texts, obstacles, size, pad, texts_taken=(), dpi=72):
    """Brute force: (offset, leader?) per label, by the rule above (s pixels a point)."""
    s = dpi / 72
    near, far = padded(pad)
    r = 2.5 * s
    taken = [(ox - r, oy - r, ox + r, oy + r) for ox, oy in obstacles]
    taken += list(texts_taken)
    markers = [(x - 5 * s, y - 5 * s, x + 5 * s, y + 5 * s) for x, y in points]
    out = []
    for k, ((x, y), text) in enumerate(zip(points, texts, strict=True)):
        others = [m for j, m in enumerate(markers) if j != k]
        scored = []
        for off in near + far:
            b = box(x, y, off[0] * s, off[1] * s, text, size * s)
            inside = min(b[0], b[1]) >= 0 and max(b[2], b[3]) <= SIZE
            clashes = sum(hits(b, o) for o in taken + others) + (0 if inside else 100)
            scored.append((clashes, off, b))
        free = [s for s in scored if s[0] == 0]
        chosen = free[0] if free else min(scored, key=lambda s: s[0])  # min keeps the first
        taken.append(chosen[2])
        out.append((chosen[1], chosen[1] not in near))
    return out


def placed(ax, before: int):
    return [
        ((float(t.xyann[0]), float(t.xyann[1])), t.arrow_patch is not None, t.get_ha(), t)
        for t in ax.texts[before:]]  # fmt: skip


def check(points, texts, obstacles=(), size=10.0, pad=0.0, existing=None, dpi=72):
    fig, ax = pixel_axes(dpi)
    taken = []
    if existing is not None:
        t = ax.text(*existing, "existing text here", fontsize=9)
        fig.draw_without_rendering()
        e = t.get_window_extent()
        taken.append((e.x0, e.y0, e.x1, e.y1))
    before = len(ax.texts)
    article.place_labels(ax, points, texts, fontsize=size, obstacles=obstacles, pad=pad)
    got = placed(ax, before)
    want = expected(points, texts, obstacles, size, pad, taken, dpi)
    assert [t.get_text() for *_, t in got] == list(texts)
    for (off, leader, ha, t), (w_off, w_leader), p in zip(got, want, points, strict=True):
        assert off == pytest.approx(w_off) and leader == w_leader
        assert ha == ("left" if w_off[0] >= 0 else "right")
        assert t.get_va() == "bottom" and t.get_fontsize() == size
        assert tuple(map(float, t.xy)) == p
    return want


A, B = (100.0, 100.0), (150.0, 150.0)
#: (points, texts, obstacles, options, the placement of the first labels) by hand; A's
#: first box is (104, 103)-(116.4, 113).
HAND = {
    "alone: up and right": ([A], ["ab"], [], {}, [((4, 3), False)]),
    "pad pushes every offset out": ([A], ["ab"], [], {"pad": 2}, [((6, 5), False)]),
    # right edge: (4, 3) ends at 296.4 > 288, (4, -11) too; (-4, 3) is the first inside
    "right edge": ([(280.0, 100.0)], ["ab"], [], {}, [((-4, 3), False)]),
    # top edge: (4, 3) reaches 296; (4, -11) spans 272..282
    "top edge": ([(100.0, 283.0)], ["ab"], [], {}, [((4, -11), False)]),
    "top right corner": ([(283.0, 283.0)], ["ab"], [], {}, [((-4, -11), False)]),
    "bottom left": ([(1.0, 1.0)], ["ab"], [], {}, [((4, 3), False)]),
    "left edge, low": ([(3.0, 150.0)], ["abc"], [], {}, [((4, 3), False)]),
    # (4, 3) from y = -3 starts on the bottom edge, from y = 275 ends on the top edge,
    # from x = -4 starts on the left edge: each inside
    "on the bottom edge": ([(100.0, -3.0)], ["ab"], [], {}, [((4, 3), False)]),
    "on the top edge": ([(100.0, 275.0)], ["ab"], [], {}, [((4, 3), False)]),
    "on the left edge": ([(-4.0, 100.0)], ["ab"], [], {}, [((4, 3), False)]),
    "on the right edge": ([(288.0 - 4 - 0.62 * 10 * 2, 100.0)], ["ab"], [], {}, None),
    # near the bottom with the first box blocked: (4, -11) would start at y = -9
    "low, first box blocked": ([(100.0, 2.0)], ["ab"], [(110.0, 10.0)], {}, [((-4, 3), False)]),
    # an obstacle at (110, 108) covers the first box; (4, -11) spans 89..99
    "an obstacle in the way": ([A], ["ab"], [(110.0, 108.0)], {}, [((4, -11), False)]),
    "an obstacle just clear": ([A], ["ab"], [(110.0, 118.0)], {}, [((4, 3), False)]),  # 115.5
    # an obstacle reaches 2.5 px either side: 118.8 - 2.5 = 116.3 < 116.4, 119 clears it
    "an obstacle at the edge": ([A], ["ab"], [(118.8, 108.0)], {}, [((4, -11), False)]),
    "an obstacle past it": ([A], ["ab"], [(119.0, 108.0)], {}, [((4, 3), False)]),
    # B's marker (107..117, 103..113) covers A's first box; B's label then goes up right
    "another marker": ([A, (112.0, 108.0)], ["ab", "cd"], [], {}, [((4, -11), False),
                                                                  ((4, 3), False)]),
    # another point's marker reaches 5 px: from 113.5, clear of the box's top at 113
    "a marker just clear": ([A, (110.0, 118.5)], ["ab", "c"], [], {}, [((4, 3), False)]),
    "a marker at the edge": ([A, (110.0, 117.5)], ["ab", "c"], [], {}, [((4, -11), False)]),
    # B's marker (95..105, 103..113) reaches A's first box (from x = 104) by its right side
    "a marker by its side": ([A, (100.0, 108.0)], ["ab", "c"], [], {}, [((4, -11), False)]),
    # B's marker (105..115, 94..104) reaches the first box by its top, the second (89..99)
    # too: A turns left
    "a marker below": ([A, (110.0, 99.0)], ["ab", "c"], [], {}, [((-4, 3), False)]),
    # A's marker (115..125, 107..117) covers B's first box (104, 103)-(116.4, 113)
    "an earlier marker": ([(120.0, 112.0), A], ["ab", "cd"], [], {}, [((4, 3), False),
                                                                      ((4, -11), False)]),
    "existing text": ([A], ["ab"], [], {"existing": (102.0, 104.0)}, None),
    # at 144 dpi (4, 3) pt is (8, 6) px; "ab" at 10 pt is 24.8 x 20 px: (108, 106)-(132.8, 126)
    "144 dpi": ([A], ["ab"], [], {"dpi": 144}, [((4, 3), False)]),
    # an obstacle at (130, 130) is 5 px either side: clear at 72 dpi, in the way at 144
    "144 dpi, an obstacle": ([A], ["ab"], [(130.0, 130.0)], {"dpi": 144}, [((4, -11), False)]),
    # the other marker, 10 px either side, covers the first box at 144 dpi only
    "144 dpi, a marker": ([A, (100.0, 135.0)], ["ab", "c"], [], {"dpi": 144},
                          [((4, -11), False)]),
    "72 dpi, that marker": ([A, (100.0, 120.0)], ["ab", "c"], [], {}, [((4, 3), False)]),
}  # fmt: skip


@pytest.mark.parametrize("case", list(HAND))
def test_by_hand(case: str) -> None:
    points, texts, obstacles, options, want = HAND[case]
    got = check(points, texts, obstacles, **options)  # and the brute force agrees
    assert want is None or got[: len(want)] == want


def test_nowhere_clear_takes_the_fewest_clashes_first_and_the_legend_is_avoided() -> None:
    # a dense grid of obstacles: every candidate clashes; the count decides
    grid = [(100.0 + 3 * i, 100.0 + 3 * j) for i in range(-12, 13) for j in range(-12, 13)]
    check([(100.0, 100.0)], ["abc"], obstacles=grid)
    # and when all clash equally (one text over everything), the first offset wins
    _, ax = pixel_axes()
    ax.text(0, 0, "W" * 40, fontsize=300)
    before = len(ax.texts)
    article.place_labels(ax, [(100.0, 100.0)], ["ab"], fontsize=10)
    assert placed(ax, before)[0][:2] == ((4.0, 3.0), False)
    # the legend is avoided
    fig, ax = pixel_axes()
    ax.plot([0, 1], [0, 1], label="a long legend entry")
    legend = ax.legend(loc="upper right")
    fig.draw_without_rendering()
    e = legend.get_window_extent()
    x, y = e.x0 - 6, e.y0 + 2  # just left of the legend: the right-hand boxes run into it
    before = len(ax.texts)
    article.place_labels(ax, [(x, y)], ["abcd"], fontsize=10)
    (off, leader, _, t), *_ = placed(ax, before)
    fig.draw_without_rendering()
    b = t.get_window_extent()
    assert not hits((b.x0, b.y0, b.x1, b.y1), (e.x0, e.y0, e.x1, e.y1))
    want = expected([(x, y)], ["abcd"], [], 10.0, 0.0, [(e.x0, e.y0, e.x1, e.y1)])
    assert (off, leader) == (pytest.approx(want[0][0]), want[0][1])


@pytest.mark.parametrize("seed", range(12))
def test_random_scenes_match_the_rule(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(1, 4)
    points = [(rng.uniform(0, SIZE), rng.uniform(0, SIZE)) for _ in range(n)]
    cx, cy = points[0]
    obstacles = [(cx + rng.uniform(-30, 30), cy + rng.uniform(-30, 30)) for _ in range(8)]
    texts = ["x" * rng.randint(1, 6) for _ in range(n)]
    size, pad, dpi = rng.choice([7.0, 10.0]), rng.choice([0, 2, 3]), rng.choice([72, 144])
    check(points, texts, obstacles, size=size, pad=pad, dpi=dpi)


def test_overlap_is_strict_on_every_side_and_along_is_even_in_log_space() -> None:
    a = (0, 0, 10, 10)
    assert article._overlap(a, (5, 5, 15, 15)) and article._overlap(a, (-5, -5, 5, 5))
    assert article._overlap(a, (2, 2, 3, 3))
    for b in [(10, 0, 20, 10), (-10, 0, 0, 10), (0, 10, 10, 20), (0, -10, 10, 0)]:
        assert not article._overlap(a, b)  # touching edges
    for b in [(11, 0, 20, 10), (-10, 0, -1, 10), (0, 11, 10, 20), (0, -10, 10, -1)]:
        assert not article._overlap(a, b)
    # _along spaces points evenly in log space
    # from (1, 10) to (100, 1000) in two steps: the geometric midpoint (10, 100), then the end
    got = article._along([1, 100], [10, 1000], per_segment=2)
    assert got == [pytest.approx((1, 10)), pytest.approx((10, 100)), (100, 1000)]
    got = article._along([1, 16, 16], [1, 1, 256], per_segment=4)
    want = [(1, 1), (2, 1), (4, 1), (8, 1), (16, 1), (16, 4), (16, 16), (16, 64), (16, 256)]
    assert [pytest.approx(p) for p in want] == got
    assert len(article._along([1, 10], [1, 10])) == 9  # eight per segment, and the end
    assert article._along([1, 10], [1, 10])[1] == pytest.approx((10 ** (1 / 8), 10 ** (1 / 8)))


@pytest.mark.parametrize("target", range(1, 14))
def test_each_candidate_is_taken_when_those_before_it_are_blocked(target: int) -> None:
    """Obstacles inside each earlier candidate's box, clear of the target's and later ones."""
    assert padded(0) == (NEAR, FAR)  # the rule's rings, as written out above
    x, y, text, size, pad = 150.0, 150.0, "ab", 10.0, 3
    near, far = padded(pad)
    boxes = [box(x, y, dx, dy, text, size) for dx, dy in near + far]
    later = boxes[target:]
    obstacles = []
    for b in boxes[:target]:
        grid = itertools.product(range(11), repeat=2)
        spots = [(b[0] + (b[2] - b[0]) * i / 10, b[1] + (b[3] - b[1]) * j / 10) for i, j in grid]
        clear = [
            (ox, oy)
            for ox, oy in spots
            if not any(hits((ox - 2.5, oy - 2.5, ox + 2.5, oy + 2.5), c) for c in later)
            and not hits((ox - 2.5, oy - 2.5, ox + 2.5, oy + 2.5), (x - 5, y - 5, x + 5, y + 5))
        ]
        if not clear:
            pytest.skip("no spot blocks this candidate alone")
        obstacles.append(clear[0])
    want = check([(x, y)], [text], obstacles, size=size, pad=pad)
    assert want == [((near + far)[target], target >= 8)]
    if target >= 8:
        _, ax = pixel_axes()
        article.place_labels(ax, [(x, y)], [text], fontsize=size, obstacles=obstacles, pad=pad)
        (t,) = ax.texts
        assert (t.arrow_patch.shrinkA, t.arrow_patch.shrinkB) == (0, 3)
