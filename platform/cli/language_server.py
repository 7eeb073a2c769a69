"""`insureops rules lsp`: the language server of `.rules` files, over stdio (pygls).

A thin adapter: the analysis is the core's (dsl/analysis.py, dsl/completion.py,
dsl/highlighting.py, dsl/formatter.py), the same the studio's API can serve. This module keeps
one state per open document, converts positions (the protocol counts UTF-16 code units from 0,
the core characters from 1) and turns the core's values into protocol types.

Each edit is checked at once through the document's IncrementalChecker (the parse of unchanged
items is reused; bench/bench_language_server.py measures the latency) and the diagnostics are
published; names are indexed on the first request that needs them. A document over the core's
MAX_SOURCE_CHARS is not checked (one warning says so), so the editor never waits on it.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from dataclasses import dataclass

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidRequest
from pygls.lsp.server import LanguageServer

from insureops.dsl.analysis import Analysis, RenameError, analyse
from insureops.dsl.completion import CompletionItem, complete
from insureops.dsl.diagnostics import Diagnostic
from insureops.dsl.formatter import UnformattableError, format_source
from insureops.dsl.highlighting import TOKEN_MODIFIERS, TOKEN_TYPES, semantic_tokens
from insureops.dsl.incremental import IncrementalChecker
from insureops.dsl.symbols import LineIndex
from insureops.engine import ir

NAME = "insureops-rules"
LEGEND = lsp.SemanticTokensLegend(token_types=list(TOKEN_TYPES),
                                  token_modifiers=list(TOKEN_MODIFIERS))
_COMPLETION_KINDS = {
    "field": lsp.CompletionItemKind.Field, "const": lsp.CompletionItemKind.Constant,
    "input": lsp.CompletionItemKind.Variable, "output": lsp.CompletionItemKind.Property,
    "function": lsp.CompletionItemKind.Function, "keyword": lsp.CompletionItemKind.Keyword,
    "type": lsp.CompletionItemKind.Class, "value": lsp.CompletionItemKind.EnumMember,
    "variable": lsp.CompletionItemKind.Variable,
}
_SYMBOL_KINDS = {
    "input": lsp.SymbolKind.Variable, "const": lsp.SymbolKind.Constant,
    "rule": lsp.SymbolKind.Function, "table": lsp.SymbolKind.Struct,
    "output": lsp.SymbolKind.Field, "test": lsp.SymbolKind.Event,
}
IDLE_COLLECT_SECONDS = 0.25
log = logging.getLogger(__name__)


@dataclass
class DocumentState:
    """One open document: its analyses and the checker that remembers its items' parses."""

    checker: IncrementalChecker
    analysis: Analysis | None = None
    known: Analysis | None = None  # the last analysis that checked (completion reads it)
    version: int | None = None     # the version whose diagnostics were published last


class RulesLanguageServer(LanguageServer):
    """pygls's server with the documents' states."""

    def __init__(self) -> None:
        from importlib.metadata import PackageNotFoundError, version
        try:
            own_version = version("insureops")
        except PackageNotFoundError:  # pragma: no cover - a source tree without metadata
            own_version = "0"
        super().__init__(NAME, own_version)
        self.documents: dict[str, DocumentState] = {}
        self._collection: asyncio.TimerHandle | None = None

    def analyse(self, uri: str) -> DocumentState:
        """Check the document's current text (once per text) and publish its diagnostics."""
        document = self.workspace.get_text_document(uri)
        state = self.documents.setdefault(uri, DocumentState(IncrementalChecker()))
        source = document.source
        changed = state.analysis is None or state.analysis.source != source
        if changed:
            state.analysis = analyse(source, checker=state.checker)
            if state.analysis.ruleset is not None:
                state.known = state.analysis
        if changed or state.version != document.version:
            state.version = document.version
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
                uri=uri, version=document.version,
                diagnostics=diagnostics_of(state.analysis)))
        if changed:
            self._collect_when_idle()
        return state

    def _collect_when_idle(self) -> None:
        """Collect garbage once the author pauses (IDLE_COLLECT_SECONDS without an edit), then
        freeze what survived (gc.freeze): the remembered parse trees and IR are long-lived and
        acyclic, and a full collection that scanned them again fell inside the check of an
        edit now and then (hundreds of ms; bench/bench_language_server.py). Frozen objects are
        still freed when nothing refers to them."""
        if self._collection is not None:
            self._collection.cancel()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not on the event loop (a direct call in a test)
            return
        self._collection = loop.call_later(IDLE_COLLECT_SECONDS, _collect_and_freeze)

    def current(self, uri: str) -> tuple[DocumentState, Analysis]:
        state = self.analyse(uri)
        assert state.analysis is not None
        return state, state.analysis


def _collect_and_freeze() -> None:
    gc.collect()
    gc.freeze()


# --- positions ----------------------------------------------------------------------------------

def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def position_of(lines: LineIndex, line: int, column: int) -> lsp.Position:
    """A core position (1-based line and column, in characters) in protocol units."""
    line = max(1, min(line, len(lines.starts)))
    text = lines.line_text(line)
    return lsp.Position(line=line - 1, character=_utf16(text[:max(column - 1, 0)]))


def range_of(lines: LineIndex, span: ir.Span | None) -> lsp.Range:
    if span is None:
        return lsp.Range(start=lsp.Position(line=0, character=0),
                         end=lsp.Position(line=0, character=0))
    return lsp.Range(start=position_of(lines, span.line, span.column),
                     end=position_of(lines, span.end_line, span.end_column))


def offset_of(lines: LineIndex, position: lsp.Position) -> int:
    """The character offset of a protocol position (clamped to its line)."""
    line = position.line + 1
    if line > len(lines.starts):
        return len(lines.text)
    text = lines.line_text(line)
    units = 0
    for index, char in enumerate(text):
        if units >= position.character:
            return lines.starts[line - 1] + index
        units += 2 if ord(char) > 0xFFFF else 1
    return lines.starts[line - 1] + len(text)


# --- conversions --------------------------------------------------------------------------------

def diagnostics_of(analysis: Analysis) -> list[lsp.Diagnostic]:
    """The checker's diagnostics as the protocol's: the same code, range, message and hint."""
    if analysis.notice:
        return [lsp.Diagnostic(range=range_of(analysis.lines, None), message=analysis.notice,
                               severity=lsp.DiagnosticSeverity.Warning, source=NAME,
                               code="editor_budget")]
    return [diagnostic_of(analysis.lines, d) for d in analysis.diagnostics]


def diagnostic_of(lines: LineIndex, diagnostic: Diagnostic) -> lsp.Diagnostic:
    message = diagnostic.message + (f"\nhint: {diagnostic.hint}" if diagnostic.hint else "")
    severity = (lsp.DiagnosticSeverity.Error if diagnostic.severity == "error"
                else lsp.DiagnosticSeverity.Warning)
    return lsp.Diagnostic(range=range_of(lines, diagnostic.span), message=message,
                          severity=severity, code=diagnostic.code, source=NAME,
                          data=diagnostic.to_dict())


def completion_of(item: CompletionItem) -> lsp.CompletionItem:
    documentation = (lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=item.documentation)
                     if item.documentation else None)
    return lsp.CompletionItem(label=item.label, kind=_COMPLETION_KINDS.get(item.kind),
                              detail=item.detail or None, documentation=documentation)


def encode_tokens(lines: LineIndex, tokens: list) -> list[int]:
    """The core's semantic tokens in the protocol's relative, UTF-16 encoding."""
    types = {name: index for index, name in enumerate(TOKEN_TYPES)}
    modifiers = {name: 1 << index for index, name in enumerate(TOKEN_MODIFIERS)}
    data: list[int] = []
    previous_line, previous_start = 0, 0
    line_cache: tuple[int, str] = (0, "")
    for line, column, length, kind, flags in tokens:
        if line_cache[0] != line:
            line_cache = (line, lines.line_text(line))
        text = line_cache[1]
        start = _utf16(text[:column - 1])
        size = _utf16(text[column - 1:column - 1 + length])
        delta_line = line - 1 - previous_line
        delta_start = start - previous_start if delta_line == 0 else start
        bits = 0
        for flag in flags:
            bits |= modifiers.get(flag, 0)
        data += [delta_line, delta_start, size, types[kind], bits]
        previous_line, previous_start = line - 1, start
    return data


def _outline(lines: LineIndex, items) -> list[lsp.DocumentSymbol]:
    return [lsp.DocumentSymbol(
        name=item.name, kind=_SYMBOL_KINDS.get(item.kind, lsp.SymbolKind.Variable),
        range=range_of(lines, item.span), selection_range=range_of(lines, item.selection),
        detail=item.detail or None, children=_outline(lines, item.children) or None)
        for item in items]


# --- the server ---------------------------------------------------------------------------------

def build_server() -> RulesLanguageServer:
    """The server with every feature registered (tests drive it through the protocol)."""
    server = RulesLanguageServer()

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: RulesLanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.analyse(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: RulesLanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.analyse(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: RulesLanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.documents.pop(params.text_document.uri, None)
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=params.text_document.uri, diagnostics=[]))

    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION,
                    lsp.CompletionOptions(trigger_characters=["."]))
    def completion(ls: RulesLanguageServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        state, analysis = ls.current(params.text_document.uri)
        offset = offset_of(analysis.lines, params.position)
        items = complete(analysis.source, offset, state.known, analysis.registry)
        return lsp.CompletionList(is_incomplete=False, items=[completion_of(i) for i in items])

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: RulesLanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
        _, analysis = ls.current(params.text_document.uri)
        found = analysis.hover(offset_of(analysis.lines, params.position))
        if found is None:
            return None
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown,
                                                    value=found.markdown),
                         range=range_of(analysis.lines, found.span))

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: RulesLanguageServer, params: lsp.DefinitionParams) -> list[lsp.Location]:
        _, analysis = ls.current(params.text_document.uri)
        spans = analysis.definitions(offset_of(analysis.lines, params.position))
        return [lsp.Location(uri=params.text_document.uri, range=range_of(analysis.lines, s))
                for s in spans]

    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    def references(ls: RulesLanguageServer, params: lsp.ReferenceParams) -> list[lsp.Location]:
        _, analysis = ls.current(params.text_document.uri)
        spans = analysis.references(offset_of(analysis.lines, params.position),
                                    params.context.include_declaration)
        return [lsp.Location(uri=params.text_document.uri, range=range_of(analysis.lines, s))
                for s in spans]

    @server.feature(lsp.TEXT_DOCUMENT_PREPARE_RENAME)
    def prepare_rename(ls: RulesLanguageServer,
                       params: lsp.PrepareRenameParams) -> lsp.Range | None:
        _, analysis = ls.current(params.text_document.uri)
        found = analysis.rename_target(offset_of(analysis.lines, params.position))
        return range_of(analysis.lines, found.span) if found is not None else None

    @server.feature(lsp.TEXT_DOCUMENT_RENAME)
    def rename(ls: RulesLanguageServer, params: lsp.RenameParams) -> lsp.WorkspaceEdit:
        _, analysis = ls.current(params.text_document.uri)
        try:
            edits = analysis.rename(offset_of(analysis.lines, params.position), params.new_name)
        except RenameError as exc:
            raise JsonRpcInvalidRequest(str(exc)) from exc
        return lsp.WorkspaceEdit(changes={params.text_document.uri: [
            lsp.TextEdit(range=range_of(analysis.lines, edit.span), new_text=edit.text)
            for edit in edits]})

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbols(ls: RulesLanguageServer,
                         params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        _, analysis = ls.current(params.text_document.uri)
        return _outline(analysis.lines, analysis.outline())

    @server.feature(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
    def tokens(ls: RulesLanguageServer, params: lsp.SemanticTokensParams) -> lsp.SemanticTokens:
        state, analysis = ls.current(params.text_document.uri)
        found = semantic_tokens(analysis.source, state.known)
        return lsp.SemanticTokens(data=encode_tokens(analysis.lines, found))

    @server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
    def formatting(ls: RulesLanguageServer,
                   params: lsp.DocumentFormattingParams) -> list[lsp.TextEdit]:
        _, analysis = ls.current(params.text_document.uri)
        if analysis.notice:
            return []
        try:
            formatted = format_source(analysis.source)
        except UnformattableError as exc:
            ls.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Warning,
                                                         message=str(exc)))
            return []
        if formatted == analysis.source:
            return []
        lines = analysis.lines
        end = position_of(lines, len(lines.starts), len(lines.line_text(len(lines.starts))) + 1)
        return [lsp.TextEdit(range=lsp.Range(start=lsp.Position(line=0, character=0), end=end),
                             new_text=formatted)]

    return server


def serve_stdio() -> None:
    """Run the server on stdin/stdout until the client exits it."""
    build_server().start_io()
