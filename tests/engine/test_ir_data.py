"""The IR as plain data (`engine/ir/data.py`): every shipped ruleset round-trips, spans and all,
and data naming anything but IR is refused."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import msgspec
import pytest

from insureops.dsl.api import check_for_compile
from insureops.engine import ir
from insureops.engine.ir.data import NODE_CLASSES, ruleset_from_data, ruleset_to_data
from insureops.engine.ir.values import Duration

ROOT = Path(__file__).resolve().parents[2]
# The examples, and one appetite for the node the examples lack (`is null` cells); a test below
# holds these to using every node class.
RULES_FILES = [*sorted((ROOT / "examples").glob("*.rules")),
               ROOT / "examples" / "market" / "apex-workforce" / "staffing-gl.rules"]


def _round_trip(ruleset: ir.Ruleset) -> ir.Ruleset:
    return ruleset_from_data(msgspec.json.decode(msgspec.json.encode(ruleset_to_data(ruleset))))


@pytest.mark.parametrize("path", RULES_FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_a_checked_ruleset_reads_back_equal_when_written_as_json(path):
    ruleset = check_for_compile(path.read_text(), filename=str(path)).ruleset
    again = _round_trip(ruleset)
    assert again == ruleset
    assert ruleset_to_data(again) == ruleset_to_data(ruleset)  # spans too (equality skips them)


def test_every_literal_value_reads_back_with_its_type_when_written_as_json():
    values = [Decimal("1.20"), "text", True, None, 7, date(2025, 1, 31),
              datetime(2025, 1, 31, 10, tzinfo=timezone(timedelta(hours=2))), Duration(6, 3)]
    ruleset = ir.Ruleset("values", (), (), consts=tuple(
        ir.Const(f"c{index}", ir.Literal(value, span=ir.Span(1, 2, 3, 4, 5, 6)))
        for index, value in enumerate(values)))
    again = _round_trip(ruleset)
    assert [const.value.value for const in again.consts] == values
    assert [type(const.value.value) for const in again.consts] == [type(v) for v in values]
    assert again.consts[0].value.span == ir.Span(1, 2, 3, 4, 5, 6)


@pytest.mark.parametrize("data", [
    ["subprocess.Popen", ["tuple", "id"]],  # a class that is not an IR node
    ["Ruleset", "r", ["tuple"]],  # the wrong number of fields
    ["Name", "x"],  # a node, but not a ruleset
    ["Ruleset", "r", ["tuple"], ["tuple", ["decimal", "1e"]], None, None, None, ["tuple"],
     ["tuple"], None],
    ["Ruleset", "r", ["tuple"], ["tuple"], None, None, None, ["tuple"], ["tuple"], ["span", 1]],
    ["Ruleset", "r", ["tuple"], ["tuple"], None, 1.5, None, ["tuple"], ["tuple"], None],
    {"__reduce__": "os.system"}, [], "Ruleset",
])
def test_data_is_refused_when_it_is_not_a_ruleset(data):
    with pytest.raises(ValueError):
        ruleset_from_data(data)


def _tags(data: object, found: set[str]) -> set[str]:
    if type(data) is list and data:
        found.add(data[0])
        for item in data[1:]:
            _tags(item, found)
    return found


def test_the_files_above_use_every_node_class_when_written():
    used: set[str] = set()
    for path in RULES_FILES:
        _tags(ruleset_to_data(check_for_compile(path.read_text()).ruleset), used)
    assert set(NODE_CLASSES) <= used


def test_only_the_ir_node_classes_are_constructed_when_reading():
    assert set(NODE_CLASSES.values()) <= {getattr(ir, name) for name in ir.__all__
                                          if isinstance(getattr(ir, name), type)}
    assert "Ruleset" in NODE_CLASSES and "Span" not in NODE_CLASSES
