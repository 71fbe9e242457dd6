"""v0.1 ``authentication`` becomes ``securitySchemes`` and ``security``.

v0.1.0's JSON Schema had ``authentication: {schemes: string[], credentials?}``;
v0.2.0 replaced it with OpenAPI-style ``securitySchemes`` plus ``security``
(spec-mapping section 8.1). No normative mapping exists, and no 0.3 client
could read the old object, so the mapping carries what the card states to the
place that means it, and reports the rest:

* Each scheme (a word such as ``"bearer"``, or an object with ``type``) becomes
  a 0.3 scheme: HTTP ``Bearer``/``Basic`` (``jwt`` is a Bearer token in JWT
  format), an API key in the location and under the name the card gives (a
  header ``X-API-Key`` only where the card names none: assumed), OAuth2 with a
  client-credentials flow where the card says ``oauth2`` and gives a token URL.
  ``description``, ``bearerFormat`` and ``requiredScopes`` are carried; any
  other member is dropped with a ``lossy`` note quoting it.
* ``none``/``public`` and ``required: false`` mean no authentication: an
  alternative that needs nothing (``info``).
* ``x402`` is no security scheme but the A2A x402 payments extension: it is
  declared in ``capabilities.extensions`` with ``required: true`` (assumed
  note naming the URI).
* A scheme with no machine-readable form (``writeKey``, a wallet signature) is
  dropped with a ``lossy`` note: the card never said it in a form any 0.3
  client could read, so nothing a client relied on is misstated.

The result is in the 0.3 shape; the security transforms later in the chain
take it to 1.0.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from a2a_migrate import edit
from a2a_migrate.cardtree import HTTP_WORDS, NO_AUTH_WORDS, SCHEME_TYPE_WORDS
from a2a_migrate.context import Context, show, stated
from a2a_migrate.pointer import join

#: The x402 payments extension (google-agentic-commerce/a2a-x402, spec v0.2, section 2).
X402_URI = "https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2"
PAYMENT_WORDS = frozenset({"x402"})
#: Names the list of schemes goes by.
_LIST_MEMBERS = ("schemes", "methods")
#: Members of the authentication object that this transform reads itself.
_READ_MEMBERS = frozenset({*_LIST_MEMBERS, "credentials", "required", "description"})
#: Members of one scheme object that this transform carries (by kind, below).
_WORD_MEMBERS = ("type", "scheme", "name")
_TOKEN_URLS = ("tokenUrl", "tokenEndpoint", "token_url", "token_endpoint")
DEFAULT_HEADER = "X-API-Key"


#: Every edit goes through the context, which records it as a patch operation (see engine.run).
RECORDS_EDITS = True


@dataclass
class _Mapped:
    """What the authentication object says, in 0.3 terms."""

    schemes: dict[str, Any] = field(default_factory=dict)
    scopes: dict[str, list[str]] = field(default_factory=dict)
    anonymous: bool = False
    payment: list[tuple[str, Any]] = field(default_factory=list)  # (pointer, the entry)


def _word(entry: Any) -> str | None:
    if isinstance(entry, str):
        return entry
    if isinstance(entry, Mapping):
        for key in _WORD_MEMBERS:
            if isinstance(entry.get(key), str):
                return str(entry[key])
    return None


def _drop_rest(entry: Any, kept: set[str], pointer: str, why: str, ctx: Context) -> None:
    """A lossy note for each member of ``entry`` not in ``kept`` that states something."""
    if not isinstance(entry, Mapping):
        return
    for key, value in entry.items():
        if key not in kept and stated(value):
            ctx.note(join(pointer, key), "lossy", f"{key} {show(value)} dropped: {why}")


def _http(entry: Any, word: str, pointer: str, ctx: Context) -> dict[str, Any]:
    scheme: dict[str, Any] = {"type": "http", "scheme": HTTP_WORDS[word]}
    kept = {"type", "description", "bearerFormat", "requiredScopes"}
    fields = entry if isinstance(entry, Mapping) else {}
    stated = fields.get("scheme")
    if isinstance(stated, str) and stated.strip().lower() in HTTP_WORDS:
        kept.add("scheme")
        scheme["scheme"] = HTTP_WORDS[stated.strip().lower()]
    bearer_format = fields.get("bearerFormat") or ("JWT" if "jwt" in (word, str(stated).lower()) else None)
    if bearer_format and scheme["scheme"] == "Bearer":
        scheme["bearerFormat"] = bearer_format
    if isinstance(fields.get("description"), str):
        scheme["description"] = fields["description"]
    _drop_rest(entry, kept, pointer, "an HTTP authentication scheme has no place for it "
                                     "(its credentials always go in the Authorization header)", ctx)
    return scheme


def _api_key(entry: Any, pointer: str, ctx: Context) -> dict[str, Any]:
    fields = entry if isinstance(entry, Mapping) else {}
    location = fields.get("in") or fields.get("location")
    name = fields.get("name") if isinstance(fields.get("type"), str) else None  # {"name": "apiKey"} names the kind
    if not isinstance(location, str) or location not in ("header", "query", "cookie"):
        if location is not None:
            ctx.note(join(pointer, "in"), "lossy", f"API key location {show(location)} is none of header, query, cookie")
        location = "header"
        ctx.note(pointer, "assumed", "API key location not given: header assumed")
    if not isinstance(name, str) or not name.strip():
        name = DEFAULT_HEADER
        ctx.note(pointer, "assumed", f"API key name not given: {DEFAULT_HEADER} assumed, check it")
    scheme: dict[str, Any] = {"type": "apiKey", "in": location, "name": name}
    if isinstance(fields.get("description"), str):
        scheme["description"] = fields["description"]
    _drop_rest(entry, {"type", "in", "location", "name", "description", "requiredScopes"}, pointer,
               "an API key scheme has no place for it", ctx)
    return scheme


def _oauth2(entry: Any, pointer: str, ctx: Context) -> dict[str, Any] | None:
    fields = entry if isinstance(entry, Mapping) else {}
    token_key = next((key for key in _TOKEN_URLS if isinstance(fields.get(key), str)), None)
    if token_key is None:
        return None  # an OAuth2 word with no token URL: no flow can be written
    scopes = _scopes(entry, "scopes", pointer, ctx)  # requiredScopes: read by _map_entry for the requirement
    scheme: dict[str, Any] = {"type": "oauth2", "flows": {"clientCredentials": {
        "tokenUrl": fields[token_key], "scopes": {scope: "" for scope in scopes}}}}
    if isinstance(fields.get("description"), str):
        scheme["description"] = fields["description"]
    ctx.note(join(pointer, token_key), "assumed", "token URL written as an OAuth2 client-credentials flow")
    _drop_rest(entry, {"type", "description", token_key, "requiredScopes", "scopes"}, pointer,
               "an OAuth2 scheme has no place for it", ctx)
    return scheme


def _scheme(entry: Any, word: str, pointer: str, ctx: Context) -> tuple[str, dict[str, Any]] | None:
    """The 0.3 scheme an entry states, with the name it gets, or None when it has no form."""
    lowered = word.strip().lower()
    if lowered in HTTP_WORDS:
        return HTTP_WORDS[lowered].lower(), _http(entry, lowered, pointer, ctx)
    kind = SCHEME_TYPE_WORDS.get(lowered)
    if kind == "apiKey":
        return "apiKey", _api_key(entry, pointer, ctx)
    if kind == "oauth2":
        oauth = _oauth2(entry, pointer, ctx)
        return ("oauth2", oauth) if oauth is not None else None
    return None


def _scopes(entry: Any, key: str, pointer: str, ctx: Context) -> list[str]:
    """The scope names ``entry[key]`` lists; anything else there is reported lost."""
    value = entry.get(key) if isinstance(entry, Mapping) else None
    if value is None:
        return []
    if not isinstance(value, list):
        ctx.note(join(pointer, key), "lossy", f"{key} {show(value)} dropped: it is no list of scope names")
        return []
    for index, item in enumerate(value):
        if not isinstance(item, str):
            ctx.note(join(pointer, key, index), "lossy", f"scope {show(item)} dropped: a scope is a name")
    return [item for item in value if isinstance(item, str)]


def _unique(name: str, taken: Mapping[str, Any]) -> str:
    number = 2
    unique = name
    while unique in taken:
        unique, number = f"{name}{number}", number + 1
    return unique


def _map_entry(entry: Any, pointer: str, mapped: _Mapped, ctx: Context) -> None:
    word = _word(entry)
    lowered = word.strip().lower() if word is not None else ""
    if lowered in NO_AUTH_WORDS:
        mapped.anonymous = True
        ctx.note(pointer, "info", f"{show(word)} means no authentication: an alternative that needs nothing")
        _drop_rest(entry, {"type", "scheme", "name"}, pointer, "1.0 has no place to describe the absence of authentication", ctx)
        return
    if lowered in PAYMENT_WORDS:
        mapped.payment.append((pointer, entry))
        return
    found = _scheme(entry, word, pointer, ctx) if word is not None else None
    if found is None:
        ctx.note(pointer, "lossy", f"v0.1 scheme {show(entry)} has no security-scheme form any version defines: dropped "
                                   "(describe it in securitySchemes by hand if clients need it)")
        return
    name, scheme = found
    name = _unique(name, mapped.schemes)
    mapped.schemes[name] = scheme
    mapped.scopes[name] = _scopes(entry, "requiredScopes", pointer, ctx)
    if name.startswith("oauth2"):  # the scopes a requirement asks are defined by the flow
        flow = scheme["flows"]["clientCredentials"]["scopes"]
        flow.update({scope: "" for scope in mapped.scopes[name] if scope not in flow})


def _entries(auth: Any) -> list[tuple[str, Any]] | None:
    """``(pointer, entry)`` for every scheme the object lists, or None when it lists none."""
    if not isinstance(auth, Mapping):
        return None
    for member in _LIST_MEMBERS:
        listed = auth.get(member)
        if isinstance(listed, str):
            listed = [listed]
        if isinstance(listed, list):
            return [(join("/authentication", member, index), entry) for index, entry in enumerate(listed)]
    if _word(auth) is not None:  # {"type": "bearer", ...}: one scheme described in place
        return [("/authentication", auth)]
    return [] if auth.get("required") is False else None


def _declare_payment(card: Any, payment: list[tuple[str, Any]], ctx: Context) -> None:
    """x402 is a payments extension of A2A, declared where extensions are, and required."""
    if not payment:
        return
    capabilities = card.get("capabilities")
    if not isinstance(capabilities, MutableMapping):
        for pointer, entry in payment:
            ctx.note(pointer, "lossy", f"{show(entry)} dropped: the card has no capabilities object to declare it in")
        return
    if "extensions" not in capabilities:
        ctx.set(capabilities, "extensions", [], at="/capabilities")
    extensions = capabilities["extensions"]
    for pointer, entry in payment:
        declared = any(isinstance(ext, Mapping) and "x402" in str(ext.get("uri", "")) for ext in extensions)
        if declared:
            ctx.note(pointer, "info", "x402 payments: the card already declares the x402 extension")
            continue
        extension: dict[str, Any] = {"uri": X402_URI, "required": True}
        if isinstance(entry, Mapping) and isinstance(entry.get("description"), str):
            extension["description"] = entry["description"]
        ctx.append(extensions, extension, at="/capabilities/extensions")
        ctx.note(pointer, "assumed", f"x402 is the A2A payments extension, not a security scheme: declared as the "
                                     f"required extension {X402_URI}")
        _drop_rest(entry, {"type", "scheme", "name", "description"}, pointer, "the extension declaration has no place for it", ctx)


def _carry_description(auth: Mapping[str, Any], mapped: _Mapped, ctx: Context) -> None:
    """The object's own description goes on its one scheme; with several or none it is lost."""
    description = auth.get("description")
    if not isinstance(description, str) or not description.strip() or _word(auth) is not None:
        return  # a scheme described in place carries its description itself
    if len(mapped.schemes) == 1:
        scheme = next(iter(mapped.schemes.values()))
        if "description" not in scheme:
            scheme["description"] = description
            return
    ctx.note("/authentication/description", "lossy",
             f"description {show(description)} dropped: no single scheme to carry it")


def _report_leftovers(auth: Mapping[str, Any], ctx: Context) -> None:
    if _word(auth) is not None:
        return  # described in place: the scheme mapping reported its members
    credentials = auth.get("credentials")
    if credentials not in (None, "", {}):
        ctx.note("/authentication/credentials", "lossy",
                 f"credentials {show(credentials)} dropped: later versions have no place for them")
    _drop_rest(auth, set(_READ_MEMBERS), "/authentication", "later versions have no place for it", ctx)


def up(card: Any, ctx: Context) -> None:
    """Map the v0.1 object onto security schemes, carrying what each scheme states."""
    if "authentication" not in card:
        return
    auth = card["authentication"]
    entries = _entries(auth)
    if entries is None:
        ctx.remove(card, "authentication", at="")
        ctx.note("/authentication", "lossy", f"authentication {show(auth)} lists no schemes: dropped "
                                             "(describe it in securitySchemes by hand)")
        return
    if isinstance(card.get("securitySchemes"), Mapping) and card["securitySchemes"]:
        ctx.remove(card, "authentication", at="")
        ctx.note("/authentication", "lossy", "v0.1 authentication dropped: the card already has securitySchemes")
        return
    mapped = _Mapped(anonymous=isinstance(auth, Mapping) and auth.get("required") is False)
    if mapped.anonymous:
        ctx.note("/authentication/required", "info", "required: false means no authentication is needed")
    for pointer, entry in entries:
        _map_entry(entry, pointer, mapped, ctx)
    _carry_description(auth, mapped, ctx)
    _report_leftovers(auth, ctx)
    _declare_payment(card, mapped.payment, ctx)
    _write(card, mapped, ctx)


def _write(card: Any, mapped: _Mapped, ctx: Context) -> None:
    if "security" in card and mapped.schemes:
        ctx.remove(card, "authentication", at="")
        ctx.note("/authentication", "lossy", "v0.1 authentication dropped: the card already has a security member")
        return
    if not mapped.schemes:
        ctx.remove(card, "authentication", at="")
        return
    # Each listed scheme is an alternative; "none" beside them is the alternative that needs nothing.
    security: list[dict[str, Any]] = [{name: mapped.scopes.get(name, [])} for name in mapped.schemes]
    if mapped.anonymous:
        security.append({})
    ctx.replace(card, ["authentication"], "securitySchemes", mapped.schemes, at="")
    ctx.insert_at(card, edit.position(card, "securitySchemes") + 1, "security", security, at="")
    ctx.note("/authentication", "info", f"v0.1 authentication written as securitySchemes {', '.join(mapped.schemes)} "
                                        "(any one accepted)")


def down(card: Any, ctx: Context) -> None:
    """Nothing to do: 0.3 has no v0.1 authentication object."""


# -- for ``a2a-migrate transforms legacy_authentication`` (issue 13) --
#: Where the spec says what this transform implements.
SPEC = "v0.1 authentication, spec-mapping section 8.1"
#: A card fragment whose upgrade shows what the transform does.
EXAMPLE = {
    "authentication": {
        "schemes": [
            "bearer"
        ]
    }
}
