"""The language a person reads the site in: per browser (Django's language cookie, the first
visit following Accept-Language) and, for an account, ``AccountSettings.language``, which a
log-in brings to a new browser."""

from __future__ import annotations

import unicodedata

from django.conf import settings
from django.http import HttpResponse
from django.utils import translation

from scoring.models import AccountSettings


def offered() -> list[tuple[str, str]]:
    """(code, name in itself) of the picker's languages, in NFC: Django writes "Tiếng Việt"
    decomposed, which compares and searches unlike what people type."""
    return [
        (code, unicodedata.normalize("NFC", translation.get_language_info(code)["name_local"]))
        for code, _name in settings.LANGUAGES
    ]


def is_offered(language: str) -> bool:
    return language in {code for code, _name in settings.LANGUAGES}


def account_language(user) -> str:
    """The language an account picked, or "" (none yet, or no account)."""
    if not getattr(user, "is_authenticated", False):
        return ""
    stored = AccountSettings.objects.filter(user=user).values_list("language", flat=True).first()
    return stored if stored and is_offered(stored) else ""


def account_language_set(*, user, language: str) -> None:
    """Remember ``language`` for the account (one that is not offered is ignored)."""
    if not is_offered(language):
        return
    AccountSettings.objects.update_or_create(user=user, defaults={"language": language})


def language_cookie_set(response: HttpResponse, language: str) -> None:
    """The browser's language cookie, as Django's set_language writes it."""
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,  # type: ignore[arg-type]  # a str setting
    )


def account_language_apply(user, response: HttpResponse) -> None:
    """After a log-in: the account's language becomes this browser's (cookie and request)."""
    language = account_language(user)
    if language:
        translation.activate(language)
        language_cookie_set(response, language)
