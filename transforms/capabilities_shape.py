"""Capabilities shape: an object, present, holding ``extensions``.

``AgentCapabilities`` is a REQUIRED object in both versions (v0.3 schema
``AgentCard.required``; v1.0 ``a2a.proto`` ``AgentCard.capabilities``).
Real cards write it as a list of flag names, leave it out, or put
``extensions`` at the top level, where no version defines it (spec-mapping
section 6.2: the field is ``capabilities.extensions`` in both).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from a2a_migrate.cardtree import camel_name
from a2a_migrate.context import Context, show


#: Every edit goes through the context, which records it as a patch operation (see engine.run).
RECORDS_EDITS = True


def _from_flags(flags: list[Any], ctx: Context) -> dict[str, bool]:
    capabilities: dict[str, bool] = {}
    for index, flag in enumerate(flags):
        if isinstance(flag, str) and flag.strip():
            capabilities[camel_name(flag.strip()) or flag.strip()] = True
        else:
            ctx.note(f"/capabilities/{index}", "lossy", f"capability {show(flag)} is not a flag name: dropped")
    return capabilities


def _ensure_object(card: Any, ctx: Context) -> None:
    value = card.get("capabilities")
    if isinstance(value, Mapping):
        return
    if value is None:
        ctx.insert_at(card, len(card), "capabilities", {}, at="")
        ctx.note("/capabilities", "assumed", "capabilities is required: written as {}")
    elif isinstance(value, list):
        ctx.set(card, "capabilities", _from_flags(value, ctx), at="")
        ctx.note("/capabilities", "assumed", "capabilities given as a list of flag names: written as an object of true flags")
    else:
        ctx.set(card, "capabilities", {}, at="")
        ctx.note("/capabilities", "lossy", f"capabilities {show(value)} is not an object: replaced by {{}}")


def _move_top_level_extensions(card: Any, ctx: Context) -> None:
    extensions = card.get("extensions")
    if not isinstance(extensions, list) or not all(
        isinstance(item, Mapping) and isinstance(item.get("uri"), str) for item in extensions
    ):
        return  # not A2A extensions: left for the vendor-member report
    target = card["capabilities"].get("extensions")
    merged = (list(target) if isinstance(target, list) else []) + list(extensions)
    ctx.remove(card, "extensions", at="")
    ctx.set(card["capabilities"], "extensions", merged, at="/capabilities")
    ctx.note("/extensions", "assumed", "top-level extensions moved to capabilities.extensions, where both versions define them")


def up(card: Any, ctx: Context) -> None:
    """Make ``capabilities`` an object and gather extensions into it."""
    _ensure_object(card, ctx)
    _move_top_level_extensions(card, ctx)


def down(card: Any, ctx: Context) -> None:
    """0.3 requires the object too."""
    _ensure_object(card, ctx)


# -- for ``a2a-migrate transforms capabilities_shape`` (issue 13) --
#: Where the spec says what this transform implements.
SPEC = "v0.3 schema AgentCard.required; a2a.proto AgentCard.capabilities"
#: A card fragment whose upgrade shows what the transform does.
EXAMPLE = {
    "name": "Echo",
    "capabilities": [
        "streaming"
    ]
}
