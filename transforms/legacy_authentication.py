"""v0.1 ``authentication`` becomes ``securitySchemes`` and ``security``.

v0.1.0's JSON Schema had ``authentication: {schemes: string[], credentials?}``;
v0.2.0 replaced it with OpenAPI-style ``securitySchemes`` plus ``security``
(spec-mapping section 8.1). No normative mapping exists, so only names with
one obvious meaning are mapped: ``bearer`` and ``basic`` (HTTP auth), API keys
(sent in a header) and ``none`` (no authentication). Anything else needs a
person and is refused. The result is in the 0.3 shape; the security
transforms later in the chain take it to 1.0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from a2a_migrate import edit
from a2a_migrate.context import Context

_HTTP = {"bearer": "Bearer", "jwt": "Bearer", "basic": "Basic"}
_API_KEY = {"apikey", "api_key", "api-key", "x-api-key"}
_NONE = {"none", "public", "anonymous"}


def _scheme_word(entry: Any) -> str | None:
    if isinstance(entry, str):
        return entry
    if isinstance(entry, Mapping):
        for key in ("scheme", "type", "name"):
            if isinstance(entry.get(key), str):
                return str(entry[key])
    return None


def _scheme_for(word: str) -> tuple[str, dict[str, Any]] | None:
    lowered = word.strip().lower()
    if lowered in _HTTP:
        return lowered, {"type": "http", "scheme": _HTTP[lowered]}
    if lowered in _API_KEY:
        return "apiKey", {"type": "apiKey", "in": "header", "name": "X-API-Key"}
    return None


def up(card: Any, ctx: Context) -> None:
    """Map the v0.1 object onto security schemes, or refuse what is unclear."""
    auth = card.get("authentication")
    if auth is None:
        return
    words = auth.get("schemes") if isinstance(auth, Mapping) else None
    if words is None and isinstance(auth, Mapping) and _scheme_word(auth) is not None:
        words = [auth]  # {"type": "bearer", ...}: one scheme described in place
    if not isinstance(words, list):
        ctx.note("/authentication", "error", "authentication has no schemes list: describe it in securitySchemes by hand")
        return
    if isinstance(card.get("securitySchemes"), Mapping) and card["securitySchemes"]:
        edit.remove(card, "authentication")
        ctx.note("/authentication", "lossy", "v0.1 authentication dropped: the card already has securitySchemes")
        return
    if "security" in card:
        ctx.note("/security", "error", "authentication cannot be mapped: the card already has a security member")
        return
    schemes: dict[str, Any] = {}
    anonymous = False
    for index, entry in enumerate(words):
        word = _scheme_word(entry)
        if word is not None and word.strip().lower() in _NONE:
            ctx.note(f"/authentication/schemes/{index}", "info", f"{word!r} means no authentication: no scheme needed")
            anonymous = True
            continue
        mapped = _scheme_for(word) if word is not None else None
        if mapped is None:
            ctx.note(f"/authentication/schemes/{index}", "error",
                     f"v0.1 scheme {entry!r} has no obvious securitySchemes form: describe it by hand")
            return
        name, scheme = mapped
        schemes[name] = scheme
        if name == "apiKey":
            ctx.note(f"/authentication/schemes/{index}", "assumed", "API key assumed to be sent in the X-API-Key header: check it")
    credentials = auth.get("credentials") if isinstance(auth, Mapping) else None
    if credentials not in (None, "", {}):
        ctx.note("/authentication/credentials", "lossy", "v0.1 authentication.credentials has no place in later versions: dropped")
    # Each listed scheme is an alternative; "none" beside them is the alternative that needs nothing.
    security: list[dict[str, Any]] = [{name: []} for name in schemes]
    if security and anonymous:
        security.append({})
    edit.replace(card, ["authentication"], "securitySchemes", schemes)
    if security:
        edit.insert_at(card, edit.position(card, "securitySchemes") + 1, "security", security)
    if schemes:
        ctx.note("/authentication", "assumed", f"v0.1 authentication written as securitySchemes {', '.join(schemes)} (any one accepted)")
    else:
        del card["securitySchemes"]


def down(card: Any, ctx: Context) -> None:
    """Nothing to do: 0.3 has no v0.1 authentication object."""
