"""The page cache (scoring.pagecache): every input of a page changes it, and only a cache.

A scoreboard is served from the cache while nothing it depends on changed; the CSRF token and
the deal form's one-time key are filled in afresh per response and work for a POST.
"""

from __future__ import annotations

import gzip
import re
import time
import uuid

import pytest
from django.core.cache import caches
from django.test import Client, override_settings
from django.urls import reverse

from scoring import pagecache
from scoring.leagues import services as league_services
from scoring.models import Deal, Series
from scoring.table import services
from tests.helpers import (
    client_with_link,
    creator_client,
    deal_data,
    entry_key,
    html,
    logged_in,
    query_count,
    record,
    start_series,
    undo_data,
)

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
HEADER = re.compile(r'"X-CSRFToken": "([^"]+)"')


def board_url(series: Series) -> str:
    return f"/series/{series.pk}/"


def page(client: Client, series: Series, *, path: str = "", **headers) -> str:
    response = client.get(board_url(series) + path, headers=headers)
    assert response.status_code == 200
    return html(response)


def cached_keys() -> int:
    return len(caches["pages"]._cache)  # the local-memory backend's own store


def test_a_second_request_is_served_from_the_cache_in_two_queries():
    series = record(start_series(), (70, 50))
    client = client_with_link(series)
    first = page(client, series)
    assert cached_keys() == 2  # the page's shell, and the board that htmx gets too
    assert query_count(client, board_url(series)) == 2  # the session, the series' row
    second = page(client, series)

    # The same page but for what is filled in per response.
    def strip(text: str) -> str:
        return HEADER.sub("", CSRF.sub("", text)).replace(entry_key_of(text), "")

    assert strip(first) == strip(second)


def record_second_deal(client: Client, series: Series, form: str):
    """Deal 2 through ``form`` (the page that shows it), as htmx sends it."""
    return client.post(
        reverse("deal_record", args=[series.pk]),
        {
            "csrfmiddlewaretoken": CSRF.search(form).group(1),
            "number": "2",
            "entry_key": entry_key_of(form),
            "points_0": "40",
        },
        headers={"HX-Request": "true"},
    )


def test_the_board_a_recorded_deal_rendered_is_the_next_whole_pages():
    """The POST's answer (htmx: the board alone) is cached and the next whole page is built
    around it: no second render of the board, and only the whole page focuses the deal form."""
    series = record(start_series(), (70, 50))
    client = client_with_link(series)
    posted = record_second_deal(client, series, page(client, series))
    assert posted.status_code == 200
    answer = html(posted)
    assert "Deal 3: card points" in answer and "autofocus" not in answer
    whole = client.get(board_url(series))
    # The shell the first page kept, around the board the deal's answer kept: nothing rendered.
    assert not whole.templates
    text = html(whole)
    assert "Deal 3: card points" in text
    assert text.count(" autofocus") == 1
    assert entry_key_of(text) != entry_key_of(answer)
    # The next htmx answer (the live poll's board) is the cached board, still without focus.
    again = html(client.get(board_url(series), headers={"HX-Request": "true"}))
    assert "Deal 3: card points" in again and "autofocus" not in again
    # The page put together is the page rendered afresh, but for what each response fills in.
    caches["pages"].clear()
    fresh = client.get(board_url(series))
    assert fresh.templates  # rendered this time
    title = re.compile(r"<title>(.*?)</title>", re.DOTALL)
    assert title.search(text).group(1) == title.search(html(fresh)).group(1)
    assert "&amp;" in title.search(text).group(1)  # the team's " & ", escaped as rendered

    def same(page_text: str) -> str:
        return HEADER.sub("", CSRF.sub("", page_text)).replace(entry_key_of(page_text), "")

    assert same(text) == same(html(fresh))


def entry_key_of(text: str) -> str:
    found = re.search(r'name="entry_key" value="([^"]+)"', text)
    assert found
    return found.group(1)


def test_the_csrf_token_and_the_entry_key_are_new_in_every_response_and_work():
    series = start_series()
    client = client_with_link(series)
    client.handler.enforce_csrf_checks = True
    responses = [client.get(board_url(series)) for _ in range(3)]
    tokens = [CSRF.search(html(response)).group(1) for response in responses]
    keys = [entry_key(response) for response in responses]
    assert len(set(tokens)) == 3 and len(set(keys)) == 3  # masked afresh, keys unique
    for text in map(html, responses):
        assert pagecache.CSRF_PLACEHOLDER not in text
        assert str(pagecache.ENTRY_PLACEHOLDER) not in text
        # One token per response, wherever the page needs it (forms and htmx's header).
        assert set(CSRF.findall(text)) == set(HEADER.findall(text))
    data = deal_data(responses[2], points_0="70", csrfmiddlewaretoken=tokens[2])
    posted = client.post(board_url(series) + "deals/", data)
    assert posted.status_code == 302
    assert Deal.objects.get(series=series).entry_key.hex == keys[2].replace("-", "")


def test_a_cached_board_posts_through_htmx_with_its_header_token():
    series = start_series()
    client = client_with_link(series)
    client.handler.enforce_csrf_checks = True
    client.get(board_url(series))  # cached now
    response = client.get(board_url(series))
    header = HEADER.search(html(response)).group(1)
    data = deal_data(response, points_0="70")
    posted = client.post(
        board_url(series) + "deals/", data, headers={**HTMX, "X-CSRFToken": header}
    )
    assert posted.status_code == 200
    assert Deal.objects.filter(series=series).count() == 1


def test_every_write_to_the_series_changes_the_page():
    series = start_series()
    client = creator_client(series)
    before = page(client, series)
    record(series, (70, 50))
    assert "Deal 2: card points" in page(client, series) and "Deal 2" not in before
    renamed = services.series_players_change(
        series=Series.objects.get(pk=series.pk),
        names=["Zoya", "Boris", "Vera", "Gleb"],
        known=None,
    )
    assert "Zoya" in page(client, renamed)
    old_link = Series.objects.get(pk=series.pk).score_token
    services.series_link_renew(series=Series.objects.get(pk=series.pk), link="score")
    assert old_link not in page(client, series)  # a renewed link does not bump the version


def test_who_asks_decides_the_page(league, owner, viewer):
    series = start_series()
    scorer_page = page(client_with_link(series), series)
    watcher_page = page(client_with_link(series, series.watch_token), series)
    creator_page = page(creator_client(series), series)
    assert "Record deal" in scorer_page and "Record deal" not in watcher_page
    assert "Share this game" in creator_page and "Share this game" not in scorer_page
    assert "Change the names" in creator_page  # the names form: the creator's, whole pages
    assert "Change the names" not in page(creator_client(series), series, **HTMX)
    league_game = start_series(league=league)
    assert "Record deal" in page(logged_in(owner), league_game)
    assert "Record deal" not in page(logged_in(viewer), league_game)
    assert "Log out" in page(logged_in(owner), league_game)


def test_the_language_the_undo_offer_and_htmx_each_change_the_page():
    series = record(start_series(), (70, 50))
    client = client_with_link(series)
    english = page(client, series)
    client.cookies["django_language"] = "ru"
    russian = page(client, series)
    assert 'lang="ru"' in russian and 'lang="en"' in english
    client.cookies["django_language"] = "en"
    assert "<!doctype html>" not in page(client, series, **HTMX)
    undone = client.post(board_url(series) + "undo/", undo_data(client.get(board_url(series))))
    assert undone.status_code == 302
    offer = page(client, series, path="?undone=1")
    assert "Put deal 1 back" in offer
    assert "Put deal 1 back" not in page(client, series)


def test_the_keys_hold_every_input():
    """Each input of ``board_key`` alone gives another key, and so does each of ``shell_key``'s;
    the board does not depend on the path or htmx (a whole page is built around it), the shell
    not on the version (a deal changes the board and the title alone)."""
    series = start_series()
    client = client_with_link(series)
    request = client.get(board_url(series)).wsgi_request
    from scoring.access import SeriesAccess

    base = SeriesAccess(series=series, can_score=True, can_manage=False, link="score")

    def keys_of(access=base, undone=False, names=(), path=None, **changes):
        saved = {name: getattr(request, name, None) for name in ("user", "htmx", "path")}
        for name, value in changes.items():
            setattr(request, name, value)
        if path is not None:
            request.path = request.path_info = path
        try:
            return (
                pagecache.board_key(request, access, undone=undone),
                pagecache.shell_key(request, access, names=names),
            )
        finally:
            for name, value in saved.items():
                setattr(request, name, value)
            request.path_info = request.path

    def with_series(**fields):
        copy = Series.objects.get(pk=series.pk)
        for name, value in fields.items():
            setattr(copy, name, value)
        return SeriesAccess(series=copy, can_score=True, can_manage=False, link="score")

    from django.contrib.auth.models import User
    from django.utils import translation

    base_keys = keys_of()
    both = [
        keys_of(
            access=SeriesAccess(series=series, can_score=False, can_manage=False, link="watch")
        ),
        keys_of(access=SeriesAccess(series=series, can_score=True, can_manage=True, link="score")),
        keys_of(access=SeriesAccess(series=series, can_score=True, can_manage=False, link=None)),
        keys_of(access=with_series(score_token="x" * 20)),
        keys_of(access=with_series(watch_token="y" * 20)),
        keys_of(access=with_series(league_id=7)),
        keys_of(access=with_series(pk=series.pk + 1)),
        keys_of(user=User(pk=99, username="u")),
    ]
    with translation.override("ru"):
        both.append(keys_of())
    board_only = [keys_of(undone=True), keys_of(access=with_series(version=series.version + 1))]
    shell_only = [
        keys_of(path=board_url(series) + "x/"),
        keys_of(names=("Anna", "Boris", "Vera", "Gleb")),
        keys_of(access=with_series(mode="three")),
        keys_of(access=with_series(rules={**series.rules, "target": 999})),
    ]
    boards = [base_keys[0]] + [keys[0] for keys in both + board_only]
    shells = [base_keys[1]] + [keys[1] for keys in both + shell_only]
    assert len(set(boards)) == len(boards)
    assert len(set(shells)) == len(shells)
    assert {keys[0] for keys in shell_only} == {base_keys[0]}
    assert {keys[1] for keys in board_only} == {base_keys[1]}
    assert keys_of(htmx=True) == base_keys


def test_a_flash_message_or_another_parameter_is_never_cached():
    series = start_series()
    client = creator_client(series)
    client.post(board_url(series) + "players/", {f"player_{n}": f"P{n}" for n in range(4)})
    shown = page(client, series)  # with "Names changed."
    assert "Names changed." in shown
    assert "Names changed." not in page(client, series)
    page(client, series, path="?anything=1")
    assert cached_keys() == 2  # the second plain page's shell and board only


def test_a_finished_game_is_never_cached():
    from tests.helpers import finished_series

    series = finished_series()
    page(client_with_link(series), series)
    assert cached_keys() == 0


def test_the_home_page_follows_the_games_of_the_browser():
    series = start_series()
    client = creator_client(series)
    assert "0 deals" in html(client.get("/"))
    record(series, (70, 50))
    assert "1 deal" in html(client.get("/"))  # the version is in the key
    services.series_link_renew(series=Series.objects.get(pk=series.pk), link="score")
    session = client.session
    session["series_created"] = []
    session.save()
    assert "Recent games" not in html(client.get("/"))  # the link this browser held is gone


def test_the_cache_is_only_a_cache_another_process_sees_the_change():
    """A page cached here is never served once the series changed elsewhere: the version is
    read from the database on every request."""
    series = start_series()
    client = client_with_link(series)
    page(client, series)
    Series.objects.filter(pk=series.pk).update(version=series.version + 5)  # another server
    caches["pages"].set("unrelated", (b"", "text/html", False, ""))
    assert "Deal 1: card points" in page(client, series)
    assert cached_keys() == 4  # the shell, each version's board, and the unrelated entry


# Compression (scoring.compression): never a page with a secret in it (BREACH)


def gzipped(client: Client, path: str, **headers) -> bool:
    response = client.get(path, headers={"Accept-Encoding": "gzip", **headers})
    assert response.status_code == 200, path
    if response.get("Content-Encoding") == "gzip":
        assert b"<" in gzip.decompress(response.content)
        return True
    return False


def test_pages_without_secrets_are_gzipped():
    series = record(start_series(), (70, 50))
    client = client_with_link(series)
    assert gzipped(client, "/")
    assert gzipped(client, board_url(series))
    assert gzipped(client, board_url(series))  # from the cache as well


def test_a_page_with_a_secret_link_is_gzipped_only_when_nothing_of_the_request_is_in_it(
    league, owner
):
    """BREACH needs an input the attacker chooses reflected beside the secret: a page that draws
    a share link is compressed (with Django's random padding) only without a query string."""
    series = record(start_series(), (70, 50))
    creator = creator_client(series)
    assert gzipped(creator, board_url(series))  # the score and watch links, their QR
    assert gzipped(creator, board_url(series))  # from the cache, still without a query
    assert not gzipped(creator, board_url(series) + "?guess=abc")  # a reflected input: never
    owner_client = logged_in(owner)
    league_services.invite_renew(league=league)
    league = league_services.share_renew(league=league)
    assert gzipped(owner_client, f"/leagues/{league.pk}/members/")  # the invite link
    assert not gzipped(owner_client, f"/leagues/{league.pk}/members/?next=%2Fabc")
    assert gzipped(owner_client, f"/leagues/{league.pk}/settings/")  # the public link
    assert gzipped(owner_client, f"/leagues/{league.pk}/standings/?season=2025")  # no secret


def test_a_page_reached_through_a_secret_link_is_never_gzipped(league):
    series = record(start_series(), (70, 50))
    league = league_services.share_renew(league=league)
    assert not gzipped(Client(), f"/public/{league.share_token}/")  # the token is in its URL
    assert not gzipped(Client(), f"/join/{series.watch_token}/")


def test_compressed_pages_are_padded_at_random_against_breach():
    """Django's GZipMiddleware writes up to 100 random bytes as the gzip member's file name
    (the FNAME flag in the header): a length no longer tells what the page holds."""
    series = record(start_series(), (70, 50))
    creator = creator_client(series)
    names = set()
    for _ in range(6):
        body = creator.get(board_url(series), headers={"Accept-Encoding": "gzip"}).content
        assert body[:2] == b"\x1f\x8b" and body[3] & 0x08, "no random file name"
        names.add(body[10 : body.index(b"\0", 10)])
    assert len(names) > 1


# A page cache shared by every process (PAGE_CACHE_URL: Redis) ---------------------------------

REDIS = "redis://127.0.0.1:6379/15"


def shared_pages(location: str = REDIS, **options) -> dict:
    """CACHES with a shared page cache in a Redis, as settings make it (``PAGE_CACHE_OPTIONS``:
    sets not waiting for an answer), under a prefix of this test's own (several test processes
    share the server)."""
    from django.conf import settings

    return {
        **settings.CACHES,
        "pages_shared": {
            "BACKEND": "kozel_site.redis_cache.RedisCache",
            "LOCATION": location,
            "KEY_PREFIX": f"test-{uuid.uuid4().hex}",
            "OPTIONS": {**settings.PAGE_CACHE_OPTIONS, **options},
        },
    }


@pytest.fixture
def redis_server():
    import redis

    try:
        redis.Redis.from_url(REDIS, socket_connect_timeout=0.5).ping()
    except redis.RedisError as error:
        pytest.fail(
            f"these tests need the Redis at {REDIS} (apt-get install redis-server): {error}"
        )


def test_a_board_one_process_rendered_is_anothers_next_page_through_redis(redis_server):
    """The POST's board, kept in the shared cache, is found by another process: what this one
    forgets (its own memory) it finds again in Redis, without rendering the board."""
    series = record(start_series(), (70, 50))
    client = client_with_link(series)
    with override_settings(CACHES=shared_pages()):
        record_second_deal(client, series, page(client, series))
        prefix = pagecache.shared().key_prefix
        import redis

        server = redis.Redis.from_url(REDIS)
        # The POST's board, where every process finds it.
        assert settled(lambda: bool(server.keys(f"{prefix}:*")))
        caches["pages"].clear()  # as another process: nothing of it in its own memory
        whole = client.get(board_url(series))
        kept_here = cached_keys()
        server.delete(*server.keys(f"{prefix}:*"))
    assert not whole.templates  # the shell and the board came from Redis
    assert "Deal 3: card points" in html(whole)
    assert kept_here == 2  # and are in this process's memory now


def test_a_shared_cache_that_does_not_answer_costs_a_render_never_an_error(caplog):
    series = record(start_series(), (70, 50))
    client = client_with_link(series)
    with override_settings(CACHES=shared_pages("redis://127.0.0.1:1/0")):
        try:
            for _ in range(2):
                assert "Deal 2: card points" in page(client, series)
        finally:
            pagecache._paused_until = 0.0
    assert "page cache not answering" in caplog.text
    assert caplog.text.count("page cache not answering") == 1  # then left alone for a while


def test_the_shared_cache_keeps_one_redis_client_and_works_in_a_forked_process(redis_server):
    """``kozel_site.redis_cache``: one client per pool, not one per call as Django's backend
    makes; after a fork (gunicorn's workers) the child opens connections of its own."""
    import os

    with override_settings(CACHES=shared_pages()):
        everyone = pagecache.shared()
        client, writer_client = everyone._cache.get_client(), everyone._cache.get_client(write=True)
        assert everyone._cache.get_client() is client  # made once for reading, once for writing
        assert everyone._cache.get_client(write=True) is writer_client
        assert client.connection_pool is writer_client.connection_pool  # one server: one pool
        everyone.set("before-fork", b"kept")
        assert everyone.get("before-fork") == b"kept"
        reader, writer = os.pipe()
        child = os.fork()
        if child == 0:  # the child: the same cache object, as a forked worker has it
            try:
                everyone.set("in-child", b"child")
                ok = everyone.get("before-fork") == b"kept"
                os.write(writer, b"1" if ok else b"0")
            finally:
                os._exit(0)
        os.waitpid(child, 0)
        assert os.read(reader, 1) == b"1"
        assert settled(lambda: everyone.get("in-child") == b"child")  # sent on its own connection
        assert everyone._cache.get_client() is client


def settled(check, seconds: float = 2.0) -> bool:
    """Whether ``check`` comes true within ``seconds`` (a set that no answer confirmed)."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_the_shared_caches_sets_wait_for_no_answer_and_outlive_a_closed_connection(redis_server):
    """``unanswered_sets``: a set goes on a connection Redis does not answer on, and is stored;
    when Redis closes that connection (its idle timeout, a restart), the sets after it land on a
    new one, without an error; a timeout of 0 still deletes, as in Django's backend."""
    import redis

    with override_settings(CACHES=shared_pages()):
        everyone = pagecache.shared()
        everyone.set("first", b"one")
        assert settled(lambda: everyone.get("first") == b"one")
        quiet = everyone._cache._quiet_connection()
        everyone.set("second", b"two")
        assert not quiet.can_read(timeout=0.2)  # no answer comes: none was asked for
        assert settled(lambda: everyone.get("second") == b"two")
        host, port = quiet._sock.getsockname()[:2]
        redis.Redis.from_url(REDIS).client_kill(f"{host}:{port}")
        for n in range(3):  # the first may go nowhere; the closed connection is then found
            everyone.set(f"after-{n}", f"value {n}".encode())
        assert settled(lambda: everyone.get("after-2") == b"value 2")
        assert everyone._cache._quiet_connection()._sock.getsockname()[1] != port  # a new one
        everyone.set("first", b"gone", timeout=0)
        assert everyone.get("first") is None


def test_without_unanswered_sets_the_backend_waits_as_djangos_does(redis_server):
    with override_settings(CACHES=shared_pages(unanswered_sets=False)):
        everyone = pagecache.shared()
        everyone.set("waited", b"yes")
        assert everyone.get("waited") == b"yes"  # at once: the set was answered
        assert everyone._cache._quiet is None


def test_a_redis_that_answers_anyway_makes_the_sets_wait_again(redis_server, caplog, monkeypatch):
    """Where ``CLIENT REPLY OFF`` is refused (a proxy, a renamed command), answers would pile up
    unread: the next set finds one, and from then on this process waits for each, as Django's
    backend does, saying so once."""
    from kozel_site.redis_cache import RedisCacheClient

    # As a Redis that answers: a command it answers, in place of the one that stops answers.
    monkeypatch.setattr(
        RedisCacheClient, "_no_replies", lambda self, connection: connection.send_command("PING")
    )
    with override_settings(CACHES=shared_pages()):
        everyone = pagecache.shared()
        everyone.set("first", b"one")  # the PING's answer, and this SET's, come back unread
        quiet = everyone._cache._quiet[1]
        assert settled(lambda: quiet.can_read(timeout=0))
        everyone.set("second", b"two")
        assert everyone.get("second") == b"two"  # answered: stored before it returned
        assert everyone._cache._unanswered is False
        everyone.set("third", b"three")
        assert everyone.get("third") == b"three"
    assert caplog.text.count("Redis answers where it was asked not to") == 1
