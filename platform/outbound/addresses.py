"""Which IP addresses the service may connect to: public ones, or those in a network settings allow.

Shared by every outbound connection a user can steer (tenant database hosts, website scans), so
the service never acts as a port scanner of its own network. IPv6 forms that carry an IPv4
address (mapped, IPv4-compatible, NAT64, 6to4, Teredo) are judged by the address they carry too.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Cloud instance metadata services: refused by scans even when a network around them is allowed.
METADATA_ADDRESSES = frozenset(ipaddress.ip_address(a) for a in (
    "169.254.169.254",  # AWS, GCP, Azure, OpenStack...
    "169.254.170.2",    # AWS ECS task metadata
    "fd00:ec2::254",    # AWS over IPv6
    "100.100.100.200",  # Alibaba Cloud
))
# The last 32 bits carry an IPv4 address reached through a translator: NAT64 (RFC 6052, the
# well-known and the local-use prefix) and SIIT's IPv4-translated form (RFC 2765).
_NAT64 = (ipaddress.IPv6Network("64:ff9b::/96"), ipaddress.IPv6Network("64:ff9b:1::/48"),
          ipaddress.IPv6Network("::ffff:0:0:0/96"))
_IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")


def parse_address(address: str) -> IpAddress:
    """The address without an IPv6 zone (`fe80::1%eth0`); ValueError when it is no IP address."""
    return ipaddress.ip_address(address.split("%", 1)[0])


def literal_address(host: str) -> str | None:
    """The IP address a host names literally (also the legacy forms 127.1, 2130706433), or
    None for a name. aiohttp connects to a literal without resolving it, so a resolver's check
    never sees it: every client of a user-given host checks this first."""
    try:
        return str(parse_address(host))
    except ValueError:
        try:
            return socket.inet_ntoa(socket.inet_aton(host))
        except (OSError, ValueError):
            return None


def embedded_ipv4(address: IpAddress) -> tuple[ipaddress.IPv4Address, ...]:
    """The IPv4 addresses an IPv6 address carries (and so may reach through a translator)."""
    if isinstance(address, ipaddress.IPv4Address):
        return ()
    carried: list[ipaddress.IPv4Address] = []
    if address.ipv4_mapped is not None:
        carried.append(address.ipv4_mapped)
    if address.sixtofour is not None:
        carried.append(address.sixtofour)
    if address.teredo is not None:
        carried.extend(address.teredo)
    if any(address in network for network in _NAT64) or (
            address in _IPV4_COMPATIBLE and int(address) > 1):
        carried.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return tuple(carried)


def is_public(address: IpAddress) -> bool:
    """Globally routable unicast; an IPv6 form that carries IPv4 addresses (NAT64, 6to4,
    Teredo, ...) is judged by every address it carries, since that is what it reaches."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_multicast:
        return False
    carried = embedded_ipv4(address)
    if carried:  # 64:ff9b::/96 lies in the reserved ::/8 yet reaches a public IPv4 address
        return all(is_public(inner) for inner in carried)
    return address.is_global and not address.is_reserved


def is_metadata(address: IpAddress) -> bool:
    """A cloud metadata service address, also when carried inside an IPv6 address."""
    return address in METADATA_ADDRESSES or any(
        carried in METADATA_ADDRESSES for carried in embedded_ipv4(address))


def in_networks(address: IpAddress, networks: Iterable[str]) -> bool:
    """Whether the address lies in one of the CIDR networks (of its own IP version)."""
    return any(address in ipaddress.ip_network(network, strict=False) for network in networks)


def address_allowed(address: str, allowed_networks: Iterable[str]) -> bool:
    """A public address, or one inside a network the settings allow."""
    parsed = parse_address(address)
    return is_public(parsed) or in_networks(parsed, allowed_networks)


def outbound_address_allowed(address: str, allowed_networks: Iterable[str]) -> bool:
    """For calls to a host a user gave (a website scan, an LLM provider): public or inside an
    allowed network, and a cloud metadata address never, whatever network is allowed."""
    try:
        parsed = parse_address(address)
    except ValueError:
        return False
    if is_metadata(parsed):
        return False
    return is_public(parsed) or in_networks(parsed, allowed_networks)
