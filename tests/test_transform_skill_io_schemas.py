import json

from transform_helpers import brief, run

from a2a_migrate.transforms import skill_io_schemas
from a2a_migrate.transforms.skill_io_schemas import hint_object

SCHEMA = {
    "type": "object",
    "properties": {
        "units": {"enum": ["metric", "imperial"]},
        "city": {"type": "string"},
        "filter": {"type": "object", "properties": {"max": {"type": "number"}}, "required": ["max"]},
        "days": {"type": "array", "items": {"type": "integer"}},
    },
    "required": ["city"],
}


def test_hint_lists_required_first_with_types_and_enums() -> None:
    assert hint_object(SCHEMA) == {
        "city": "<string>",
        "units": "<optional one of: metric, imperial>",
        "filter": {"max": "<number>"},
        "days": "<optional array of integer>",
    }


def test_input_schema_becomes_example_and_json_mode_then_is_dropped() -> None:
    card = {"skills": [{"id": "s", "inputModes": ["text/plain"], "inputSchema": SCHEMA, "outputSchema": {"type": "object"}}]}
    out, notes = run(skill_io_schemas, card)
    skill = out["skills"][0]
    assert "inputSchema" not in skill and "outputSchema" not in skill
    assert skill["inputModes"] == ["text/plain", "application/json"]
    assert skill["outputModes"] == ["text/plain", "application/json"]
    assert json.loads(skill["examples"][0])["city"] == "<string>"
    assert ("lossy", "/skills/0/inputSchema") in brief(notes)
    assert ("lossy", "/skills/0/outputSchema") in brief(notes)


def test_skills_without_schemas_are_untouched() -> None:
    card = {"skills": [{"id": "s", "examples": ["hi"]}]}
    assert run(skill_io_schemas, card) == (card, [])
