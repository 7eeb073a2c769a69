"""Sets of strings built from exact values and prefixes, closed under union, intersection and
complement: the value domain of the pruning analysis (NAICS codes, state codes).

A set is a prefix tree. A node answers for the strings that reach it: `here` for the string
that ends at the node, `kids` for strings continuing with one of the kids' characters, and
`other` for every string continuing with any other character. A bare bool stands for a whole
subtree (every string from that point on is in, or out). "Starts with 238 but not 2381, or is
exactly 561720" is a tree of a few nodes, and every boolean operation is one walk of two trees.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator


class Node:
    __slots__ = ("here", "kids", "other")

    def __init__(self, here: bool, kids: dict[str, Tree], other: bool) -> None:
        self.here, self.kids, self.other = here, kids, other


Tree = bool | Node


def _node(here: bool, kids: dict[str, Tree], other: bool) -> Tree:
    kids = {char: kid for char, kid in kids.items() if kid is not other}
    if not kids and here is other:
        return other
    return Node(here, kids, other)


def _combine(a: Tree, b: Tree, op: Callable[[bool, bool], bool]) -> Tree:
    if isinstance(a, bool) and isinstance(b, bool):
        return op(a, b)
    if op is _and or op is _or:  # a constant side decides or hands over to the other side
        if a is b:
            return a
        for constant, rest in ((a, b), (b, a)):
            if isinstance(constant, bool):
                return constant if constant is (op is _or) else rest
    na = a if isinstance(a, Node) else Node(a, {}, a)
    nb = b if isinstance(b, Node) else Node(b, {}, b)
    kids = {char: _combine(na.kids.get(char, na.other), nb.kids.get(char, nb.other), op)
            for char in na.kids.keys() | nb.kids.keys()}
    return _node(op(na.here, nb.here), kids, op(na.other, nb.other))


def _negate(tree: Tree) -> Tree:
    if isinstance(tree, bool):
        return not tree
    return Node(not tree.here, {char: _negate(kid) for char, kid in tree.kids.items()},
                not tree.other)


def _build(values: Iterable[str], whole: bool) -> Tree:
    """The tree of exact `values` (whole=False) or of the prefixes `values` (whole=True)."""
    trie: dict = {}
    for value in values:
        level = trie
        for char in value:
            level = level.setdefault(char, {})
        level[""] = True  # the end marker: "" is no character
    return _from_trie(trie, whole)


def _from_trie(level: dict, whole: bool) -> Tree:
    if "" in level and whole:
        return True
    kids = {char: _from_trie(sub, whole) for char, sub in level.items() if char != ""}
    return _node("" in level, kids, False)


class StringSet:
    """An immutable set of strings (see the module docstring); `ALL` and `NONE` are the ends."""

    __slots__ = ("tree",)

    def __init__(self, tree: Tree) -> None:
        self.tree = tree

    @classmethod
    def exact(cls, values: Iterable[str]) -> StringSet:
        return cls(_build(values, whole=False))

    @classmethod
    def prefixes(cls, prefixes: Iterable[str]) -> StringSet:
        return cls(_build(prefixes, whole=True))

    def __or__(self, other: StringSet) -> StringSet:
        if self.tree is False or other.tree is True:
            return other
        if other.tree is False or self.tree is True:
            return self
        return StringSet(_combine(self.tree, other.tree, _or))

    def __and__(self, other: StringSet) -> StringSet:
        if self.tree is True or other.tree is False:
            return other
        if other.tree is True or self.tree is False:
            return self
        return StringSet(_combine(self.tree, other.tree, _and))

    def __invert__(self) -> StringSet:
        return StringSet(_negate(self.tree))

    def __contains__(self, value: str) -> bool:
        tree = self.tree
        for char in value:
            if isinstance(tree, bool):
                return tree
            tree = tree.kids.get(char, tree.other)
        return tree if isinstance(tree, bool) else tree.here

    @property
    def is_empty(self) -> bool:
        return self.tree is False

    @property
    def is_all(self) -> bool:
        return self.tree is True

    def intersects_prefix(self, prefix: str) -> bool:
        """Whether some member starts with `prefix`."""
        tree = self.tree
        for char in prefix:
            if isinstance(tree, bool):
                return tree
            tree = tree.kids.get(char, tree.other)
        return tree is not False  # a normalised node always holds some member

    def terms(self) -> Iterator[tuple[str, str, bool]]:
        """The set as `(kind, text, included)` terms, outermost first: kind `prefix` is every
        string starting with `text`, `exact` the string itself; a later, longer term overrides
        an earlier one it lies under (`prefix 238 in`, `prefix 2381 out`, `exact 238190 in`)."""
        yield from _terms(self.tree, "", False)

    def describe(self, limit: int = 12) -> str:
        """A short reading such as `238*, 561720, not 2381*`."""
        parts = []
        for kind, text, included in self.terms():
            word = (text or "") + ("*" if kind == "prefix" else "")
            parts.append(word if included else f"not {word}")
        if self.tree is True:
            return "any"
        if not parts:
            return "none"
        more = len(parts) - limit
        return ", ".join(parts[:limit]) + (f" and {more} more" if more > 0 else "")


def _terms(tree: Tree, path: str, inherited: bool) -> Iterator[tuple[str, str, bool]]:
    if isinstance(tree, bool):
        if tree is not inherited:
            yield ("prefix", path, tree)
        return
    if tree.other is not inherited:
        yield ("prefix", path, tree.other)
    if tree.here is not tree.other:
        yield ("exact", path, tree.here)
    for char in sorted(tree.kids):
        yield from _terms(tree.kids[char], path + char, tree.other)


def _or(a: bool, b: bool) -> bool:
    return a or b


def _and(a: bool, b: bool) -> bool:
    return a and b


ALL = StringSet(True)
NONE = StringSet(False)


class MergedTree:
    """Many named StringSets walked at once: `members(value)` gives the names of the sets that
    hold `value` in one walk of the value, whatever the number of sets."""

    __slots__ = ("root",)

    def __init__(self, sets: dict[str, StringSet]) -> None:
        self.root = _merge({name: s.tree for name, s in sets.items()})

    def members(self, value: str) -> frozenset[str]:
        node = self.root
        for char in value:
            if isinstance(node, frozenset):
                return node
            node = node[1].get(char, node[2])
        return node if isinstance(node, frozenset) else node[0]


def _merge(trees: dict[str, Tree]):
    if all(isinstance(tree, bool) for tree in trees.values()):
        return frozenset(name for name, tree in trees.items() if tree)
    nodes = {name: tree if isinstance(tree, Node) else Node(tree, {}, tree)
             for name, tree in trees.items()}
    here = frozenset(name for name, node in nodes.items() if node.here)
    other = frozenset(name for name, node in nodes.items() if node.other)
    chars = set().union(*(node.kids.keys() for node in nodes.values()))
    kids = {char: _merge({name: node.kids.get(char, node.other)
                          for name, node in nodes.items()}) for char in chars}
    return (here, kids, other)


def tree_to_data(tree: Tree) -> object:
    """`tree` as plain data (a bool, or `[here, {char: tree}, other]`), for caches on disk."""
    if isinstance(tree, bool):
        return tree
    return [tree.here, {char: tree_to_data(kid) for char, kid in tree.kids.items()}, tree.other]


def tree_from_data(data: object, depth: int = 0) -> Tree:
    """The tree `tree_to_data` wrote; ValueError for anything else (reading builds nodes and
    bools only, so a cache file can hold nothing but a set)."""
    if isinstance(data, bool):
        return data
    if depth > 64 or not isinstance(data, list) or len(data) != 3:
        raise ValueError("not a prefix set")
    here, kids, other = data
    if not isinstance(here, bool) or not isinstance(other, bool) or not isinstance(kids, dict):
        raise ValueError("not a prefix set")
    if not all(isinstance(char, str) and len(char) == 1 for char in kids):
        raise ValueError("not a prefix set")
    return Node(here, {char: tree_from_data(kid, depth + 1) for char, kid in kids.items()},
                other)
