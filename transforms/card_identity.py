"""Card identity: ``name``, ``description`` and ``version`` must be present.

Spec v1.0 ``a2a.proto`` marks ``AgentCard.name``, ``description`` and
``version`` REQUIRED (as does the v0.3 JSON Schema). The tool never invents
identity: a missing member is an error unless the user supplies it with
``--default-name``, ``--default-description`` or ``--default-version``.
"""

from __future__ import annotations

import datetime
from typing import Any

from a2a_migrate.context import Context, show


#: Every edit goes through the context, which records it as a patch operation (see engine.run).
RECORDS_EDITS = True

_MEMBERS = (
    ("name", "default_name", "--default-name"),
    ("description", "default_description", "--default-description"),
    ("version", "default_version", "--default-version"),
)


def _check(card: Any, ctx: Context) -> None:
    for member, option, flag in _MEMBERS:
        value = card.get(member)
        if isinstance(value, str) and value.strip():
            continue
        if isinstance(value, (int, float, datetime.date)) and not isinstance(value, bool) and member == "version":
            # a YAML reader turns `version: 2024-01-01` or `version: 1.2` into a date or a number
            ctx.set(card, member, str(value), at="")
            ctx.note(f"/{member}", "assumed", f"version {value} written as the string {show(str(value))}")
            continue
        default = getattr(ctx.options, option)
        if default is not None:
            ctx.set(card, member, default, at="")
            ctx.filled(f"/{member}", member, value, default, flag)
        else:
            what = "is missing" if value is None else f"is {show(value)}, not a non-empty string"
            ctx.note(f"/{member}", "error", f"{member} {what}; the tool does not invent it: pass {flag}")


def up(card: Any, ctx: Context) -> None:
    """Refuse a card with no identity, or fill it from the options."""
    _check(card, ctx)


def down(card: Any, ctx: Context) -> None:
    """The same members are required in 0.3."""
    _check(card, ctx)


# -- for ``a2a-migrate transforms card_identity`` (issue 13) --
#: Where the spec says what this transform implements.
SPEC = "a2a.proto AgentCard name, description, version REQUIRED"
#: A card fragment whose upgrade shows what the transform does.
EXAMPLE = {
    "name": "Echo",
    "description": "Echoes text."
}
