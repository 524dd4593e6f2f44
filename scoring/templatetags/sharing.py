"""A link to hand to another phone: the address, Copy, the share sheet and its QR code, a
picture the page fetches only when the code is unfolded (``sharing.codes``). A page that shows
a secret link is never compressed with a guess beside it (``compression``)."""

from __future__ import annotations

from django import template
from django.urls import reverse

from scoring.web.middleware import mark_secret

register = template.Library()


@register.inclusion_tag("scoring/_share_link.html", takes_context=True)
def share_link(context, path: str, *, label: str, field_id: str, qr_name: str) -> dict:
    """The shared block for one link: ``path`` on this site, its field's ``label`` and id, and
    its QR code's address and name."""
    request = context["request"]
    mark_secret(request)  # a secret link in the page: never compressed (BREACH)
    return {
        "url": request.build_absolute_uri(path),
        "label": label,
        "field_id": field_id,
        "qr": reverse("qr_code", args=[path.removeprefix("/")]),
        "qr_name": qr_name,
    }
