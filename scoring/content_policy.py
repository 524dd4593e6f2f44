"""The Content-Security-Policy header: django-csp's middleware, its policy built once.

django-csp builds the policy from the settings for every response (a deep copy of its parts,
then the string): about 40 µs, as much as a cached scoreboard's own view spends on its keys. No
view of ours changes the policy (no ``@csp_update``, ``@csp_replace`` or ``@csp_exempt``, no
nonce) and the site sets no report-only policy and excludes no path, so every response gets the
same header: built once per process. A response that asks for anything of its own, or a
configuration that has any of those, goes through django-csp's middleware as it is.
"""

from __future__ import annotations

from csp.constants import HEADER
from csp.middleware import CheckableLazyObject
from csp.middleware import CSPMiddleware as DjangoCSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.http import HttpRequest
from django.http.response import HttpResponseBase

#: What a response (or a view's decorator) sets to ask django-csp for a policy of its own.
_OWN = tuple(
    f"_csp_{name}{kind}"
    for name in ("config", "update", "replace", "exempt")
    for kind in ("", "_ro")
)


def _plain_configuration() -> bool:
    """No report-only policy, no excluded paths: one header for every response."""
    policy = getattr(settings, "CONTENT_SECURITY_POLICY", None) or {}
    return not getattr(settings, "CONTENT_SECURITY_POLICY_REPORT_ONLY", None) and not policy.get(
        "EXCLUDE_URL_PREFIXES"
    )


class CSPMiddleware(DjangoCSPMiddleware):
    def __init__(self, get_response) -> None:
        super().__init__(get_response)
        self.policy = build_policy() if _plain_configuration() else None

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if (
            self.policy is None
            or settings.DEBUG  # django-csp leaves Django's debug 404 and 500 pages alone
            or getattr(request, "_csp_nonce", None) is not None
            or any(hasattr(response, name) for name in _OWN)
        ):
            return super().process_response(request, response)
        if self.policy and HEADER not in response:
            response[HEADER] = self.policy
        # As django-csp does: a nonce asked for after the header is written is an error.
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)  # type: ignore[attr-defined]
        return response
