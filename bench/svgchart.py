"""Minimal SVG charts (line and grouped bar) for bench/run_bench.py. Standard library only."""

import math
from pathlib import Path
from xml.sax.saxutils import escape

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
          "#7f7f7f"]
W, H = 720, 420
LEFT, RIGHT, TOP, BOTTOM = 70, 190, 40, 50


def _text(x, y, s, anchor="middle", size=12, extra=""):
    return '<text x="%.1f" y="%.1f" font-size="%d" text-anchor="%s" %s>%s</text>' % (
        x, y, size, anchor, extra, escape(str(s)))


def _fmt(v):
    if abs(v) >= 1000:
        return "{:,.0f}".format(v)
    if abs(v) >= 10 or v == int(v):
        return "%.0f" % v
    return "%.2g" % v


def _ticks(lo, hi, log):
    if log:
        a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        decades = [10.0 ** e for e in range(a, b + 1)]
        if b - a > 3:
            return decades
        # Few decades: 1-2-5 steps, trimmed to the data.
        steps = [d * m for d in decades for m in (1, 2, 5)]
        inside = [t for t in steps if lo <= t <= hi]
        below = [t for t in steps if t < lo]
        above = [t for t in steps if t > hi]
        return (below[-1:] + inside + above[:1]) or decades
    span = hi - lo or 1.0
    step = 10 ** math.floor(math.log10(span / 5))
    for m in (1, 2, 5, 10):
        if span / (step * m) <= 6:
            step *= m
            break
    t = math.floor(lo / step) * step
    out = []
    while t <= hi + step * 0.001:
        out.append(t)
        t += step
    return out


def line_chart(path: Path, title, xlabel, ylabel, series, log_x=False, log_y=False,
               y_transform=None):
    """series: [(name, [(x, y), ...])]. With log_y, y values are shown as ratios 1 + y/100
    (so overheads from -5% to +10000% fit one axis); the tick labels stay in percent."""
    pts = [(x, y) for _, s in series for x, y in s]
    if not pts:
        return
    def ty(y):
        return 1.0 + y / 100.0 if log_y else y
    xs = [x for x, _ in pts]
    ys = [ty(y) for _, y in pts]
    if log_y:
        ys = [max(y, 1e-3) for y in ys]
    x_lo, x_hi = min(xs), max(xs)
    y_lo, y_hi = min(ys), max(ys)
    if not log_y:
        y_lo, y_hi = min(y_lo, 0), y_hi if y_hi > y_lo else y_lo + 1
    else:
        y_lo = min(y_lo, 0.95)
    xt, yt = _ticks(x_lo, x_hi, log_x), _ticks(y_lo, y_hi, log_y)
    x_lo, x_hi = min(xt[0], x_lo), max(xt[-1], x_hi)
    y_lo, y_hi = min(yt[0], y_lo), max(yt[-1], y_hi)

    def sx(x):
        if log_x:
            f = (math.log10(x) - math.log10(x_lo)) / ((math.log10(x_hi) - math.log10(x_lo)) or 1)
        else:
            f = (x - x_lo) / ((x_hi - x_lo) or 1)
        return LEFT + f * (W - LEFT - RIGHT)

    def sy(y):
        if log_y:
            f = (math.log10(y) - math.log10(y_lo)) / ((math.log10(y_hi) - math.log10(y_lo)) or 1)
        else:
            f = (y - y_lo) / ((y_hi - y_lo) or 1)
        return H - BOTTOM - f * (H - TOP - BOTTOM)

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif">' % (W, H),
           '<rect width="100%" height="100%" fill="white"/>', _text(W / 2, 22, title, size=15)]
    for t in xt:
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (
            sx(t), TOP, sx(t), H - BOTTOM))
        out.append(_text(sx(t), H - BOTTOM + 16, _fmt(t)))
    for t in yt:
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (
            LEFT, sy(t), W - RIGHT, sy(t)))
        label = _fmt(100.0 * (t - 1.0)) + "%" if log_y else _fmt(t)
        out.append(_text(LEFT - 6, sy(t) + 4, label, anchor="end"))
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#444"/>' % (
        LEFT, TOP, W - LEFT - RIGHT, H - TOP - BOTTOM))
    out.append(_text((LEFT + W - RIGHT) / 2, H - 12, xlabel))
    out.append(_text(16, (TOP + H - BOTTOM) / 2, ylabel,
                     extra='transform="rotate(-90 16 %.1f)"' % ((TOP + H - BOTTOM) / 2)))
    for i, (name, s) in enumerate(series):
        c = COLORS[i % len(COLORS)]
        dash = ' stroke-dasharray="5,3"' if i % 2 and len(series) > 3 else ""
        s = sorted(s)
        if s:
            d = " ".join("%s%.1f,%.1f" % ("M" if j == 0 else "L", sx(x), sy(max(ty(y), 1e-3)
                                                                         if log_y else ty(y)))
                         for j, (x, y) in enumerate(s))
            out.append('<path d="%s" fill="none" stroke="%s" stroke-width="2"%s/>' % (d, c, dash))
            for x, y in s:
                out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (
                    sx(x), sy(max(ty(y), 1e-3) if log_y else ty(y)), c))
        ly = TOP + 14 + 18 * i
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>' % (
            W - RIGHT + 12, ly - 4, W - RIGHT + 36, ly - 4, c, dash))
        out.append(_text(W - RIGHT + 42, ly, name, anchor="start"))
    out.append("</svg>")
    path.write_text("\n".join(out) + "\n")


def bar_chart(path: Path, title, series_names, groups):
    """groups: [(label, [value per series or None])], values in percent (may be negative)."""
    vals = [v for _, vs in groups for v in vs if v is not None]
    if not vals:
        return
    lo, hi = min(0.0, min(vals)), max(0.0, max(vals))
    yt = _ticks(lo, hi if hi > lo else lo + 1, False)
    lo, hi = min(yt[0], lo), max(yt[-1], hi)

    def sy(y):
        return H - BOTTOM - (y - lo) / ((hi - lo) or 1) * (H - TOP - BOTTOM)

    gw = (W - LEFT - RIGHT) / max(len(groups), 1)
    bw = gw * 0.8 / max(len(series_names), 1)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif">' % (W, H),
           '<rect width="100%" height="100%" fill="white"/>', _text(W / 2, 22, title, size=15)]
    for t in yt:
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (
            LEFT, sy(t), W - RIGHT, sy(t)))
        out.append(_text(LEFT - 6, sy(t) + 4, _fmt(t) + "%", anchor="end"))
    out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#444"/>' % (
        LEFT, sy(0), W - RIGHT, sy(0)))
    for g, (label, vs) in enumerate(groups):
        x0 = LEFT + g * gw + gw * 0.1
        for i, v in enumerate(vs):
            if v is None:
                continue
            y1, y2 = sy(max(v, 0)), sy(min(v, 0))
            out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s">'
                       '<title>%s %s: %.1f%%</title></rect>' % (
                           x0 + i * bw, y1, bw * 0.95, max(y2 - y1, 0.5),
                           COLORS[i % len(COLORS)], escape(label), escape(series_names[i]), v))
        out.append(_text(LEFT + g * gw + gw / 2, H - BOTTOM + 16, label))
    for i, name in enumerate(series_names):
        ly = TOP + 14 + 18 * i
        out.append('<rect x="%d" y="%d" width="16" height="10" fill="%s"/>' % (
            W - RIGHT + 12, ly - 9, COLORS[i % len(COLORS)]))
        out.append(_text(W - RIGHT + 34, ly, name, anchor="start"))
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#444"/>' % (
        LEFT, TOP, W - LEFT - RIGHT, H - TOP - BOTTOM))
    out.append("</svg>")
    path.write_text("\n".join(out) + "\n")
