"""Domain errors of the prospects area (mapped to HTTP answers in routes.py)."""

from __future__ import annotations


class ProspectNotFoundError(Exception):
    """No prospect with that id belongs to the caller (another owner's id included)."""


class TermsNotAcceptedError(Exception):
    """The caller has not accepted the current version of the terms."""


class TermsVersionError(Exception):
    """The version accepted is not the current one."""


class CursorInvalidError(Exception):
    """The cursor was not issued by this service for this ordering."""
