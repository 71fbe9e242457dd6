"""Vendor members: kept, and reported.

Spec v1.0 section 5.7: "Implementations SHOULD ignore unrecognized fields",
but ProtoJSON (made normative by ADR-001) "does not support unknown fields",
and strict parsers reject them (spec-mapping section 1). Members no version
defines (``x-...``, ``$schema``, ``endpoints``, ...) are the card author's, so
the tool keeps them and warns that strict 1.0 parsers may reject the card.
This transform changes nothing; it runs last, on the finished 1.0 card.
"""

from __future__ import annotations

from typing import Any

from a2a_migrate.cardtree import objects, unknown_members
from a2a_migrate.context import Context
from a2a_migrate.pointer import join


#: Every edit goes through the context, which records it as a patch operation (see engine.run).
RECORDS_EDITS = True


def up(card: Any, ctx: Context) -> None:
    """Warn about each member the 1.0 card tree does not define."""
    for pointer, kind, mapping in objects(card):
        for key in unknown_members(kind, mapping):
            ctx.note(join(pointer, key), "warning", f"vendor member {key} kept: strict 1.0 parsers reject unknown members")


def down(card: Any, ctx: Context) -> None:
    """Nothing to say: the 0.3 schema leaves every object open."""


# -- for ``a2a-migrate transforms vendor_members`` (issue 13) --
#: Where the spec says what this transform implements.
SPEC = "spec v1.0 section 5.7; ProtoJSON unknown fields (ADR-001)"
#: A card fragment whose upgrade shows what the transform does.
EXAMPLE = {
    "name": "Echo",
    "x-team": "platform"
}
