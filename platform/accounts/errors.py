"""Domain errors of the accounts area, each with a stable code (mapped to HTTP in routes.py)."""

from __future__ import annotations


class AccountsError(Exception):
    """Root of the accounts area's errors."""

    code = "accounts_error"


class WeakPasswordError(AccountsError):
    """The password breaks the policy; `problem_code` says which rule."""

    code = "validation_error"

    def __init__(self, problem_code: str, message: str) -> None:
        super().__init__(message)
        self.problem_code = problem_code
        self.message = message


class InvalidCodeError(AccountsError):
    """The code is wrong, expired or exhausted, or the address has no pending verification
    (deliberately one error: the answer must not reveal which)."""

    code = "invalid_code"


class InvalidCredentialsError(AccountsError):
    """Unknown e-mail or wrong password (deliberately indistinguishable)."""

    code = "invalid_credentials"


class EmailNotVerifiedError(AccountsError):
    """The password is right but the address has not been verified yet."""

    code = "email_not_verified"
