"""Rule-derived pruning: which appetites could accept or refer a business, from their rules alone.

    index = build_candidate_index({appetite.name: appetite.ruleset for appetite in market.appetites})
    index.candidates(business)        # names of the appetites worth evaluating
    index.why_pruned(name, business)  # "state TX is not in the states this appetite accepts or refers"
    index.screen(business)            # both for one business: .candidates, .why(name)
    index.constraints(name)           # NAICS and states the appetite may accept or refer

The constraints come from `appetite_analysis` (a conservative reading of each appetite's IR);
an appetite left out of `candidates` is one whose evaluation can only decline, decide nothing
or fail. The index keeps one merged prefix tree per field and presence pattern, so a lookup is
a walk of the NAICS code and of the state, whatever the number of appetites.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from insureops.carrier_matching.appetite_analysis import Box, accepting_boxes
from insureops.carrier_matching.market import Appetite
from insureops.carrier_matching.prefix_sets import MergedTree, StringSet
from insureops.engine import ir

Pattern = tuple[bool, bool]  # (NAICS given, state given)


class HasIr(Protocol):
    """A compiled ruleset (dsl.compile_ruleset's result): only its `.ir` is read."""

    @property
    def ir(self) -> ir.Ruleset: ...


@dataclass(frozen=True, slots=True)
class AppetiteConstraints:
    """What an appetite's accepting and referring rules need of a business that gives both a
    NAICS code and a state. `naics` and `states` are exact sets (`code in c.naics`);
    `naics_prefixes` and `state_codes` are their readable forms, None meaning any."""

    naics: StringSet
    states: StringSet

    @property
    def naics_prefixes(self) -> tuple[str, ...] | None:
        """The prefixes and codes the appetite may write (exclusions inside them left out);
        None when it may write any NAICS code."""
        if self.naics.is_all or any(text == "" and included
                                    for _, text, included in self.naics.terms()):
            return None
        return tuple(text for _, text, included in self.naics.terms() if included)

    @property
    def state_codes(self) -> frozenset[str] | None:
        """The states the appetite may write, or None when it writes all but an exclusion list
        (or any state): test those with `admits_state`."""
        terms = list(self.states.terms())
        if self.states.is_all or any(kind == "prefix" and included for kind, _, included in terms):
            return None
        return frozenset(text for kind, text, included in terms if included)

    @property
    def excluded_states(self) -> frozenset[str]:
        """The states ruled out when the appetite writes every other one (`state_codes` None)."""
        if self.state_codes is not None:
            return frozenset()
        return frozenset(text for kind, text, included in self.states.terms()
                         if kind == "exact" and not included)

    def admits_naics(self, code: str) -> bool:
        return code in self.naics

    def admits_naics_prefix(self, prefix: str) -> bool:
        """Whether some NAICS code starting with `prefix` may be accepted or referred."""
        return self.naics.intersects_prefix(prefix)

    def admits_state(self, state: str) -> bool:
        return state in self.states


class CandidateIndex:
    """The appetites that may accept or refer a business; build with `build_candidate_index`."""

    def __init__(self, boxes: Mapping[str, Mapping[Pattern, Box]]) -> None:
        self._boxes = {name: dict(by_pattern) for name, by_pattern in boxes.items()}
        self.names = frozenset(self._boxes)
        self._open: dict[Pattern, frozenset[str]] = {}
        self._naics: dict[Pattern, MergedTree] = {}
        self._state: dict[Pattern, MergedTree] = {}
        self._descriptions: dict[tuple[str, Pattern, str], str] = {}
        for pattern in ((True, True), (True, False), (False, True), (False, False)):
            live = {name: by[pattern] for name, by in self._boxes.items()
                    if not by[pattern].is_empty}
            self._open[pattern] = frozenset(live)
            if pattern[0]:
                self._naics[pattern] = MergedTree({n: box.naics for n, box in live.items()})
            if pattern[1]:
                self._state[pattern] = MergedTree({n: box.state for n, box in live.items()})

    def candidates(self, business: Mapping) -> frozenset[str]:
        """Names of the appetites whose evaluation may accept or refer `business`; every other
        appetite would decline it, decide nothing or fail."""
        return self.screen(business).candidates

    def pruned(self, business: Mapping) -> frozenset[str]:
        return self.names - self.candidates(business)

    def for_criteria(self, naics: str | None = None, state: str | None = None) -> frozenset[str]:
        """Names of the appetites that may accept or refer some business with a NAICS code
        starting with `naics` (a code or a prefix) in `state`, either left open: the narrowing
        for search and jurisdiction lists, where the rest of the business is unknown."""
        pattern = (True, True)
        found = self._open[pattern]
        if state is not None:
            found = found & self._state[pattern].members(state)
        if naics is not None:
            found = frozenset(name for name in found
                              if self._boxes[name][pattern].naics.intersects_prefix(naics))
        return found

    def constraints(self, name: str) -> AppetiteConstraints:
        """The NAICS codes and states appetite `name` may accept or refer (KeyError if unknown)."""
        box = self._boxes[name][(True, True)]
        return AppetiteConstraints(box.naics, box.state)

    def why_pruned(self, name: str, business: Mapping) -> str | None:
        """Why appetite `name` is not a candidate for `business`, or None when it is one."""
        naics, state = business.get("naics"), business.get("state")
        if not _readable(naics) or not _readable(state):
            return None
        pattern = (naics is not None, state is not None)
        box = self._boxes[name][pattern]
        return self._why(name, pattern, naics, state, box.is_empty,
                         naics is not None and naics not in box.naics,
                         state is not None and state not in box.state)

    def screen(self, business: Mapping) -> Screen:
        """`candidates(business)` and `why_pruned(name, business)` for one business, its two
        lookups done once: a match asks why for every appetite it prunes."""
        naics, state = business.get("naics"), business.get("state")
        if not _readable(naics) or not _readable(state):
            return Screen(self.names, None, (False, False), None, None, None, None)
        pattern = (naics is not None, state is not None)
        found = self._open[pattern]
        naics_in = state_in = None
        if naics is not None:
            naics_in = self._naics[pattern].members(naics)
            found = found & naics_in
        if state is not None:
            state_in = self._state[pattern].members(state)
            found = found & state_in
        return Screen(found, self, pattern, naics, state, naics_in, state_in)

    def _why(self, name: str, pattern: Pattern, naics: str | None, state: str | None,
             empty: bool, naics_out: bool, state_out: bool) -> str | None:
        if empty:
            missing = " and ".join(word for word, value in (("a NAICS code", naics),
                                                             ("a state", state))
                                   if value is None)
            return f"without {missing} no rule of this appetite can accept or refer"
        text = None
        if naics_out:
            text = (f"NAICS {naics} is not among the classes this appetite accepts or refers "
                    f"({self._described(name, pattern, 'naics', 12)})")
        if state_out:
            also = (f"state {state} is not in the states this appetite accepts or refers "
                    f"({self._described(name, pattern, 'state', 60)})")
            text = also if text is None else f"{text}; {also}"
        return text

    def _described(self, name: str, pattern: Pattern, part: str, limit: int) -> str:
        """The reading of an appetite's NAICS or state set, worked out once per index (the same
        appetites are pruned request after request)."""
        key = (name, pattern, part)
        found = self._descriptions.get(key)
        if found is None:
            found = self._descriptions[key] = getattr(self._boxes[name][pattern], part).describe(
                limit)
        return found


class Screen:
    """One business through a candidate index: `candidates`, and `why(name)` an appetite is not
    one (None when it is), from the index's two lookups for the business."""

    __slots__ = ("candidates", "_index", "_pattern", "_naics", "_state", "_naics_in",
                 "_state_in")

    def __init__(self, candidates: frozenset[str], index: CandidateIndex | None,
                 pattern: Pattern, naics: str | None, state: str | None,
                 naics_in: frozenset[str] | None, state_in: frozenset[str] | None) -> None:
        self.candidates = candidates
        self._index, self._pattern = index, pattern
        self._naics, self._state = naics, state
        self._naics_in, self._state_in = naics_in, state_in

    def why(self, name: str) -> str | None:
        index = self._index
        if index is None or name in self.candidates:
            return None
        if name not in index.names:
            raise KeyError(name)
        return index._why(name, self._pattern, self._naics, self._state,
                          name not in index._open[self._pattern],
                          self._naics_in is not None and name not in self._naics_in,
                          self._state_in is not None and name not in self._state_in)


def _readable(value: object) -> bool:
    return value is None or isinstance(value, str)


def build_candidate_index(appetites: Mapping[str, HasIr]) -> CandidateIndex:
    """Analyse every appetite (name -> compiled ruleset) and index what it may accept or refer.
    A ruleset that keeps its analysis (carrier_matching.compiled.LazyRuleset, from a cached
    check) gives it without reading its IR."""
    return CandidateIndex({name: _boxes(ruleset) for name, ruleset in appetites.items()})


def _boxes(ruleset: HasIr) -> Mapping[Pattern, Box]:
    kept = getattr(ruleset, "accepting_boxes", None)
    return kept() if callable(kept) else accepting_boxes(ruleset.ir)


def index_market_appetites(appetites: Iterable[Appetite]) -> CandidateIndex:
    """The candidate index of a market's appetites, keyed by appetite name (the market check
    keeps names unique; what `matching.match` and `search.search` ask the index about)."""
    return build_candidate_index({appetite.name: appetite.ruleset for appetite in appetites})
