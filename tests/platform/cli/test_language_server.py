"""`insureops rules lsp` driven through the protocol: pygls's client starts the real command
as a subprocess and talks JSON-RPC over its stdio, as an editor does."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pygls.lsp.client import LanguageClient

from insureops.dsl.api import check_source
from insureops.dsl.formatter import format_source
from insureops.dsl.highlighting import TOKEN_TYPES

INSUREOPS = Path(sys.executable).with_name("insureops")
URI = "file:///work/appetite.rules"
TIMEOUT = 60

SOURCE = """\
# Appetite for small contractors
ruleset lsp.sample "Sample"
input business: Business
default decision refer

const CORE_STATES = {"CA", "TX"}
const MAX_REVENUE   =   5_000_000

rule core "Core states" priority 10
when business.state in CORE_STATES and business.annual_revenue <= MAX_REVENUE
then
    score += 10
    set tier = "core"
    accept "Core state {business.state}"
end

table factor hit first
    | business.state | => rate |
    | "CA" | 1.2 |
    | - | 1.0 |
end

rule big
when business.annual_revenue > MAX_REVENUE and outputs.tier == null
then
    refer "Large: {outputs.rate}"
end

test "a core business"
given business = {"state": "CA", "annual_revenue": 100}
expect decision == "accept" and outputs.tier == "core" and fired == ["core", "factor"]
end
"""
BROKEN = SOURCE.replace('business.state in CORE_STATES', 'business.stat in CORE_STATE')


def at(text: str, needle: str, shift: int = 0) -> lsp.Position:
    """The protocol position of `needle` (its first occurrence) plus `shift` characters."""
    offset = text.index(needle) + shift
    line = text.count("\n", 0, offset)
    return lsp.Position(line=line, character=offset - (text.rfind("\n", 0, offset) + 1))


def document() -> lsp.TextDocumentIdentifier:
    return lsp.TextDocumentIdentifier(uri=URI)


class Session:
    """A client on a started server, with the diagnostics it was sent."""

    def __init__(self) -> None:
        self.client = LanguageClient("insureops-tests", "1")
        self.diagnostics: asyncio.Queue = asyncio.Queue()

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: lsp.PublishDiagnosticsParams) -> None:
            self.diagnostics.put_nowait(params)

        @self.client.feature(lsp.WINDOW_SHOW_MESSAGE)
        def shown(params: lsp.ShowMessageParams) -> None:
            pass

    async def next_diagnostics(self) -> lsp.PublishDiagnosticsParams:
        return await asyncio.wait_for(self.diagnostics.get(), TIMEOUT)


@pytest.fixture
async def session():
    found = Session()
    await found.client.start_io(str(INSUREOPS), "rules", "lsp")
    result = await asyncio.wait_for(found.client.initialize_async(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), process_id=None)), TIMEOUT)
    found.capabilities = result.capabilities
    found.client.initialized(lsp.InitializedParams())
    yield found
    await asyncio.wait_for(found.client.shutdown_async(None), TIMEOUT)
    found.client.exit(None)
    await asyncio.wait_for(found.client.stop(), TIMEOUT)


def open_document(session: Session, text: str, version: int = 1) -> None:
    session.client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=URI, language_id="insureops-rules",
                                           version=version, text=text)))


async def test_server_answers_every_feature_through_the_protocol(session):
    capabilities = session.capabilities
    assert list(capabilities.completion_provider.trigger_characters) == ["."]
    assert list(capabilities.semantic_tokens_provider.legend.token_types) == list(TOKEN_TYPES)
    for provider in ("hover_provider", "definition_provider", "references_provider",
                     "rename_provider", "document_symbol_provider",
                     "document_formatting_provider"):
        assert getattr(capabilities, provider), provider
    client = session.client

    # didOpen with errors: the checker's diagnostics, same codes, ranges and hints
    open_document(session, BROKEN)
    published = await session.next_diagnostics()
    expected = check_source(BROKEN).diagnostics
    assert [d.code for d in published.diagnostics] == [d.code for d in expected] == [
        "E104", "E100"]
    field, const = published.diagnostics
    assert field.range.start == at(BROKEN, "business.stat ")
    assert field.range.end == at(BROKEN, " in CORE_STATE")
    assert const.range.start == at(BROKEN, "CORE_STATE and")
    assert "did you mean `CORE_STATES`" in const.message
    assert const.message == f"{expected[1].message}\nhint: {expected[1].hint}"
    assert field.severity == lsp.DiagnosticSeverity.Error and field.source == "insureops-rules"

    # an edit that fixes them: the diagnostics are cleared
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=URI, version=2),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=SOURCE)]))
    published = await session.next_diagnostics()
    assert published.version == 2 and not published.diagnostics

    # completion: the fields of an input from its type, while the text does not parse
    typing = SOURCE.replace("outputs.tier == null", "business.")
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=URI, version=3),
        content_changes=[lsp.TextDocumentContentChangePartial(
            range=lsp.Range(start=at(SOURCE, "outputs.tier == null"),
                            end=at(SOURCE, "outputs.tier == null", len("outputs.tier == null"))),
            text="business.")]))
    published = await session.next_diagnostics()
    assert published.diagnostics[0].code == "E004"  # `then` where a field name was expected
    found = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=document(), position=at(typing, "business.\n", len("business."))))
    fields = {item.label: item for item in found.items}
    assert {"state", "annual_revenue", "naics", "prior_claims"} <= set(fields)
    assert fields["annual_revenue"].kind == lsp.CompletionItemKind.Field
    assert fields["annual_revenue"].detail == "number"
    # names: consts, inputs, built-ins, keywords
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=URI, version=4),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=SOURCE)]))
    await session.next_diagnostics()
    found = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=document(), position=at(SOURCE, "business.annual_revenue > ")))
    kinds = {item.label: item.kind for item in found.items}
    assert kinds["MAX_REVENUE"] == lsp.CompletionItemKind.Constant
    assert kinds["business"] == lsp.CompletionItemKind.Variable
    assert kinds["days_between"] == lsp.CompletionItemKind.Function
    assert kinds["when"] == lsp.CompletionItemKind.Keyword
    found = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=document(), position=at(SOURCE, "outputs.tier ==", len("outputs."))))
    assert {item.label for item in found.items} == {"tier", "rate"}

    # hover: types and docs
    hovered = await client.text_document_hover_async(lsp.HoverParams(
        text_document=document(), position=at(SOURCE, "annual_revenue <=", 3)))
    assert "business.annual_revenue: number" in hovered.contents.value
    assert hovered.range.start == at(SOURCE, "annual_revenue <=")
    hovered = await client.text_document_hover_async(lsp.HoverParams(
        text_document=document(), position=at(SOURCE, "MAX_REVENUE\nthen", 2)))
    assert "const MAX_REVENUE   =   5_000_000" in hovered.contents.value
    assert "type: `number`" in hovered.contents.value

    # go to definition: a const, an output set by a rule, a table's output
    located = await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=document(), position=at(SOURCE, "CORE_STATES and", 1)))
    assert [loc.range.start for loc in located] == [at(SOURCE, "CORE_STATES =")]
    located = await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=document(), position=at(SOURCE, "outputs.rate", len("outputs."))))
    assert [loc.range.start for loc in located] == [at(SOURCE, "rate |")]

    # references of a const, with and without its declaration
    position = at(SOURCE, "MAX_REVENUE   =")
    found = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=document(), position=position,
        context=lsp.ReferenceContext(include_declaration=True)))
    assert len(found) == 3 and found[0].range.start == position
    found = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=document(), position=position,
        context=lsp.ReferenceContext(include_declaration=False)))
    assert len(found) == 2

    # rename an output: the `set`, both reads (a test's included), nothing else
    prepared = await client.text_document_prepare_rename_async(lsp.PrepareRenameParams(
        text_document=document(), position=at(SOURCE, "tier =", 1)))
    assert prepared.start == at(SOURCE, "tier =")
    renamed = await client.text_document_rename_async(lsp.RenameParams(
        text_document=document(), position=at(SOURCE, "tier =", 1), new_name="segment"))
    edits = renamed.changes[URI]
    assert len(edits) == 3 and {e.new_text for e in edits} == {"segment"}
    assert apply(SOURCE, edits).count("segment") == 3
    assert check_source(apply(SOURCE, edits)).ok
    with pytest.raises(JsonRpcException, match="reserved keyword"):
        await client.text_document_rename_async(lsp.RenameParams(
            text_document=document(), position=at(SOURCE, "tier =", 1), new_name="when"))

    # document symbols: the outline
    symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(
        text_document=document()))
    assert [(s.name, s.kind) for s in symbols] == [
        ("business", lsp.SymbolKind.Variable), ("CORE_STATES", lsp.SymbolKind.Constant),
        ("MAX_REVENUE", lsp.SymbolKind.Constant), ("core", lsp.SymbolKind.Function),
        ("factor", lsp.SymbolKind.Struct), ("big", lsp.SymbolKind.Function),
        ("a core business", lsp.SymbolKind.Event)]
    assert [child.name for child in symbols[4].children] == ["rate"]

    # semantic tokens: decoded, the const's uses are readonly variables
    tokens = await client.text_document_semantic_tokens_full_async(lsp.SemanticTokensParams(
        text_document=document()))
    decoded = decode(tokens.data)
    lines = SOURCE.splitlines()
    words = {(lines[line][start:start + length], TOKEN_TYPES[kind])
             for line, start, length, kind, _ in decoded}
    assert ("CORE_STATES", "variable") in words and ("rule", "keyword") in words
    assert ("state", "property") in words and ("# Appetite for small contractors",
                                               "comment") in words

    # formatting: one edit to the canonical text, which is then stable
    edits = await client.text_document_formatting_async(lsp.DocumentFormattingParams(
        text_document=document(), options=lsp.FormattingOptions(tab_size=4,
                                                                 insert_spaces=True)))
    formatted = apply(SOURCE, edits)
    assert formatted == format_source(SOURCE)
    assert "const MAX_REVENUE = 5_000_000" in formatted
    assert '    | "CA"           | 1.2     |' in formatted

    # closing the document clears its diagnostics
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=document()))
    published = await session.next_diagnostics()
    assert published.uri == URI and not published.diagnostics


async def test_server_checks_a_file_over_its_budget_not_at_all(session):
    huge = SOURCE + "#" + "x" * 500_001 + "\n"
    open_document(session, huge)
    published = await session.next_diagnostics()
    assert [d.code for d in published.diagnostics] == ["editor_budget"]
    symbols = await session.client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(text_document=document()))
    assert not symbols


def apply(text: str, edits: list[lsp.TextEdit]) -> str:
    """Apply protocol edits (ASCII text: characters are UTF-16 units)."""
    lines = text.split("\n")

    def offset(position: lsp.Position) -> int:
        return sum(len(line) + 1 for line in lines[:position.line]) + position.character

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[:offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


def decode(data: list[int]) -> list[tuple[int, int, int, int, int]]:
    tokens, line, start = [], 0, 0
    for index in range(0, len(data), 5):
        delta_line, delta_start, length, kind, modifiers = data[index:index + 5]
        line += delta_line
        start = start + delta_start if delta_line == 0 else delta_start
        tokens.append((line, start, length, kind, modifiers))
    return tokens


def test_positions_count_utf16_units_when_a_line_has_characters_beyond_the_bmp():
    from insureops.dsl.symbols import LineIndex
    from insureops.platform.cli.language_server import offset_of, position_of

    lines = LineIndex('ruleset a\nconst X = "\U0001F600 é" + Y\n')
    column = lines.line_text(2).index("Y") + 1  # in characters, as the checker counts
    position = position_of(lines, 2, column)
    assert position == lsp.Position(line=1, character=column - 1 + 1)  # the emoji is 2 units
    assert lines.text[offset_of(lines, position)] == "Y"
    assert offset_of(lines, lsp.Position(line=9, character=0)) == len(lines.text)
