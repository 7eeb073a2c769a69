"""Diagnostics latency of `insureops rules lsp` after an edit on a 1,000-line ruleset, against
the checker alone (method and figures: docs/editor.md, "Latency").

    python bench/bench_language_server.py [--rules 111] [--edits 40] [--pause 0.3]

Each round edits the middle of workload.generate_ruleset's text (a digit typed, taken out, a
line inserted) and times `check_source` (the whole text), `IncrementalChecker.check` (what the
server runs; both as CPU time), and the server through the protocol: from `didChange` to the
diagnostics of that version (wall time), and the server's CPU time per edit from /proc.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient
from workload import generate_ruleset

from insureops.dsl.api import check_source
from insureops.dsl.incremental import IncrementalChecker

URI = "file:///bench/generated.rules"
INSUREOPS = Path(sys.executable).with_name("insureops")


def edits(source: str, count: int) -> list[tuple[str, int, str, str]]:
    """(new text, offset, removed text, inserted text) of `count` successive edits."""
    found = []
    middle = source.index("\nrule r55 ")  # the middle of the file
    for number in range(count):
        kind = number % 3
        at = source.index("score +=", middle) + len("score += ")
        if kind == 0:    # type a digit
            change = (at, "", "1")
        elif kind == 1:  # take it out again
            change = (at, source[at], "")
        else:            # a line more: every later item moves down
            at = source.index("\nend\n", middle) + 1
            change = (at, "", "    stop\n")
        at, removed, inserted = change
        source = source[:at] + inserted + source[at + len(removed):]
        found.append((source, at, removed, inserted))
    return found


def cpu_ms(function, *args) -> float:
    started = time.process_time()
    function(*args)
    return (time.process_time() - started) * 1000


def in_process(source: str, rounds: list) -> dict[str, list[float]]:
    checker = IncrementalChecker()
    checker.check(source)
    check_source(source)
    found: dict[str, list[float]] = {"check_source": [], "incremental": []}
    for text, *_ in rounds:
        found["check_source"].append(cpu_ms(check_source, text))
        found["incremental"].append(cpu_ms(checker.check, text))
    return found


def server_cpu(pid: int) -> float:
    """utime + stime of a process, in ms."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


async def through_protocol(source: str, rounds: list, pause: float) -> dict[str, list[float]]:
    client = LanguageClient("bench", "1")
    received: asyncio.Queue = asyncio.Queue()

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def published(params: lsp.PublishDiagnosticsParams) -> None:
        received.put_nowait((time.perf_counter(), params))

    await client.start_io(str(INSUREOPS), "rules", "lsp")
    pid = client._server.pid
    await client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities()))
    client.initialized(lsp.InitializedParams())
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=URI, language_id="insureops-rules", version=1, text=source)))
    await received.get()
    found: dict[str, list[float]] = {"server": [], "server_cpu": []}
    previous = source
    for version, (text, at, removed, inserted) in enumerate(rounds, start=2):
        line = previous.count("\n", 0, at)
        column = at - (previous.rfind("\n", 0, at) + 1)
        end_at = at + len(removed)
        end = lsp.Position(line=previous.count("\n", 0, end_at),
                           character=end_at - (previous.rfind("\n", 0, end_at) + 1))
        cpu_before = server_cpu(pid)
        sent = time.perf_counter()
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=URI, version=version),
            content_changes=[lsp.TextDocumentContentChangePartial(
                range=lsp.Range(start=lsp.Position(line=line, character=column), end=end),
                text=inserted)]))
        while True:
            arrived, params = await received.get()
            if params.version == version:
                break
        found["server"].append((arrived - sent) * 1000)
        found["server_cpu"].append(server_cpu(pid) - cpu_before)
        previous = text
        await asyncio.sleep(pause)  # the author's pause between keystrokes
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", type=int, default=111)
    parser.add_argument("--edits", type=int, default=40)
    parser.add_argument("--pause", type=float, default=0.3,
                        help="seconds between edits sent to the server (typing); 0: back to back")
    options = parser.parse_args()
    source = generate_ruleset(options.rules)
    rounds = edits(source, options.edits)
    results = in_process(source, rounds)
    results.update(asyncio.run(through_protocol(source, rounds, options.pause)))
    print(f"{source.count(chr(10))} lines, {options.edits} edits; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    for name, values in results.items():
        ordered = sorted(values)
        p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
        print(f"{name:>13}: median {statistics.median(values):6.1f} ms, p90 {p90:6.1f} ms, "
              f"min {ordered[0]:6.1f} ms")


if __name__ == "__main__":
    main()
