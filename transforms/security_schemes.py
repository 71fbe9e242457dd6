"""Security schemes: the 0.3 ``type`` discriminator becomes a oneof wrapper member.

v1.0 ``a2a.proto``: ``SecurityScheme { oneof scheme { APIKeySecurityScheme
api_key_security_scheme = 1; ... MutualTlsSecurityScheme mtls_security_scheme
= 5; } }``, serialized by ProtoJSON as ``{"apiKeySecurityScheme": {...}}``
(spec-mapping section 5.1, confirmed by the spec's section 8.5 sample). The
apiKey member ``in`` is ``location`` in 1.0. Names are unchanged.

Invented ``type`` words with one obvious meaning (``bearer``, ``oauth``) are
read as the scheme they mean; ``none``/``public`` mean no authentication and
the scheme is removed (requirements naming it then need nothing); anything
else is refused.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any

from a2a_migrate import edit, requirements
from a2a_migrate.cardtree import HTTP_WORDS, NO_AUTH_WORDS, SCHEME_TYPE_WORDS, SCHEME_WRAPPERS, WRAPPER_TYPES
from a2a_migrate.context import Context, show, stated
from a2a_migrate.pointer import join


#: Every edit goes through the context, which records it as a patch operation (see engine.run).
RECORDS_EDITS = True

#: Members that a 0.3 scheme object has beside ``type``, renamed for 1.0.
_RENAMED_UP = {"in": "location"}
_RENAMED_DOWN = {"location": "in"}
#: Members a 0.3 scheme object may carry (v0.3 schema, all five kinds).
_LEGACY_MEMBERS = frozenset({"type", "in", "name", "description", "scheme", "bearerFormat", "flows",
                             "oauth2MetadataUrl", "openIdConnectUrl"})


def _wrap(scheme: Mapping[str, Any], pointer: str, ctx: Context) -> dict[str, Any] | None:
    """The 1.0 form of a 0.3 scheme object, or None when its type means nothing."""
    raw = scheme.get("type")
    word = raw.strip().lower() if isinstance(raw, str) else ""
    body = edit.renamed_copy(scheme, _RENAMED_UP, drop=["type"])
    if word in HTTP_WORDS:
        body.setdefault("scheme", HTTP_WORDS[word])
        ctx.note(join(pointer, "type"), "assumed", f"type {show(raw)} read as HTTP {HTTP_WORDS[word]} authentication")
        return edit.like(scheme, [(SCHEME_WRAPPERS["http"], body)])
    type_ = SCHEME_TYPE_WORDS.get(word)
    if type_ is None:
        return None
    if type_ != raw:
        ctx.note(join(pointer, "type"), "assumed", f"type {show(raw)} read as {show(type_)}")
    ctx.note(join(pointer, "type"), "info", f"type {show(type_)} written as the {SCHEME_WRAPPERS[type_]} member")
    return edit.like(scheme, [(SCHEME_WRAPPERS[type_], body)])


def _strip_legacy(scheme: Any, wrapper: str, pointer: str, ctx: Context) -> None:
    """A hybrid entry carries 0.3 members beside the wrapper: fold them into it.

    A member the wrapper lacks moves in (``bearerFormat`` beside
    ``httpAuthSecurityScheme``); one that repeats it goes; one that says
    otherwise goes with a lossy note (the 1.0 member wins, as 1.0 readers see it).
    """
    body = scheme[wrapper]
    legacy = [key for key in scheme if key != wrapper and key in _LEGACY_MEMBERS]
    for key in legacy:
        value, name = ctx.remove(scheme, key, at=pointer), _RENAMED_UP.get(key, key)
        where = join(pointer, key)
        if key == "type":
            same = SCHEME_TYPE_WORDS.get(str(value).strip().lower()) == WRAPPER_TYPES[wrapper]
            ctx.note(where, "info" if same else "lossy", f"0.3 type {show(value)} dropped beside {wrapper}")
        elif name not in body and isinstance(body, MutableMapping):
            ctx.set(body, name, value, at=join(pointer, wrapper))
            ctx.note(where, "assumed", f"0.3 member {key} moved into {wrapper} as {name}")
        elif body.get(name) == value:
            ctx.note(where, "info", f"0.3 member {key} dropped beside {wrapper}: it repeats {name}")
        else:
            ctx.note(where, "lossy", f"0.3 member {key} ({show(value)}) dropped: {wrapper}.{name} says {show(body.get(name))}")


def _remove_no_auth(card: Any, name: str, pointer: str, ctx: Context) -> None:
    scheme = ctx.pop(card["securitySchemes"], name, at="/securitySchemes")
    requirements.rewrite(card, lambda schemes: [{k: v for k, v in schemes.items() if k != name}], ctx)
    ctx.note(pointer, "info", "this scheme means no authentication: removed, and requirements naming it need nothing")
    for key, value in scheme.items():
        if key != "type" and stated(value):
            ctx.note(join(pointer, key), "lossy", f"{key} {show(value)} dropped: "
                                                  "1.0 has no place to describe the absence of authentication")


def up(card: Any, ctx: Context) -> None:
    """Write every scheme as its 1.0 wrapper member."""
    schemes = card.get("securitySchemes")
    if schemes is None:
        return
    if not isinstance(schemes, MutableMapping):
        ctx.note("/securitySchemes", "error", "securitySchemes is not an object")
        return
    for name, scheme in list(schemes.items()):
        pointer = join("/securitySchemes", name)
        if not isinstance(scheme, Mapping):
            ctx.note(pointer, "error", f"scheme {show(scheme)} is not an object")
            continue
        wrappers = [key for key in scheme if key in WRAPPER_TYPES]
        if len(wrappers) > 1:
            ctx.note(pointer, "error", f"scheme has {len(wrappers)} kinds at once ({', '.join(wrappers)}); 1.0 allows one")
        elif wrappers:
            _strip_legacy(scheme, wrappers[0], pointer, ctx)
        elif isinstance(scheme.get("type"), str) and scheme["type"].strip().lower() in NO_AUTH_WORDS:
            _remove_no_auth(card, name, pointer, ctx)
        else:
            wrapped = _wrap(scheme, pointer, ctx)
            if wrapped is None:
                ctx.note(join(pointer, "type"), "error",
                         f"scheme type {show(scheme.get('type'))} is none of {', '.join(SCHEME_WRAPPERS)}: describe it by hand")
            else:
                ctx.set(schemes, name, wrapped, at="/securitySchemes")


def _unwrap(scheme: Mapping[str, Any], wrapper: str, hybrid: bool) -> Any:
    flat = edit.renamed_copy(scheme[wrapper], _RENAMED_DOWN)  # keeps YAML comments, renamed keys too
    edit.insert_at(flat, 0, "type", WRAPPER_TYPES[wrapper])
    if hybrid:
        edit.insert_at(flat, 0, wrapper, scheme[wrapper])
    return flat


def down(card: Any, ctx: Context) -> None:
    """Write every wrapper member back as a 0.3 scheme with ``type``."""
    schemes = card.get("securitySchemes")
    if not isinstance(schemes, MutableMapping):
        return
    for name, scheme in list(schemes.items()):
        if not isinstance(scheme, Mapping):
            continue
        wrappers = [key for key in scheme if key in WRAPPER_TYPES]
        if len(wrappers) == 1 and isinstance(scheme[wrappers[0]], Mapping):
            # A hybrid input's 0.3 members beside the wrapper: folded in as on the way up, never lost unsaid.
            _strip_legacy(scheme, wrappers[0], join("/securitySchemes", name), ctx)
            ctx.set(schemes, name, _unwrap(scheme, wrappers[0], ctx.options.hybrid), at="/securitySchemes")
            ctx.note(join("/securitySchemes", name, wrappers[0]), "info",
                     f"{wrappers[0]} written as type {show(WRAPPER_TYPES[wrappers[0]])}")


# -- for ``a2a-migrate transforms security_schemes`` (issue 13) --
#: Where the spec says what this transform implements.
SPEC = "a2a.proto SecurityScheme oneof; spec-mapping section 5.1"
#: A card fragment whose upgrade shows what the transform does.
EXAMPLE = {
    "securitySchemes": {
        "key": {
            "type": "apiKey",
            "in": "header",
            "name": "X-API-Key"
        }
    }
}
