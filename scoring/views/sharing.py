"""Results published: the preview pictures messengers fetch (``og:image``), the standings a
club frames on its own site, and the JSON feed. They only read (a GET writes nothing): a
picture is drawn when asked for, at an address that names its result's version, so whoever
fetches it (a messenger, a proxy, a browser) keeps it for good; the feed's rate count is kept
in the worker's memory (``throttle.feed_allowed``)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import cast

from csp.decorators import csp_replace
from django.conf import settings
from django.http import Http404, HttpResponse
from django.middleware.http import ConditionalGetMiddleware
from django.shortcuts import get_object_or_404, render
from django.urls import Resolver404, resolve
from django.utils import translation
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.decorators import decorator_from_middleware
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.http import require_GET

from scoring.events import leaderboard
from scoring.models import Event, League
from scoring.sharing import cards, codes, feed, pictures
from scoring.standings import ranking
from scoring.standings.selectors import StandingsFilter, ranked_standings
from scoring.table.selectors import series_seen, table_for
from scoring.views import TOO_MANY, HtmxHttpRequest
from scoring.web.clients import client_network
from scoring.web.middleware import mark_secret
from scoring.web.sessions import visitor_of
from scoring.web.throttle import feed_allowed

#: How long a messenger, a proxy or a browser may keep a public picture without asking again:
#: its address names its result's version (``?v=``), so a new result is a new address anyway.
PICTURE_KEPT = 365 * 24 * 60 * 60

#: Any site may frame the embed (django-csp's decorator; its types know only views of one argument).
frame_anywhere = cast(
    Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]],
    csp_replace({"frame-ancestors": ["*"]}),
)
#: Django's conditional GET for one view: the ETag set, a matching If-None-Match answered 304.
conditional_get = cast(
    Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]],
    decorator_from_middleware(ConditionalGetMiddleware),
)


def _language(request: HtmxHttpRequest) -> str:
    """The picture's language, named in its address (``?lang=``: messengers send no cookie),
    the site's own when it names none; 404 for one the site does not speak. (``?v=``, the
    result's version, only makes a new result a new address: the current one is drawn.)"""
    code = request.GET.get("lang", settings.LANGUAGE_CODE)
    if code not in dict(settings.LANGUAGES):
        raise Http404("No such language.")
    return code


def _png(png: bytes, *, public: bool) -> HttpResponse:
    response = HttpResponse(png, content_type="image/png")
    if public:
        patch_cache_control(response, public=True, max_age=PICTURE_KEPT)
    else:
        patch_cache_control(response, private=True, max_age=300)
    return response


@require_GET
def series_picture(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A series' picture, for whoever may see the series."""
    lang = _language(request)
    series = series_seen(visitor_of(request), pk).series
    with translation.override(lang):
        png = pictures.draw(cards.series_preview(series).card)
    return _png(png, public=False)


@require_GET
def table_picture(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """The picture of the game a kitchen table plays now, behind one of its links: what a
    messenger shows for a watching link handed to a chat (the join page declares it). The link
    is the key, as it is for the page; no picture for a club night's table (its evening has a
    public page of its own) or a revoked link."""
    lang = _language(request)
    table = table_for(token)
    if table is None or table.event_id is not None or table.series is None:
        raise Http404("No such game.")
    with translation.override(lang):
        png = pictures.draw(cards.series_preview(table.series).card)
    return _png(png, public=True)


@require_GET
def event_picture(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """A club night's picture, behind its public link."""
    lang = _language(request)
    event = get_object_or_404(Event.objects.select_related("league"), share_token=token)
    current = cards.event_version(event)
    with translation.override(lang):
        card = cards.event_preview(event, leaderboard.build(event), current).card
        png = pictures.draw(card)
    return _png(png, public=True)


@require_GET
def league_picture(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """A league's public standings' picture, behind its public link."""
    lang = _language(request)
    league = get_object_or_404(League, share_token=token)
    with translation.override(lang):
        table, players = ranked_standings(
            league, StandingsFilter(), sort=ranking.DEFAULT_SORT, everyone=False
        )
        png = pictures.draw(cards.league_preview(league, table, players).card)
    return _png(png, public=True)


@xframe_options_exempt
@frame_anywhere
@require_GET
def league_embed(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """The compact standings a club frames on its own site: the only page any site may frame.
    It has no form and touches no session, so it sets no cookie (``?lang=`` picks its
    language, else the browser's)."""
    league = get_object_or_404(League, share_token=token)
    mark_secret(request)  # its link to the public standings carries the token
    lang = request.GET.get("lang", "")
    code = lang if lang in dict(settings.LANGUAGES) else translation.get_language()
    with translation.override(code):
        table, players = ranked_standings(
            league, StandingsFilter(), sort=ranking.DEFAULT_SORT, everyone=False
        )
        context = {"league": league, "standings": table, "players": players, "token": token}
        response = render(request, "scoring/sharing/embed.html", context)
    patch_cache_control(response, public=True, max_age=60)
    return response


@require_GET
@conditional_get
def league_feed(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """The league's JSON feed (docs/FEED.md): an ETag, 304 for an unchanged one, a limit per
    network and minute, 404 once its public link is renewed or revoked."""
    if not feed_allowed(client_network(request)):
        response = HttpResponse(
            b'{"error": "too many requests"}', content_type="application/json", status=TOO_MANY
        )
        response["Retry-After"] = "60"
        return response
    league = get_object_or_404(League, share_token=token)
    body = feed.feed_document(league)
    response = HttpResponse(body, content_type="application/json")
    response["ETag"] = f'"{hashlib.sha256(body).hexdigest()[:32]}"'
    response["Access-Control-Allow-Origin"] = "*"
    patch_cache_control(response, public=True, no_cache=True)
    patch_vary_headers(response, ["Accept-Encoding"])
    return response


#: A link's QR code is kept by the phone for a day: the link it draws never changes.
QR_KEPT = 24 * 60 * 60
#: The longest link drawn: every link of the site is far shorter (a QR code holds ~2,300 bytes).
QR_LONGEST = 200


@require_GET
def qr_code(request: HtmxHttpRequest, link: str) -> HttpResponse:
    """The QR code of one of the site's own links (``link``, the path after the site's address),
    a picture for a share link's folded "QR code". It shows only what its own address holds, so
    it needs no account: 404 for an address that is no page of the site."""
    path = "/" + link
    try:
        if len(path) > QR_LONGEST:
            raise Resolver404
        resolve(path)
    except Resolver404:
        raise Http404("No such link.") from None
    response = HttpResponse(
        codes.qr_picture(request.build_absolute_uri(path)), content_type="image/svg+xml"
    )
    patch_cache_control(response, private=True, max_age=QR_KEPT)
    return response
