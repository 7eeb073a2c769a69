"""Accounts area: Sign-up with e-mail verification, login sessions, logout and the profile."""
