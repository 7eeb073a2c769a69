"""The pure credential pieces: password policy and hashing, codes, session ids, tenant ids."""

from __future__ import annotations

import hashlib

import pytest
from argon2 import PasswordHasher

from insureops.platform.accounts.credentials import (
    codes_match,
    hash_code,
    hash_session_id,
    new_code,
    new_session_id,
)
from insureops.platform.identity import (
    Passwords,
    check_password_policy,
    new_tenant_id,
    normalise_email,
)

FAST = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


@pytest.mark.parametrize(("password", "problem"), [
    ("123456789", "password_too_short"),
    ("x" * 257, "password_too_long"),
    ("Ann.Lee@Example.com", "password_is_email"),
    ("ann.lee.example", None),
    ("ANN.LEE", "password_too_short"),
    ("ann.lee.xx", None),
    ("a long enough passphrase", None),
])
def test_password_policy_names_the_problem_when_a_rule_is_broken(password, problem):
    found = check_password_policy(password, "ann.lee@example.com")
    assert (found and found.code) == problem


def test_password_policy_refuses_the_local_part_when_it_is_long_enough():
    assert check_password_policy("annabelle.lee", "annabelle.lee@example.com").code == \
        "password_is_email"


def test_passwords_hash_with_argon2id_and_verify_when_right():
    passwords = Passwords(FAST)
    stored = passwords.hash("a long enough passphrase")

    assert stored.startswith("$argon2id$")
    assert passwords.verify(stored, "a long enough passphrase")
    assert not passwords.verify(stored, "a long enough passphrasE")


def test_passwords_say_no_when_there_is_no_stored_hash_or_it_is_garbage():
    passwords = Passwords(FAST)

    assert not passwords.verify(None, "anything at all")
    assert not passwords.verify("not a hash", "anything at all")


def test_passwords_need_rehash_when_parameters_changed():
    old = Passwords(FAST).hash("a long enough passphrase")

    assert Passwords(PasswordHasher(time_cost=2, memory_cost=8, parallelism=1)).needs_rehash(old)


def test_codes_are_six_digits_when_generated():
    codes = {new_code() for _ in range(2000)}

    assert all(len(code) == 6 and code.isdigit() for code in codes)
    assert len(codes) > 1900
    assert any(code.startswith("0") for code in codes)


def test_code_hash_depends_on_key_and_user_when_codes_are_equal():
    base = hash_code(b"key", "user1", "123456")

    assert base != hash_code(b"other key", "user1", "123456")
    assert base != hash_code(b"key", "user2", "123456")
    assert base != hashlib.sha256(b"123456").hexdigest()
    assert codes_match(base, b"key", "user1", "123456")
    assert not codes_match(base, b"key", "user1", "123457")


def test_session_ids_are_32_random_bytes_and_stored_as_sha256():
    session_id = new_session_id()

    assert len(session_id) == 43 and session_id != new_session_id()
    assert hash_session_id(session_id) == hashlib.sha256(session_id.encode()).hexdigest()


def test_tenant_ids_are_sortable_ulids_when_created_in_order():
    first, second = new_tenant_id(1_800_000_000.0), new_tenant_id(1_800_000_001.0)

    assert len(first) == len(second) == 26
    assert first < second


def test_emails_are_trimmed_and_lower_cased_when_normalised():
    assert normalise_email("  Ann@Example.COM ") == "ann@example.com"
