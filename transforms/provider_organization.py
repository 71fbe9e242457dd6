"""Provider: ``organization`` and ``url`` are required.

``AgentProvider.organization`` and ``url`` are REQUIRED in v1.0
``a2a.proto`` and required by the v0.3 schema (v0.1 made ``url`` optional).
Cards that say ``name`` for the organization get it renamed; a provider given
as a bare string becomes ``{organization}``. A provider with no URL needs a
person: it is refused with an error.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any

from a2a_migrate import edit
from a2a_migrate.context import Context


def _repair(card: Any, ctx: Context) -> None:
    provider = card.get("provider")
    if provider is None:
        return
    if isinstance(provider, str):
        card["provider"] = provider = {"organization": provider}
        ctx.note("/provider", "assumed", "provider given as a string: written as provider.organization")
    if not isinstance(provider, MutableMapping):
        ctx.note("/provider", "error", f"provider {provider!r} is not an object")
        return
    if "organization" not in provider and isinstance(provider.get("name"), str):
        edit.rename(provider, "name", "organization")
        ctx.note("/provider/name", "assumed", "provider.name written as provider.organization")
    for member in ("organization", "url"):
        if not isinstance(provider.get(member), str) or not provider[member].strip():
            ctx.note(f"/provider/{member}", "error", f"provider.{member} is required: add it, or remove provider")


def up(card: Any, ctx: Context) -> None:
    """Repair the provider object or refuse it."""
    _repair(card, ctx)


def down(card: Any, ctx: Context) -> None:
    """0.3 requires the same members."""
    _repair(card, ctx)
