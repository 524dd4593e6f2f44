"""Preview pictures for messengers: declared in the pages' heads, 1200×630 PNGs drawn by the
site in the page's language with no missing glyph, kept once per result version."""

from __future__ import annotations

import io
import re
from html import unescape

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import translation
from PIL import Image

from scoring.events import services as event_services
from scoring.leagues import services as league_services
from scoring.sharing import cards, fonts
from scoring.sharing.pictures import HEIGHT, WIDTH, Card, Row, draw
from tests.helpers import finished, html, logged_in, make_event, play_out

#: Names in every script the site's players write.
NAMES = ("Анна", "Вера", "田中", "김민준", "శ్రీనివాస్", "Nguyễn Thị Ánh")


def og(page: str, name: str) -> str:
    found = re.search(rf'<meta property="{name}" content="([^"]*)"', page)
    assert found, name
    return unescape(found.group(1))


def png_of(response) -> Image.Image:
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    return Image.open(io.BytesIO(response.content))


@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
def test_every_languages_picture_has_a_glyph_for_every_character(league, language):
    series = finished(league, names=NAMES[:4], loser=1)
    series.refresh_from_db()
    with translation.override(language):
        preview = cards.series_preview(series)
        texts = [*preview.card.texts(), *NAMES]
        assert all(not fonts.missing(text, language) for text in texts), [
            fonts.missing(text, language) for text in texts
        ]
        picture = Image.open(io.BytesIO(draw(preview.card)))
    assert picture.size == (WIDTH, HEIGHT) and picture.format == "PNG"


def test_a_character_no_font_has_is_reported_missing():
    assert fonts.missing("Anna \U0001fad8", "en") == {"\U0001fad8"}  # beans: no Noto Sans glyph


def test_telugu_is_shaped_not_drawn_letter_by_letter():
    """A conjunct (శ్రీ) drawn by the shaper is narrower than its letters side by side."""
    shaped = Image.open(io.BytesIO(draw(Card("x", "శ్రీ", language="te"))))
    apart = Image.open(io.BytesIO(draw(Card("x", "శ ్ ర ీ", language="te"))))
    assert shaped.getbbox() is not None and shaped.tobytes() != apart.tobytes()


def test_a_finished_series_declares_its_picture_and_serves_it(league, owner):
    series = finished(league, names=("Anna", "Vera", "Boris", "Gleb"), loser=1)
    client = logged_in(owner)
    page = html(client.get(series.get_absolute_url()))
    assert "Vera &amp; Gleb" in og(page, "og:title") or "Boris" in og(page, "og:title")
    assert "are the goat" in og(page, "og:description")
    image = og(page, "og:image")
    assert og(page, "og:image:width") == "1200" and og(page, "og:image:height") == "630"
    assert re.search(r"\?v=1\.\d+&lang=en$", image), image
    picture = png_of(client.get(image.removeprefix("http://testserver")))
    assert picture.size == (1200, 630)


def test_the_picture_shows_the_result_as_it_is_now_and_writes_nothing(league, owner):
    """Drawn when asked for (a GET writes nothing): the same picture while the result stands, a
    new one once it changes."""
    series = finished(league, names=("Anna", "Vera", "Boris", "Gleb"), loser=1)
    client = logged_in(owner)
    url = f"/pictures/series/{series.pk}/?v=1&lang=ru"
    first = client.get(url).content
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).content == first
    assert not [
        q
        for q in queries.captured_queries
        if q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))
    ]
    series.refresh_from_db()
    from scoring.table import deals

    deals.deal_undo(series_id=series.pk, number=series.deal_count, version=series.version)
    assert client.get(url).content != first


def test_a_public_picture_is_kept_for_good_by_whoever_fetches_it(league):
    """Its address names its result's version: a messenger or a proxy keeps it, and a busy
    evening asks the site for each version once per fetcher."""
    league = league_services.share_renew(league=league)
    response = Client().get(f"/public/{league.share_token}/picture/?v=1&lang=en")
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert "public" in response["Cache-Control"] and "max-age=31536000" in response["Cache-Control"]


def test_a_series_picture_is_for_whoever_may_see_the_series(league, outsider):
    series = finished(league)
    assert logged_in(outsider).get(f"/pictures/series/{series.pk}/?v=1&lang=en").status_code == 404
    assert logged_in(None).get(f"/pictures/series/{series.pk}/?v=1&lang=en").status_code == 404


def test_a_language_the_site_does_not_speak_is_not_found(league, owner):
    series = finished(league)
    assert logged_in(owner).get(f"/pictures/series/{series.pk}/?v=1&lang=xx").status_code == 404


def test_the_public_standings_declare_a_picture_in_the_pages_language(league):
    finished(league, names=("Анна", "Вера", "Борис", "Глеб"))
    league = league_services.share_renew(league=league)
    client = logged_in(None)
    page = html(client.get(f"/public/{league.share_token}/", HTTP_ACCEPT_LANGUAGE="ru"))
    image = og(page, "og:image")
    assert image.endswith("lang=ru")
    assert png_of(client.get(image.removeprefix("http://testserver"))).size == (1200, 630)
    assert "Анна" in og(page, "og:description") or "Вера" in og(page, "og:description")


def test_the_club_nights_public_page_declares_its_picture(league):
    event = make_event(league, 8, rounds=1)
    play_out(event.played_rounds.get().tables.first().series)
    event = event_services.share_renew(event=event)
    client = logged_in(None)
    page = html(client.get(f"/public/events/{event.share_token}/"))
    image = og(page, "og:image")
    assert png_of(client.get(image.removeprefix("http://testserver"))).size == (1200, 630)
    assert "Leading" in og(page, "og:description")


def test_no_picture_once_the_public_link_is_revoked(league):
    finished(league)
    league = league_services.share_renew(league=league)
    token = league.share_token
    league_services.share_revoke(league=league)
    assert logged_in(None).get(f"/public/{token}/picture/?v=1&lang=en").status_code == 404


def test_the_share_text_for_a_chat_names_the_score_and_the_goat(league):
    series = finished(league, names=("Anna", "Vera", "Boris", "Gleb"), loser=1)
    series.refresh_from_db()
    text = cards.series_preview(series).text
    assert re.fullmatch(r"Anna & Boris 0 : 1\d Vera & Gleb — Vera & Gleb are the goat 🐐", text), (
        text
    )


@pytest.fixture
def no_fonts(settings, tmp_path):
    """A machine without the Noto fonts (the caches of the fonts found emptied around it)."""
    settings.PREVIEW_FONT_DIRS = [str(tmp_path)]
    fonts.forget()
    yield
    fonts.forget()


def test_without_the_fonts_a_picture_is_still_made(no_fonts):
    picture = Image.open(io.BytesIO(draw(Card("Kozel", "Anna & Vera", [Row("Anna", "4")]))))
    assert picture.size == (WIDTH, HEIGHT)
    assert fonts.missing("Anna", "en") == {"A", "n", "a"}  # said, for the tests and the log


def test_a_finished_games_end_screen_offers_its_result_for_a_chat(db):
    from tests.helpers import creator_client, html, play_out, start_series

    series = play_out(start_series(), loser=0)
    page = html(creator_client(series).get(f"/series/{series.pk}/"))
    assert 'data-share="series-share"' in page and "Text for a chat" in page
    assert "Anna &amp; Vera 12 : 0 Boris &amp; Gleb" in page
    # The table's watching link: anyone in the chat may watch, as the people at the table do.
    assert f"http://testserver/tables/{series.table.watch_token}/" in page
    text = page.split('id="series-share"')[1].split("</textarea>")[0]
    assert series.table.score_token not in text  # never the link that scores


def test_a_watching_link_in_a_chat_shows_the_games_picture_to_the_messenger(db):
    """A messenger fetches the link as a stranger (no cookie): the page that opens the link
    declares the game's title, score and picture, and the picture is served to it."""
    from tests.helpers import play_out, start_series

    series = play_out(start_series(), loser=0)
    crawler = Client()
    page = html(crawler.get(f"/tables/{series.table.watch_token}/"))
    assert "Open the game to watch" in page  # the join page: the crawler holds no link
    assert "Anna & Vera" in og(page, "og:title") and "are the goat" in og(page, "og:description")
    image = og(page, "og:image").removeprefix("http://testserver")
    assert image.startswith(f"/tables/{series.table.watch_token}/picture/?v=")
    response = crawler.get(image)
    assert png_of(response).size == (1200, 630)
    assert "public" in response["Cache-Control"]  # its address names the result's version


def test_no_table_picture_for_a_club_nights_table_or_a_revoked_link(league):
    from scoring.table import services as table_services
    from tests.helpers import start_series

    event = make_event(league)
    club_table = event.tables.first()
    assert Client().get(f"/tables/{club_table.score_token}/picture/").status_code == 404
    series = start_series()
    token = series.table.watch_token
    assert Client().get(f"/tables/{token}/picture/").status_code == 200  # in play: its score
    table_services.table_link_renew(table=series.table, link="watch")
    assert Client().get(f"/tables/{token}/picture/").status_code == 404
