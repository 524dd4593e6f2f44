"""Refusals in the site's own pages, in the person's language: a form the CSRF check refused
(403), a forbidden action (403), a missing page (404), a broken view (500), a database that did
not answer (503). And the referrer policy that lets the invite and public pages' forms through
the CSRF check."""

from __future__ import annotations

import re

import pytest
from django.db import OperationalError, connection
from django.http import HttpRequest, HttpResponse
from django.template import loader
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import include, path
from django.utils import translation

from kozel_site import urls as site_urls
from scoring.leagues import services as league_services
from scoring.models import Membership
from tests.helpers import html, logged_in


def boom(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("the view broke")


def database_gone(request: HttpRequest) -> HttpResponse:
    raise OperationalError("server closed the connection unexpectedly")


urlpatterns = [
    path("boom/", boom),
    path("gone/", database_gone),
    path("", include("kozel_site.urls")),
]
handler500 = site_urls.handler500  # the site's own, with this test's pages

RUSSIAN = {"HTTP_ACCEPT_LANGUAGE": "ru"}


def token_of(response) -> str:
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html(response))
    assert match, "the page has no form with a CSRF token"
    return match.group(1)


def assert_site_page(response, language: str) -> None:
    """The site's own page (its header and stylesheet), in ``language``, fit for the CSP."""
    page = html(response)
    assert f'<html lang="{language}">' in page
    assert 'class="brand"' in page and "css/app.css" in page
    assert "script-src 'self'" in response["Content-Security-Policy"]
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", page), "an inline <script>"
    assert not re.search(r"<style\b|\sstyle=", page), "an inline style"


# A form the CSRF check refuses ------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "language", "words"),
    [
        ({}, "en", ("The form was not accepted", "Go back, reload the page")),
        (RUSSIAN, "ru", ("Форма не принята", "Вернитесь назад, обновите страницу")),
    ],
)
def test_a_refused_form_gets_the_sites_page_saying_what_to_do(db, headers, language, words):
    client = Client(enforce_csrf_checks=True)
    response = client.post("/i18n/setlang/", {"language": "ru", "next": "/"}, **headers)
    assert response.status_code == 403
    assert_site_page(response, language)
    assert all(word in html(response) for word in words)
    assert "CSRF verification failed" not in html(response)


def test_after_a_refused_form_reloading_and_sending_again_works(db):
    """The refusal page hands out a CSRF cookie, so "go back and reload" is all it takes."""
    client = Client(enforce_csrf_checks=True)
    refused = client.post("/i18n/setlang/", {"language": "ru", "next": "/"})
    assert refused.status_code == 403
    assert "csrftoken" in client.cookies
    again = client.post(
        "/i18n/setlang/", {"language": "ru", "next": "/", "csrfmiddlewaretoken": token_of(refused)}
    )
    assert again.status_code == 302


def test_a_form_sent_with_origin_null_is_refused_with_the_sites_page(league, outsider):
    """What Chromium sends from a page with <meta name="referrer" content="no-referrer">."""
    league = league_services.invite_renew(league=league)
    client = Client(enforce_csrf_checks=True)
    client.force_login(outsider)
    invite = f"/invite/{league.invite_token}/"
    token = token_of(client.get(invite))
    response = client.post(invite, {"csrfmiddlewaretoken": token}, HTTP_ORIGIN="null")
    assert response.status_code == 403
    assert "The form was not accepted" in html(response)
    assert not Membership.objects.filter(league=league, user=outsider).exists()


def test_joining_through_an_invite_passes_the_csrf_check_with_the_pages_origin(league, outsider):
    league = league_services.invite_renew(league=league)
    client = Client(enforce_csrf_checks=True)
    client.force_login(outsider)
    invite = f"/invite/{league.invite_token}/"
    token = token_of(client.get(invite))
    response = client.post(invite, {"csrfmiddlewaretoken": token}, HTTP_ORIGIN="http://testserver")
    assert response.status_code == 302
    assert Membership.objects.filter(league=league, user=outsider).exists()


# The pages behind secret links keep their address to themselves -----------------------------


@pytest.fixture
def secret_pages(league):
    league = league_services.share_renew(league=league_services.invite_renew(league=league))
    return [
        f"/invite/{league.invite_token}/",
        f"/public/{league.share_token}/",
        f"/public/{league.share_token}/history/",
    ]


def test_secret_link_pages_send_no_referer_to_other_sites_but_their_forms_an_origin(
    secret_pages, outsider
):
    """Referrer-Policy: same-origin keeps the secret link out of other sites' logs, and still
    lets a same-origin form carry its Origin (a no-referrer policy would send "null": 403)."""
    client = logged_in(outsider)
    for secret in secret_pages:
        response = client.get(secret)
        assert response.status_code == 200, secret
        assert response["Referrer-Policy"] == "same-origin", secret
        assert '<meta name="referrer"' not in html(response), secret
        # Every link leaves for this site only, or says noreferrer.
        for link in re.findall(r"<a\b[^>]*>", html(response)):
            href = re.search(r'href="([^"]*)"', link)
            off_site = href and re.match(r"(https?:)?//", href.group(1))
            assert not off_site or "noreferrer" in link, (secret, link)


# A forbidden action, a missing page, a broken view ---------------------------------------


@pytest.mark.parametrize(
    ("headers", "language", "words"),
    [
        ({}, "en", ("Not allowed", "Your role in this league does not allow this.")),
        (RUSSIAN, "ru", ("Нет доступа", "Ваша роль в этой лиге этого не позволяет.")),
    ],
)
def test_a_forbidden_action_gets_the_sites_403_page(league, viewer, headers, language, words):
    response = logged_in(viewer).post(f"/leagues/{league.pk}/share/", **headers)
    assert response.status_code == 403
    assert_site_page(response, language)
    assert all(word in html(response) for word in words)


@pytest.mark.parametrize(
    ("headers", "language", "words"),
    [
        ({}, "en", ("Page not found", "Ask whoever sent it for the new link.")),
        (RUSSIAN, "ru", ("Страница не найдена", "Попросите новую ссылку")),
    ],
)
def test_a_missing_page_gets_the_sites_404_page(db, headers, language, words):
    response = Client().get("/public/no-such-link/", **headers)
    assert response.status_code == 404
    assert_site_page(response, language)
    assert all(word in html(response) for word in words)


@pytest.fixture
def broken_site(settings):
    settings.ROOT_URLCONF = __name__
    settings.DEBUG = False


@pytest.mark.parametrize(
    ("headers", "language", "words"),
    [
        ({}, "en", ("Something went wrong", "Reload the page in a minute")),
        (RUSSIAN, "ru", ("Что-то пошло не так", "Обновите страницу через минуту")),
    ],
)
def test_a_broken_view_gets_the_sites_500_page(broken_site, db, headers, language, words):
    response = Client(raise_request_exception=False).get("/boom/", **headers)
    assert response.status_code == 500
    assert_site_page(response, language)
    assert all(word in html(response) for word in words)
    assert "the view broke" not in html(response)


def test_the_500_page_renders_without_a_request_or_the_database(db):
    """Django's server_error renders it with no context; the database may be what failed."""
    with CaptureQueriesContext(connection) as queries, translation.override("en"):
        page = loader.get_template("500.html").render()
    assert "Something went wrong" in page
    assert len(queries) == 0


# A database that did not answer ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "language", "words"),
    [
        ({}, "en", ("Back in a moment", "was not saved yet", "Try again in a moment")),
        (RUSSIAN, "ru", ("Скоро вернёмся", "ещё не сохранено", "Попробуйте ещё раз через минуту")),
    ],
)
def test_a_request_the_database_did_not_answer_gets_the_try_again_page(
    broken_site, db, headers, language, words
):
    response = Client(raise_request_exception=False).get("/gone/", **headers)
    assert response.status_code == 503
    assert response["Retry-After"] == "5" and "no-store" in response["Cache-Control"]
    assert_site_page(response, language)
    assert all(word in html(response) for word in words)
    assert "closed the connection" not in html(response) and "Traceback" not in html(response)


def test_an_htmx_request_the_database_did_not_answer_gets_the_message_alone(broken_site, db):
    response = Client(raise_request_exception=False).post("/gone/", headers={"HX-Request": "true"})
    assert response.status_code == 503 and response["Retry-After"] == "5"
    page = html(response).strip()
    assert page.startswith('<p class="notice" role="alert">') and "<html" not in page
    assert "was not saved yet" in page


def test_the_503_page_renders_without_a_request_or_the_database(db):
    with CaptureQueriesContext(connection) as queries, translation.override("en"):
        page = loader.get_template("503.html").render({"fragment": False})
    assert "Back in a moment" in page
    assert len(queries) == 0
