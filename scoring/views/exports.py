"""Downloads made off the request (``scoring.backup.jobs``): asking for one (a POST: asking
writes), its page, which refreshes itself until the file is there, and its file."""

from __future__ import annotations

import gzip
import re
import uuid
from collections.abc import Iterator
from typing import IO, Any

from django.http import FileResponse, HttpResponse, HttpResponseBase, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.cache import patch_vary_headers
from django.utils.http import content_disposition_header
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from scoring.backup import jobs
from scoring.models import Export, exports_storage
from scoring.views import TOO_MANY, HtmxHttpRequest

#: Seconds between two looks of an export's page at its export.
REFRESH = 2
GZIP = re.compile(r"\bgzip\b")
CHUNK = 64 * 1024


def _texts() -> dict[str, tuple[str, str]]:
    """Per kind of export: the ask page's title and what the file holds."""
    return {
        Export.Kind.HISTORY_JSON: (
            _("Download the history as JSON"),
            _(
                "A backup of these series, their deals and who recorded them, as one file this "
                "site can import again. A league's owners also get its club nights and changes."
            ),
        ),
        Export.Kind.HISTORY_CSV: (
            _("Download the history as CSV"),
            _("One row per series, for a spreadsheet."),
        ),
        Export.Kind.ACCOUNT: (
            _("Download my data"),
            _("Everything this site holds about your account, as one JSON file."),
        ),
    }


def ask_response(
    request: HtmxHttpRequest,
    kind: str,
    *,
    refusal: jobs.ExportRefused | None = None,
    status: int = 200,
) -> HttpResponse:
    """The page that asks for an export of ``kind`` (its button posts to this same URL)."""
    title, text = _texts()[kind]
    context: dict[str, Any] = {"title": title, "text": text, "refusal": refusal}
    return render(request, "scoring/exports/ask.html", context, status=status)


def ask(request: HtmxHttpRequest, kind: str, scope: dict[str, Any]) -> HttpResponse:
    """Queue the export and go to its page; 429 with the reason when it may not be asked now."""
    try:
        export = jobs.export_ask(request, kind=kind, scope=scope)
    except jobs.ExportRefused as refusal:
        return ask_response(request, kind, refusal=refusal, status=TOO_MANY)
    return redirect("export_detail", pk=export.pk)


def _held(request: HtmxHttpRequest, pk: uuid.UUID) -> Export:
    """The export, if it is this request's to have: 404 for anyone else's, as for none."""
    return get_object_or_404(jobs.exports_held(request).select_related("user"), pk=pk)


@never_cache
@require_GET
def export_detail(request: HtmxHttpRequest, pk: uuid.UUID) -> HttpResponse:
    """An export's page: waiting, being made, or its file. htmx asks for the fragment."""
    state = jobs.export_state(_held(request, pk))
    template = "scoring/exports/detail.html"
    if request.htmx:
        template += "#status"
    return render(request, template, {"state": state, "refresh": REFRESH})


def _unpacked(packed: IO[bytes]) -> Iterator[bytes]:
    with packed, gzip.GzipFile(fileobj=packed) as unpacked:
        while chunk := unpacked.read(CHUNK):
            yield chunk


@never_cache
@require_GET
def export_download(request: HtmxHttpRequest, pk: uuid.UUID) -> HttpResponseBase:
    """The finished file, whole (its length said), to whoever asked for it; before it is
    finished, its page. Sent as it is kept (gzipped) to a browser that takes gzip, which saves
    it unpacked; unpacked on the way for any other."""
    export = _held(request, pk)
    if jobs.export_state(export).state != jobs.DONE:
        return redirect("export_detail", pk=export.pk)
    packed = exports_storage().open(export.file, "rb")
    response: HttpResponseBase
    if GZIP.search(request.headers.get("Accept-Encoding", "")):
        response = FileResponse(packed, content_type=jobs.content_type(export))
        response["Content-Encoding"] = "gzip"
    else:
        response = StreamingHttpResponse(_unpacked(packed), content_type=jobs.content_type(export))
        response["Content-Length"] = str(export.size)
    response["Content-Disposition"] = content_disposition_header(True, jobs.download_name(export))
    patch_vary_headers(response, ["Accept-Encoding"])
    return response
