"""Fixtures of the invitation page's browser tests: the studio page's live service and Chromium
(tests/platform/studio_web/conftest.py), shared rather than copied."""

from tests.platform.studio_web.conftest import (  # noqa: F401
    browser,
    live_service,
    page,
    pytest_runtest_makereport,
)
