"""OAuth2 flows: one flow per scheme in 1.0.

v1.0 ``a2a.proto``: ``OAuthFlows { oneof flow { ... } }`` holds exactly one
flow, where a 0.3 JSON card may list several at once. The spec gives no rule
(spec-mapping section 5.2; the official SDK keeps only the last flow,
silently). Policy: a scheme with several flows is split into one scheme per
flow (the first keeps the name, the others are named ``<name>__<flow>``) and
every requirement naming it becomes one alternative per new scheme, which is
what OpenAPI's several flows meant: no flow is ever dropped. ``implicit`` and
``password`` are ``[deprecated = true]`` in 1.0 and get a warning.

Downgrade (spec-mapping sections 5.2, 5.3 and 10 step 4): ``pkceRequired`` has
no 0.3 member and is dropped; the 0.3-required members of each flow are made
present (``scopes: {}``, which 1.0 writers omit when empty). ``deviceCode``
(RFC 8628, new in 1.0) has no 0.3 form: the flow goes, and a scheme left with
no flow goes with every requirement alternative that needs it; a card or skill
whose every alternative needed it is refused rather than shown to 0.3 clients
as unauthenticated. Schemes the upgrade split (same stem, same description and
metadata URL, requirements expanded into adjacent alternatives) are merged
back into one scheme and the alternatives collapse, so that upgrade then
downgrade gives the 0.3 card back. A ``--hybrid`` card keeps the 1.0 schemes as
they are: its 0.3 face mirrors them one by one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from a2a_migrate import edit, requirements
from a2a_migrate.requirements import scopes_of
from a2a_migrate.cardtree import FLOW_NAMES
from a2a_migrate.context import Context, show
from a2a_migrate.pointer import join


#: Every edit goes through the context, which records it as a patch operation (see engine.run).
RECORDS_EDITS = True

WRAPPER = "oauth2SecurityScheme"
SEPARATOR = "__"
_DEPRECATED = ("implicit", "password")


def _oauth_body(scheme: Any) -> Any:
    body = scheme.get(WRAPPER) if isinstance(scheme, Mapping) else None
    return body if isinstance(body, Mapping) and isinstance(body.get("flows"), Mapping) else None


def _split_names(schemes: Mapping[str, Any], name: str, flows: list[str]) -> list[str]:
    names = [name]
    for flow in flows[1:]:
        candidate, number = f"{name}{SEPARATOR}{flow}", 2
        while candidate in schemes or candidate in names:
            candidate, number = f"{name}{SEPARATOR}{flow}{number}", number + 1
        names.append(candidate)
    return names


def _split(card: Any, name: str, body: Any, ctx: Context) -> None:
    schemes = card["securitySchemes"]
    flows = [flow for flow in body["flows"] if flow in FLOW_NAMES]
    names = _split_names(schemes, name, flows)
    position = edit.position(schemes, name)
    for offset, (new_name, flow) in enumerate(zip(names, flows)):
        new_body = {key: ({flow: body["flows"][flow]} if key == "flows" else value) for key, value in body.items()}
        ctx.insert_at(schemes, position + offset, new_name, {WRAPPER: new_body}, at="/securitySchemes")

    undefined: dict[str, set[str]] = {}

    def alternatives(required: dict[str, Any]) -> list[dict[str, Any]]:
        if name not in required:
            return [required]
        for new, flow in zip(names, flows):
            defined = body["flows"][flow].get("scopes") if isinstance(body["flows"][flow], Mapping) else None
            # a scope that is no string is security_requirements' to refuse; here it asks nothing
            stated = {scope for scope in scopes_of(required[name]) if isinstance(scope, str)}
            asked = stated - set(defined if isinstance(defined, Mapping) else ())
            if asked:
                undefined.setdefault(new, set()).update(asked)
        return [{(new if key == name else key): value for key, value in required.items()} for new in names]

    requirements.rewrite(card, alternatives, ctx)
    ctx.note(join("/securitySchemes", name, WRAPPER, "flows"), "assumed",
             f"{len(flows)} flows split into schemes {', '.join(names)} (1.0 allows one flow per scheme); "
             "requirements naming it now accept any of them")
    for new, scopes in undefined.items():
        # 0.3 listed the scopes once for all flows; now each alternative names its own flow.
        ctx.note(join("/securitySchemes", new), "warning",
                 f"requirements ask scopes {', '.join(sorted(scopes))} that this flow does not define: check them")


def up(card: Any, ctx: Context) -> None:
    """Split multi-flow schemes; warn about deprecated flows."""
    schemes = card.get("securitySchemes")
    if not isinstance(schemes, Mapping):
        return
    for name, scheme in list(schemes.items()):
        body = _oauth_body(scheme)
        if body is None:
            continue
        for flow in _DEPRECATED:
            if flow in body["flows"]:
                ctx.note(join("/securitySchemes", name, WRAPPER, "flows", flow), "warning",
                         f"the {flow} flow is deprecated in 1.0")
        if sum(flow in FLOW_NAMES for flow in body["flows"]) > 1:
            _split(card, name, body, ctx)


DEVICE_CODE = "deviceCode"
#: The URL members each 0.3 flow object requires beside ``scopes`` (v0.3 schema).
_REQUIRED_V03 = {
    "authorizationCode": ("authorizationUrl", "tokenUrl"),
    "clientCredentials": ("tokenUrl",),
    "implicit": ("authorizationUrl",),
    "password": ("tokenUrl",),
}
#: Members of a scheme entry that its 0.3 face (or a hybrid card) repeats from the wrapper.
_FLAT = ("type", "flows", "description", "oauth2MetadataUrl")


def _remove_alternatives(card: Any, name: str, ctx: Context) -> int:
    """Remove every requirement alternative that names ``name``; return how many went."""
    removed = 0

    def without(schemes: dict[str, Any]) -> list[dict[str, Any]]:
        nonlocal removed
        if name not in schemes:
            return [schemes]
        removed += 1
        return []

    requirements.rewrite(card, without, ctx)
    return removed


def _drop_device_code(card: Any, name: str, body: Any, ctx: Context) -> None:
    flows = body["flows"]
    if DEVICE_CODE not in flows:
        return
    pointer = join("/securitySchemes", name, WRAPPER, "flows", DEVICE_CODE)
    ctx.pop(flows, DEVICE_CODE, at=join("/securitySchemes", name, WRAPPER, "flows"))
    if any(flow in FLOW_NAMES for flow in flows):
        ctx.note(pointer, "lossy", "deviceCode flow dropped: 0.3 has no device code flow (the scheme's other flows remain)")
        return
    needing = _alternatives_naming(card, name)
    removed = _remove_alternatives(card, name, ctx)
    if ctx.options.hybrid:
        what = "0.3 clients see the scheme with no flow"
    else:
        ctx.pop(card["securitySchemes"], name, at="/securitySchemes")
        what = f"scheme {name} removed"
        pointer = join("/securitySchemes", name)  # the whole scheme is gone, not only its flow
    ctx.note(pointer, "lossy", f"the deviceCode flow (RFC 8628) has no 0.3 form: {what}, "
                               f"with the {removed} requirement alternative(s) that need it")
    for alternative in needing:
        ctx.note(alternative, "lossy", f"requirement alternative dropped: it needs scheme {name}, which 0.3 cannot express")


def _alternatives_naming(card: Any, name: str) -> list[str]:
    """The pointers of the requirement alternatives (card and skills) that name scheme ``name``."""
    found = []
    for pointer, holder in requirements.holders(card):
        for index, requirement in enumerate(holder["securityRequirements"]):
            schemes = requirement.get("schemes") if isinstance(requirement, Mapping) else None
            if isinstance(schemes, Mapping) and name in schemes:
                found.append(join(pointer, index))
    return found


def _complete_flow(flow_name: str, flow: Any, pointer: str, ctx: Context) -> None:
    """Drop ``pkceRequired``; make the members 0.3 requires present."""
    if "pkceRequired" in flow:
        value = ctx.remove(flow, "pkceRequired", at=pointer)
        ctx.note(join(pointer, "pkceRequired"), "lossy" if value else "info",
                 f"pkceRequired ({show(value)}) dropped: 0.3 cannot say it" + (", clients may not use PKCE" if value else ""))
    if "scopes" not in flow:
        ctx.insert_at(flow, len(flow), "scopes", {}, at=pointer)
        ctx.note(join(pointer, "scopes"), "info", "scopes written as {} (0.3 requires it; 1.0 writers omit an empty map)")
    elif not isinstance(flow["scopes"], Mapping):
        ctx.note(join(pointer, "scopes"), "error", "scopes is not an object of scope names and descriptions")
    for member in _REQUIRED_V03.get(flow_name, ()):
        if not isinstance(flow.get(member), str):
            ctx.note(join(pointer, member), "error", f"0.3 requires {member} in a {flow_name} flow: add it")


def _single_flow(scheme: Any) -> str | None:
    body = _oauth_body(scheme)
    flows = [flow for flow in body["flows"] if flow in FLOW_NAMES] if body is not None else []
    return flows[0] if len(flows) == 1 else None


def _signature(scheme: Mapping[str, Any]) -> tuple[Any, Any]:
    """What the schemes of one split must share: everything but the flow."""
    body = {key: value for key, value in scheme[WRAPPER].items() if key != "flows"}
    return body, {key: value for key, value in scheme.items() if key not in (WRAPPER, *_FLAT)}


def _split_group(schemes: Mapping[str, Any], stem: str) -> list[str]:
    """The schemes the upgrade split ``stem`` into (``stem`` first), in card order."""
    if _single_flow(schemes[stem]) is None:
        return [stem]
    group = [stem]
    for name in schemes:
        member_flow = _single_flow(schemes[name]) if name.startswith(stem + SEPARATOR) else None
        if member_flow is not None and re.fullmatch(re.escape(member_flow) + r"(\d*)", name[len(stem + SEPARATOR):]):
            group.append(name)
    flows = [_single_flow(schemes[name]) for name in group]
    signature = _signature(schemes[stem])
    if len(set(flows)) != len(flows) or any(_signature(schemes[name]) != signature for name in group):
        return [stem]
    return sorted(group, key=list(schemes).index)


def _named(requirement: Any) -> Mapping[str, Any]:
    schemes = requirement.get("schemes") if isinstance(requirement, Mapping) else None
    return schemes if isinstance(schemes, Mapping) else {}


def _renamed(requirement: Any, group: list[str], stem: str) -> dict[str, Any]:
    return {(stem if key in group else key): value for key, value in _named(requirement).items()}


def _collapse(alternatives: list[Any], group: list[str]) -> list[Any] | None:
    """Undo the upgrade's expansion: each run of adjacent alternatives that differ
    only by naming each scheme of ``group`` once becomes one naming the stem.
    None when the alternatives say something one 0.3 scheme cannot."""
    stem, size, index = group[0], len(group), 0
    result: list[Any] = []
    while index < len(alternatives):
        if not any(key in group for key in _named(alternatives[index])):
            result.append(alternatives[index])
            index += 1
            continue
        run = alternatives[index:index + size]
        members = [[key for key in _named(alternative) if key in group] for alternative in run]
        if sorted(sum(members, [])) != sorted(group) or any(len(names) != 1 for names in members) \
                or any(_renamed(alternative, group, stem) != _renamed(run[0], group, stem) for alternative in run):
            return None
        result.append({"schemes": _renamed(run[0], group, stem)})
        index += size
    return result


def _merge_group(card: Any, group: list[str], ctx: Context) -> None:
    collapsed = []
    for pointer, holder in requirements.holders(card):
        alternatives = _collapse(holder["securityRequirements"], group)
        if alternatives is None:
            return
        collapsed.append((pointer, holder, alternatives))
    schemes = card["securitySchemes"]
    flows = schemes[group[0]][WRAPPER]["flows"]
    for name in group[1:]:
        flow = _single_flow(schemes[name])
        assert flow is not None  # each member of a group has one flow (_split_group)
        moved = ctx.pop(schemes, name, at="/securitySchemes")[WRAPPER]["flows"][flow]
        ctx.set(flows, flow, moved, at=join("/securitySchemes", group[0], WRAPPER, "flows"))
    for pointer, holder, alternatives in collapsed:
        requirements.write(holder, pointer, alternatives, ctx)
    ctx.note(join("/securitySchemes", group[0]), "info", f"schemes {', '.join(group)} merged back into {group[0]} "
                                                        f"with flows {', '.join(flows)} (0.3 allows several flows per scheme)")


def _merge_splits(card: Any, ctx: Context) -> None:
    schemes = card["securitySchemes"]
    groups: list[list[str]] = []
    for name in list(schemes):
        group = [] if any(name in taken for taken in groups) else _split_group(schemes, name)
        if len(group) > 1:
            groups.append(group)
    for group in reversed(groups):  # the upgrade split in card order; undo in reverse
        _merge_group(card, group, ctx)


def _guard_protected(card: Any, protected: list[str], ctx: Context) -> None:
    """Refuse a card or skill whose every requirement alternative was removed."""
    for pointer, holder in requirements.holders(card):
        if pointer in protected and not holder["securityRequirements"]:
            ctx.note(pointer, "error", "every requirement alternative needed a deviceCode flow, which 0.3 cannot "
                                       "express: 0.3 clients would see no authentication at all; refused")


def down(card: Any, ctx: Context) -> None:
    """Write each OAuth2 scheme's flows as a 0.3 ``OAuthFlows`` can hold them.

    Spec-mapping sections 5.2 and 5.3 (v0.3 schema ``OAuthFlows`` and its flow
    objects; v1.0 ``a2a.proto`` ``oneof flow`` with ``pkceRequired`` and
    ``DeviceCodeOAuthFlow``). Runs on the 1.0 wrapper shape, before
    ``security_schemes`` writes ``type``.
    """
    schemes = card.get("securitySchemes")
    if not isinstance(schemes, Mapping):
        return
    protected = [pointer for pointer, holder in requirements.holders(card) if holder["securityRequirements"]]
    for name in list(schemes):
        body = _oauth_body(schemes[name])
        if body is None:
            if isinstance(schemes[name], Mapping) and isinstance(schemes[name].get(WRAPPER), Mapping):
                ctx.note(join("/securitySchemes", name, WRAPPER, "flows"), "error", "0.3 requires flows in an oauth2 scheme")
            continue
        _drop_device_code(card, name, body, ctx)
        for flow in [flow for flow in body["flows"] if flow in FLOW_NAMES]:
            if isinstance(body["flows"][flow], Mapping):
                _complete_flow(flow, body["flows"][flow], join("/securitySchemes", name, WRAPPER, "flows", flow), ctx)
    if not ctx.options.hybrid:
        _merge_splits(card, ctx)
    _guard_protected(card, protected, ctx)


# -- for ``a2a-migrate transforms oauth_flows`` (issue 13) --
#: Where the spec says what this transform implements.
SPEC = "a2a.proto OAuthFlows oneof; spec-mapping section 5.2"
#: A card fragment whose upgrade shows what the transform does.
EXAMPLE = {
    "securitySchemes": {
        "oauth": {
            "oauth2SecurityScheme": {
                "flows": {
                    "clientCredentials": {
                        "tokenUrl": "https://auth.example.com/token",
                        "scopes": {}
                    },
                    "authorizationCode": {
                        "authorizationUrl": "https://auth.example.com/authorize",
                        "tokenUrl": "https://auth.example.com/token",
                        "scopes": {}
                    }
                }
            }
        }
    },
    "securityRequirements": [
        {
            "schemes": {
                "oauth": {}
            }
        }
    ]
}
