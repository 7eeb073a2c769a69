"""The shared address policy: public addresses pass, private ones and IPv6 forms carrying them do not."""

from __future__ import annotations

import pytest

from insureops.platform.outbound.addresses import (
    address_allowed,
    embedded_ipv4,
    is_metadata,
    parse_address,
)


@pytest.mark.parametrize("address", ["8.8.8.8", "93.184.215.14", "2606:4700:4700::1111"])
def test_address_is_allowed_when_it_is_public(address):
    assert address_allowed(address, ())


@pytest.mark.parametrize("address", [
    "127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1",
    "0.0.0.0", "224.0.0.1", "240.0.0.1", "255.255.255.255", "::1", "::", "fe80::1%eth0",
    "fd00:ec2::254", "ff02::1",
    "::ffff:127.0.0.1",            # IPv4-mapped
    "::127.0.0.1",                 # IPv4-compatible (deprecated)
    "64:ff9b::7f00:1",             # NAT64 of 127.0.0.1
    "64:ff9b::a00:1",              # NAT64 of 10.0.0.1
    "2002:7f00:1::1",              # 6to4 of 127.0.0.1
    "2001:0:4136:e378:8000:63bf:80ff:fffe",  # Teredo whose client is 127.0.0.1
])
def test_address_is_refused_when_it_is_not_public_or_carries_a_private_address(address):
    assert not address_allowed(address, ())


def test_address_is_allowed_when_an_allowed_network_holds_it():
    assert address_allowed("127.0.0.1", ("127.0.0.1/32",))
    assert not address_allowed("127.0.0.2", ("127.0.0.1/32",))
    assert not address_allowed("64:ff9b::7f00:1", ("127.0.0.1/32",))
    assert not address_allowed("::1", ("127.0.0.1/32",))


def test_embedded_ipv4_reads_the_address_when_ipv6_forms_carry_one():
    assert [str(a) for a in embedded_ipv4(parse_address("64:ff9b::7f00:1"))] == ["127.0.0.1"]
    assert [str(a) for a in embedded_ipv4(parse_address("2002:a00:1::"))] == ["10.0.0.1"]
    assert "127.0.0.1" in {str(a) for a in embedded_ipv4(
        parse_address("2001:0:4136:e378:8000:63bf:80ff:fffe"))}
    assert embedded_ipv4(parse_address("2606:4700:4700::1111")) == ()


@pytest.mark.parametrize("address", ["169.254.169.254", "fd00:ec2::254", "::ffff:169.254.169.254",
                                     "64:ff9b::a9fe:a9fe"])
def test_metadata_is_recognised_when_written_in_any_form(address):
    assert is_metadata(parse_address(address))
