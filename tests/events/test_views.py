"""Club night pages: creating one, the organiser's screen, cards, rounds, re-seating, boards."""

from __future__ import annotations

import re

from scoring.events import leaderboard
from scoring.events import services as event_services
from scoring.events.forms import seat_key
from scoring.models import Event, EventTable, Player
from tests.helpers import (
    html,
    league_snapshot,
    logged_in,
    make_event,
    play_deals,
    play_out,
    query_count,
    record,
)

HTMX = {"HX-Request": "true"}


def _form(league, **changes) -> dict:
    for n in range(1, 9):
        Player.objects.get_or_create(name=f"Guest {n}", league=league)
    players = Player.objects.filter(league=league, name__startswith="Guest")
    data = {
        "name": "Friday",
        "players": [p.pk for p in players],
        "new_players": "",
        "rounds": "3",
        "length": "goat",
        "length_value": "",
        "tie_break": "difference",
        "preset": "classic",
    }
    data.update(changes)
    return data


def test_an_organiser_creates_a_club_night_and_sees_a_qr_code_per_table(league, owner):
    client = logged_in(owner)
    response = client.post(f"/leagues/{league.pk}/events/new/", _form(league))
    event = Event.objects.get()
    assert response.status_code == 302
    assert response["Location"] == event.get_absolute_url()
    page = html(client.get(event.get_absolute_url()))
    links = list(event.tables.order_by("number"))
    assert len(links) == 2
    for link in links:  # one link per table for the whole evening, and its QR code
        assert f"/tables/{link.score_token}/" in page
    assert page.count('class="qr-code"') == 3  # and the evening's public link
    assert "Round 1 of 3" in page
    assert "Repeated partners: 0." in page


def test_new_players_typed_in_join_the_ticked_ones(league, scorer):
    data = _form(league, new_players="Zina\n  \nYasha")
    data["players"] = data["players"][:6]
    response = logged_in(scorer).post(f"/leagues/{league.pk}/events/new/", data)
    assert response.status_code == 302
    event = Event.objects.get()
    assert len(event.present) == 8
    assert Player.objects.filter(league=league, name="Zina").exists()


def test_too_few_players_answers_422_and_stores_nothing(league, owner):
    data = _form(league, new_players="")
    data["players"] = data["players"][:3]
    before = league_snapshot(league)
    response = logged_in(owner).post(f"/leagues/{league.pk}/events/new/", data)
    assert response.status_code == 422
    assert "Tick at least 4 present players." in html(response)
    assert league_snapshot(league) == before


def test_a_timed_round_wants_its_minutes(league, owner):
    response = logged_in(owner).post(
        f"/leagues/{league.pk}/events/new/", _form(league, length="minutes")
    )
    assert response.status_code == 422
    assert "Say how many deals or minutes." in html(response)
    assert not Event.objects.exists()


def test_the_table_cards_are_one_per_table_for_the_whole_evening(league, owner):
    """A card per table with its link's code and who sits where in every round of the plan
    ("no game" where the plan has fewer tables), and the players' "Find your seat" code."""
    event = make_event(league, 12, rounds=3)
    leavers = event.plan[1]["tables"][0]  # four players leave after round 1
    event_services.players_change(
        event=event,
        players=list(Player.objects.filter(pk__in=event.present).exclude(pk__in=leavers)),
    )
    event.refresh_from_db()
    response = logged_in(owner).get(f"{event.get_absolute_url()}cards/")
    page = html(response)
    names = dict(Player.objects.values_list("pk", "name"))
    cards = page.split('<article class="card"')[1:]
    assert len(cards) == 3 == event.tables.count()
    for number, card in enumerate(cards, start=1):
        assert f"QR code of the link of table {number}" in card
        assert f">Table {number}</h2>" in card
        rows = card.split("<tbody>", 1)[1].split("</tbody>", 1)[0].split("<tr>")[1:]
        assert len(rows) == 3  # every round of the plan
        for planned, row in zip(event.plan, rows, strict=True):
            if number > len(planned["tables"]):
                assert "No game at this table" in row
            else:
                cells = re.findall(r"<td>([^<]*)</td>", row)
                assert cells == [names[p] for p in planned["tables"][number - 1]]
        assert "Players: find your seat" in card
    assert "No game at this table" in cards[2]


def test_the_cards_leave_out_the_players_code_when_the_public_link_is_off(league, owner):
    event = event_services.share_revoke(event=make_event(league, 8))
    page = html(logged_in(owner).get(f"{event.get_absolute_url()}cards/"))
    assert page.count('class="qr-code"') == 2
    assert "find your seat" not in page


def test_finishing_a_timed_round_says_so_on_the_leaderboard(league, owner):
    event = make_event(league, 8, length="deals", length_value=4)
    first = EventTable.objects.filter(round__event=event).order_by("number").first()
    record(first.series, [30, 90])
    client = logged_in(owner)
    assert "Each table plays 4 deals" in html(client.get(event.get_absolute_url()))
    finish = f"{event.get_absolute_url()}rounds/finish/"
    assert client.post(finish, {"confirmed": "1"}).status_code == 302
    board = html(client.get(f"{event.get_absolute_url()}board/"))
    assert "a table that had not reached its end is won on its standing defeat points" in board
    assert client.post(f"{event.get_absolute_url()}rounds/next/").status_code == 302
    assert event.played_rounds.count() == 2


def test_the_next_round_before_this_one_is_over_is_refused_with_a_message(league, owner):
    event = make_event(league, 8)
    client = logged_in(owner)
    response = client.post(f"{event.get_absolute_url()}rounds/next/", follow=True)
    assert "Finish the round in play first." in html(response)
    assert event.played_rounds.count() == 1


def test_a_leaver_is_taken_out_of_the_rounds_to_come(league, owner):
    event = make_event(league, 9, rounds=3)
    leaver = event.plan[1]["tables"][0][0]
    keep = [p for p in event.present if p != leaver]
    client = logged_in(owner)
    page = client.get(f"{event.get_absolute_url()}players/")
    assert page.status_code == 200
    # Seated in round 1, under way, the leaver's game is theirs to the end ("" : nobody takes
    # the seat; asked when someone sits out who could).
    answer = {"players": keep, f"seat-{leaver}": ""}
    response = client.post(f"{event.get_absolute_url()}players/", answer)
    assert response.status_code == 302
    event.refresh_from_db()
    assert all(leaver not in [p for t in r["tables"] for p in t] for r in event.plan[1:])


def test_the_leaderboard_counts_series_won_and_goats(league, owner):
    event = make_event(league, 8)
    first = EventTable.objects.filter(round__event=event).order_by("number").first()
    play_out(first.series, loser=0)
    response = logged_in(owner).get(f"{event.get_absolute_url()}board/", headers=HTMX)
    page = html(response)
    assert 'id="board"' in page and "<html" not in page
    assert 'hx-trigger="every 5s"' in page
    winners = [line for line in leaderboard.build(event).lines if line.won]
    assert len(winners) == 2
    assert all(f'<th scope="row" class="name">{line.name}</th>' in page for line in winners)


def test_the_public_board_needs_its_link_only(league, owner, client):
    event = make_event(league, 8)
    assert client.get("/public/events/nothing/").status_code == 404
    logged_in(owner).post(f"{event.get_absolute_url()}share/")
    event.refresh_from_db()
    response = client.get(f"/public/events/{event.share_token}/?present=1")
    assert response.status_code == 200
    assert "board-present" in html(response)
    assert "/tables/" not in html(response)


def test_the_leaderboard_costs_the_same_with_many_events(league, owner):
    event = make_event(league, 8)
    play_out(EventTable.objects.filter(round__event=event).first().series, eggs=1)
    client = logged_in(owner)
    url = f"{event.get_absolute_url()}board/"
    one = query_count(client, url)
    for n in range(4):
        other = make_event(league, 8, name=f"Other {n}")
        play_out(EventTable.objects.filter(round__event=other).first().series, eggs=1)
    assert query_count(client, url) == one


def test_a_timed_round_says_when_it_ends(league, owner):
    event = make_event(league, 8, length="minutes", length_value=25)
    page = html(logged_in(owner).get(event.get_absolute_url()))
    assert "The round ends at" in page


def test_the_organisers_screen_counts_sit_outs(league, owner):
    event = make_event(league, 9)
    page = html(logged_in(owner).get(event.get_absolute_url()))
    assert "Sit-outs per player: " in page


def test_a_new_club_night_starts_from_the_leagues_house_rules(league, owner):
    from scoring import rules

    league.rules = rules.PRESETS["eggs-double"].to_dict()
    league.save()
    page = html(logged_in(owner).get(f"/leagues/{league.pk}/events/new/"))
    assert re.search(r'value="eggs-double"[^>]*checked', page)


def test_the_organisers_screen_counts_each_tables_deals_of_the_round(league, owner):
    event = make_event(league, 8, length="deals", length_value=2)
    first, second = EventTable.objects.filter(round__event=event).order_by("number")
    record(first.series, [30, 90])
    record(first.series, [30, 90])
    record(second.series, [30, 90])
    page = html(logged_in(owner).get(event.get_absolute_url()))
    assert "Played to its limit: won on standing defeat points · provisional" in page
    assert "Deals played: 1 of 2" in page


def test_ids_no_database_holds_are_a_form_error_on_both_players_forms(league, owner):
    """Regression: ``players=9223372036854775808`` was a server error (SQLite's OverflowError)."""
    client = logged_in(owner)
    event = make_event(league, 4, rounds=2)
    _form(league)  # its guests, made before the snapshot
    before = league_snapshot(league)
    for value in ("9223372036854775808", "1" * 30):
        data = _form(league)
        data["players"] = [*data["players"], value]
        response = client.post(f"/leagues/{league.pk}/events/new/", data)
        assert response.status_code == 422
        assert "Pick only from the list." in html(response)
        players = {"players": [*event.present, value], "new_players": ""}
        response = client.post(f"{event.get_absolute_url()}players/", players)
        assert response.status_code == 422
        assert "Pick only from the list." in html(response)
    assert league_snapshot(league) == before


# Finishing a round asks first while tables still play ------------------------------------------


def test_finishing_while_tables_play_asks_first_naming_each_table_and_its_scoring(league, owner):
    event = make_event(league, 8)
    first, second = EventTable.objects.filter(round__event=event).order_by("number")
    series = record(first.series, [30, 90])  # side 0 takes the defeat points: side 1 leads
    leaders = " & ".join(
        seat.player.name for seat in series.seats.order_by("position") if seat.side == 1
    )
    score = " : ".join(map(str, series.totals))
    client = logged_in(owner)
    before = league_snapshot(league)
    response = client.post(f"{event.get_absolute_url()}rounds/finish/")
    assert response.status_code == 200
    page = html(response)
    assert "Finish round 1 of 3?" in page
    assert (
        f"Table 1: {score} after 1 deal, scored by standing defeat points: {leaders} win it."
        in page.replace("&amp;", "&")
    )
    assert (
        "Table 2: 0 : 0 after 0 deals, scored by standing defeat points: level, nobody wins it."
        in page
    )
    assert 'name="confirmed" value="1"' in page
    assert league_snapshot(league) == before  # asked, nothing finished
    response = client.post(f"{event.get_absolute_url()}rounds/finish/", {"confirmed": "1"})
    assert response.status_code == 302
    second.round.refresh_from_db()
    assert second.round.finished_at is not None


def test_the_finish_question_is_a_page_of_its_own_that_changes_nothing(league, owner):
    event = make_event(league, 8)
    before = league_snapshot(league)
    response = logged_in(owner).get(f"{event.get_absolute_url()}rounds/finish/")
    assert response.status_code == 200
    assert "2 tables still play." in html(response)
    assert league_snapshot(league) == before


def test_a_round_whose_tables_are_all_over_finishes_at_once(league, owner):
    event = make_event(league, 8, length="deals", length_value=3)
    first, second = EventTable.objects.filter(round__event=event).order_by("number")
    play_deals(first.series, [(50, 70)] * 3)  # closed at its limit
    play_out(second.series, loser=0)  # a goat in two deals
    response = logged_in(owner).post(f"{event.get_absolute_url()}rounds/finish/", follow=True)
    assert "Round 1 is over." in html(response)
    assert event.played_rounds.get().finished_at is not None


def test_the_finish_question_with_no_round_in_play_says_so(league, owner):
    event = make_event(league, 8)
    event_services.round_finish(event=event)
    client = logged_in(owner)
    assert "No round is in play." in html(client.get(f"{event.get_absolute_url()}rounds/finish/"))
    response = client.post(f"{event.get_absolute_url()}rounds/finish/", {"confirmed": "1"})
    assert response.status_code == 302
    assert "No round is in play." in html(client.get(event.get_absolute_url()))


def test_the_organisers_screen_says_each_tables_state_and_score(league, owner):
    event = make_event(league, 16, length="deals", length_value=2)
    first, second, third, _fourth = EventTable.objects.filter(round__event=event).order_by("number")
    play_out(first.series, loser=0)
    play_deals(second.series, [(30, 90), (30, 90)])
    third_series = record(third.series, [30, 90])
    page = html(logged_in(owner).get(event.get_absolute_url()))
    states = re.findall(r'data-state="([^"]+)"><strong class="score">([^<]+)</strong>', page)
    assert [state for state, _score in states] == ["over", "closed", "playing", "waiting"]
    assert states[2][1] == " : ".join(map(str, third_series.totals))
    assert states[3][1] == "0 : 0"
    assert "Waiting for its first deal" in page


# The big screen and the public page ---------------------------------------------------------


def _poll(page: str) -> str:
    return re.search(r'hx-get="([^"]+)"', page).group(1).replace("&amp;", "&")


def test_the_big_screen_shows_the_rounds_tables_who_sits_out_and_the_seat_code(league, owner):
    event = make_event(league, 9)
    page = html(logged_in(owner).get(f"{event.get_absolute_url()}board/?present=1"))
    assert page.count('class="live-table"') == 2
    out = Player.objects.get(pk=event.plan[0]["out"][0]).name
    assert re.search(rf'class="sitting-out">.*{out}</p>', page)
    assert "QR code of the page where players find their seat" in page
    assert "rows-10 cols-1" in page  # nine players: one column, the type sized to ten rows


def test_the_big_screens_poll_answers_204_until_something_changes(league, owner, client):
    event = make_event(league, 8)
    url = f"/public/events/{event.share_token}/?present=1"
    poll = _poll(html(client.get(url)))
    assert "present=1" in poll and "version=" in poll
    assert client.get(poll, headers=HTMX).status_code == 204
    record(EventTable.objects.filter(round__event=event).first().series, [30, 90])
    news = client.get(poll, headers=HTMX)
    assert news.status_code == 200 and 'id="board"' in html(news)
    assert client.get(_poll(html(news)), headers=HTMX).status_code == 204


def test_a_revoked_public_link_answers_404_to_the_board_and_the_seat_page(league, client):
    """Their polls are told in words, in place of what they showed, and stop (htmx's 286): a
    big screen does not say "try again in a moment" every few seconds (issue #36)."""
    event = make_event(league, 8)
    token = event.share_token
    event_services.share_revoke(event=event)
    for path, target in (
        (f"/public/events/{token}/?present=1", "board"),
        (f"/public/events/{token}/seat/", "seat"),
    ):
        assert client.get(path).status_code == 404
        polled = client.get(path, headers=HTMX)
        assert polled.status_code == 286
        assert f'id="{target}"' in html(polled) and "The organiser ended this link" in html(polled)
    assert (
        client.post(
            f"/public/events/{token}/seat/", {"player": seat_key(event, event.present[0])}
        ).status_code
        == 404
    )


def _evening(league, players: int, rounds: int, started: int):
    event = make_event(league, players, rounds=rounds, name=f"Evening of {players}")
    for number in range(1, started + 1):
        for table in EventTable.objects.filter(round__event=event, round__number=number):
            record(table.series, [60, 60], [True, True])
            record(table.series, [30, 90])
        event_services.round_finish(event=event)
        if number < started:
            event_services.round_start(event=event)
    event.refresh_from_db()
    return event


def test_the_big_screen_the_public_page_and_the_seat_page_cost_the_same_queries_at_any_size(
    league, owner
):
    """An evening of 12 players with 2 rounds played and one of 40 with 4 of 6 played."""
    counts = []
    for players, rounds, started in ((12, 2, 2), (40, 6, 4)):
        event = _evening(league, players, rounds, started)
        member, visitor = logged_in(owner), logged_in(None)
        seat = f"/public/events/{event.share_token}/seat/"
        assert visitor.post(seat, {"player": seat_key(event, event.present[-1])}).status_code == 302
        counts.append(
            (
                query_count(member, f"{event.get_absolute_url()}board/?present=1"),
                query_count(visitor, f"/public/events/{event.share_token}/?present=1"),
                query_count(visitor, seat),
                query_count(member, event.get_absolute_url()),
            )
        )
    assert counts[0] == counts[1]
