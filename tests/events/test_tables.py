"""A club night's table phone: one link for the whole evening, which follows the rounds, and
rounds that close for real (issue #27)."""

from __future__ import annotations

import html as html_text
import re
import uuid

import pytest
from django.test import Client

from scoring.events import services as event_services
from scoring.models import Deal, EventTable, Table
from scoring.table import deals
from tests.helpers import db_snapshot, deal_data, html, logged_in, make_event, record

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def text(response) -> str:
    """The page's words, without its tags."""
    return html_text.unescape(re.sub(r"<[^>]+>", "", html(response)))


def table_phone(link: Table) -> Client:
    """A phone that scanned the table's card and opened it."""
    phone = Client()
    assert phone.post(link.get_absolute_url()).status_code == 302
    return phone


def game(event, number: int = 1) -> EventTable:
    return (
        EventTable.objects.filter(round__event=event, number=number)
        .order_by("-round__number")
        .select_related("series", "round")
        .first()
    )


def live(phone: Client, link: Table, version: str):
    return phone.get(f"{link.get_absolute_url()}live/", {"version": version}, headers=HTMX)


def version_of(page: str) -> str:
    return page.split('data-version="', 1)[1].split('"', 1)[0]


def test_a_club_night_has_a_link_per_table_for_the_evening(league):
    event = make_event(league, 8)
    assert list(event.tables.values_list("number", flat=True)) == [1, 2]
    assert event.share_token  # the players' page and the big screen's code


def test_opening_a_table_link_asks_first_and_changes_nothing(league):
    link = make_event(league, 8).tables.get(number=1)
    phone = Client()
    page = phone.get(link.get_absolute_url())
    assert page.status_code == 200
    assert "Score table 1 on this phone" in text(page)
    assert "tables" not in phone.session  # a link preview takes nothing in
    assert phone.post(link.get_absolute_url())["Location"] == link.get_absolute_url()
    board = phone.get(link.get_absolute_url())
    assert "Friday night · Round 1 of 3 · Table 1" in text(board)
    assert 'name="entry_key"' in html(board)  # the table's phone scores its game


def test_an_unknown_table_link_is_not_found(db):
    assert Client().get("/tables/nothing-here/").status_code == 404


def test_the_table_phone_records_deals_and_its_poll_answers_204_until_news(league):
    event = make_event(league, 8)
    link = event.tables.get(number=1)
    phone = table_phone(link)
    page = phone.get(link.get_absolute_url(), headers=HTMX)
    answer = phone.post(
        f"/series/{game(event).series_id}/deals/", deal_data(page, points_0="70"), headers=HTMX
    )
    assert answer.status_code == 200 and answer["X-Kozel-Recorded"] == "1"
    version = version_of(html(answer))
    assert live(phone, link, version).status_code == 204
    record(game(event).series, (80, 40))  # another phone at the table
    news = live(phone, link, version)
    assert news.status_code == 200 and "Deal 2:" in text(news)


def test_the_table_follows_the_rounds_on_one_link(league):
    """The round finished, the table's board says its result and where its players go; the next
    round started, the same link shows that round's game, with no new link."""
    event = make_event(league, 8)
    link = event.tables.get(number=1)
    phone = table_phone(link)
    first = game(event)
    record(first.series, (80, 40))
    version = version_of(html(phone.get(link.get_absolute_url())))
    event_services.round_finish(event=event)
    over = live(phone, link, version)
    assert over.status_code == 200
    shown = text(over)
    assert "Round 1 is over at this table" in shown
    assert "Waiting for round 2" in shown
    for seat in first.series.seats.select_related("player"):
        assert seat.player.name in shown.split("Waiting for round 2", 1)[1]
    assert 'name="entry_key"' not in shown and "Rematch" not in shown
    event_services.round_start(event=event)
    second = game(event)
    assert second.round.number == 2 and second.series_id != first.series_id
    news = live(phone, link, version_of(html(over)))
    assert news.status_code == 200
    assert f'data-series="{second.series_id}"' in html(news)
    assert "Round 2 of 3 · Table 1" in text(news)
    assert 'name="entry_key"' in html(news)


def test_a_deal_sent_after_the_round_closed_is_refused_and_changes_nothing(league):
    event = make_event(league, 8)
    link = event.tables.get(number=1)
    phone = table_phone(link)
    page = phone.get(link.get_absolute_url(), headers=HTMX)
    event_services.round_finish(event=event)
    before = db_snapshot()
    answer = phone.post(
        f"/series/{game(event).series_id}/deals/", deal_data(page, points_0="70"), headers=HTMX
    )
    assert answer.status_code == 422
    assert "Not recorded: this round is over at this table." in text(answer)
    assert "X-Kozel-Recorded" not in answer
    assert db_snapshot() == before


def test_the_service_refuses_every_change_to_a_closed_round(league):
    event = make_event(league, 8)
    series = record(game(event).series, (80, 40))
    event_services.round_finish(event=event)
    series.refresh_from_db()
    before = db_snapshot()
    refused = deals.deal_record(
        series_id=series.pk, number=2, points=(70, 50), tricks=None, entry_key=uuid.uuid4()
    )
    assert refused.entry is deals.Entry.CLOSED
    with pytest.raises(deals.SeriesClosed):
        deals.deal_undo(series_id=series.pk, number=1, version=series.version)
    with pytest.raises(deals.SeriesClosed):
        deals.deal_edit(
            series_id=series.pk, number=1, version=series.version, points=(60, 60), tricks=None
        )
    assert db_snapshot() == before


def test_an_organiser_corrects_a_closed_tables_deal_on_the_record(league, owner):
    event = make_event(league, 8)
    series = record(game(event).series, (80, 40))
    event_services.round_finish(event=event)
    client = logged_in(owner)
    page = client.get(f"/series/{series.pk}/")
    assert f"/series/{series.pk}/deals/1/edit/" in html(page)  # the organiser may correct
    assert "data-undo" not in html(page)
    form = client.get(f"/series/{series.pk}/deals/1/edit/")
    data = {"version": version_of_edit(html(form)), "points_0": "30", "points_1": "90"}
    assert client.post(f"/series/{series.pk}/deals/1/edit/", data).status_code == 302
    assert Deal.objects.get(series=series).points[:2] == (30, 90)
    change = series.events.order_by("-pk").first()
    assert change.via == deals.CORRECTION and change.actor == owner
    sheet = text(client.get(f"/series/{series.pk}/sheet/"))
    assert f"{owner.username} (an organiser's correction after the round)" in sheet


def version_of_edit(page: str) -> str:
    return page.split('name="version" value="', 1)[1].split('"', 1)[0]


def test_a_table_without_a_game_this_round_says_so_and_waits(league):
    event = make_event(league, 8)
    link = Table.objects.create(event=event, number=3)  # a third table, unused
    phone = table_phone(link)
    page = phone.get(link.get_absolute_url())
    assert "No game at this table in this round." in text(page)
    assert live(phone, link, version_of(html(page))).status_code == 204


def test_a_table_link_lets_its_phone_score_nothing_else(league):
    event = make_event(league, 8)
    phone = table_phone(event.tables.get(number=1))
    other = game(event, 2)
    assert phone.get(f"/series/{other.series_id}/").status_code == 404
    assert phone.get(f"{event.get_absolute_url()}").status_code == 302  # to the login


def test_a_table_phones_poll_with_nothing_new_costs_one_query(league, django_assert_num_queries):
    """Every phone of every table asks every 2 s: the answer while nothing changed is one query
    (the link's evening and game versions), no session read (issue #26's budget)."""
    event = make_event(league, 8)
    link = event.tables.get(number=1)
    phone = table_phone(link)
    version = version_of(html(phone.get(link.get_absolute_url())))
    with django_assert_num_queries(1):
        assert live(phone, link, version).status_code == 204


def test_each_phone_of_a_table_gets_its_own_key_and_token_and_records_with_them(league):
    """After a deal, every phone at the table asks for the board: each answer carries this
    phone's own CSRF token and a fresh one-time key, and each phone's deal form records with
    them; a phone's board of an older version is never answered again."""
    event = make_event(league, 8)
    link = event.tables.get(number=1)
    first, second = table_phone(link), table_phone(link)
    for phone in (first, second):  # as browsers do: a token checked on every POST
        phone.handler.enforce_csrf_checks = True
    made, kept = live(first, link, "0"), live(second, link, "0")
    keys = [re.search(r'name="entry_key" value="([^"]+)"', html(r)).group(1) for r in (made, kept)]
    assert keys[0] != keys[1]
    deals_url = game(event).series.get_absolute_url() + "deals/"
    answer = second.post(deals_url, own_fields(kept, "70"), headers=HTMX)
    assert answer.status_code == 200 and "Deal 1:" in html(answer)
    news = live(first, link, version_of(html(made)))
    assert news.status_code == 200 and "Deal 2: card points" in html(news)
    assert first.post(deals_url, own_fields(news, "35"), headers=HTMX).status_code == 200
    assert list(Deal.objects.order_by("number").values_list("points_0", flat=True)) == [70, 35]


def test_a_board_kept_for_one_language_is_not_shown_in_another(league):
    event = make_event(league, 8)
    link = event.tables.get(number=1)
    english, russian = table_phone(link), table_phone(link)
    assert "Record deal" in html(live(english, link, "0"))
    answer = russian.get(
        f"{link.get_absolute_url()}live/",
        {"version": "0"},
        headers={**HTMX, "Accept-Language": "ru"},
    )
    assert "Записать сдачу" in html(answer) and "Record deal" not in html(answer)


def own_fields(answer, points: str) -> dict[str, str]:
    """What this answer's deal form sends: its number, and the token and key the answer gave."""
    page = html(answer)
    form = re.search(r'<form method="post" id="deal-form".*?</form>', page, re.S).group(0)
    value = {
        name: re.search(rf'name="{name}" value="([^"]+)"', form).group(1)
        for name in ("csrfmiddlewaretoken", "entry_key")
    }
    number = re.search(r'name="number" value="(\d+)"', page).group(1)
    return {**value, "number": number, "points_0": points, "points_1": ""}


def test_a_tables_state_follows_its_series_and_its_round(league):
    from datetime import timedelta

    from django.utils import timezone

    from scoring.events.services import round_finish
    from scoring.table.life import Phase, phase_of

    now = timezone.now()
    event = make_event(league, 8, length="minutes", length_value=20)
    series = game(event).series
    assert phase_of(series, now=now) is Phase.WAITING
    series = record(series, (80, 40))
    assert phase_of(series, now=now) is Phase.PLAYING
    later = series.closes_at + timedelta(seconds=1)
    assert phase_of(series, now=later) is Phase.LAST_DEAL
    assert Phase.LAST_DEAL.playing and not Phase.CLOSED.playing
    round_finish(event=event)
    series.refresh_from_db()
    assert phase_of(series, now=now) is Phase.CUT_SHORT


def test_a_club_nights_game_is_never_offered_as_the_same_table_again(league, owner):
    """The evening moves its players on: its finished game is no line-up to play again."""
    from tests.helpers import play_out

    event = make_event(league, 8)
    for table in EventTable.objects.filter(round__event=event):
        play_out(table.series)
    home = html(logged_in(owner).get("/"))
    assert "Same table again" not in home
    assert "?again=" not in home
