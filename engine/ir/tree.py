"""The shape of the expression tree: each node's direct sub-expressions, in evaluation order.

One definition for every reader of the tree (the compilers, the analysis of what a ruleset
reads, the self-test), so a new node type is taught here once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from insureops.engine import ir

_CHILDREN: dict[type, Callable[[Any], tuple]] = {
    ir.Member: lambda node: (node.obj,),
    ir.Index: lambda node: (node.obj, node.index),
    ir.Call: lambda node: node.args,
    ir.ListExpr: lambda node: node.items,
    ir.SetExpr: lambda node: node.items,
    ir.Unary: lambda node: (node.operand,),
    ir.Binary: lambda node: (node.left, node.right),
    ir.Between: lambda node: (node.value, node.low, node.high),
    ir.IsNull: lambda node: (node.value,),
    ir.Conditional: lambda node: (node.cond, node.then, node.else_),
    ir.ObjectExpr: lambda node: tuple(value for _, value in node.entries),
    ir.Comprehension: lambda node: tuple(
        c for c in (node.source, node.where, node.projection) if c is not None),
    ir.Interpolated: lambda node: tuple(part for part in node.parts if not isinstance(part, str)),
}
_LEAVES = (ir.Literal, ir.Name)


def children(node: object) -> tuple:
    """The direct sub-expressions of an expression node, in evaluation order (looked up by
    type: this runs for every node of every expression at compile time)."""
    found = _CHILDREN.get(type(node))
    if found is not None:
        return found(node)
    if isinstance(node, _LEAVES):
        return ()
    for kind, found in _CHILDREN.items():  # a subclass of a node type
        if isinstance(node, kind):
            return found(node)
    return ()


def chain(expr: object, op: str) -> list:
    """The operands of a chain of one operator (`a and b and c` -> [a, b, c]), left to right,
    without recursion (a chain of thousands of conditions is a deep tree)."""
    found, stack = [], [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ir.Binary) and node.op == op:
            stack.append(node.right)
            stack.append(node.left)
        else:
            found.append(node)
    return found


def conjuncts(expr: object) -> list:
    """The conditions of `a and b and ...` (one for any other expression)."""
    return chain(expr, "and")


def expression_depth(expr: object) -> int:
    """The nesting depth of an expression tree, computed without recursion."""
    deepest, level = 0, [expr]
    while level:
        deepest += 1
        level = [child for node in level for child in children(node)]
    return deepest
