"""``capabilities.stateTransitionHistory`` is removed in 1.0.

Commit c768a44d (#1396): "Removes the state_transition_history field from
AgentCapabilities message as it has no corresponding API implementation". A
strict ProtoJSON parser rejects the member, so it is dropped with a lossy
note that gives the value it had.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any

from a2a_migrate import edit
from a2a_migrate.context import Context


def up(card: Any, ctx: Context) -> None:
    """Drop the flag."""
    capabilities = card.get("capabilities")
    if isinstance(capabilities, MutableMapping) and "stateTransitionHistory" in capabilities:
        value = edit.remove(capabilities, "stateTransitionHistory")
        ctx.note("/capabilities/stateTransitionHistory", "lossy",
                 f"stateTransitionHistory ({value!r}) dropped: 1.0 removed it (it had no API)")


def down(card: Any, ctx: Context) -> None:
    """Nothing to restore: 1.0 cannot say it, and 0.3 treats it as optional."""
