"""The tenant database URL policy: schemes, SQLite locations, and which addresses are allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from insureops.platform.config import Settings
from insureops.platform.tenancy.databases import masked_url
from insureops.platform.tenancy.urls import (
    CheckedUrl,
    UrlRefusal,
    address_allowed,
    check_url,
    parse_url,
    workspace_directory,
)

OURS, THEIRS = "01JOURS0000000000000000000", "01JTHEIRS00000000000000000"


@pytest.mark.parametrize("address", ["8.8.8.8", "2606:4700:4700::1111", "151.101.1.69"])
def test_public_addresses_are_allowed_when_nothing_is_configured(address):
    assert address_allowed(address, ())


@pytest.mark.parametrize("address", [
    "127.0.0.1", "10.0.0.5", "172.16.3.4", "192.168.1.1", "169.254.169.254", "100.64.0.1",
    "0.0.0.0", "::1", "fe80::1", "fc00::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "224.0.0.1",
    "192.0.2.10"])
def test_non_public_addresses_are_refused_when_no_network_allows_them(address):
    assert not address_allowed(address, ())


# Issue 17, fix 4 (NAT64 and 6to4): an IPv6 address embedding a private, loopback or
# link-local IPv4 address is refused like that IPv4 address itself.
EMBEDDED_PRIVATE_IPV4 = {
    "nat64 well-known, loopback": "64:ff9b::7f00:1",
    "nat64 well-known, private": "64:ff9b::a00:5",
    "nat64 well-known, link-local": "64:ff9b::a9fe:a9fe",
    "nat64 local-use, loopback": "64:ff9b:1::7f00:1",
    "6to4, loopback": "2002:7f00:1::",
    "6to4, private": "2002:c0a8:101::1",
    "6to4, link-local": "2002:a9fe:a9fe::1",
    "teredo, loopback server": "2001:0:7f00:1:8000:63bf:80ff:fffe",
    "teredo, private client": "2001:0:4136:e378:8000:63bf:f5ff:fffe",
    "ipv4-mapped, loopback": "::ffff:7f00:1",
    "ipv4-mapped, link-local": "::ffff:169.254.169.254",
    "ipv4-compatible, loopback": "::127.0.0.1",
    "ipv4-compatible, private": "::10.0.0.1",
    "ipv4-translated, loopback": "::ffff:0:7f00:1",
}


@pytest.mark.parametrize("address", EMBEDDED_PRIVATE_IPV4.values(), ids=EMBEDDED_PRIVATE_IPV4)
def test_ipv6_address_is_refused_when_it_embeds_a_private_ipv4_address(address):
    assert not address_allowed(address, ())


@pytest.mark.parametrize("address", ["64:ff9b::808:808", "2002:808:808::1", "::ffff:8.8.8.8"])
def test_ipv6_address_is_allowed_when_the_ipv4_address_it_embeds_is_public(address):
    assert address_allowed(address, ())


@pytest.mark.parametrize("host", ["[64:ff9b::7f00:1]", "[2002:7f00:1::]", "[::127.0.0.1]"])
async def test_database_url_is_refused_when_its_ipv6_host_embeds_loopback(host):
    refusal = await check_url(f"postgresql://u:p@{host}:5433/db", Settings(), tenant_id=OURS)
    assert isinstance(refusal, UrlRefusal) and refusal.code == "database_host_refused"


def test_allowed_network_admits_only_its_addresses_when_configured():
    assert address_allowed("127.0.0.1", ("127.0.0.1/32",))
    assert not address_allowed("127.0.0.2", ("127.0.0.1/32",))
    assert address_allowed("10.1.2.3", ("10.0.0.0/8",))


def test_postgres_url_is_parsed_into_its_parts_when_well_formed():
    checked = parse_url("postgres://app:pw@db.example.com/agency?sslmode=require", Settings(),
                        tenant_id=OURS)
    assert isinstance(checked, CheckedUrl)
    assert (checked.backend, checked.host, checked.port, checked.database, checked.username) == (
        "postgresql", "db.example.com", 5432, "agency", "app")
    assert checked.url.drivername == "postgresql+psycopg"


@pytest.mark.parametrize("query", ["host=10.0.0.1", "hostaddr=10.0.0.1", "passfile=/etc/x",
                                   "service=internal", "sslkey=/etc/ssl/private/k"])
def test_postgres_url_is_refused_when_a_parameter_could_redirect_it(query):
    refusal = parse_url(f"postgresql://a:b@db.example.com/agency?{query}", Settings(),
                        tenant_id=OURS)
    assert isinstance(refusal, UrlRefusal) and refusal.code == "invalid_database_url"


@pytest.mark.parametrize("settings", [
    Settings(database_url="postgresql://app@db.internal/insureops"),
    Settings(embedded_tenant_databases=False)], ids=["postgresql platform", "embedded off"])
def test_sqlite_is_refused_when_no_directory_is_configured(settings):
    assert settings.tenant_sqlite_root is None
    refusal = parse_url("sqlite:///tmp/agency.sqlite3", settings, tenant_id=OURS)
    assert isinstance(refusal, UrlRefusal) and refusal.code == "unsupported_database"
    assert "INSUREOPS_TENANT_SQLITE_DIRECTORY" in refusal.message


def test_sqlite_file_is_resolved_inside_the_workspace_directory_when_relative(tmp_path: Path):
    settings = Settings(tenant_sqlite_directory=tmp_path)
    checked = parse_url("sqlite:///agency.sqlite3", settings, tenant_id=OURS)
    assert isinstance(checked, CheckedUrl)
    assert checked.database == str(tmp_path.resolve() / OURS / "agency.sqlite3")
    absolute = parse_url(f"sqlite:///{tmp_path}/{OURS}/agency.sqlite3", settings, tenant_id=OURS)
    assert isinstance(absolute, CheckedUrl) and absolute.database == checked.database
    escaped = parse_url(f"sqlite:///{tmp_path}/../x.sqlite3", settings, tenant_id=OURS)
    assert isinstance(escaped, UrlRefusal) and escaped.code == "database_location_refused"


# Issue 11 / issue 17, fix 3: with INSUREOPS_TENANT_SQLITE_DIRECTORY set, a workspace could save
# sqlite:///<other tenant_id>.sqlite3 and write into that workspace's file.
@pytest.mark.parametrize("form", [
    "sqlite:///{theirs}.sqlite3", "sqlite:///../{theirs}/{theirs}.sqlite3",
    "sqlite:///{root}/{theirs}/{theirs}.sqlite3", "sqlite:///{root}/{theirs}.sqlite3",
    "sqlite:///./../{theirs}/x/../{theirs}.sqlite3", "sqlite:///{root}/../tenants/{theirs}/a.db"])
@pytest.mark.parametrize("exists", [True, False], ids=["their file exists", "no file"])
def test_sqlite_url_never_reaches_another_workspace_file_when_it_names_it(tmp_path, form, exists):
    root = tmp_path / "tenants"
    (root / THEIRS).mkdir(parents=True)
    if exists:
        for name in (f"{THEIRS}.sqlite3", "a.db"):
            (root / THEIRS / name).write_bytes(b"")
            (root / name).write_bytes(b"")
    url = form.format(root=root, theirs=THEIRS)
    checked = parse_url(url, Settings(tenant_sqlite_directory=root), tenant_id=OURS)
    if isinstance(checked, CheckedUrl):  # a file of our own that happens to carry their name
        assert Path(checked.database).is_relative_to(root.resolve() / OURS)
    else:
        assert checked == UrlRefusal("database_location_refused", checked.message)


def test_sqlite_symlink_out_of_the_workspace_directory_is_refused_when_followed(tmp_path: Path):
    root, outside = tmp_path / "tenants", tmp_path / "elsewhere"
    (root / OURS).mkdir(parents=True)
    (root / THEIRS).mkdir()
    outside.mkdir()
    (root / OURS / "link.sqlite3").symlink_to(outside / "x.sqlite3")
    (root / OURS / "theirs.sqlite3").symlink_to(root / THEIRS / "t.sqlite3")
    settings = Settings(tenant_sqlite_directory=root)
    for name in ("link.sqlite3", "theirs.sqlite3"):
        refusal = parse_url(f"sqlite:///{name}", settings, tenant_id=OURS)
        assert isinstance(refusal, UrlRefusal) and refusal.code == "database_location_refused"


def test_workspace_directory_is_refused_when_the_tenant_id_is_not_alphanumeric(tmp_path):
    with pytest.raises(ValueError, match="tenant id"):
        workspace_directory(tmp_path, "../x")


async def test_host_is_refused_when_it_resolves_to_loopback():
    refusal = await check_url("postgresql://a:b@localhost/agency", Settings(), tenant_id=OURS)
    assert isinstance(refusal, UrlRefusal) and refusal.code == "database_host_refused"
    allowed = await check_url("postgresql://a:b@127.0.0.1/agency",
                              Settings(tenant_database_allowed_networks=("127.0.0.0/8",)),
                              tenant_id=OURS)
    assert isinstance(allowed, CheckedUrl) and allowed.addresses == ("127.0.0.1",)


def test_masked_url_hides_the_password_when_shown():
    assert masked_url("postgresql://app:s3cret@db/agency") == "postgresql://app:***@db/agency"


def test_settings_refuse_a_network_when_it_is_not_cidr():
    with pytest.raises(ValueError, match="banana"):
        Settings(tenant_database_allowed_networks="10.0.0.0/8,banana")
    assert Settings(tenant_database_allowed_networks="10.0.0.0/8, ::1/128"
                    ).tenant_database_allowed_networks == ("10.0.0.0/8", "::1/128")
