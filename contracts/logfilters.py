"""Logging filter that masks personal data (phones, ID numbers, bank cards, …) in every log record."""

from __future__ import annotations

import logging

from rules.pii import mask_pii


class PiiMaskingFilter(logging.Filter):
    """Render the message once, mask PII in it, and drop the arguments so handlers cannot re-render them."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string must not lose the log line
            message = str(record.msg)
        record.msg = mask_pii(message)
        record.args = None
        if record.exc_info and not record.exc_text:
            # Formatters reuse exc_text when it is set, so the traceback is masked too.
            record.exc_text = mask_pii(_TRACEBACK_FORMATTER.formatException(record.exc_info))
        return True


_TRACEBACK_FORMATTER = logging.Formatter()


def handlers_mask(logger: logging.Logger) -> None:
    """Give every handler of `logger` the masking filter (once): Celery's worker and beat replace the root logger's
    handlers with their own, which would otherwise write records unmasked."""
    for handler in logger.handlers:
        if not any(isinstance(f, PiiMaskingFilter) for f in handler.filters):
            handler.addFilter(PiiMaskingFilter())
