"""Proto field names: snake_case members become camelCase.

Spec v1.0 section 5.5: "All JSON serializations of the A2A protocol data model
MUST use camelCase naming". ProtoJSON lets parsers accept the proto name too
(``supported_interfaces``), so such cards are read, and written camelCase.
Only member names the specs define are renamed; vendor members are left alone.
"""

from __future__ import annotations

from typing import Any

from a2a_migrate.cardtree import camel_name, objects
from a2a_migrate.context import Context
from a2a_migrate.pointer import join


#: Every edit goes through the context, which records it as a patch operation (see engine.run).
RECORDS_EDITS = True


def _rename_in(pointer: str, mapping: Any, ctx: Context) -> bool:
    renamed = False
    for key in list(mapping):
        camel = camel_name(key) if isinstance(key, str) else None
        if camel is None:
            continue
        if camel in mapping:
            same = mapping[camel] == mapping[key]
            ctx.remove(mapping, key, at=pointer)
            ctx.note(join(pointer, key), "info" if same else "lossy", f"{key} dropped: {camel} is also present" + ("" if same else " with another value"))
        else:
            ctx.rename(mapping, key, camel, at=pointer)
            ctx.note(join(pointer, key), "info", f"proto name {key} written as {camel}")
        renamed = True
    return renamed


def up(card: Any, ctx: Context) -> None:
    """Rename proto names level by level until none is left."""
    for _ in range(8):  # each pass can expose objects under newly camelCased names
        if not any([_rename_in(pointer, mapping, ctx) for pointer, _, mapping in list(objects(card))]):
            return


def down(card: Any, ctx: Context) -> None:
    """0.3 JSON is camelCase too."""
    up(card, ctx)


# -- for ``a2a-migrate transforms proto_field_names`` (issue 13) --
#: Where the spec says what this transform implements.
SPEC = "spec v1.0 section 5.5 (camelCase JSON names)"
#: A card fragment whose upgrade shows what the transform does.
EXAMPLE = {
    "name": "Echo",
    "default_input_modes": [
        "text/plain"
    ],
    "capabilities": {
        "push_notifications": True
    }
}
