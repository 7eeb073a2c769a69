"""Completion and hover in the studio page's editor (issue 34), in Chromium: the language
server's analysis through POST /rules/complete/ and /rules/hover/, chosen with the keyboard."""

from __future__ import annotations

import pytest

from tests.platform.studio_web.conftest import Shots, log_in, set_source

pytestmark = pytest.mark.browser
STARTUP_MS = 60_000  # the rules workers start (niced) on first use: a minute bounds a starved CPU

SOURCE = """ruleset clients.review "Client review"
input client: Client
default decision accept
const HOME = "IL"

rule out_of_state "Client outside the home state"
when client.region != HOME
then
    score += 10
    refer "Client outside {HOME}"
end
"""


def expect():
    from playwright.sync_api import expect

    return expect


def _completion(response) -> str:
    """A completion's request and answer, in short, for a failure's message."""
    known = (response.request.post_data_json or {}).get("known_source") or ""
    inputs = [line for line in known.splitlines() if line.startswith("input ")]
    if response.status != 200:
        return f"{response.status} (known: {inputs})"
    return f"200 {len(response.json()['items'])} items (known: {inputs})"


def _hover_word(page, line_index: int, word: str) -> None:
    """Move the mouse onto `word` in the editor's line (0-based), as a person would."""
    box = page.evaluate(
        """([index, word]) => {
            const line = document.querySelectorAll('.cm-line')[index];
            const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                const at = node.textContent.indexOf(word);
                if (at < 0) continue;
                const range = document.createRange();
                range.setStart(node, at);
                range.setEnd(node, at + word.length);
                const rect = range.getBoundingClientRect();
                return {x: rect.x + rect.width / 2, y: rect.y + rect.height / 2};
            }
            return null;
        }""",
        [line_index, word],
    )
    assert box is not None, word
    page.mouse.move(box["x"], box["y"])


def test_an_author_completes_a_field_and_a_const_with_the_keyboard_and_reads_a_hover(
    live_service, page
):
    check = expect()
    live_service.add_owner("ann@example.com", "Ann Lee", "Lee Agency")
    # the check of the new rule's example answers last, after the check of SOURCE, as it
    # did on loaded machines (two checks run side by side): it must not become the text that
    # names the inputs (it declares `claim`, not `client`), or `client.` completes nothing
    held = []

    def hold_the_example(route) -> None:
        if route.request.post_data_json["source"].startswith("ruleset my.rules"):
            held.append(route)
        else:
            route.continue_()

    page.route("**/rules/check/", hold_the_example)
    checked: list[int] = []  # the checks' statuses, for a failure's message
    page.on("response", lambda r: checked.append(r.status) if "/check/" in r.url else None)
    log_in(page, live_service)
    shots = Shots(page)
    page.get_by_role("button", name="New rule").click()
    set_source(page, SOURCE)
    # the first check starts the rules workers: seconds on a loaded machine
    try:
        check(page.locator("#problems")).to_contain_text("No problems.", timeout=STARTUP_MS)
    except AssertionError as error:
        raise AssertionError(f"no check answered; the service answered {checked}") from error
    assert len(held) == 1, "the new rule's example is checked"
    # (it may start a second rules worker: seconds on a loaded machine)
    with page.expect_request_finished(lambda r: "/rules/check/" in r.url, timeout=STARTUP_MS):
        held[0].continue_()
    content = page.locator(".cm-content")
    check(content).to_have_attribute("aria-autocomplete", "list")

    # after `client.` the fields of Client, from its schema, in a listbox
    page.locator(".cm-line").nth(6).click()
    page.keyboard.press("End")
    asked: list[str] = []  # each completion: its status, items and the inputs it was given
    page.on("response", lambda r: asked.append(_completion(r)) if "/complete/" in r.url else None)
    page.keyboard.type(" and client.")
    listbox = page.get_by_role("listbox", name="Completions")
    # the first completion may wait for a rules worker the linter's check holds (loaded CI):
    # the editor asks again while the service answers busy
    try:
        check(listbox).to_be_visible(timeout=STARTUP_MS)
    except AssertionError as error:
        raise AssertionError(f"no completions; the service answered {asked}") from error
    assert not any("input claim" in answer for answer in asked), asked
    check(listbox.get_by_role("option", name="city")).to_be_visible()
    shots.take("completion")
    check(content).to_have_attribute("aria-haspopup", "listbox")
    check(page.locator("#editor-announce")).to_contain_text("Enter or Tab accepts")
    page.keyboard.type("ci")
    selected = listbox.locator("[role=option][aria-selected]")
    check(selected).to_contain_text("city")
    check(content).to_have_attribute("aria-activedescendant", selected.get_attribute("id"))
    check(selected).to_contain_text("string")  # its type
    check(page.locator(".cm-completionInfo")).to_contain_text("at most characters 100")
    page.keyboard.press("Enter")
    check(listbox).to_be_hidden()

    # a const, chosen with the arrow keys and accepted with Tab
    page.keyboard.type(" != H")
    check(listbox.get_by_role("option", name="HOME")).to_be_visible()
    for _ in range(8):  # arrow down through the list until HOME is the active option
        if "HOME" in (selected.text_content() or ""):
            break
        page.keyboard.press("ArrowDown")
    check(selected).to_contain_text("HOME")
    page.keyboard.press("Tab")
    check(listbox).to_be_hidden()
    check(page.locator(".cm-line").nth(6)).to_have_text(
        "when client.region != HOME and client.city != HOME")
    check(content).to_be_focused()  # Tab accepted; it did not leave the editor

    # Ctrl+Space asks at once; Escape closes; then Tab leaves the editor as before
    page.keyboard.press("Control+Space")
    check(listbox).to_be_visible()
    page.keyboard.press("Escape")
    check(listbox).to_be_hidden()
    check(page.locator("#problems")).to_contain_text("No problems.")

    # hover: a const's declaration and type, and a field's type and constraint
    _hover_word(page, 3, "HOME")
    tooltip = page.locator(".cm-tooltip-hover .assist-hover")
    check(tooltip).to_contain_text('const HOME = "IL"')
    check(tooltip).to_contain_text("type: string")
    shots.take("hover")
    _hover_word(page, 6, "region")
    check(tooltip).to_contain_text("client.region: string")
    page.keyboard.press("Tab")
    check(content).not_to_be_focused()
