"""The event catalogue: envelopes of valid payloads, and publisher bugs refused."""

from __future__ import annotations

import datetime
import json

import pytest

from insureops.platform.webhooks.events import (
    CATALOGUE,
    MAX_BODY_BYTES,
    DecisionMade,
    EventPayloadError,
    envelope,
)

AT = datetime.datetime(2026, 11, 27, 17, 0, tzinfo=datetime.UTC)
DECISION = {
    "ruleset": {"rule_id": "r1", "name": "renewal.review", "version": 3},
    "record": {"type": "policy", "id": "6f1c2f9e000040008000000000000001"},
    "decision": "refer", "score": 42.5, "fired": ["high_premium"],
    "reasons": ["Premium above the line's threshold"], "outputs": {"task": "Review"},
    "execution_id": "e1", "source": "binding", "binding_id": "b1",
    "decided_at": "2026-11-27T16:59:59Z"}


def test_envelope_is_the_standard_shape_when_the_payload_is_valid():
    body = json.loads(envelope("decision.made", DECISION, AT))
    assert body["type"] == "decision.made" and body["timestamp"] == "2026-11-27T17:00:00+00:00"
    assert body["data"]["decision"] == "refer" and body["data"]["run_id"] is None
    assert envelope("decision.made", DecisionMade.model_validate(DECISION), AT) == envelope(
        "decision.made", DECISION, AT)


@pytest.mark.parametrize(("event_type", "payload"), [
    ("decision.unknown", DECISION),
    ("decision.made", {**DECISION, "decision": "maybe"}),
    ("decision.made", {**DECISION, "extra": 1}),
    ("decision.made", {k: v for k, v in DECISION.items() if k != "record"}),
    ("decision.made", {**DECISION, "outputs": {"blob": "x" * MAX_BODY_BYTES}}),
])
def test_publisher_bugs_are_refused_when_the_payload_is_not_its_types(event_type, payload):
    with pytest.raises(EventPayloadError):
        envelope(event_type, payload, AT)


def test_every_event_type_has_a_payload_schema_when_catalogued():
    for kind in CATALOGUE.values():
        assert kind.payload.model_json_schema()["properties"], kind.type
        assert kind.description.endswith(".")
