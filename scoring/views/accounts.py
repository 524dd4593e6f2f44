"""Accounts: sign up here; log in, log out and the password flows are Django's own views.

Failed logins are counted by django-axes (settings): after too many, the login answers with
``accounts/locked_out.html``.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods
from django.views.generic.edit import FormMixin

from scoring.accounts import SignupForm
from scoring.leagues.selectors import user_memberships
from scoring.views import UNPROCESSABLE

BACKEND = "django.contrib.auth.backends.ModelBackend"


def _next(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return ""


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """A new account, logged in at once; quick games on this phone stay reachable."""
    if request.user.is_authenticated:
        return redirect(_next(request) or "account")
    status = 200
    if request.method == "POST":
        form = SignupForm(request.POST)
        if form.is_valid():
            user = form.save()
            # login() keeps the session's data, so the game links this phone holds survive.
            login(request, user, backend=BACKEND)
            messages.success(request, _("Welcome! Your account is ready."))
            return redirect(_next(request) or "account")
        status = UNPROCESSABLE
    else:
        form = SignupForm()
    context = {"form": form, "next": _next(request)}
    return render(request, "registration/signup.html", context, status=status)


@require_GET
def account(request: HttpRequest) -> HttpResponse:
    """Your account: leagues, password; or the way to log in."""
    if not request.user.is_authenticated:
        return redirect("login")
    memberships = user_memberships(request.user)
    return render(request, "registration/account.html", {"memberships": memberships})


class Unprocessable(FormMixin):
    """Django's auth views answer an invalid form with 200; the house answer is 422."""

    def form_invalid(self, form):
        response = super().form_invalid(form)
        response.status_code = UNPROCESSABLE
        return response


class LoginView(Unprocessable, auth.LoginView):
    redirect_authenticated_user = True


class PasswordChangeView(Unprocessable, auth.PasswordChangeView):
    pass


class PasswordResetView(Unprocessable, auth.PasswordResetView):
    pass


class PasswordResetConfirmView(Unprocessable, auth.PasswordResetConfirmView):
    pass
