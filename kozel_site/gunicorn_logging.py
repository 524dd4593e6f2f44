"""gunicorn's logger (``logger_class``), with the tokens of secret links out of the access log."""

from __future__ import annotations

from gunicorn.glogging import Logger

from scoring.redact import redact


class RedactingLogger(Logger):
    def atoms(self, resp, req, environ, request_time):
        # Every atom a format could name: the request line, path, query, referer, any header.
        atoms = super().atoms(resp, req, environ, request_time)
        return {
            key: redact(value) if isinstance(value, str) else value for key, value in atoms.items()
        }
