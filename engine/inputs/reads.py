"""Which parts of its inputs a ruleset reads: one access tree per input, from the IR.

An `Access` node stands for a value inside an input: the fields read from it (`business.state`),
what is read from each item when it is the source of a comprehension (`c.amount` for
`c in business.prior_claims`), and whether it is used as a whole (compared, passed to a
function, interpolated, indexed, returned...), in which case all of it must be converted. The
argument of `len` reads a list's items as `count(c in list)` does: none of them (a string or
an object given to `len` is still converted whole).
`engine/inputs/projection.py` turns the tree into a converter that converts only those paths.
"""

from __future__ import annotations

from insureops.engine import ir
from insureops.engine.ir.tree import children


class Access:
    """What is read from one value: its fields, its items, or the whole of it."""

    __slots__ = ("fields", "items", "whole")

    def __init__(self) -> None:
        self.fields: dict[str, Access] = {}
        self.items: Access | None = None
        self.whole = False

    def field(self, name: str) -> Access:
        found = self.fields.get(name)
        if found is None:
            found = self.fields[name] = Access()
        return found

    def item(self) -> Access:
        if self.items is None:
            self.items = Access()
        return self.items


def input_reads(ruleset: ir.Ruleset) -> dict[str, Access]:
    """An access tree per input of `ruleset`, covering every rule, table and action.
    A node type the analysis does not know marks every input as read whole (always safe)."""
    roots = {decl.name: Access() for decl in ruleset.inputs}
    walker = _Walker(roots)
    try:
        for item in ruleset.items:
            for expr in _expressions(item):
                walker.use(expr, {})
    except _Unknown:
        for root in roots.values():
            root.whole = True
    return roots


class _Unknown(Exception):
    """A node the analysis does not recognise."""


def _expressions(item: object) -> list:
    if isinstance(item, ir.Rule):
        found = [item.condition]
        for action in item.actions:
            for attribute in ("value", "message", "tag"):
                expr = getattr(action, attribute, None)
                if expr is not None:
                    found.append(expr)
        return found
    if isinstance(item, ir.Table):
        found = list(item.inputs)
        for row in item.rows:
            found.extend(row.values)
            for cell in row.cells:
                found.extend(e for e in (getattr(cell, "operand", None),
                                         getattr(cell, "low", None),
                                         getattr(cell, "high", None)) if e is not None)
        return found
    raise _Unknown


class _Walker:
    def __init__(self, roots: dict[str, Access]) -> None:
        self.roots = roots

    def use(self, expr: object, scope: dict) -> None:
        """`expr`'s value is used as a whole."""
        node = self.path(expr, scope)
        if node is not None:
            node.whole = True

    def path(self, expr: object, scope: dict) -> Access | None:
        """The access node of the input value `expr` denotes (None if it denotes none);
        sub-expressions used as values are recorded on the way."""
        if isinstance(expr, ir.Name):
            if expr.name in scope:
                return scope[expr.name]
            return self.roots.get(expr.name)
        if isinstance(expr, ir.Member):
            base = self.path(expr.obj, scope)
            return None if base is None else base.field(expr.field)
        if isinstance(expr, ir.Comprehension):
            source = self.path(expr.source, scope)
            inner = {**scope, expr.var: None if source is None else source.item()}
            for part in (expr.where, expr.projection):
                if part is not None:
                    self.use(part, inner)
            bare = expr.where is None if expr.kind in ("any", "all") else (
                expr.projection is None and expr.kind != "count")
            if bare and source is not None:  # the items themselves are tested or folded
                source.item().whole = True
            return None
        if isinstance(expr, ir.Call) and expr.func == "len" and len(expr.args) == 1:
            source = self.path(expr.args[0], scope)
            if source is not None:  # a list's length reads none of its items
                source.item()
            return None
        if isinstance(expr, (ir.Literal, ir.Index, ir.Call, ir.Unary, ir.Binary, ir.Between,
                             ir.IsNull, ir.Conditional, ir.ListExpr, ir.SetExpr,
                             ir.ObjectExpr, ir.Interpolated)):
            for child in children(expr):
                self.use(child, scope)
            return None
        raise _Unknown
