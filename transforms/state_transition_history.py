"""``capabilities.stateTransitionHistory`` is removed in 1.0.

Commit c768a44d (#1396): "Removes the state_transition_history field from
AgentCapabilities message as it has no corresponding API implementation". A
strict ProtoJSON parser rejects the member, so it is dropped. ``true`` is a
lossy note (the card promised a history 1.0 cannot declare); ``false`` is an
info note: 1.0 not declaring it says the same.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any

from a2a_migrate.context import Context, show, stated


#: Every edit goes through the context, which records it as a patch operation (see engine.run).
RECORDS_EDITS = True


def up(card: Any, ctx: Context) -> None:
    """Drop the flag."""
    capabilities = card.get("capabilities")
    if isinstance(capabilities, MutableMapping) and "stateTransitionHistory" in capabilities:
        value = ctx.remove(capabilities, "stateTransitionHistory", at="/capabilities")
        if value is True:
            ctx.note("/capabilities/stateTransitionHistory", "lossy",
                     "stateTransitionHistory true dropped: 1.0 removed it (it had no API) and cannot declare it")
        else:
            ctx.note("/capabilities/stateTransitionHistory", "lossy" if stated(value) else "info",
                     f"stateTransitionHistory {show(value)} dropped: 1.0 removed it, and not declaring it says the same")


def down(card: Any, ctx: Context) -> None:
    """Nothing to restore: 1.0 cannot say it, and 0.3 treats it as optional."""


# -- for ``a2a-migrate transforms state_transition_history`` (issue 13) --
#: Where the spec says what this transform implements.
SPEC = "commit c768a44d (#1396)"
#: A card fragment whose upgrade shows what the transform does.
EXAMPLE = {
    "capabilities": {
        "streaming": True,
        "stateTransitionHistory": False
    }
}
