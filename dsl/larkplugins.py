"""Faster stand-ins for lark's contextual lexer and LALR loop, installed through lark's plugins.

They keep lark's tables, terminals, callbacks, trees and exceptions and only tighten the
per-token loops, where most of a parse goes (docs/performance.md, "Compile and start-up").
Equivalence with plain lark is tested token by token and tree by tree (tests/dsl/
test_larkplugins.py); as they lean on lark internals, `PLUGINS` is empty for lark versions they
were not tested with.
"""

from __future__ import annotations

import re

import lark
from lark.exceptions import UnexpectedToken
from lark.lexer import ContextualLexer, Token
from lark.parse_tree_builder import ExpandSingleChild
from lark.parsers.lalr_analysis import IntParseTable, Shift
from lark.parsers.lalr_parser import LALR_Parser, _Parser
from lark.parsers.lalr_parser_state import ParseConf, ParserState

__all__ = ["PLUGINS", "FastContextualLexer", "FastLALRParser"]

_new_token = Token._future_new
_SHIFT, _PASS_THROUGH, _REDUCE = 0, 1, 2


class FastContextualLexer(ContextualLexer):
    """lark's ContextualLexer (same per-state terminals and priorities) with a tighter loop.

    A process's first ROOT_FIRST_TOKENS tokens are matched with the root lexer's one regex over
    every terminal; when the token it gives is one the parser's state accepts, the state's own
    lexer would have given the same one (its terminals are a subset in the same order, and
    keywords are typed the same way), so it is taken. Otherwise the state's lexer decides, as in
    lark. lark compiles a regex per state (about 40 for a typical ruleset, most of the parse in a
    fresh process such as `insureops rules check`); this way only the few states that disagree
    with the root (a duration unit after a number, a `|` inside a table line) compile theirs.
    After that, each state's own regex is used: with fewer alternatives it matches faster, which
    a long-running process (the service) earns back (docs/performance.md, "Compile and start-up").
    """

    ROOT_FIRST_TOKENS = 10_000

    def __init__(self, conf, states, always_accept=()) -> None:
        super().__init__(conf, states, always_accept)
        ignored = [conf.terminals_by_name[name] for name in conf.ignore]
        self._skip = re.compile(
            "(?:" + "|".join(t.pattern.to_regexp() for t in ignored) + ")*" if ignored else "",
            conf.g_regex_flags)
        self._plain = not conf.use_bytes and not any(name in conf.callbacks for name in conf.ignore)
        self._matchers: dict[int, tuple] = {}
        self._accepts: dict[int, frozenset[str]] = {}
        self._root_first = self.ROOT_FIRST_TOKENS  # tokens left to match root-first

    def _matcher(self, lexer) -> tuple:
        """`(match, callbacks, newline types)` of one lark lexer (its union regex)."""
        scanner = lexer.scanner  # builds lexer.callback too (keywords, user callbacks)
        if len(scanner._mres) == 1:
            match = scanner._mres[0].match
        else:  # lark split a large union into several regexes; try them in order as it does
            mres = tuple(scanner._mres)

            def match(text, pos, end):
                for mre in mres:
                    found = mre.match(text, pos, end)
                    if found:
                        return found
                return None
        found = self._matchers[id(lexer)] = (match, lexer.callback, lexer.newline_types)
        return found

    def _accepted(self, lexer) -> frozenset[str]:
        found = self._accepts[id(lexer)] = frozenset(t.name for t in lexer.terminals)
        return found

    def lex(self, lexer_state, parser_state):
        if not self._plain:
            yield from super().lex(lexer_state, parser_state)
            return
        text, end = lexer_state.text.text, lexer_state.text.end
        counter = lexer_state.line_ctr
        pos, line, line_start = counter.char_pos, counter.line, counter.line_start_pos
        skip, lexers, matchers = self._skip.match, self.lexers, self._matchers
        accepts = self._accepts
        root = matchers.get(id(self.root_lexer)) or self._matcher(self.root_lexer)
        states = parser_state.state_stack  # the parser changes this list in place
        while True:
            skipped = skip(text, pos, end).end()
            if skipped != pos:
                newlines = text.count("\n", pos, skipped)
                if newlines:
                    line += newlines
                    line_start = text.rindex("\n", pos, skipped) + 1
                pos = skipped
            if pos >= end:
                counter.char_pos, counter.line = pos, line
                counter.column, counter.line_start_pos = pos - line_start + 1, line_start
                return
            lexer = lexers[states[-1]]
            token = None
            if self._root_first > 0:
                self._root_first -= 1
                token = _token(root, text, pos, end, line, line_start)
                if token is not None and token.type not in (accepts.get(id(lexer))
                                                            or self._accepted(lexer)):
                    token = None
            if token is None:
                token = _token(matchers.get(id(lexer)) or self._matcher(lexer), text, pos, end,
                               line, line_start)
            if token is None:  # lark's lexer raises its own error for this position
                counter.char_pos, counter.line = pos, line
                counter.column, counter.line_start_pos = pos - line_start + 1, line_start
                yield from super().lex(lexer_state, parser_state)
                return
            pos, line = token.end_pos, token.end_line
            line_start = pos - token.end_column + 1
            lexer_state.last_token = token
            counter.char_pos, counter.line = pos, line
            counter.column, counter.line_start_pos = pos - line_start + 1, line_start
            yield token


def _token(matcher: tuple, text: str, pos: int, end: int, line: int,
           line_start: int) -> Token | None:
    """The token `matcher` finds at `pos` (callbacks applied), or None."""
    match, callbacks, newline_types = matcher
    found = match(text, pos, end)
    if found is None:
        return None
    value, kind, stop = found.group(), found.lastgroup, found.end()
    end_line, end_start = line, line_start
    if kind in newline_types:
        newlines = value.count("\n")
        if newlines:
            end_line += newlines
            end_start = pos + value.rindex("\n") + 1
    token = _new_token(kind, value, pos, line, pos - line_start + 1,
                       end_line, stop - end_start + 1, stop)
    callback = callbacks.get(kind)
    return token if callback is None else callback(token)


class _FastParseConf(ParseConf):
    """lark's ParseConf plus the resolved action table of `_FastParser`."""

    __slots__ = ("actions", "token_callbacks")


class _FastParserState(ParserState):
    """lark's ParserState with a feed_token over the resolved table (same stacks, same errors)."""

    __slots__ = ()

    def feed_token(self, token: Token, is_end: bool = False):
        conf = self.parse_conf
        if not conf.callbacks:  # lark's InteractiveParser.accepts() probes without callbacks
            return ParserState.feed_token(self, token, is_end)
        state_stack, value_stack = self.state_stack, self.value_stack
        actions, end_state, token_callbacks = conf.actions, conf.end_state, conf.token_callbacks
        while True:
            try:
                action = actions[state_stack[-1]][token.type]
            except KeyError:
                expected = {s for s in conf.states[state_stack[-1]] if s.isupper()}
                raise UnexpectedToken(token, expected, state=self,
                                      interactive_parser=None) from None
            kind = action[0]
            if kind == _SHIFT:
                state_stack.append(action[1])
                callback = token_callbacks.get(token.type)
                value_stack.append(token if callback is None else callback(token))
                return None
            if kind == _PASS_THROUGH:  # the value stays; only the state changes
                state = state_stack[-1] = actions[state_stack[-2]][action[1]][1]
                if is_end and state == end_state:
                    return value_stack[-1]
                continue
            _, size, callback, goto = action
            if size:
                children = value_stack[-size:]
                del state_stack[-size:]
                del value_stack[-size:]
            else:
                children = []
            value = callback(children) if callback is not None else children
            state = actions[state_stack[-1]][goto][1]
            state_stack.append(state)
            value_stack.append(value)
            if is_end and state == end_state:
                return value


class _FastParser(_Parser):
    def __init__(self, parse_table, callbacks, debug: bool = False) -> None:
        super().__init__(parse_table, callbacks, debug)
        # A reduction is looked up by its Rule in lark's loop; here every entry is resolved once.
        self._actions = {state: {symbol: _resolve(action, target, callbacks)
                                 for symbol, (action, target) in row.items()}
                         for state, row in parse_table.states.items()}
        self._token_callbacks = {k: v for k, v in callbacks.items() if isinstance(k, str)}

    def parse(self, lexer, start, value_stack=None, state_stack=None, start_interactive=False):
        conf = _FastParseConf(self.parse_table, self.callbacks, start)
        conf.actions, conf.token_callbacks = self._actions, self._token_callbacks
        parser_state = _FastParserState(conf, lexer, state_stack, value_stack)
        if start_interactive:
            from lark.parsers.lalr_interactive_parser import InteractiveParser
            return InteractiveParser(self, parser_state, parser_state.lexer)
        return self.parse_from_state(parser_state)


def _resolve(action, target, callbacks) -> tuple:
    if action is Shift:
        return (_SHIFT, target)
    size, callback = len(target.expansion), callbacks.get(target)
    if size == 1 and type(callback) is ExpandSingleChild:
        return (_PASS_THROUGH, target.origin.name)
    return (_REDUCE, size, callback, target.origin.name)


class FastLALRParser(LALR_Parser):
    """lark's LALR_Parser driving `_FastParser`; built from a grammar or from saved tables."""

    def __init__(self, parser_conf, debug: bool = False, strict: bool = False) -> None:
        super().__init__(parser_conf, debug=debug, strict=strict)
        self.parser = _FastParser(self._parse_table, parser_conf.callbacks, debug)

    @classmethod
    def deserialize(cls, data, memo, callbacks, debug: bool = False):
        inst = cls.__new__(cls)
        inst._parse_table = IntParseTable.deserialize(data, memo)
        inst.parser = _FastParser(inst._parse_table, callbacks, debug)
        return inst


TESTED_LARK = ("1.3.",)
PLUGINS = ({"ContextualLexer": FastContextualLexer, "LALR_Parser": FastLALRParser}
           if lark.__version__.startswith(TESTED_LARK) else {})
