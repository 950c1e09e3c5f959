"""Intake: what users send (submission, idempotent retries) and how text is read out of uploaded files."""
