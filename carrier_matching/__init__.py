"""carrier_matching: the market (carriers, products, appetites) and its checks, without I/O.

Importing the package is cheap: the checking functions, which load the rules language, are
imported on first use.
"""

from insureops.carrier_matching.jurisdictions import STATE_CODES, STATES
from insureops.carrier_matching.lines import LINE_CODES, LINES, LineOfBusiness, line_by_code
from insureops.carrier_matching.market import (
    Appetite,
    Carrier,
    Market,
    MarketError,
    MarketInvalidError,
    Problem,
    Product,
    content_hash,
)

_CHECKING = ("MarketReport", "check_market", "load_market")

__all__ = [
    "LINES", "LINE_CODES", "STATES", "STATE_CODES", "Appetite", "Carrier", "LineOfBusiness",
    "Market", "MarketError", "MarketInvalidError", "MarketReport", "Problem", "Product",
    "check_market", "content_hash", "line_by_code", "load_market",
]


def __getattr__(name: str):
    if name in _CHECKING:
        from insureops.carrier_matching import checking
        return getattr(checking, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
