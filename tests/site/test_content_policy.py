"""``scoring.content_policy``: the policy built once is django-csp's, and whatever asks for a
policy of its own still gets django-csp's answer."""

from __future__ import annotations

import pytest
from csp.constants import HEADER
from csp.middleware import CSPMiddleware as DjangoCSPMiddleware
from django.http import HttpResponse
from django.test import RequestFactory, override_settings

from scoring.content_policy import CSPMiddleware


def _answer(middleware_class, status=200, **attributes):
    request = RequestFactory().get("/")
    middleware = middleware_class(lambda request: response)
    response = HttpResponse(status=status)
    for name, value in attributes.items():
        setattr(response, name, value)
    middleware.process_request(request)
    return request, middleware.process_response(request, response)


def _directives(header: str) -> set[str]:
    return {part.strip() for part in header.split(";")}  # the order is a set's in django-csp


@pytest.mark.parametrize("status", [200, 204, 404, 500])
def test_the_policy_built_once_is_django_csps(status):
    _request, ours = _answer(CSPMiddleware, status)
    _request, theirs = _answer(DjangoCSPMiddleware, status)
    assert _directives(ours[HEADER]) == _directives(theirs[HEADER])
    assert "frame-ancestors 'none'" in ours[HEADER]


def test_a_response_that_asks_for_its_own_policy_gets_django_csps_answer():
    update = {"img-src": ["https://example.org"]}
    _request, ours = _answer(CSPMiddleware, _csp_update=update)
    _request, theirs = _answer(DjangoCSPMiddleware, _csp_update=update)
    assert "https://example.org" in ours[HEADER]
    assert _directives(ours[HEADER]) == _directives(theirs[HEADER])
    _request, exempt = _answer(CSPMiddleware, _csp_exempt=True)
    assert HEADER not in exempt


def test_a_nonce_asked_for_is_django_csps_to_place_and_one_asked_for_after_is_refused():
    answers = []
    for middleware_class in (CSPMiddleware, DjangoCSPMiddleware):
        request = RequestFactory().get("/")
        middleware = middleware_class(lambda request: HttpResponse())
        middleware.process_request(request)
        assert str(request.csp_nonce)  # a nonce made: the header is django-csp's to build
        answers.append(middleware.process_response(request, HttpResponse())[HEADER])
    assert _directives(answers[0]) == _directives(answers[1])
    late = RequestFactory().get("/")
    middleware = CSPMiddleware(lambda request: HttpResponse())
    middleware.process_request(late)
    middleware.process_response(late, HttpResponse())
    with pytest.raises(Exception, match="not available after the CSP header"):
        str(late.csp_nonce)


def test_a_report_only_policy_is_left_to_django_csp():
    report_only = {"DIRECTIVES": {"default-src": ["'self'"]}}
    with override_settings(CONTENT_SECURITY_POLICY_REPORT_ONLY=report_only):
        _request, ours = _answer(CSPMiddleware)
    assert "Content-Security-Policy-Report-Only" in ours
    assert CSPMiddleware(lambda request: HttpResponse()).policy  # the plain one, by default
