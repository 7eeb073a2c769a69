"""Fixtures of the CLI tests: the rule studio's service and owner, for pull and push."""

from tests.platform.rules_studio.conftest import owner, settings, studio  # noqa: F401
