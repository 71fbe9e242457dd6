"""Explicit nulls: a ``null`` member means the member is unset.

ProtoJSON (adopted by spec v1.0, ADR-001): "null is an accepted value for all
field types and treated as the default value of the corresponding field
type"; the v0.3 JSON Schema gives no member a null type. Writing the member as
absent says the same thing in a form both versions accept.
"""

from __future__ import annotations

from typing import Any

from a2a_migrate.cardtree import objects
from a2a_migrate.context import Context
from a2a_migrate.pointer import join


#: Every edit goes through the context, which records it as a patch operation (see engine.run).
RECORDS_EDITS = True


def up(card: Any, ctx: Context) -> None:
    """Remove members whose value is null."""
    for pointer, _, mapping in list(objects(card)):
        for key in [key for key, value in mapping.items() if value is None]:
            ctx.remove(mapping, key, at=pointer)
            ctx.note(join(pointer, key), "info", f"{key} was null, which means unset: removed")


def down(card: Any, ctx: Context) -> None:
    """The 0.3 schema admits no nulls either."""
    up(card, ctx)


# -- for ``a2a-migrate transforms explicit_nulls`` (issue 13) --
#: Where the spec says what this transform implements.
SPEC = "ProtoJSON null = default (ADR-001); v0.3 JSON Schema"
#: A card fragment whose upgrade shows what the transform does.
EXAMPLE = {
    "name": "Echo",
    "iconUrl": None,
    "documentationUrl": None
}
