"""``supportsAuthenticatedExtendedCard`` becomes ``capabilities.extendedAgentCard``.

whats-new-v1 (v1.0.1): "supportsAuthenticatedExtendedCard: Moved to
capabilities.extendedAgentCard". Pre-1.0 drafts (commit c1968243, #1222) used
the interim top-level name ``supportsExtendedAgentCard``; spec v1.0 App. A.2.2
calls it the legacy structure, so it is read too.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any

from a2a_migrate import edit
from a2a_migrate.context import Context, show


#: Every edit goes through the context, which records it as a patch operation (see engine.run).
RECORDS_EDITS = True

_LEGACY = ("supportsAuthenticatedExtendedCard", "supportsExtendedAgentCard")


def up(card: Any, ctx: Context) -> None:
    """Move the flag into capabilities (the 1.0 value wins in a hybrid card)."""
    capabilities = card.get("capabilities")
    if not isinstance(capabilities, MutableMapping):
        return
    for name in _LEGACY:
        if name not in card:
            continue
        value = ctx.remove(card, name, at="")
        if "extendedAgentCard" in capabilities:
            same = capabilities["extendedAgentCard"] == value
            ctx.note(f"/{name}", "info" if same else "lossy",
                     f"{name} dropped: capabilities.extendedAgentCard is already set"
                     + ("" if same else f" to {show(capabilities['extendedAgentCard'])}, not {show(value)}"))
            continue
        ctx.set(capabilities, "extendedAgentCard", value, at="/capabilities")
        ctx.note(f"/{name}", "info", f"{name} moved to capabilities.extendedAgentCard")


def down(card: Any, ctx: Context) -> None:
    """Move the flag back to the top level, where 0.3 reads it."""
    capabilities = card.get("capabilities")
    if not isinstance(capabilities, MutableMapping) or "extendedAgentCard" not in capabilities:
        return
    value = ctx.remove(capabilities, "extendedAgentCard", at="/capabilities")
    if ctx.options.hybrid:
        ctx.set(capabilities, "extendedAgentCard", value, at="/capabilities")
    ctx.insert_at(card, edit.position(card, "capabilities") + 1, "supportsAuthenticatedExtendedCard", value, at="")
    ctx.note("/capabilities/extendedAgentCard", "info", "capabilities.extendedAgentCard moved to supportsAuthenticatedExtendedCard")


# -- for ``a2a-migrate transforms extended_agent_card`` (issue 13) --
#: Where the spec says what this transform implements.
SPEC = "whats-new-v1: capabilities.extendedAgentCard; spec v1.0 App. A.2.2"
#: A card fragment whose upgrade shows what the transform does.
EXAMPLE = {
    "capabilities": {},
    "supportsAuthenticatedExtendedCard": True
}
