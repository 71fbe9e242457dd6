"""The objects of the Agent Card tree, and the members each may carry.

One walker finds every object of the card (provider, capabilities, skills,
interfaces, schemes, flows, ...) in either version's shape, so transforms that
look at members by kind do not each re-learn where objects live. Values that
are free-form by the spec (extension ``params``, a signature ``header``, a
skill's ``inputSchema``) are not descended into.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from a2a_migrate.pointer import join

#: The five 1.0 ``SecurityScheme`` oneof members, by the 0.3 ``type`` they replace.
SCHEME_WRAPPERS = {
    "apiKey": "apiKeySecurityScheme",
    "http": "httpAuthSecurityScheme",
    "oauth2": "oauth2SecurityScheme",
    "openIdConnect": "openIdConnectSecurityScheme",
    "mutualTLS": "mtlsSecurityScheme",
}
WRAPPER_TYPES = {wrapper: type_ for type_, wrapper in SCHEME_WRAPPERS.items()}
#: Scheme type words (lower case) that real cards use, and the 0.3 ``type`` each means.
SCHEME_TYPE_WORDS = {type_.lower(): type_ for type_ in SCHEME_WRAPPERS}
SCHEME_TYPE_WORDS.update({"api_key": "apiKey", "api-key": "apiKey", "x-api-key": "apiKey", "oauth": "oauth2",
                          "oauth2.0": "oauth2", "oidc": "openIdConnect", "openid": "openIdConnect",
                          "mtls": "mutualTLS", "mutual_tls": "mutualTLS"})
#: Scheme words (lower case) that real cards use for HTTP authentication, and the scheme they mean.
HTTP_WORDS = {"bearer": "Bearer", "bearer_token": "Bearer", "bearer-token": "Bearer", "jwt": "Bearer", "basic": "Basic"}
#: Scheme words (lower case) that mean "no authentication": 1.0 says it by requiring nothing.
NO_AUTH_WORDS = frozenset({"none", "public", "anonymous", "noauth"})
FLOW_NAMES = ("authorizationCode", "clientCredentials", "implicit", "password", "deviceCode")

_SCHEME_BODY = {"description"}
#: Members per object kind in 1.0 (JSON names from the normative proto).
MEMBERS_V1: dict[str, frozenset[str]] = {
    "card": frozenset({
        "name", "description", "supportedInterfaces", "provider", "version", "documentationUrl",
        "capabilities", "securitySchemes", "securityRequirements", "defaultInputModes",
        "defaultOutputModes", "skills", "signatures", "iconUrl",
    }),
    "interface": frozenset({"url", "protocolBinding", "tenant", "protocolVersion"}),
    "provider": frozenset({"url", "organization"}),
    "capabilities": frozenset({"streaming", "pushNotifications", "extensions", "extendedAgentCard"}),
    "extension": frozenset({"uri", "description", "required", "params"}),
    "skill": frozenset({
        "id", "name", "description", "tags", "examples", "inputModes", "outputModes",
        "securityRequirements",
    }),
    "signature": frozenset({"protected", "signature", "header"}),
    "scheme": frozenset(SCHEME_WRAPPERS.values()),
    "apiKeySecurityScheme": frozenset(_SCHEME_BODY | {"location", "name"}),
    "httpAuthSecurityScheme": frozenset(_SCHEME_BODY | {"scheme", "bearerFormat"}),
    "oauth2SecurityScheme": frozenset(_SCHEME_BODY | {"flows", "oauth2MetadataUrl"}),
    "openIdConnectSecurityScheme": frozenset(_SCHEME_BODY | {"openIdConnectUrl"}),
    "mtlsSecurityScheme": frozenset(_SCHEME_BODY),
    "flows": frozenset(FLOW_NAMES),
    "flow": frozenset({"authorizationUrl", "tokenUrl", "refreshUrl", "scopes", "pkceRequired", "deviceAuthorizationUrl"}),
    "requirement": frozenset({"schemes"}),
}

#: Members that only 0.3 (and older) cards carry, per kind.
MEMBERS_V03_ONLY: dict[str, frozenset[str]] = {
    "card": frozenset({
        "url", "preferredTransport", "additionalInterfaces", "protocolVersion",
        "supportsAuthenticatedExtendedCard", "supportsExtendedAgentCard", "security",
    }),
    "interface": frozenset({"transport"}),
    "capabilities": frozenset({"stateTransitionHistory"}),
    "skill": frozenset({"security"}),
    "scheme": frozenset({"type", "in", "name", "scheme", "bearerFormat", "flows", "oauth2MetadataUrl",
                         "openIdConnectUrl", "description"}),
}

_ALL_NAMES = frozenset().union(*MEMBERS_V1.values(), *MEMBERS_V03_ONLY.values())
_SNAKE = {re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), name): name for name in _ALL_NAMES}
_SNAKE.update({"oauth2_metadata_url": "oauth2MetadataUrl", "oauth2_security_scheme": "oauth2SecurityScheme"})


def camel_name(name: str) -> str | None:
    """The camelCase spelling of a proto (snake_case) member name the spec knows."""
    camel = _SNAKE.get(name)
    return camel if camel is not None and camel != name else None


def _maps(value: Any) -> Iterator[tuple[int, Mapping[str, Any]]]:
    if isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, Mapping):
                yield index, item


def objects(card: Mapping[str, Any]) -> Iterator[tuple[str, str, Any]]:
    """Yield ``(pointer, kind, mapping)`` for every object of the card tree.

    Kinds are the keys of :data:`MEMBERS_V1`. Both the 0.3 and the 1.0 shapes
    are walked, so the walker serves either direction.
    """
    yield "", "card", card
    for key in ("provider", "capabilities"):
        if isinstance(card.get(key), Mapping):
            yield join("", key), key, card[key]
            if key == "capabilities":
                for index, extension in _maps(card[key].get("extensions")):
                    yield join("/capabilities/extensions", index), "extension", extension
    for key in ("supportedInterfaces", "additionalInterfaces"):
        for index, interface in _maps(card.get(key)):
            yield join("", key, index), "interface", interface
    for index, skill in _maps(card.get("skills")):
        yield join("/skills", index), "skill", skill
        for position, requirement in _maps(skill.get("securityRequirements")):
            yield join("/skills", index, "securityRequirements", position), "requirement", requirement
    for index, signature in _maps(card.get("signatures")):
        yield join("/signatures", index), "signature", signature
    for index, requirement in _maps(card.get("securityRequirements")):
        yield join("/securityRequirements", index), "requirement", requirement
    schemes = card.get("securitySchemes")
    if isinstance(schemes, Mapping):
        for name, scheme in schemes.items():
            if isinstance(scheme, Mapping):
                yield from _scheme_objects(join("/securitySchemes", name), scheme)


def _scheme_objects(pointer: str, scheme: Mapping[str, Any]) -> Iterator[tuple[str, str, Any]]:
    yield pointer, "scheme", scheme
    for wrapper in SCHEME_WRAPPERS.values():
        body = scheme.get(wrapper)
        if isinstance(body, Mapping):
            yield join(pointer, wrapper), wrapper, body
            yield from _flow_objects(join(pointer, wrapper), body)
    yield from _flow_objects(pointer, scheme)


def _flow_objects(pointer: str, holder: Mapping[str, Any]) -> Iterator[tuple[str, str, Any]]:
    flows = holder.get("flows")
    if isinstance(flows, Mapping):
        yield join(pointer, "flows"), "flows", flows
        for name in FLOW_NAMES:
            if isinstance(flows.get(name), Mapping):
                yield join(pointer, "flows", name), "flow", flows[name]


def skills(card: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """Yield ``(pointer, skill)`` for each skill object of the card."""
    for index, skill in _maps(card.get("skills")):
        yield join("/skills", index), skill


def unknown_members(kind: str, mapping: Mapping[str, Any]) -> list[str]:
    """Members of an object of ``kind`` that 1.0 does not define."""
    known = MEMBERS_V1.get(kind)
    if known is None:
        return []
    return [key for key in mapping if key not in known]
