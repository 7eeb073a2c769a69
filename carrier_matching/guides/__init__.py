"""Appetite guides: the one source each product's appetite is written from.

A carrier folder's `guide.toml` states the carrier's programs (classes, bands, losses,
operations, questions) once; each product names its program and says where it differs. The
writer turns every product into its own `.rules` appetite, with the regulatory facts and the
market's shared hazard screens written in, and tests derived from the guide's numbers, so no
two products share a verdict and no shared rule is copied by hand.
"""

from insureops.carrier_matching.guides.spec import GUIDE_NAME, GuideError, ProductSpec, read_guide
from insureops.carrier_matching.guides.writer import write_appetite, write_market_appetites

__all__ = ["GUIDE_NAME", "GuideError", "ProductSpec", "read_guide", "write_appetite",
           "write_market_appetites"]
