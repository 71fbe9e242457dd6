"""Provider: ``organization`` and ``url`` are required.

``AgentProvider.organization`` and ``url`` are REQUIRED in v1.0
``a2a.proto`` and required by the v0.3 schema (v0.1 made ``url`` optional).
Cards that say ``name`` for the organization get it renamed; a provider given
as a bare string becomes ``{organization}``. A provider that is still not
valid (no URL, the commonest case) cannot be carried: it is dropped with a
lossy note, unless ``--default-provider-url`` supplies the URL.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any

from a2a_migrate import edit
from a2a_migrate.context import Context, show


#: Every edit goes through the context, which records it as a patch operation (see engine.run).
RECORDS_EDITS = True


def _repair(card: Any, ctx: Context) -> None:
    provider = card.get("provider")
    if provider is None:
        return
    if isinstance(provider, str):
        provider = {"organization": provider}
        ctx.set(card, "provider", provider, at="")
        ctx.note("/provider", "assumed", "provider given as a string: written as provider.organization")
    if isinstance(provider, MutableMapping):
        _complete(provider, ctx)
    if not _valid(provider):
        ctx.remove(card, "provider", at="")
        ctx.note("/provider", "lossy", f"provider {show(provider)} dropped: it needs a non-empty organization and url "
                                       "(pass --default-provider-url to keep one that has no url)")


def _complete(provider: MutableMapping[str, Any], ctx: Context) -> None:
    if "organization" not in provider and isinstance(provider.get("name"), str):
        ctx.rename(provider, "name", "organization", at="/provider")
        ctx.note("/provider/name", "assumed", "provider.name written as provider.organization")
    default = ctx.options.default_provider_url
    if default is not None and not _text(provider.get("url")) and _text(provider.get("organization")):
        old = provider.get("url")
        if "url" in provider:
            ctx.set(provider, "url", default, at="/provider")
        else:
            ctx.insert_at(provider, edit.position(provider, "organization") + 1, "url", default, at="/provider")
        ctx.filled("/provider/url", "provider.url", old, default, "--default-provider-url")


def _valid(provider: Any) -> bool:
    return isinstance(provider, Mapping) and _text(provider.get("organization")) and _text(provider.get("url"))


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def up(card: Any, ctx: Context) -> None:
    """Repair the provider object or refuse it."""
    _repair(card, ctx)


def down(card: Any, ctx: Context) -> None:
    """0.3 requires the same members."""
    _repair(card, ctx)


# -- for ``a2a-migrate transforms provider_organization`` (issue 13) --
#: Where the spec says what this transform implements.
SPEC = "a2a.proto AgentProvider (organization, url REQUIRED)"
#: A card fragment whose upgrade shows what the transform does.
EXAMPLE = {
    "provider": {
        "name": "Example Inc.",
        "url": "https://example.com"
    }
}
