"""gunicorn's logger (``logger_class``), with the tokens of secret links out of its lines: the
access log's, and the error log's (a refused request line is logged whole)."""

from __future__ import annotations

import logging

from gunicorn.glogging import Logger

from scoring.lib.redact import redact


class RedactingFilter(logging.Filter):
    """A record's message and traceback with every token taken out, whoever formats them."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = redact(record.getMessage()), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


class RedactingLogger(Logger):
    def __init__(self, cfg) -> None:
        super().__init__(cfg)
        if not any(isinstance(each, RedactingFilter) for each in self.error_log.filters):
            self.error_log.addFilter(RedactingFilter())

    def atoms(self, resp, req, environ, request_time):
        # Every atom a format could name: the request line, path, query, referer, any header.
        atoms = super().atoms(resp, req, environ, request_time)
        return {
            key: redact(value) if isinstance(value, str) else value for key, value in atoms.items()
        }
