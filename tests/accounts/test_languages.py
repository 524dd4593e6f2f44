"""The language a page speaks: the browser's Accept-Language on a first visit, the picker on
every page after that (per browser: the cookie), and an account's own language brought back by
a log-in on any browser (scoring.accounts.languages)."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.test import Client

from scoring.accounts import languages
from scoring.models import AccountSettings
from tests.helpers import PASSWORD, client_with_link, html, make_user

GERMAN_PHONE = {"HTTP_ACCEPT_LANGUAGE": "de-DE,de;q=0.9,en;q=0.5"}


def pick(client: Client, language: str, next_path: str = "/"):
    return client.post("/i18n/setlang/", {"language": language, "next": next_path})


def lang_of(page: str) -> str:
    match = re.search(r'<html lang="([^"]+)"', page)
    assert match
    return match.group(1)


def picker(page: str) -> str:
    start = page.index('<form class="lang"')
    return page[start : page.index("</form>", start)]


@pytest.mark.django_db
def test_a_german_phone_gets_german_on_its_first_visit():
    page = html(Client().get("/", **GERMAN_PHONE))
    assert lang_of(page) == "de"
    assert "Neues Spiel" in page and "New game" not in page


@pytest.mark.django_db
def test_the_picker_overrides_the_browsers_language_and_is_remembered():
    client = Client()
    response = pick(client, "uk", "/history/")
    assert response.status_code == 302 and response["Location"] == "/history/"
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "uk"
    page = html(client.get("/", **GERMAN_PHONE))
    assert lang_of(page) == "uk"
    assert "Нова гра" in page


@pytest.mark.django_db
def test_every_page_offers_every_language_named_in_itself_with_a_label(quick_series):
    client = client_with_link(quick_series)
    series = quick_series.get_absolute_url()
    for path in ("/", "/new/", "/history/", "/accounts/login/", series, f"{series}sheet/"):
        response = client.get(path)
        assert response.status_code == 200, path
        form = picker(html(response))
        assert 'action="/i18n/setlang/"' in form and 'method="post"' in form
        assert '<label for="language-picker"' in form and 'id="language-picker"' in form
        names = re.findall(r'<option value="([a-z]+)" lang="\1"[^>]*>([^<]+)</option>', form)
        assert names == [
            ("en", "English"), ("ru", "Русский"), ("de", "Deutsch"), ("uk", "Українська"),
            ("vi", "Tiếng Việt"), ("ja", "日本語"), ("ko", "한국어"), ("te", "తెలుగు"),
        ]  # fmt: skip
        assert f'name="next" value="{path}"' in form


@pytest.mark.django_db
def test_the_picker_marks_the_language_in_use(client):
    pick(client, "de")
    form = picker(html(client.get("/")))
    assert '<option value="de" lang="de" selected>Deutsch</option>' in form
    assert form.count(" selected>") == 1


@pytest.mark.django_db
def test_the_public_league_page_has_the_picker(league):
    from scoring.leagues import services

    league = services.share_renew(league=league)
    page = html(Client().get(f"/public/{league.share_token}/", **GERMAN_PHONE))
    assert lang_of(page) == "de"
    assert 'name="language"' in picker(page)


@pytest.mark.django_db
def test_a_language_the_site_does_not_speak_changes_nothing():
    client = Client()
    response = pick(client, "xx")
    assert response.status_code == 302
    assert settings.LANGUAGE_COOKIE_NAME not in client.cookies
    assert lang_of(html(client.get("/"))) == "en"


def test_a_get_of_the_picker_changes_nothing(db):
    client = Client()
    response = client.get("/i18n/setlang/?language=de&next=/")
    assert response.status_code == 302
    assert settings.LANGUAGE_COOKIE_NAME not in client.cookies


# An account's language


def test_picking_a_language_while_logged_in_stores_it_for_the_account(owner):
    client = Client()
    client.force_login(owner)
    pick(client, "uk")
    assert AccountSettings.objects.get(user=owner).language == "uk"
    pick(client, "de")
    assert AccountSettings.objects.get(user=owner).language == "de"
    assert AccountSettings.objects.filter(user=owner).count() == 1


def test_picking_without_an_account_stores_nothing(db):
    pick(Client(), "uk")
    assert not AccountSettings.objects.exists()


def test_logging_in_on_another_browser_brings_the_accounts_language(owner):
    languages.account_language_set(user=owner, language="uk")
    phone = Client()
    assert lang_of(html(phone.get("/accounts/login/", **GERMAN_PHONE))) == "de"
    response = phone.post(
        "/accounts/login/", {"username": owner.username, "password": PASSWORD}, **GERMAN_PHONE
    )
    assert response.status_code == 302
    assert phone.cookies[settings.LANGUAGE_COOKIE_NAME].value == "uk"
    assert lang_of(html(phone.get("/", **GERMAN_PHONE))) == "uk"


def test_logging_in_without_a_stored_language_keeps_the_browsers(owner):
    phone = Client()
    pick(phone, "de")
    phone.post("/accounts/login/", {"username": owner.username, "password": PASSWORD})
    assert phone.cookies[settings.LANGUAGE_COOKIE_NAME].value == "de"
    assert lang_of(html(phone.get("/"))) == "de"


def test_a_failed_log_in_changes_no_language(owner):
    languages.account_language_set(user=owner, language="uk")
    phone = Client()
    response = phone.post("/accounts/login/", {"username": owner.username, "password": "wrong"})
    assert response.status_code == 422
    assert settings.LANGUAGE_COOKIE_NAME not in phone.cookies


def test_a_new_account_keeps_the_language_it_signed_up_in(db):
    phone = Client()
    pick(phone, "de")
    response = phone.post(
        "/accounts/signup/",
        {"username": "dieter", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 302
    assert AccountSettings.objects.get(user__username="dieter").language == "de"


def test_a_stored_language_the_site_no_longer_speaks_is_ignored(owner):
    AccountSettings.objects.create(user=owner, language="xx")
    assert languages.account_language(owner) == ""
    languages.account_language_set(user=owner, language="xx")
    assert AccountSettings.objects.get(user=owner).language == "xx"  # unchanged, not stored


def test_make_user_has_no_settings_until_it_picks(db):
    user = make_user("ivan")
    assert languages.account_language(user) == ""


@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
def test_the_score_sheet_speaks_each_language_and_its_chart_stays_plain_numbers(
    quick_series, language
):
    # German and Ukrainian write 176,5; an SVG coordinate written so lands in the wrong place.
    from tests.helpers import record

    record(quick_series, (30, 90))
    record(quick_series, (61, 59))
    client = client_with_link(quick_series)
    pick(client, language)
    sheet = html(client.get(f"/series/{quick_series.pk}/sheet/"))
    assert lang_of(sheet) == language
    svg = sheet[sheet.index("<svg") : sheet.index("</svg>")]
    coordinates = re.findall(r'\b(?:x|y|x1|x2|y1|y2|width|height|points)="([^"]*)"', svg)
    assert coordinates
    assert not [value for value in coordinates if re.search(r"\d,\d", value) and " " not in value]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("accept", "language"),
    [
        ("ru-RU,ru;q=0.9,en;q=0.8", "ru"),
        ("de-AT", "de"),
        ("uk-UA,uk;q=0.9,ru;q=0.8", "uk"),
        ("vi-VN,vi;q=0.9", "vi"),
        ("ja-JP,ja;q=0.9,en-US;q=0.8", "ja"),
        ("ko-KR,ko;q=0.9", "ko"),
        ("te-IN,te;q=0.9,en-IN;q=0.8", "te"),
        ("fr-FR,fr;q=0.9,uk;q=0.8,en;q=0.5", "uk"),  # the first language the site speaks
        ("fr-FR,fr;q=0.9", "en"),
    ],
)
def test_a_phone_in_each_language_gets_it_on_its_first_visit(accept, language):
    from django.utils import translation

    page = html(Client().get("/", HTTP_ACCEPT_LANGUAGE=accept))
    assert lang_of(page) == language
    with translation.override(language):
        assert translation.gettext("New game") in page
    translation.deactivate()


@pytest.mark.django_db
def test_every_public_page_has_the_picker_and_speaks_the_visitors_language(league):
    from scoring.events import services as event_services
    from scoring.leagues import services
    from tests.helpers import make_event

    league = services.share_renew(league=league)
    event = event_services.share_renew(event=make_event(league, 8))
    for path in (
        f"/public/{league.share_token}/",
        f"/public/{league.share_token}/history/",
        f"/public/events/{event.share_token}/",
    ):
        response = Client().get(path, HTTP_ACCEPT_LANGUAGE="ko-KR,ko;q=0.9")
        assert response.status_code == 200, path
        page = html(response)
        assert lang_of(page) == "ko", path
        form = picker(page)
        assert '<option value="ko" lang="ko" selected>한국어</option>' in form, path
        assert '<option value="te" lang="te">తెలుగు</option>' in form, path
        assert f'name="next" value="{path}"' in form, path
