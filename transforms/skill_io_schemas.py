"""Skill ``inputSchema`` / ``outputSchema`` become media types and example hints.

Neither version's ``AgentSkill`` has a schema member (v0.3 schema, v1.0
``a2a.proto``: ``id, name, description, tags, examples, input_modes,
output_modes, security_requirements``); strict 1.0 parsers reject them. What
1.0 can say is kept: ``application/json`` in the skill's ``inputModes`` /
``outputModes``, and for an input schema an ``examples`` entry that shows the
expected JSON (property names, types, enum values, required ones first); both
are made up by the tool, so their notes are ``assumed``. The schema itself is
then dropped with a lossy note.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from a2a_migrate.cardtree import skills
from a2a_migrate.context import Context
from a2a_migrate.pointer import join


#: Every edit goes through the context, which records it as a patch operation (see engine.run).
RECORDS_EDITS = True

JSON_MEDIA_TYPE = "application/json"
_PLAIN = "text/plain"  # what media_types assumes for a card without default modes
_DEFAULTS = {"inputModes": "defaultInputModes", "outputModes": "defaultOutputModes"}
_MAX_DEPTH = 4


def _placeholder(schema: Any, required: bool, depth: int) -> Any:
    if not isinstance(schema, Mapping):
        return "<any>" if required else "<optional any>"
    if "enum" in schema and isinstance(schema["enum"], list):
        text = "one of: " + ", ".join(json.dumps(v, ensure_ascii=False, default=str) if not isinstance(v, str) else v
                                     for v in schema["enum"])
    elif schema.get("type") == "object" or "properties" in schema:
        if depth < _MAX_DEPTH and isinstance(schema.get("properties"), Mapping):
            return hint_object(schema, depth + 1)
        text = "object"
    elif schema.get("type") == "array":
        items = schema.get("items")
        item_type = items.get("type") if isinstance(items, Mapping) else None
        text = f"array of {item_type}" if isinstance(item_type, str) else "array"
    else:
        type_ = schema.get("type")
        text = "|".join(map(str, type_)) if isinstance(type_, list) else str(type_ or "any")
    return f"<{text}>" if required else f"<optional {text}>"


def hint_object(schema: Mapping[str, Any], depth: int = 0) -> dict[str, Any]:
    """A JSON object of placeholders for a JSON Schema's properties, required first."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return {}
    required = [name for name in schema.get("required", []) if name in properties] if isinstance(
        schema.get("required"), list) else []
    order = required + [name for name in properties if name not in required]
    return {name: _placeholder(properties[name], name in required, depth) for name in order}


def _add_mode(card: Any, skill: Any, member: str, pointer: str, ctx: Context) -> None:
    modes = skill.get(member)
    if isinstance(modes, list):
        if JSON_MEDIA_TYPE not in modes:
            ctx.append(modes, JSON_MEDIA_TYPE, at=join(pointer, member))
            ctx.note(join(pointer, member), "assumed", f"{JSON_MEDIA_TYPE} added: the skill took a JSON schema")
        return
    # The skill used the card's defaults: keep offering them, and JSON besides.
    defaults = card.get(_DEFAULTS[member])
    inherited = [mode for mode in defaults if isinstance(mode, str)] if isinstance(defaults, list) and defaults else [_PLAIN]
    offered = inherited + [JSON_MEDIA_TYPE] * (JSON_MEDIA_TYPE not in inherited)
    ctx.insert_at(skill, len(skill), member, offered, at=pointer)
    ctx.note(join(pointer, member), "assumed",
             f"{member} set to the card's default modes plus {JSON_MEDIA_TYPE}: the skill took a JSON schema")


def _input_example(skill: Any, schema: Any, pointer: str, ctx: Context) -> None:
    hint = hint_object(schema) if isinstance(schema, Mapping) else {}
    if not hint:
        return
    example = json.dumps(hint, ensure_ascii=False, default=str)
    examples = skill.get("examples")
    if isinstance(examples, list):
        if example not in examples:
            ctx.append(examples, example, at=join(pointer, "examples"))
    else:
        ctx.insert_at(skill, len(skill), "examples", [example], at=pointer)
    ctx.note(join(pointer, "examples"), "assumed", "an example made up from inputSchema shows the expected JSON")


def _convert(card: Any, skill: Any, pointer: str, ctx: Context) -> None:
    for member, modes in (("inputSchema", "inputModes"), ("outputSchema", "outputModes")):
        if member not in skill:
            continue
        schema = skill[member]
        if member == "inputSchema":
            _input_example(skill, schema, pointer, ctx)
        _add_mode(card, skill, modes, pointer, ctx)
        ctx.remove(skill, member, at=pointer)
        ctx.note(join(pointer, member), "lossy", f"{member} dropped: no A2A version has a place for it")


def up(card: Any, ctx: Context) -> None:
    """Keep what 1.0 can say of each skill's schemas, then drop them."""
    for pointer, skill in skills(card):
        _convert(card, skill, pointer, ctx)


def down(card: Any, ctx: Context) -> None:
    """Nothing to do: 1.0 cards carry no schemas."""


# -- for ``a2a-migrate transforms skill_io_schemas`` (issue 13) --
#: Where the spec says what this transform implements.
SPEC = "a2a.proto AgentSkill (no schema members)"
#: A card fragment whose upgrade shows what the transform does.
EXAMPLE = {
    "skills": [
        {
            "id": "add",
            "name": "Add",
            "description": "Adds.",
            "tags": [
                "math"
            ],
            "inputSchema": {
                "type": "object",
                "properties": {
                    "a": {
                        "type": "number"
                    }
                },
                "required": [
                    "a"
                ]
            }
        }
    ]
}
