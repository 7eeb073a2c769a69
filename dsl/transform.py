"""The transform: lark parse trees -> engine IR nodes, each with the Span of its source text.

Header, rules, tables and tests are built here, expressions in exprbuilder.py. Problems found while building (a bad date, a misused comprehension) become
diagnostics and the node is replaced by a null literal, so checking can go on.
"""

from __future__ import annotations

from lark import Token, Tree

from insureops.dsl.diagnostics import Diagnostic, error
from insureops.dsl.exprbuilder import ExpressionBuilder
from insureops.dsl.literals import LiteralValueError, decode_string, parse_date, parse_whole_number
from insureops.dsl.parser import FILE_START, Offset, parse_snippet
from insureops.engine import ir


def build_ruleset(tree: Tree, source: str) -> tuple[ir.Ruleset | None, list[Diagnostic]]:
    """The Ruleset of a parsed file, plus the diagnostics found while building it."""
    builder = RulesetBuilder(source)
    ruleset = builder.ruleset(tree)
    return ruleset, builder.diagnostics


class RulesetBuilder(ExpressionBuilder):
    """Builds the top-level items; expression building is inherited."""

    def __init__(self, source: str) -> None:
        super().__init__(FILE_START, [])
        self.source = source

    def ruleset(self, tree: Tree) -> ir.Ruleset:
        name_tree, title = tree.children[1], tree.children[2]
        name = "".join(str(token) for token in name_tree.children)
        header: dict = {"version": None, "default_decision": None}
        inputs, consts, items, tests = [], [], [], []
        for item in tree.children[3:]:
            kind = item.data
            if kind in ("version", "default_decision"):
                self.once(item, header, kind)
            if kind == "version":
                header["version"] = self.whole_of(item.children[1], "a version")
            elif kind == "input_decl":
                inputs.append(ir.InputDecl(str(item.children[1]), str(item.children[3]),
                                           span=self.span(item)))
            elif kind == "default_decision":
                header["default_decision"] = self.default_decision(item.children[2].children[0])
            elif kind == "const_decl":
                consts.append(ir.Const(str(item.children[1]), self.expr(item.children[3]),
                                       span=self.span(item)))
            elif kind == "rule":
                items.append(self.rule(item))
            elif kind == "table":
                items.append(self.table(item))
            elif kind == "test":
                tests.append(self.test(item))
        return ir.Ruleset(
            name=name, inputs=tuple(inputs), items=tuple(items),
            title=self.plain_string(title) if title is not None else None,
            version=header["version"], default_decision=header["default_decision"],
            consts=tuple(consts), tests=tuple(tests), span=self.span(tree),
        )

    def once(self, item: Tree, header: dict, kind: str) -> None:
        """`version` and `default decision` may appear once; a repeat would silently win."""
        seen = header.setdefault("seen", set())
        if kind in seen:
            words = "version" if kind == "version" else "default decision"
            self.diagnostics.append(error(
                "E106", self.span(item), f"`{words}` is declared twice",
                "keep one declaration"))
        seen.add(kind)

    def default_decision(self, word: Token) -> str | None:
        if str(word) in _DECISIONS:
            return str(word)
        self.diagnostics.append(error(
            "E109", self.span(word), f"`{word}` is not a decision",
            "the default decision is `accept`, `refer` or `decline`"))
        return None

    # --- rules ---------------------------------------------------------------------------------

    def rule(self, tree: Tree) -> ir.Rule:
        children = tree.children
        options: dict = {}
        condition: ir.Expr = ir.Literal(None)
        actions: list[ir.Action] = []
        for child in children[3:]:
            if not isinstance(child, Tree):
                continue
            if child.data == "priority":
                options["priority"] = self.priority(child)
            elif child.data == "effective":
                options["effective"] = self.effective(child)
            elif child.data == "enabled":
                options["enabled"] = child.children[1].type == "TRUE"
            elif child.data in _ACTIONS:
                actions.append(self.action(child))
            else:
                condition = self.expr(child)
        return ir.Rule(
            name=str(children[1]), condition=condition, actions=tuple(actions),
            title=self.plain_string(children[2]) if children[2] is not None else None,
            span=self.span(tree), name_span=self.span(children[1]), **options,
        )

    def effective(self, tree: Tree) -> ir.Effective | None:
        start, end = self.date_of(tree.children[1]), self.date_of(tree.children[3])
        if start is None or end is None:
            return None
        if start > end:
            self.diagnostics.append(error(
                "E110", self.span(tree), f"the effective window ends ({end}) before it starts "
                f"({start})", "write the earlier date first: `effective START to END`"))
        return ir.Effective(start, end, span=self.span(tree))

    def priority(self, tree: Tree) -> int:
        sign, number = tree.children[1].children
        value = self.whole_of(number, "a priority")
        return -value if sign is not None else value

    def action(self, tree: Tree) -> ir.Action:
        kind, children, span = tree.data, tree.children, self.span(tree)
        if kind == "score_add":
            return ir.ScoreAction("+=", self.expr(children[2]), span=span)
        if kind == "score_sub":
            return ir.ScoreAction("-=", self.expr(children[2]), span=span)
        if kind == "set_action":
            return ir.SetAction(str(children[1]), self.expr(children[3]), span=span)
        if kind == "decision_action":
            return ir.DecisionAction(str(children[0]), self.message(children[1]), span=span)
        if kind == "reason_action":
            return ir.ReasonAction(self.message(children[1]), span=span)
        if kind == "tag_action":
            return ir.TagAction(self.message(children[1]), span=span)
        return ir.StopAction(span=span)

    # --- tables --------------------------------------------------------------------------------

    def table(self, tree: Tree) -> ir.Table:
        children = tree.children
        lines = [c for c in children if isinstance(c, Token) and c.type == "TABLE_LINE"]
        priority = next((self.priority(c) for c in children
                         if isinstance(c, Tree) and c.data == "priority"), 0)
        inputs: list[ir.Expr] = []
        outputs: list[str] = []
        rows: list[ir.TableRow] = []
        if lines:
            self.table_header(lines[0], inputs, outputs)
        for line in lines[1:]:
            row = self.table_row(line, len(inputs))
            if row is not None:
                rows.append(row)
        hit = str(children[4])
        if hit not in _HIT_POLICIES:
            self.diagnostics.append(error(
                "E112", self.span(children[4]), f"`{hit}` is not a hit policy",
                "a table's hit policy is `first`, `unique` or `collect`"))
            hit = "first"
        return ir.Table(
            name=str(children[1]), hit=hit, inputs=tuple(inputs),
            outputs=tuple(outputs), rows=tuple(rows),
            title=self.plain_string(children[2]) if children[2] is not None else None,
            priority=priority, span=self.span(tree), name_span=self.span(children[1]),
        )

    def table_header(self, line: Token, inputs: list[ir.Expr], outputs: list[str]) -> None:
        tree, problems = parse_snippet(str(line), "table_header", _line_offset(line),
                                        "the end of the line")
        self.diagnostics.extend(problems)
        if tree is None:
            return
        builder = self.nested(_line_offset(line))
        for head in (c for c in tree.children if isinstance(c, Tree)):
            if head.data == "table_output":
                outputs.append(str(head.children[1]))
            else:
                inputs.append(builder.expr(head))

    def table_row(self, line: Token, input_count: int) -> ir.TableRow | None:
        tree, problems = parse_snippet(str(line), "table_row", _line_offset(line),
                                        "the end of the line")
        self.diagnostics.extend(problems)
        if tree is None:
            return None
        builder = self.nested(_line_offset(line))
        parts = [c for c in tree.children if isinstance(c, Tree)]
        cells = tuple(builder.cell(part) for part in parts[:input_count])
        values = tuple(builder.cell_value(part) for part in parts[input_count:])
        return ir.TableRow(cells, values, span=builder.span(tree))

    # --- tests ---------------------------------------------------------------------------------

    def test(self, tree: Tree) -> ir.TestCase:
        children = tree.children
        givens = []
        expect: ir.Expr = ir.Literal(None)
        for child in children[2:]:
            if isinstance(child, Tree) and child.data == "given":
                as_of = child.children[4]
                givens.append(ir.Given(
                    str(child.children[1]), self.expr(child.children[3]),
                    self.date_of(as_of.children[2]) if as_of is not None else None,
                    span=self.span(child)))
            elif isinstance(child, Tree):
                expect = self.expr(child)
        return ir.TestCase(self.plain_string(children[1]), tuple(givens), expect,
                           span=self.span(tree))

    # --- literal pieces ------------------------------------------------------------------------

    def plain_string(self, token: Token) -> str:
        """A title or description: escapes decoded, braces literal."""
        try:
            return decode_string(str(token)[1:-1])
        except LiteralValueError as exc:
            self.literal_problem(token, exc, 1)
            return ""

    def whole_of(self, token: Token, what: str) -> int:
        try:
            return parse_whole_number(str(token), what)
        except LiteralValueError as exc:
            self.literal_problem(token, exc)
            return 0

    def date_of(self, token: Token):
        try:
            return parse_date(str(token))
        except LiteralValueError as exc:
            self.literal_problem(token, exc)
            return None


_DECISIONS = ("accept", "refer", "decline")
_HIT_POLICIES = ("first", "unique", "collect")
_ACTIONS = {"score_add", "score_sub", "set_action", "decision_action", "reason_action",
            "tag_action", "stop_action"}


def _line_offset(token: Token) -> Offset:
    return Offset(token.line, token.column, token.start_pos)
