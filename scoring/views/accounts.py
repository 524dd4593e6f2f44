"""Accounts: sign up here; log in, log out and the password flows are Django's own views.

Too many failed log-ins answer ``accounts/locked_out.html`` (429, saying why:
``scoring.web.logins``, and every way back this site has). A login link
(``scoring.accounts.login_links``) lets its account's owner in from any browser, whatever
strangers tried.
A site that sends no mail offers no password reset: its page says so and who to ask instead.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth import views as auth
from django.contrib.auth.decorators import login_required
from django.core.exceptions import NON_FIELD_ERRORS
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.generic.edit import FormMixin
from django.views.i18n import set_language

from scoring.accounts import languages, login_links, privacy
from scoring.accounts.forms import AccountDeleteForm, SignupForm
from scoring.leagues.selectors import user_memberships
from scoring.models import Export
from scoring.sharing.codes import qr_svg
from scoring.views import TOO_MANY, UNPROCESSABLE, LoggedInRequest, exports
from scoring.web import logins
from scoring.web.middleware import mark_secret
from scoring.web.throttle import signed_up, signup_refusal

BACKEND = "django.contrib.auth.backends.ModelBackend"


def safe_next(request: HttpRequest) -> str:
    """The ``next`` path to go back to, or "" when it is not a path on this site (``redirect()``
    takes anything else for a view's name and fails)."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target.startswith("/") and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return ""


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """A new account, logged in at once; quick games on this phone stay reachable."""
    if request.user.is_authenticated:
        return redirect(safe_next(request) or "account")
    status = 200
    if request.method == "POST":
        form = SignupForm(request.POST)
        if form.is_valid() and (refusal := signup_refusal(request)):
            form.add_error(None, refusal)  # too many accounts from here: the form says so
        if form.is_valid():
            user = form.save()
            signed_up(request)
            # login() keeps the session's data, so the game links this phone holds survive.
            login(request, user, backend=BACKEND)
            # The language the new account signed up in is the one it keeps.
            languages.account_language_set(user=user, language=translation.get_language())
            messages.success(request, _("Welcome! Your account is ready."))
            return redirect(safe_next(request) or "account")
        status = UNPROCESSABLE
    else:
        form = SignupForm()
    context = {"form": form, "next": safe_next(request)}
    return render(request, "registration/signup.html", context, status=status)


def _help() -> dict:
    """What the account pages say about a forgotten password and where to get help."""
    return {
        "reset_by_email": settings.PASSWORD_RESET_BY_EMAIL,
        "support_contact": settings.SUPPORT_CONTACT,
    }


@require_GET
def account(request: HttpRequest) -> HttpResponse:
    """Your account: leagues, password; or the way to log in."""
    if not request.user.is_authenticated:
        return redirect("login")
    memberships = user_memberships(request.user)
    context = {"memberships": memberships, **_help()}
    return render(request, "registration/account.html", context)


def language_set(request: HttpRequest) -> HttpResponse:
    """The language picker: Django's set_language (the cookie, back to ``next``; a GET changes
    nothing); an account also keeps the choice for its next log-in on any browser."""
    response = set_language(request)
    language = request.POST.get("language", "") if request.method == "POST" else ""
    if request.user.is_authenticated and languages.is_offered(language):
        languages.account_language_set(user=request.user, language=language)
    return response


@login_required
@require_http_methods(["GET", "POST"])
def account_data(request: LoggedInRequest) -> HttpResponse:
    """Everything the site holds about me, as a JSON file: made off the request (a busy account
    holds megabytes), asked for with a POST."""
    if request.method != "POST":
        return exports.ask_response(request, Export.Kind.ACCOUNT)
    return exports.ask(request, Export.Kind.ACCOUNT, {})


@login_required
@require_http_methods(["GET", "POST"])
def account_delete(request: LoggedInRequest) -> HttpResponse:
    """Delete my account, my password typed again; refused while I alone own a league."""
    form = AccountDeleteForm(request.POST or None, user=request.user)
    error = ""
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                privacy.account_delete(request.user)
            except privacy.AccountError as refused:
                error = str(refused)
            else:
                logout(request)
                messages.success(request, _("Your account is deleted. Goodbye!"))
                return redirect("home")
        status = UNPROCESSABLE
    context = {"form": form, "error": error, "alone": privacy.owned_alone(request.user)}
    return render(request, "registration/account_delete.html", context, status=status)


def locked_out(request: HttpRequest, reason: str) -> HttpResponse:
    """A refused log-in: why, and every way back this site has (429)."""
    context = {"reason": reason, **_help()}
    return render(request, "accounts/locked_out.html", context, status=TOO_MANY)


def axes_locked_out(request: HttpRequest, original_response=None, credentials=None):
    """django-axes' answer (``AXES_LOCKOUT_CALLABLE``) to the failure that locks a username at a
    network; later attempts there are refused before it is asked (``logins.login_refusal``)."""
    return locked_out(request, logins.network_locked())


@never_cache
@require_http_methods(["GET", "POST"])
def login_link(request: HttpRequest, uidb64: str, token: str) -> HttpResponse:
    """A login link: a GET shows whose account it opens and one button (it writes nothing, and a
    messenger's preview of the link does not spend it); the POST logs in and makes this browser
    one the account knows, so its next log-ins get in whatever strangers try."""
    user = login_links.login_link_user(uidb64=uidb64, token=token)
    if user is None:
        status = UNPROCESSABLE if request.method == "POST" else 200
        return render(request, "accounts/login_link.html", {"account": None}, status=status)
    if request.method != "POST":
        return render(request, "accounts/login_link.html", {"account": user.get_username()})
    login(request, user, backend=BACKEND)  # a new last log-in: the link works no more
    response = redirect("account")
    languages.account_language_apply(user, response)
    logins.browser_remember(request, response, user.get_username())
    messages.success(
        request, _("You are logged in. This browser can log in to your account from now on.")
    )
    return response


@never_cache
@login_required
@require_POST
def login_link_new(request: LoggedInRequest) -> HttpResponse:
    """A login link for another browser of mine, shown once (made on a POST, never on a GET)."""
    url = request.build_absolute_uri(login_links.login_link_path(user=request.user))
    mark_secret(request)
    # Drawn afresh (past qr_svg's cache): a login link is kept in no process's memory.
    qr = qr_svg.__wrapped__(url, _("QR code of the login link"))
    context = {"url": url, "days": login_links.days_valid(), "qr": qr}
    return render(request, "accounts/login_link_new.html", context)


class Unprocessable(FormMixin):
    """Django's auth views answer an invalid form with 200; the house answer is 422."""

    def form_invalid(self, form):
        response = super().form_invalid(form)
        response.status_code = UNPROCESSABLE
        return response


class LoginView(Unprocessable, auth.LoginView):
    redirect_authenticated_user = True

    def post(self, request, *args, **kwargs):
        username = request.POST.get("username", "")
        if refusal := logins.login_refusal(request, username):
            return locked_out(request, refusal)  # no password checked: counted nowhere
        return super().post(request, *args, **kwargs)

    def form_valid(self, form):
        response = super().form_valid(form)
        user = form.get_user()
        languages.account_language_apply(user, response)
        logins.browser_remember(self.request, response, user.get_username())
        return response

    def form_invalid(self, form):
        if form.has_error(NON_FIELD_ERRORS, code="invalid_login"):
            logins.login_failed(self.request, self.request.POST.get("username", ""))
        return super().form_invalid(form)


class PasswordChangeView(Unprocessable, auth.PasswordChangeView):
    pass


class PasswordResetView(Unprocessable, auth.PasswordResetView):
    def dispatch(self, request, *args, **kwargs):
        if not settings.PASSWORD_RESET_BY_EMAIL:
            # No form to fill in for a mail that never comes: say so, and who can help.
            return render(request, "registration/password_reset_unavailable.html", _help())
        return super().dispatch(request, *args, **kwargs)


class PasswordResetConfirmView(Unprocessable, auth.PasswordResetConfirmView):
    def form_valid(self, form):
        response = super().form_valid(form)
        # The link came by the account's mail: this browser may log in even while strangers
        # have the account capped.
        logins.browser_remember(self.request, response, form.user.get_username())
        return response
