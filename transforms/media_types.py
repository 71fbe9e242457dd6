"""Media types: ``defaultInputModes`` / ``defaultOutputModes`` present, as media types.

Both are REQUIRED (v1.0 ``a2a.proto``; v0.3 schema), and spec v1.0 section 5.7
says a required array "MUST contain at least one element". A missing or empty
list becomes ``["text/plain"]`` (assumed). v0.1 cards used mode words
(``"text"``, defaulting to ``["text"]``, spec-mapping section 8.1); every mode,
on the card and on skills, is written as the media type the word means, each
once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from a2a_migrate import edit
from a2a_migrate.cardtree import skills
from a2a_migrate.context import Context, show
from a2a_migrate.pointer import join


#: Every edit goes through the context, which records it as a patch operation (see engine.run).
RECORDS_EDITS = True

DEFAULT = "text/plain"
WORDS = {
    "text": "text/plain", "plain": "text/plain", "string": "text/plain",
    "json": "application/json", "data": "application/json", "object": "application/json",
    "file": "application/octet-stream", "binary": "application/octet-stream",
    "image": "image/*", "audio": "audio/*", "video": "video/*",
    "html": "text/html", "markdown": "text/markdown", "md": "text/markdown", "csv": "text/csv",
    "pdf": "application/pdf", "xml": "application/xml", "yaml": "application/yaml",
}
_CARD_MEMBERS = ("defaultInputModes", "defaultOutputModes")
_SKILL_MEMBERS = ("inputModes", "outputModes")


def _media_types(modes: list[Any], pointer: str, ctx: Context) -> list[Any]:
    result: list[Any] = []
    for index, mode in enumerate(modes):
        media_type = WORDS.get(mode.strip().lower(), mode) if isinstance(mode, str) else mode
        if media_type != mode:
            ctx.note(join(pointer, index), "assumed", f"mode word {show(mode)} written as {show(media_type)}")
        if media_type in result:
            ctx.note(join(pointer, index), "info", f"{show(media_type)} listed twice: once is enough")
            continue
        result.append(media_type)
    return result


def _normalize(holder: Any, member: str, at: str, ctx: Context) -> None:
    pointer = join(at, member)
    modes = holder[member]
    if isinstance(modes, str):
        modes = [modes]
        ctx.note(pointer, "assumed", f"{member} given as a string: written as a list")
    if not isinstance(modes, list):
        ctx.note(pointer, "error", f"{member} is not a list of media types")
        return
    converted = _media_types(modes, pointer, ctx)
    if converted != holder[member]:
        if isinstance(holder[member], list):
            ctx.set_items(holder[member], converted, at=pointer)  # in place: a YAML flow list stays a flow list
        else:
            ctx.set(holder, member, converted, at=at)


def _new_position(card: Any, member: str) -> int:
    # Where the spec lists it: after capabilities, output after input.
    after = "defaultInputModes" if member == "defaultOutputModes" and "defaultInputModes" in card else "capabilities"
    return edit.position(card, after) + 1


def up(card: Any, ctx: Context) -> None:
    """Fill the default modes and turn mode words into media types."""
    for member in _CARD_MEMBERS:
        pointer = join("", member)
        if isinstance(card.get(member), (list, str)) and card[member]:
            _normalize(card, member, "", ctx)
            continue
        if member in card:
            ctx.set(card, member, [DEFAULT], at="")
        else:
            ctx.insert_at(card, _new_position(card, member), member, [DEFAULT], at="")
        ctx.note(pointer, "assumed", f"{member} is required and was missing or empty: [{show(DEFAULT)}] assumed")
    for pointer, skill in skills(card):
        for member in _SKILL_MEMBERS:
            if member in skill:
                _normalize(skill, member, pointer, ctx)


def down(card: Any, ctx: Context) -> None:
    """Write both lists, which 0.3 requires, as media types.

    v0.3 schema ``AgentCard.required`` lists ``defaultInputModes`` and
    ``defaultOutputModes``; a 1.0 writer omits an empty list (ProtoJSON, see
    spec-mapping section 2.2), so an absent one is written as ``[]``.
    """
    for member in _CARD_MEMBERS:
        pointer = join("", member)
        if member not in card:
            ctx.insert_at(card, _new_position(card, member), member, [], at="")
            ctx.note(pointer, "info", f"{member} written as [] (0.3 requires it; 1.0 writers omit an empty list)")
        else:
            _normalize(card, member, "", ctx)


# -- for ``a2a-migrate transforms media_types`` (issue 13) --
#: Where the spec says what this transform implements.
SPEC = "a2a.proto default_input_modes; spec v1.0 section 5.7"
#: A card fragment whose upgrade shows what the transform does.
EXAMPLE = {
    "defaultInputModes": [
        "text"
    ],
    "skills": [
        {
            "id": "s",
            "inputModes": [
                "json"
            ]
        }
    ]
}
