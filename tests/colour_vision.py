"""How colours look to people with a colour vision deficiency, and how far apart two look.

* :func:`simulate`: Machado, Oliveira & Fernandes (2009), "A Physiologically-based Model for
  Simulation of Color Vision Deficiency", IEEE TVCG 15(6) — their severity-1.0 matrices for
  protanopia, deuteranopia and tritanopia, applied to linear RGB (sRGB decoded), clipped.
* :func:`delta_e`: CIEDE2000 (Sharma, Wu & Dalal 2005) between two sRGB colours in CIELAB
  (D65). About 2.3 is a just-noticeable difference; docs/accessibility.md says what the
  table asks of its palettes.
* :func:`contrast`: WCAG 2's contrast ratio of two sRGB colours (1 to 21).

Plain arithmetic, no dependency: these only check the palettes (tests/test_palette.py).
"""

from __future__ import annotations

import math

Matrix = tuple[tuple[float, float, float], ...]

MACHADO: dict[str, Matrix] = {
    "normal": ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}

Linear = tuple[float, float, float]


def linear(colour: str) -> Linear:
    """``#rrggbb`` as linear RGB, each 0..1 (the sRGB transfer function undone)."""
    def one(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    r, g, b = (one(int(colour[i:i + 2], 16)) for i in (1, 3, 5))
    return r, g, b


def simulate(colour: str, vision: str) -> Linear:
    """``colour`` as ``vision`` (a key of :data:`MACHADO`) sees it, in linear RGB."""
    m, rgb = MACHADO[vision], linear(colour)
    out = [sum(m[i][j] * rgb[j] for j in range(3)) for i in range(3)]
    return (min(1.0, max(0.0, out[0])), min(1.0, max(0.0, out[1])),
            min(1.0, max(0.0, out[2])))


def lab(rgb: Linear) -> tuple[float, float, float]:
    """Linear RGB as CIELAB under D65."""
    r, g, b = rgb
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116
    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def ciede2000(lab1: tuple[float, float, float], lab2: tuple[float, float, float]) -> float:
    """The CIEDE2000 colour difference (kL = kC = kH = 1)."""
    l1, a1, b1 = lab1
    l2, a2, b2 = lab2
    c_bar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_bar ** 7 / (c_bar ** 7 + 25 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dl, dc = l2 - l1, c2p - c1p
    dh = 0.0
    if c1p * c2p:
        dh = h2p - h1p
        dh = dh - 360 if dh > 180 else dh + 360 if dh < -180 else dh
    d_h = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_bar, cp_bar = (l1 + l2) / 2, (c1p + c2p) / 2
    if not c1p * c2p:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    else:
        h_bar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_bar - 30)) + 0.24 * math.cos(math.radians(2 * h_bar))
         + 0.32 * math.cos(math.radians(3 * h_bar + 6))
         - 0.20 * math.cos(math.radians(4 * h_bar - 63)))
    d_theta = 30 * math.exp(-((h_bar - 275) / 25) ** 2)
    r_c = 2 * math.sqrt(cp_bar ** 7 / (cp_bar ** 7 + 25 ** 7))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / math.sqrt(20 + (l_bar - 50) ** 2)
    s_c, s_h = 1 + 0.045 * cp_bar, 1 + 0.015 * cp_bar * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    return math.sqrt((dl / s_l) ** 2 + (dc / s_c) ** 2 + (d_h / s_h) ** 2
                     + r_t * (dc / s_c) * (d_h / s_h))


def delta_e(colour1: str, colour2: str, vision: str = "normal") -> float:
    """How far apart two ``#rrggbb`` colours look to ``vision`` (CIEDE2000)."""
    return ciede2000(lab(simulate(colour1, vision)), lab(simulate(colour2, vision)))


def contrast(colour1: str, colour2: str) -> float:
    """WCAG 2's contrast ratio: (L1 + 0.05) / (L2 + 0.05), the lighter over the darker."""
    def lum(colour: str) -> float:
        r, g, b = linear(colour)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    hi, lo = sorted((lum(colour1), lum(colour2)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)
