"""Expression trees -> IR expressions and table cells, with spans; messages get `{expr}` parts."""

from __future__ import annotations

from lark import Token, Tree

from insureops.dsl.diagnostics import Diagnostic, error
from insureops.dsl.literals import (
    LiteralValueError,
    decode_string,
    parse_date,
    parse_datetime,
    parse_duration,
    parse_number,
    split_message,
)
from insureops.dsl.parser import Offset, parse_snippet
from insureops.engine import ir
from insureops.engine.ir.numbers import negated

_COMPREHENSIONS = {"any", "all", "count"}
_PROJECTIONS = {"sum", "min", "max"}
_OPERATORS = {"comp_op", "add_op", "mul_op"}
_FLAT_BINARY = {"or_op": "or", "and_op": "and", "coalesce_op": "??", "in_op": "in"}


def first_token(tree: Tree) -> Token | None:
    """The first token under `tree`. The parser keeps every token, so a node's span runs from
    its first token to its last: the span lark's propagate_positions would give, without its
    cost on every reduction. Usually a straight descent; empty subtrees are searched past."""
    for child in tree.children:
        if isinstance(child, Token):
            return child
        if child is not None:
            found = first_token(child)
            if found is not None:
                return found
    return None


def last_token(tree: Tree) -> Token | None:
    """The last token under `tree` (see first_token)."""
    children = tree.children
    for index in range(len(children) - 1, -1, -1):
        child = children[index]
        if isinstance(child, Token):
            return child
        if child is not None:
            found = last_token(child)
            if found is not None:
                return found
    return None


class ExpressionBuilder:
    """Builds expressions; `offset` places a snippet (a table line, an interpolation) in its file."""

    def __init__(self, offset: Offset, diagnostics: list[Diagnostic]) -> None:
        self.offset = offset
        self.diagnostics = diagnostics

    def nested(self, offset: Offset) -> ExpressionBuilder:
        """A builder for a snippet at `offset` that reports into the same diagnostics."""
        return ExpressionBuilder(offset, self.diagnostics)

    def span(self, node: Tree | Token) -> ir.Span | None:
        if isinstance(node, Token):
            first = last = node
        else:
            first, last = first_token(node), last_token(node)
            if first is None or last is None:
                return None
        return self.offset.span(first.line, first.column, last.end_line, last.end_column,
                                first.start_pos, last.end_pos)

    def literal_problem(self, token: Token, exc: LiteralValueError, shift: int = 0) -> None:
        start = token.start_pos + shift + exc.offset
        column = token.column + shift + exc.offset
        span = self.offset.span(token.line, column, token.line, column + exc.length,
                                start, start + exc.length)
        self.diagnostics.append(error("E005", span, exc.message))

    # --- expressions ---------------------------------------------------------------------------

    def expr(self, tree: Tree) -> ir.Expr:
        kind = tree.data
        method = getattr(self, "_" + kind, None)
        if method is not None:
            return method(tree, self.span(tree))
        operands = [c for c in tree.children if isinstance(c, Tree) and c.data not in _OPERATORS]
        return self._operator(tree, kind, operands)

    def _operator(self, tree: Tree, kind: str, operands: list[Tree]) -> ir.Expr:
        span = self.span(tree)
        values = [self.expr(operand) for operand in operands]
        if kind in _FLAT_BINARY:
            return ir.Binary(_FLAT_BINARY[kind], values[0], values[1], span=span)
        if kind == "not_in_op":
            return ir.Binary("not in", values[0], values[1], span=span)
        if kind == "compare":
            op_tree = tree.children[1]
            op = str(op_tree.children[0])
            return ir.Binary(op, values[0], values[-1], span=span)  # type: ignore[arg-type]
        if kind == "between":
            return ir.Between(values[0], values[1], values[2], span=span)
        if kind == "is_null":
            return ir.IsNull(values[0], False, span=span)
        if kind == "is_not_null":
            return ir.IsNull(values[0], True, span=span)
        if kind == "conditional":
            return ir.Conditional(values[0], values[1], values[2], span=span)
        if kind == "not_op":
            return ir.Unary("not", values[0], span=span)
        if kind == "paren":
            return values[0]
        raise ValueError(f"unknown expression node {kind}")  # the grammar has no other node

    def _arith(self, tree: Tree, span: ir.Span | None) -> ir.Expr:
        left, op_tree, right = tree.children
        op = str(op_tree.children[0])
        return ir.Binary(op, self.expr(left), self.expr(right), span=span)  # type: ignore[arg-type]

    def _neg(self, tree: Tree, span: ir.Span | None) -> ir.Expr:
        operand_tree = tree.children[1]
        operand = self.expr(operand_tree)
        # `-3` is a negative number literal; `-(3)` and `-x` stay negations.
        if operand_tree.data == "number" and isinstance(operand, ir.Literal):
            return ir.Literal(negated(operand.value), span=span)  # type: ignore[arg-type]
        return ir.Unary("-", operand, span=span)

    def _member(self, tree: Tree, span: ir.Span | None) -> ir.Expr:
        return ir.Member(self.expr(tree.children[0]), str(tree.children[2]), span=span)

    def _index(self, tree: Tree, span: ir.Span | None) -> ir.Expr:
        return ir.Index(self.expr(tree.children[0]), self.expr(tree.children[2]), span=span)

    def _call(self, tree: Tree, span: ir.Span | None) -> ir.Expr:
        func = str(tree.children[0])
        arguments = tree.children[2]
        if arguments is None:
            return ir.Call(func, (), span=span)
        parts = [c for c in arguments.children if isinstance(c, Tree)]
        if arguments.data == "plain_args":
            values = tuple(self.expr(part) for part in parts)
            if func in _COMPREHENSIONS and len(values) == 1:
                return self._comprehension(func, values[0], None, span)
            return ir.Call(func, values, span=span)
        if arguments.data == "where_args" and func in _COMPREHENSIONS:
            return self._comprehension(func, self.expr(parts[0]), self.expr(parts[1]), span)
        if arguments.data == "for_args" and func in _PROJECTIONS:
            var = next(c for c in arguments.children if isinstance(c, Token) and c.type == "NAME")
            where = self.expr(parts[2]) if len(parts) > 2 else None
            return ir.Comprehension(func, str(var), self.expr(parts[1]),  # type: ignore[arg-type]
                                    self.expr(parts[0]), where, span=span)
        shape = ("`x in LIST where CONDITION`" if func in _COMPREHENSIONS else
                 "`EXPR for x in LIST [where CONDITION]`" if func in _PROJECTIONS else "arguments")
        self.diagnostics.append(error(
            "E006", span, f"`{func}(...)` does not take this form; it takes {shape}",
            "any, all and count take `x in LIST where CONDITION`; sum, min and max take "
            "`EXPR for x in LIST where CONDITION`"))
        return ir.Literal(None, span=span)

    def _comprehension(self, func: str, head: ir.Expr, where: ir.Expr | None,
                       span: ir.Span | None) -> ir.Expr:
        if (isinstance(head, ir.Binary) and head.op == "in" and isinstance(head.left, ir.Name)):
            return ir.Comprehension(func, head.left.name, head.right, None, where,  # type: ignore[arg-type]
                                    span=span)
        self.diagnostics.append(error(
            "E006", span, f"`{func}(...)` needs `x in LIST` with a variable name before `in`",
            f"write `{func}(x in LIST where CONDITION)`; parenthesize a LIST built with "
            "`and`/`or`"))
        return ir.Literal(None, span=span)

    # --- atoms ---------------------------------------------------------------------------------

    def _number(self, tree: Tree, span: ir.Span | None) -> ir.Expr:
        return ir.Literal(parse_number(str(tree.children[0])), span=span)

    def _duration(self, tree: Tree, span: ir.Span | None) -> ir.Expr:
        number, unit = tree.children
        try:
            return ir.Literal(parse_duration(str(number), str(unit)), span=span)
        except LiteralValueError as exc:
            self.literal_problem(number, exc)
            return ir.Literal(None, span=span)

    def _string(self, tree: Tree, span: ir.Span | None) -> ir.Expr:
        token = tree.children[0]
        try:
            return ir.Literal(decode_string(str(token)[1:-1]), span=span)
        except LiteralValueError as exc:
            self.literal_problem(token, exc, 1)
            return ir.Literal("", span=span)

    def _date(self, tree: Tree, span: ir.Span | None) -> ir.Expr:
        return self._parsed(tree.children[0], parse_date, span)

    def _datetime(self, tree: Tree, span: ir.Span | None) -> ir.Expr:
        return self._parsed(tree.children[0], parse_datetime, span)

    def _parsed(self, token: Token, parse, span: ir.Span | None) -> ir.Expr:
        try:
            return ir.Literal(parse(str(token)), span=span)
        except LiteralValueError as exc:
            self.literal_problem(token, exc)
            return ir.Literal(None, span=span)

    def _true(self, tree: Tree, span: ir.Span | None) -> ir.Expr:
        return ir.Literal(True, span=span)

    def _false(self, tree: Tree, span: ir.Span | None) -> ir.Expr:
        return ir.Literal(False, span=span)

    def _null(self, tree: Tree, span: ir.Span | None) -> ir.Expr:
        return ir.Literal(None, span=span)

    def _name(self, tree: Tree, span: ir.Span | None) -> ir.Expr:
        return ir.Name(str(tree.children[0]), span=span)

    _score_name = _name
    _decision_name = _name

    def _list(self, tree: Tree, span: ir.Span | None) -> ir.Expr:
        items = (self.expr(c) for c in tree.children if isinstance(c, Tree))
        return ir.ListExpr(tuple(items), span=span)

    def _set(self, tree: Tree, span: ir.Span | None) -> ir.Expr:
        items = (self.expr(c) for c in tree.children if isinstance(c, Tree))
        return ir.SetExpr(tuple(items), span=span)

    def _object(self, tree: Tree, span: ir.Span | None) -> ir.Expr:
        entries = []
        for entry in (c for c in tree.children if isinstance(c, Tree)):
            key = self._string(Tree("string", [entry.children[0]]), None)
            entries.append((key.value, self.expr(entry.children[2])))  # type: ignore[union-attr]
        return ir.ObjectExpr(tuple(entries), span=span)

    # --- messages and table cells --------------------------------------------------------------

    def message(self, tree: Tree) -> ir.Expr:
        """An action's message: a string literal may hold `{expr}` parts."""
        if tree.data != "string":
            return self.expr(tree)
        token = tree.children[0]
        span = self.span(tree)
        reported = len(self.diagnostics)
        checked = self._string(tree, span)
        if len(self.diagnostics) > reported:
            return checked  # an escape error was reported
        parts: list[str | ir.Expr] = []
        for part in split_message(str(token)[1:-1]):
            if not part.is_expression:
                parts.append(part.text)
                continue
            start = token.start_pos + 1 + part.offset
            offset = Offset(token.line, token.column + 1 + part.offset, start)
            parsed, problems = parse_snippet(part.text, "expr", offset, "the closing `}`")
            self.diagnostics.extend(problems)
            parts.append(self.nested(offset).expr(parsed) if parsed is not None
                         else ir.Literal(None))
        if all(isinstance(part, str) for part in parts):
            return ir.Literal("".join(parts), span=span)  # type: ignore[arg-type]
        return ir.Interpolated(tuple(parts), span=span)

    def cell(self, tree: Tree) -> ir.Cell:
        """A table input cell."""
        kind, span = tree.data, self.span(tree)
        operands = [self.expr(c) for c in tree.children if isinstance(c, Tree)
                    and c.data != "comp_op"]
        if kind == "any_cell":
            return ir.AnyCell(span=span)
        if kind == "null_cell":
            return ir.NullCell(span=span)
        if kind == "between_cell":
            return ir.BetweenCell(operands[0], operands[1], span=span)
        if kind == "compare_cell":
            op = str(tree.children[0].children[0])
            return ir.CompareCell(op, operands[0], span=span)  # type: ignore[arg-type]
        if kind == "in_cell":
            return ir.CompareCell("in", operands[0], span=span)
        if kind == "not_in_cell":
            return ir.CompareCell("not in", operands[0], span=span)
        return ir.CompareCell("==", operands[0], span=span)

    def cell_value(self, tree: Tree) -> ir.Expr:
        """A table output cell: a plain value (`-` there means null)."""
        if tree.data == "literal_cell":
            return self.expr(tree.children[0])
        if tree.data == "any_cell":
            return ir.Literal(None, span=self.span(tree))
        self.diagnostics.append(error(
            "E001", self.span(tree), "an output cell holds a value, not a condition",
            "conditions go in the input columns, left of the `=> output` columns"))
        return ir.Literal(None, span=self.span(tree))
