"""A link to hand to another phone: the address, Copy, the share sheet and a QR code, drawn
here as inline SVG (segno): the secret link never leaves the site for a QR service, and the
page needs no script to show it. A page that draws one is never gzipped (``compression``).
"""

from __future__ import annotations

import functools
import io

import segno
from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from scoring.compression import mark_secret

register = template.Library()


@functools.lru_cache(maxsize=256)
def qr_svg(url: str, name: str) -> SafeString:
    """The QR code of ``url`` as an SVG named ``name`` for screen readers: dark on white with a
    quiet zone, whatever the page's colours, as scanners need."""
    out = io.BytesIO()
    segno.make(url, error="m").save(
        out, kind="svg", xmldecl=False, svgns=True, nl=False, border=4, omitsize=True,
        dark="#000", light="#fff", svgclass="qr-code",
    )  # fmt: skip
    svg = out.getvalue().decode()
    named = f'<svg role="img" aria-label="{escape(name)}"'
    return mark_safe(named + svg.removeprefix("<svg"))  # segno's own markup, name escaped


@register.inclusion_tag("scoring/_share_link.html", takes_context=True)
def share_link(context, path: str, *, label: str, field_id: str, qr_name: str) -> dict:
    """The shared block for one link: ``path`` on this site, its field's ``label`` and id."""
    request = context["request"]
    mark_secret(request)  # a secret link in the page: never compressed (BREACH)
    url = request.build_absolute_uri(path)
    return {"url": url, "label": label, "field_id": field_id, "qr": qr_svg(url, qr_name)}
