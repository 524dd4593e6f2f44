"""``manage.py login_link <username>``: a one-time link that lets an account's owner in from any
browser, for the operator to hand over (#38).

For a person the account's failed-log-in cap keeps out of a new phone, on a site that sends no
mail: the link logs in the browser that opens it (after one button) and makes it known, so its
later log-ins get in whatever strangers try. It stops working once used (any log-in to the
account ends it), when the password changes, and after ``PASSWORD_RESET_TIMEOUT``. Hand it over
only to the account's owner, over a channel you trust them on: it is a key to the account.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from scoring.accounts import login_links


def site_root(given: str) -> str:
    """The site's address the link starts with: ``--site``, else the first trusted origin, else
    the first allowed host (https unless DEBUG), else nothing (the path alone)."""
    if given:
        return given.rstrip("/")
    if settings.CSRF_TRUSTED_ORIGINS:
        return settings.CSRF_TRUSTED_ORIGINS[0].rstrip("/")
    hosts = [host.lstrip(".") for host in settings.ALLOWED_HOSTS if host not in ("*", "")]
    if hosts:
        return f"{'http' if settings.DEBUG else 'https'}://{hosts[0]}"
    return ""


class Command(BaseCommand):
    help = (
        "Print a one-time link that logs its account's owner in from any browser (and makes that "
        "browser one the account knows); for an owner locked out of a new phone or computer."
    )

    def add_arguments(self, parser):
        parser.add_argument("username", help="the account's username, as its owner logs in")
        parser.add_argument(
            "--site",
            default="",
            metavar="URL",
            help="the site's address, e.g. https://kozel.example.org (default: the first of "
            "CSRF_TRUSTED_ORIGINS, else of ALLOWED_HOSTS)",
        )

    def handle(self, *args, **options):
        model = get_user_model()
        username = options["username"]
        try:
            user = model._default_manager.get_by_natural_key(username)
        except model.DoesNotExist:
            similar = model._default_manager.filter(
                **{f"{model.USERNAME_FIELD}__iexact": username}
            ).first()
            hint = f" (did you mean {similar.get_username()!r}?)" if similar else ""
            raise CommandError(f"No account is named {username!r}{hint}.") from None
        if not user.is_active:
            raise CommandError(f"The account {username!r} is deactivated: activate it first.")
        self.stdout.write(site_root(options["site"]) + login_links.login_link_path(user=user))
        self.stderr.write(
            f"Works once, for {login_links.days_valid()} day(s); any log-in to the account or a "
            "new password ends it. Give it to the account's owner only."
        )
