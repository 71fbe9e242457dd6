"""OAuth2 flows: one flow per scheme in 1.0.

v1.0 ``a2a.proto``: ``OAuthFlows { oneof flow { ... } }`` holds exactly one
flow, where a 0.3 JSON card may list several at once. The spec gives no rule
(spec-mapping section 5.2; the official SDK keeps only the last flow,
silently). Policy: a scheme with several flows is split into one scheme per
flow (the first keeps the name, the others are named ``<name>__<flow>``) and
every requirement naming it becomes one alternative per new scheme, which is
what OpenAPI's several flows meant: no flow is ever dropped. ``implicit`` and
``password`` are ``[deprecated = true]`` in 1.0 and get a warning.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from a2a_migrate import edit, requirements
from a2a_migrate.cardtree import FLOW_NAMES
from a2a_migrate.context import Context
from a2a_migrate.pointer import join

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
        edit.insert_at(schemes, position + offset, new_name, {WRAPPER: new_body})

    def alternatives(required: dict[str, Any]) -> list[dict[str, Any]]:
        if name not in required:
            return [required]
        return [{(new if key == name else key): value for key, value in required.items()} for new in names]

    requirements.rewrite(card, alternatives)
    ctx.note(join("/securitySchemes", name, WRAPPER, "flows"), "assumed",
             f"{len(flows)} flows split into schemes {', '.join(names)} (1.0 allows one flow per scheme); "
             "requirements naming it now accept any of them")


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


def down(card: Any, ctx: Context) -> None:
    """Filled in by the downgrade work."""
    raise NotImplementedError
