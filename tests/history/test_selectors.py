"""The history's selectors: filters, cursor pages, rows, and what a request may see."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.utils import timezone

from scoring import rules
from scoring.core.visitors import Visitor
from scoring.history.forms import HistoryFilterForm
from scoring.history.rows import ROW_FIELDS, SeriesRow, series_rows
from scoring.history.selectors import (
    StaleCursor,
    history_filter,
    history_page,
    player_scope,
    visible_players,
)
from scoring.models import Player, Series
from tests.helpers import finished_series, start_series

pytestmark = pytest.mark.django_db


def visitor_for(user=None, links: tuple[Series, ...] = ()) -> Visitor:
    """Who asks: an account (or none) holding the watch links of ``links``' tables."""
    return Visitor(user=user, links={series.table.watch_token: series.table_id for series in links})


def clean(**data) -> dict:
    form = HistoryFilterForm(
        {key: str(value) for key, value in data.items()},
        players=[(player.pk, player.name) for player in Player.objects.all()],
        leagues=[],
    )
    assert form.is_valid(), form.errors
    return form.cleaned_data


def dated(series: Series, when) -> Series:
    Series.objects.filter(pk=series.pk).update(created_at=when)
    series.refresh_from_db()
    return series


def test_the_history_lists_the_newest_series_first_in_pages_without_overlap():
    series = [start_series() for _ in range(25)]
    now = timezone.now()
    for age, item in enumerate(series):
        dated(item, now - timedelta(minutes=age))
    first = history_page(Series.objects.all(), size=10)
    assert [row.pk for row in first.rows] == [item.pk for item in series[:10]]
    assert first.newer is None and first.older == series[9].pk
    second = history_page(Series.objects.all(), before=first.older, size=10)
    assert [row.pk for row in second.rows] == [item.pk for item in series[10:20]]
    assert second.newer == series[10].pk
    last = history_page(Series.objects.all(), before=second.older, size=10)
    assert [row.pk for row in last.rows] == [item.pk for item in series[20:]]
    assert last.older is None
    back = history_page(Series.objects.all(), after=second.newer, size=10)
    assert [row.pk for row in back.rows] == [item.pk for item in series[:10]]
    assert back.newer is None and back.older == series[9].pk


def test_series_started_at_the_same_moment_are_paged_by_id_without_loss():
    series = [start_series() for _ in range(5)]
    moment = timezone.now()
    for item in series:
        dated(item, moment)
    seen = []
    cursor = None
    while True:
        page = history_page(Series.objects.all(), before=cursor, size=2)
        seen += [row.pk for row in page.rows]
        if page.older is None:
            break
        cursor = page.older
    assert seen == sorted((item.pk for item in series), reverse=True)


def test_a_page_link_to_a_series_that_is_gone_is_refused():
    with pytest.raises(StaleCursor):
        history_page(Series.objects.all(), before=987654)


def test_filters_narrow_by_player_mode_status_and_house_rules(league):
    teams = finished_series(league=league, names=("Lena", "Misha", "Nina", "Pavel"))
    duel = start_series(mode="duel", names=("Lena", "Oleg"), league=league)
    eggs = start_series(names=("Raya", "Misha", "Nina", "Pavel"), league=league,
                        ruleset=rules.PRESETS["eggs-double"])  # fmt: skip
    custom = start_series(names=("Raya", "Oleg"), mode="duel", league=league,
                          ruleset=rules.Ruleset(save_line=21))  # fmt: skip
    everything = Series.objects.all()
    lena = Player.objects.get(name="Lena")

    def pks(**data):
        return set(history_filter(everything, clean(**data)).values_list("pk", flat=True))

    assert pks(player=lena.pk) == {teams.pk, duel.pk}
    assert pks(mode="duel") == {duel.pk, custom.pk}
    assert pks(status="finished") == {teams.pk}
    assert pks(status="playing") == {duel.pk, eggs.pk, custom.pk}
    assert pks(rules="eggs-double") == {eggs.pk}
    assert pks(rules="classic") == {teams.pk, duel.pk}
    assert pks(rules="custom") == {custom.pk}
    assert pks(player=lena.pk, mode="teams", status="finished") == {teams.pk}


def test_the_date_range_includes_both_whole_days():
    before, first_day, last_day, after = (start_series() for _ in range(4))
    day = date(2025, 3, 10)
    start = timezone.make_aware(timezone.datetime(2025, 3, 10))
    dated(before, start - timedelta(seconds=1))
    dated(first_day, start)
    dated(last_day, start + timedelta(days=2, hours=23, minutes=59))
    dated(after, start + timedelta(days=3))
    found = history_filter(Series.objects.all(), clean(start=day, end=day + timedelta(days=2)))
    assert set(found) == {first_day, last_day}


def test_an_end_date_before_the_start_date_is_an_error_a_player_understands():
    form = HistoryFilterForm({"start": "2025-03-10", "end": "2025-03-01"})
    assert not form.is_valid()
    assert form.errors["end"] == ["The end date comes before the start date."]


def test_a_player_who_is_not_in_the_list_is_refused():
    form = HistoryFilterForm({"player": "12345"}, players=[(1, "Anna")])
    assert not form.is_valid()
    assert "player" in form.errors


def row_of(series: Series) -> SeriesRow:
    return series_rows(Series.objects.filter(pk=series.pk).values_list(*ROW_FIELDS))[0]


def test_a_row_names_the_goat_and_the_goats_with_eggs():
    plain = row_of(finished_series())
    assert plain.result == "Anna & Vera: the goat"
    assert [side.total for side in plain.sides] == [12, 0]
    assert plain.sides[0].goat and plain.sides[1].winner
    assert row_of(finished_series(goat=1, eggs=True)).result == "Boris & Gleb: goat with eggs"
    assert row_of(start_series()).result == "In progress"


def test_a_row_names_the_sides_the_rules_and_the_game():
    row = row_of(start_series(mode="three", names=("Ira", "Kolya", "Lida")))
    assert [side.name for side in row.sides] == ["Ira", "Kolya", "Lida"]
    assert (row.rules_label, row.mode_label) == ("Classic, out at 12", "Three players")
    assert [seat.name for seat in row.seats] == ["Ira", "Kolya", "Lida"]
    assert row.get_absolute_url() == f"/series/{row.pk}/"


def test_a_browser_sees_the_players_of_the_quick_games_it_holds_a_link_for(league, outsider):
    mine = start_series(names=("Ira", "Kolya", "Lida", "Masha"))
    start_series(names=("Nobody", "Else", "Here", "Now"))
    start_series(names=("Lena", "Misha", "Nina", "Pavel"), league=league)
    names = set(visible_players(visitor_for(links=(mine,))).values_list("name", flat=True))
    assert names == {"Ira", "Kolya", "Lida", "Masha"}
    assert not visible_players(visitor_for(outsider)).exists()


def test_a_member_sees_the_players_of_the_league(league, viewer):
    start_series(names=("Lena", "Misha", "Nina", "Pavel"), league=league)
    names = set(visible_players(visitor_for(viewer)).values_list("name", flat=True))
    assert names == {"Lena", "Misha", "Nina", "Pavel"}


def test_a_player_is_visible_to_members_and_link_holders_only(league, viewer, outsider):
    league_game = start_series(names=("Lena", "Misha", "Nina", "Pavel"), league=league)
    quick = start_series(names=("Ira", "Kolya", "Lida", "Masha"))
    lena = Player.objects.get(name="Lena")
    ira = Player.objects.get(name="Ira")
    member = player_scope(visitor_for(viewer), lena)
    assert member.whole_league and list(member.series) == [league_game]
    assert player_scope(visitor_for(outsider), lena) is None
    holder = player_scope(visitor_for(links=(quick,)), ira)
    assert not holder.whole_league and list(holder.series) == [quick]
    assert player_scope(visitor_for(links=(league_game,)), ira) is None
    assert player_scope(visitor_for(), ira) is None
