"""Skills: objects with ``id``, ``name``, ``description`` and ``tags``.

``AgentSkill.id``, ``name``, ``description`` and ``tags`` are REQUIRED in
v1.0 ``a2a.proto`` and in the v0.3 schema, and spec v1.0 section 5.7 says a
required array "MUST contain at least one element". Real cards leave them out
or list skills as bare strings. What has one obvious value is filled in with
an ``assumed`` note (an id from the name, tags from the id and name: a skill
without tags is not found in catalogues; ``examples`` that are objects become
their JSON text, since examples are strings in both versions); ``skills`` that is not a list is
refused.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, MutableMapping
from typing import Any

from a2a_migrate import edit
from a2a_migrate.context import Context, show
from a2a_migrate.pointer import join


#: Every edit goes through the context, which records it as a patch operation (see engine.run).
RECORDS_EDITS = True

_WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])|\d+|[^\W\d_]+", re.UNICODE)


def slug(text: str) -> str:
    """``"Get Weather!"`` -> ``"get-weather"`` (non-ASCII letters kept)."""
    return re.sub(r"[\W_]+", "-", text.strip().lower(), flags=re.UNICODE).strip("-") or "skill"


#: English filler words: a catalogue finds no skill by "the" or "to".
STOP_WORDS = frozenset("""
a an and are as at be by can do for from get has have how i in into is it its me my of on or our so than that the
their then this to up us via was we what when which who will with you your
""".split())


def derive_tags(*texts: str) -> list[str]:
    """Lower-case words of the texts, in order, each once; one-letter and stop words left out."""
    tags: list[str] = []
    for text in texts:
        for word in _WORD.findall(text):
            word = word.lower()
            if len(word) > 1 and word not in STOP_WORDS and word not in tags:
                tags.append(word)
    return tags or [slug(texts[0]) if texts else "skill"]


def _string_skill(text: str, pointer: str, ctx: Context) -> dict[str, Any]:
    ctx.note(pointer, "assumed", f"skill given as the string {show(text)}: written as a skill object")
    return {"id": slug(text), "name": text, "description": text}


def _fill_identity(skill: Any, pointer: str, ctx: Context) -> bool:
    name, skill_id = skill.get("name"), skill.get("id")
    if isinstance(skill_id, (int, float)) and not isinstance(skill_id, bool):
        skill_id = str(skill_id)
        ctx.set(skill, "id", skill_id, at=pointer)
        ctx.note(join(pointer, "id"), "assumed", f"skill id {skill_id} written as a string")
    if not _text(name) and not _text(skill_id):
        ctx.note(pointer, "error", "skill has neither id nor name: it cannot be identified")
        return False
    if not _text(skill_id):
        ctx.insert_at(skill, 0, "id", slug(name), at=pointer)
        ctx.note(join(pointer, "id"), "assumed", f"skill id {show(skill['id'])} derived from its name")
    if not _text(name):
        ctx.insert_at(skill, edit.position(skill, "id") + 1, "name", skill["id"], at=pointer)
        ctx.note(join(pointer, "name"), "assumed", "skill name taken from its id")
    if not _text(skill.get("description")):
        ctx.insert_at(skill, edit.position(skill, "name") + 1, "description", skill["name"], at=pointer)
        ctx.note(join(pointer, "description"), "assumed", "skill description is required: its name used")
    return True


def _fill_tags(skill: Any, pointer: str, ctx: Context) -> None:
    tags = skill.get("tags")
    if isinstance(tags, list) and any(isinstance(tag, str) and tag.strip() for tag in tags):
        for index in reversed(range(len(tags))):
            if not (isinstance(tags[index], str) and tags[index].strip()):
                ctx.note(join(pointer, "tags", index), "lossy", f"tag {show(tags[index])} is not a word: dropped")
                ctx.remove(tags, index, at=join(pointer, "tags"))
        return
    if isinstance(tags, str) and tags.strip():
        ctx.set(skill, "tags", [tags], at=pointer)
        ctx.note(join(pointer, "tags"), "assumed", "tags given as a string: written as a list")
        return
    derived = derive_tags(str(skill["id"]), str(skill["name"]))
    if "tags" in skill:
        ctx.set(skill, "tags", derived, at=pointer)
    else:  # where 0.3 and 1.0 both list it: after the description
        ctx.insert_at(skill, edit.position(skill, "description") + 1, "tags", derived, at=pointer)
    ctx.note(join(pointer, "tags"), "assumed", f"skill has no tags: derived {show(derived)} from its id and name")


def _stringify_examples(skill: Any, pointer: str, ctx: Context) -> None:
    """``examples`` are strings in both versions; an object example is written as its JSON text."""
    examples = skill.get("examples")
    if isinstance(examples, str):
        ctx.set(skill, "examples", [examples], at=pointer)
        ctx.note(join(pointer, "examples"), "assumed", "examples given as a string: written as a list")
        return
    for index, example in enumerate(examples if isinstance(examples, list) else []):
        if not isinstance(example, str) and example is not None:
            # default=str: a YAML example may hold a timestamp, which JSON text writes as its string
            ctx.set(examples, index, json.dumps(example, ensure_ascii=False, default=str), at=join(pointer, "examples"))
            ctx.note(join(pointer, "examples", index), "assumed", "example that is not a string written as its JSON text")


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _repair(card: Any, ctx: Context, *, fill_tags: bool) -> None:
    skills = card.get("skills")
    if skills is None:
        ctx.insert_at(card, len(card), "skills", [], at="")
        ctx.note("/skills", "warning", "the card lists no skills: written as [] (1.0 requires at least one; none is invented)")
        return
    if not isinstance(skills, list):
        ctx.note("/skills", "error", f"skills is a {type(skills).__name__}, not a list of skill objects")
        return
    if not skills:
        ctx.note("/skills", "warning", "the card lists no skills (1.0 requires at least one; none is invented)")
    for index, skill in enumerate(skills):
        pointer = join("/skills", index)
        if isinstance(skill, str):
            skill = _string_skill(skill, pointer, ctx)
            ctx.set(skills, index, skill, at="/skills")
        if not isinstance(skill, MutableMapping):
            ctx.note(pointer, "error", f"skill {show(skill)} is not an object")
            continue
        if _fill_identity(skill, pointer, ctx) and fill_tags:
            _fill_tags(skill, pointer, ctx)
            _stringify_examples(skill, pointer, ctx)
        elif "tags" not in skill:
            ctx.set(skill, "tags", [], at=pointer)  # 0.3 requires the member; 1.0 writers omit it when empty
    _dedupe_ids(skills, ctx)


def _dedupe_ids(skills: list[Any], ctx: Context) -> None:
    seen: set[Any] = set()
    for index, skill in enumerate(skills):
        if not isinstance(skill, Mapping) or not _text(skill.get("id")):
            continue
        if skill["id"] in seen:
            ctx.note(join("/skills", index, "id"), "warning", f"skill id {show(skill['id'])} is used by an earlier skill too")
        seen.add(skill["id"])


def up(card: Any, ctx: Context) -> None:
    """Make every skill an object with the four required members."""
    _repair(card, ctx, fill_tags=True)


def _tags_present(skill: Any, pointer: str, ctx: Context) -> None:
    """Write the ``tags`` 0.3 requires: ``[]`` where a 1.0 writer omitted an empty list."""
    tags = skill.get("tags")
    if "tags" not in skill:
        ctx.insert_at(skill, edit.position(skill, "description") + 1, "tags", [], at=pointer)
        ctx.note(join(pointer, "tags"), "info", "tags written as [] (0.3 requires it; 1.0 writers omit an empty list)")
    elif isinstance(tags, str):
        ctx.set(skill, "tags", [tags], at=pointer)
        ctx.note(join(pointer, "tags"), "assumed", "tags given as a string: written as a list")
    elif not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        ctx.note(join(pointer, "tags"), "error", "tags is not a list of strings")


def down(card: Any, ctx: Context) -> None:
    """0.3 needs the same members, and ``skills`` and every ``tags`` present.

    v0.3 schema: ``AgentCard.required`` has ``skills`` and ``AgentSkill.required``
    has ``tags``, with no ``minItems``; 1.0 writers omit empty lists (ProtoJSON,
    spec-mapping section 2.2), so they are written as ``[]``. No tag is invented.
    """
    if "skills" not in card:
        ctx.insert_at(card, len(card), "skills", [], at="")
        ctx.note("/skills", "info", "skills written as [] (0.3 requires it; 1.0 writers omit an empty list)")
        return
    if card["skills"] == []:
        return
    for index, skill in enumerate(card["skills"] if isinstance(card["skills"], list) else []):
        if isinstance(skill, Mapping):
            _tags_present(skill, join("/skills", index), ctx)
    _repair(card, ctx, fill_tags=False)


# -- for ``a2a-migrate transforms skill_members`` (issue 13) --
#: Where the spec says what this transform implements.
SPEC = "a2a.proto AgentSkill; spec v1.0 section 5.7"
#: A card fragment whose upgrade shows what the transform does.
EXAMPLE = {
    "skills": [
        {
            "id": "echo_text",
            "name": "Echo text",
            "description": "Echoes."
        }
    ]
}
