"""A small market as texts (relative path -> text) for the checks' tests; each test breaks a copy."""

from __future__ import annotations

MANIFEST = """\
[carrier]
id = "alpha"
name = "Alpha Mutual"
naic_code = "11111"
rating = "A"
market = "admitted"
states = ["CA", "TX"]
type = "regional"
access = "direct"
submission_email = "submissions@alpha.example"
guide_effective = 2025-07-01
guide_reviewed = 2026-01-15

[[territories]]
name = "Home"
states = ["TX", "CA"]
underwriter = "Ada Quill"
email = "ada.quill@alpha.example"

[[products]]
id = "gl"
line = "CGL"
name = "Alpha General Liability"
description = "General liability for electricians."
minimum_premium = 500
max_limit = 1_000_000
appetite = "electricians.rules"
strength = "standard"

[[products]]
id = "umbrella"
line = "UMBRC"
name = "Alpha Umbrella"
description = "Umbrella over Alpha general liability."
minimum_premium = 400
max_limit = 1_000_000
appetite = "electricians.rules"
strength = "standard"
"""

APPETITE = """\
ruleset appetite.alpha.electricians "Alpha: electricians"
input business: Business
default decision decline

const MAX_LIMIT = 1_000_000

rule electricians priority 10
when business.naics == "238210"
then
    score += 30
    accept "Electrical contractor"
end

rule limit
when business.requested_limit > MAX_LIMIT
then
    decline "Limit above the maximum"
end

test "an electrician is accepted"
given business = {"naics": "238210", "state": "CA"}
expect decision == "accept" and score == 30
end
"""


def market_texts() -> dict[str, str]:
    """A valid one-carrier market."""
    return {"alpha/carrier.toml": MANIFEST, "alpha/electricians.rules": APPETITE,
            "README.md": "# not read"}
