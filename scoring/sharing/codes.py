"""QR codes of the site's links, drawn here by segno: a secret link never leaves the site for a
QR service. Inline where a page shows them at once (the big screen's seat finder, the printed
table cards); a picture of their own where a page offers them folded away (a share link's
"QR code", ``views.sharing.qr_code``), so that a phone's first load carries none of them."""

from __future__ import annotations

import functools
import io

import segno
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

#: Dark on white with a quiet zone of four modules, whatever the page's colours: as scanners need.
DRAWN = {"border": 4, "dark": "#000", "light": "#fff"}


@functools.lru_cache(maxsize=256)
def qr_svg(url: str, name: str) -> SafeString:
    """The QR code of ``url`` named ``name`` for screen readers: segno's SVG as segno makes it
    (``svg_inline``, its way into an HTML template) inside our element that carries the name
    and the size."""
    svg = segno.make(url, error="m").svg_inline(
        omitsize=True, svgclass=None, lineclass=None, **DRAWN
    )
    # Safe: segno writes only the modules' geometry, which holds nothing of ours.
    return render_to_string("scoring/_qr.html", {"svg": mark_safe(svg), "name": name})


def qr_picture(url: str) -> bytes:
    """The QR code of ``url`` as an SVG picture of its own, as segno saves one."""
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", xmldecl=False, omitsize=True, **DRAWN)
    return out.getvalue()
