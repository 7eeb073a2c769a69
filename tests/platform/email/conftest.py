"""The e-mail tests use the worker's shared SMTP servers of tests/platform/conftest.py
(`smtp_server`, plain; `secure_smtp_server`, STARTTLS + AUTH)."""
