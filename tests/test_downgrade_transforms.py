"""Unit tests for each transform's ``down`` (1.0 -> 0.3): before/after pairs and no-op cases."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from transform_helpers import brief, run

from a2a_migrate.context import Note, Options
from a2a_migrate.transforms import (
    DOWNGRADE,
    capabilities_shape,
    card_identity,
    endpoints,
    explicit_nulls,
    extended_agent_card,
    interface_protocol_version,
    legacy_authentication,
    media_types,
    oauth_flows,
    proto_field_names,
    provider_organization,
    security_requirements,
    security_schemes,
    signatures,
    skill_io_schemas,
    skill_members,
    state_transition_history,
    vendor_members,
)


def iface(url: str = "https://a.example/a2a", binding: str = "JSONRPC", version: str | None = "0.3",
          **extra: Any) -> dict[str, Any]:
    interface: dict[str, Any] = {"url": url, "protocolBinding": binding}
    if version is not None:
        interface["protocolVersion"] = version
    interface.update(extra)
    return interface


def card_with(*interfaces: dict[str, Any], **members: Any) -> dict[str, Any]:
    return {"name": "A", "description": "d", "supportedInterfaces": list(interfaces), "version": "1", **members}


def down(module: Any, card: dict[str, Any], **options: Any) -> tuple[dict[str, Any], list[Any]]:
    return run(module, card, "down", **options)


# -- interface_protocol_version ---------------------------------------------------


@pytest.mark.parametrize(("interface", "options", "expected"), [
    ({"protocolVersion": "0.3"}, {}, "0.3"),
    ({"protocolVersion": "0.3.0"}, {}, "0.3"),
    ({"protocolVersion": "0.2"}, {}, "0.2"),
    ({}, {}, "0.3"),
    ({"protocolVersion": "1.0"}, {}, None),
    ({"protocolVersion": "2.1"}, {}, None),
    ({"protocolVersion": "latest"}, {}, None),
    ({"protocolVersion": "1.0"}, {"interface_version": "0.3"}, "0.3"),
    ({"protocolVersion": "0.3"}, {"interface_version": "1.0"}, None),
])
def test_legacy_version_decides_eligibility(interface: dict[str, Any], options: dict[str, Any], expected: str | None) -> None:
    assert interface_protocol_version.legacy_version(interface, Options(**options)) == expected


def test_ipv_down_keeps_a_0_3_interface_silently() -> None:
    card = card_with(iface())
    assert down(interface_protocol_version, card) == (card, [])


def test_ipv_down_never_changes_the_card() -> None:
    card = card_with(iface(version="1.0"), iface(version=None), iface(version="0.3"))
    out, notes = down(interface_protocol_version, card)
    assert out == card
    assert [(n.severity, n.pointer) for n in notes] == [
        ("lossy", "/supportedInterfaces/0"),
        ("assumed", "/supportedInterfaces/1/protocolVersion"),
    ]
    assert notes[0].transform == "interface_protocol_version"
    assert notes[0].message == 'interface "https://a.example/a2a" speaks 1.0, which a 0.3 client cannot use: left out'


def test_ipv_down_refuses_when_no_interface_speaks_0_x() -> None:
    _, notes = down(interface_protocol_version, card_with(iface(version="1.0"), iface("g:443", "GRPC", "1.0")))
    assert brief(notes) == [("lossy", "/supportedInterfaces/0"), ("lossy", "/supportedInterfaces/1"),
                            ("error", "/supportedInterfaces")]
    assert "--interface-version 0.3" in notes[-1].message and "gateway" in notes[-1].message


def test_ipv_down_interface_version_0_3_offers_every_interface() -> None:
    card = card_with(iface(version="1.0"), iface(version="0.3"))
    out, notes = down(interface_protocol_version, card, interface_version="0.3")
    assert out == card
    assert brief(notes) == [("assumed", "/supportedInterfaces/0/protocolVersion")]


def test_ipv_down_interface_version_1_0_offers_nothing() -> None:
    _, notes = down(interface_protocol_version, card_with(iface(version="0.3")), interface_version="1.0")
    assert brief(notes) == [("lossy", "/supportedInterfaces/0"), ("error", "/supportedInterfaces")]


def test_ipv_down_refuses_a_version_that_is_not_one() -> None:
    _, notes = down(interface_protocol_version, card_with(iface(version="latest"), iface()))
    assert brief(notes) == [("error", "/supportedInterfaces/0/protocolVersion")]


def test_ipv_down_refuses_an_empty_interface_list() -> None:
    assert brief(down(interface_protocol_version, card_with())[1]) == [("error", "/supportedInterfaces")]


def test_ipv_down_leaves_a_0_3_card_alone() -> None:
    card = {"name": "A", "url": "https://a", "protocolVersion": "0.3.0"}
    assert down(interface_protocol_version, card) == (card, [])


# -- endpoints ----------------------------------------------------------------------


def test_endpoints_down_one_interface_gives_url_and_transport_where_interfaces_stood() -> None:
    out, notes = down(endpoints, card_with(iface(binding="HTTP+JSON")))
    assert list(out.items()) == [
        ("name", "A"), ("description", "d"), ("url", "https://a.example/a2a"), ("preferredTransport", "HTTP+JSON"),
        ("protocolVersion", "0.3.0"), ("version", "1"),
    ]
    assert brief(notes) == [("info", "/supportedInterfaces")]
    assert notes[0].message == "supportedInterfaces written as url, preferredTransport, protocolVersion"


def test_endpoints_down_several_interfaces_all_listed_primary_included() -> None:
    card = card_with(iface(version="1.0"), iface("https://b/a2a"), iface("https://b/grpc", "GRPC"), iface("https://b/rest", "HTTP+JSON", None))
    out, notes = down(endpoints, card)
    assert out["url"] == "https://b/a2a" and out["preferredTransport"] == "JSONRPC" and out["protocolVersion"] == "0.3.0"
    assert out["additionalInterfaces"] == [
        {"url": "https://b/a2a", "transport": "JSONRPC"},
        {"url": "https://b/grpc", "transport": "GRPC"},
        {"url": "https://b/rest", "transport": "HTTP+JSON"},
    ]
    assert "supportedInterfaces" not in out
    assert brief(notes) == [("info", "/supportedInterfaces")]  # the left-out one is interface_protocol_version's to report


def test_endpoints_down_tenant_interface_left_out() -> None:
    card = card_with(iface(), iface("https://t/a2a", tenant="acme"))
    out, notes = down(endpoints, card)
    assert "additionalInterfaces" not in out and out["url"] == "https://a.example/a2a"
    # the whole interface is left out, so the note points at it (the conservation check holds it to that)
    assert brief(notes) == [("lossy", "/supportedInterfaces/1"), ("info", "/supportedInterfaces")]
    assert "left out" in notes[0].message and "--keep-tenant-interfaces" in notes[0].message


def test_endpoints_down_tenant_interface_kept_without_tenant_on_request() -> None:
    card = card_with(iface(), iface("https://t/a2a", tenant="acme"))
    out, notes = down(endpoints, card, keep_tenant_interfaces=True)
    assert out["additionalInterfaces"] == [{"url": "https://a.example/a2a", "transport": "JSONRPC"},
                                           {"url": "https://t/a2a", "transport": "JSONRPC"}]
    assert brief(notes) == [("lossy", "/supportedInterfaces/1/tenant"), ("info", "/supportedInterfaces")]
    assert notes[0].message.startswith('tenant "acme" dropped')


def test_endpoints_down_only_tenant_interfaces_is_refused() -> None:
    card = card_with(iface(tenant="acme"))
    out, notes = down(endpoints, card)
    assert out == card
    assert brief(notes) == [("lossy", "/supportedInterfaces/0"), ("error", "/supportedInterfaces")]
    assert "--keep-tenant-interfaces" in notes[-1].message


def test_endpoints_down_no_0_x_interface_leaves_the_card_to_the_refusal() -> None:
    card = card_with(iface(version="1.0"))
    assert down(endpoints, card) == (card, [])


def test_endpoints_down_one_version_per_card() -> None:
    out, notes = down(endpoints, card_with(iface(version="0.2"), iface("https://b", version="0.3")))
    assert out["protocolVersion"] == "0.2.0"
    assert brief(notes) == [("lossy", "/supportedInterfaces/1/protocolVersion"), ("info", "/supportedInterfaces")]


def test_endpoints_down_vendor_members_of_interfaces() -> None:
    out, _ = down(endpoints, card_with(iface(**{"x-region": "eu"}), iface("https://b")))
    assert out["additionalInterfaces"][0] == {"url": "https://a.example/a2a", "transport": "JSONRPC", "x-region": "eu"}
    out, notes = down(endpoints, card_with(iface(**{"x-region": "eu"})))
    assert brief(notes) == [("lossy", "/supportedInterfaces/0"), ("info", "/supportedInterfaces")]


def test_endpoints_down_missing_binding_is_jsonrpc() -> None:
    out, notes = down(endpoints, card_with({"url": "https://a", "protocolVersion": "0.3"}))
    assert out["preferredTransport"] == "JSONRPC"
    assert brief(notes) == [("assumed", "/supportedInterfaces/0/protocolBinding"), ("info", "/supportedInterfaces")]


def test_endpoints_down_bad_interfaces_are_errors() -> None:
    _, notes = down(endpoints, card_with("https://a", iface(url=""), iface()))  # type: ignore[arg-type]
    assert brief(notes)[:2] == [("error", "/supportedInterfaces/0"), ("error", "/supportedInterfaces/1")]
    assert brief(down(endpoints, card_with(iface()) | {"supportedInterfaces": {}})[1]) == [("error", "/supportedInterfaces")]


def test_endpoints_down_hybrid_input_rebuilds_the_0_3_members() -> None:
    card = {"name": "A", "supportedInterfaces": [iface("https://new")], "url": "https://old",
            "preferredTransport": "GRPC", "protocolVersion": "0.3.0", "version": "1"}
    out, _ = down(endpoints, card)
    assert out == {"name": "A", "url": "https://new", "preferredTransport": "JSONRPC", "protocolVersion": "0.3.0", "version": "1"}


def test_endpoints_down_leaves_a_0_3_card_alone_and_refuses_a_card_without_endpoint() -> None:
    card = {"name": "A", "url": "https://a", "protocolVersion": "0.3.0"}
    assert down(endpoints, card) == (card, [])
    assert brief(down(endpoints, {"name": "A"})[1]) == [("error", "/supportedInterfaces")]


# -- oauth_flows ----------------------------------------------------------------------

CODE = {"authorizationUrl": "https://a/authorize", "tokenUrl": "https://a/token", "scopes": {"read": "Read"}}
CLIENT = {"tokenUrl": "https://a/token", "scopes": {"read": "Read"}}
DEVICE = {"deviceAuthorizationUrl": "https://a/device", "tokenUrl": "https://a/token", "scopes": {}}


def oauth(flows: dict[str, Any], **body: Any) -> dict[str, Any]:
    return {"oauth2SecurityScheme": {**body, "flows": flows}}


def requirement(**schemes: list[str]) -> dict[str, Any]:
    return {"schemes": {name: ({"list": scopes} if scopes else {}) for name, scopes in schemes.items()}}


def test_oauth_down_drops_pkce_required() -> None:
    card = {"securitySchemes": {"o": oauth({"authorizationCode": {**CODE, "pkceRequired": True}})}}
    out, notes = down(oauth_flows, card)
    assert out == {"securitySchemes": {"o": oauth({"authorizationCode": CODE})}}
    assert brief(notes) == [("lossy", "/securitySchemes/o/oauth2SecurityScheme/flows/authorizationCode/pkceRequired")]
    _, notes = down(oauth_flows, {"securitySchemes": {"o": oauth({"authorizationCode": {**CODE, "pkceRequired": False}})}})
    assert brief(notes) == [("info", "/securitySchemes/o/oauth2SecurityScheme/flows/authorizationCode/pkceRequired")]


def test_oauth_down_writes_empty_scopes_last() -> None:
    card = {"securitySchemes": {"o": oauth({"clientCredentials": {"tokenUrl": "https://a/token"}})}}
    out, notes = down(oauth_flows, card)
    assert list(out["securitySchemes"]["o"]["oauth2SecurityScheme"]["flows"]["clientCredentials"].items()) == [
        ("tokenUrl", "https://a/token"), ("scopes", {})]
    assert brief(notes) == [("info", "/securitySchemes/o/oauth2SecurityScheme/flows/clientCredentials/scopes")]


def test_oauth_down_missing_0_3_required_urls_are_errors() -> None:
    card = {"securitySchemes": {"o": oauth({"implicit": {"scopes": {}}}), "p": oauth({"password": {"scopes": {}}}),
                                "n": {"oauth2SecurityScheme": {}}}}
    _, notes = down(oauth_flows, card)
    assert brief(notes) == [("error", "/securitySchemes/o/oauth2SecurityScheme/flows/implicit/authorizationUrl"),
                            ("error", "/securitySchemes/p/oauth2SecurityScheme/flows/password/tokenUrl"),
                            ("error", "/securitySchemes/n/oauth2SecurityScheme/flows")]


def test_oauth_down_device_code_scheme_and_its_alternatives_removed() -> None:
    card = {
        "securitySchemes": {"dev": oauth({"deviceCode": DEVICE}), "key": {"apiKeySecurityScheme": {}}},
        "securityRequirements": [requirement(dev=["tv"]), requirement(key=[])],
        "skills": [{"id": "s", "securityRequirements": [requirement(dev=[], key=[]), requirement(key=[])]}],
    }
    out, notes = down(oauth_flows, card)
    assert out == {
        "securitySchemes": {"key": {"apiKeySecurityScheme": {}}},
        "securityRequirements": [requirement(key=[])],
        "skills": [{"id": "s", "securityRequirements": [requirement(key=[])]}],
    }
    # the whole scheme goes, and each alternative that needed it: every note points at what it removed
    assert brief(notes) == [("lossy", "/securitySchemes/dev"), ("lossy", "/securityRequirements/0"),
                            ("lossy", "/skills/0/securityRequirements/0")]
    assert "scheme dev removed, with the 2 requirement alternative(s)" in notes[0].message


def test_oauth_down_device_code_beside_other_flows_only_the_flow_goes() -> None:
    card = {"securitySchemes": {"o": oauth({"deviceCode": DEVICE, "clientCredentials": CLIENT})},
            "securityRequirements": [requirement(o=[])]}
    out, notes = down(oauth_flows, card)
    assert out == {"securitySchemes": {"o": oauth({"clientCredentials": CLIENT})}, "securityRequirements": [requirement(o=[])]}
    assert brief(notes) == [("lossy", "/securitySchemes/o/oauth2SecurityScheme/flows/deviceCode")]


@pytest.mark.parametrize("where", ["card", "skill"])
def test_oauth_down_device_code_only_authentication_is_refused(where: str) -> None:
    requirements = [requirement(dev=[])]
    card: dict[str, Any] = {"securitySchemes": {"dev": oauth({"deviceCode": DEVICE})}, "skills": [{"id": "open"}]}
    if where == "card":
        card["securityRequirements"] = requirements
    else:
        card["skills"].append({"id": "s", "securityRequirements": requirements})
    _, notes = down(oauth_flows, card)
    pointer = "/securityRequirements" if where == "card" else "/skills/1/securityRequirements"
    assert brief(notes) == [("lossy", "/securitySchemes/dev"), ("lossy", pointer + "/0"), ("error", pointer)]
    assert "no authentication" in notes[-1].message


def test_oauth_down_unused_device_code_scheme_is_removed_without_refusal() -> None:
    out, notes = down(oauth_flows, {"securitySchemes": {"dev": oauth({"deviceCode": DEVICE})}})
    assert out == {"securitySchemes": {}}
    assert brief(notes) == [("lossy", "/securitySchemes/dev")]


def test_oauth_down_hybrid_keeps_the_device_code_scheme_without_flows() -> None:
    card = {"securitySchemes": {"dev": oauth({"deviceCode": DEVICE})},
            "securityRequirements": [requirement(dev=[]), {}]}
    out, notes = down(oauth_flows, card, hybrid=True)
    assert out == {"securitySchemes": {"dev": oauth({})}, "securityRequirements": [{}]}
    assert brief(notes) == [("lossy", "/securitySchemes/dev/oauth2SecurityScheme/flows/deviceCode"),
                            ("lossy", "/securityRequirements/0")]


def test_oauth_down_merges_a_split_back_and_collapses_requirements() -> None:
    card = {
        "securitySchemes": {"o": oauth({"authorizationCode": CODE}, description="d"), "k": {"apiKeySecurityScheme": {}},
                            "o__clientCredentials": oauth({"clientCredentials": CLIENT}, description="d")},
        "securityRequirements": [requirement(o=["read"], k=[]), requirement(o__clientCredentials=["read"], k=[]),
                                 requirement(k=[])],
    }
    out, notes = down(oauth_flows, card)
    assert out == {
        "securitySchemes": {"o": oauth({"authorizationCode": CODE, "clientCredentials": CLIENT}, description="d"),
                            "k": {"apiKeySecurityScheme": {}}},
        "securityRequirements": [requirement(o=["read"], k=[]), requirement(k=[])],
    }
    assert brief(notes) == [("info", "/securitySchemes/o")]


def _up_then_down(card: dict[str, Any]) -> dict[str, Any]:
    upgraded, _ = run(oauth_flows, card)
    return down(oauth_flows, upgraded)[0]


def test_oauth_down_undoes_the_upgrade_split_even_for_two_split_schemes_in_one_requirement() -> None:
    card = {
        "securitySchemes": {"a": oauth({"authorizationCode": CODE, "clientCredentials": CLIENT}),
                            "b": oauth({"clientCredentials": CLIENT, "implicit": {"authorizationUrl": "u", "scopes": {}},
                                        "password": {"tokenUrl": "t", "scopes": {}}})},
        "securityRequirements": [requirement(a=["read"], b=[]), {}],
        "skills": [{"id": "s", "securityRequirements": [requirement(b=["x"])]}],
    }
    assert _up_then_down(card) == card


def test_oauth_down_split_names_with_a_number_and_a_stem_with_separator() -> None:
    card = {"securitySchemes": {"my__o": oauth({"authorizationCode": CODE, "clientCredentials": CLIENT}),
                                "my__o__clientCredentials": {"mtlsSecurityScheme": {}}}}
    upgraded, _ = run(oauth_flows, card)
    assert "my__o__clientCredentials2" in upgraded["securitySchemes"]
    assert down(oauth_flows, upgraded)[0] == card


@pytest.mark.parametrize("case", ["other-description", "skill-names-one", "not-adjacent", "same-flow", "and-not-or"])
def test_oauth_down_keeps_schemes_apart_when_one_0_3_scheme_would_say_more(case: str) -> None:
    first, second = oauth({"authorizationCode": CODE}), oauth({"clientCredentials": CLIENT})
    alternatives = [requirement(o=[]), requirement(o__clientCredentials=[])]
    skills: list[Any] = []
    if case == "other-description":
        second = oauth({"clientCredentials": CLIENT}, description="machines")
    elif case == "skill-names-one":
        skills = [{"id": "s", "securityRequirements": [requirement(o=[])]}]
    elif case == "not-adjacent":
        alternatives.insert(1, {})
    elif case == "same-flow":
        second = oauth({"authorizationCode": CODE})
    elif case == "and-not-or":
        alternatives = [requirement(o=[], o__clientCredentials=[]), requirement(o=[])]
    card = {"securitySchemes": {"o": first, "o__clientCredentials": second}, "securityRequirements": alternatives,
            "skills": skills}
    assert down(oauth_flows, card) == (card, [])


def test_oauth_down_hybrid_keeps_split_schemes() -> None:
    card = {"securitySchemes": {"o": oauth({"authorizationCode": CODE}), "o__clientCredentials": oauth({"clientCredentials": CLIENT})}}
    assert down(oauth_flows, card, hybrid=True) == (card, [])


def test_oauth_down_leaves_0_3_shaped_schemes_alone() -> None:
    card = {"securitySchemes": {"o": {"type": "oauth2", "flows": {"authorizationCode": CODE, "clientCredentials": CLIENT}}}}
    assert down(oauth_flows, card) == (card, [])


# -- media_types ---------------------------------------------------------------------


def test_media_types_down_writes_missing_lists_after_capabilities() -> None:
    out, notes = down(media_types, {"name": "A", "capabilities": {}, "skills": []})
    assert list(out) == ["name", "capabilities", "defaultInputModes", "defaultOutputModes", "skills"]
    assert out["defaultInputModes"] == out["defaultOutputModes"] == []
    assert brief(notes) == [("info", "/defaultInputModes"), ("info", "/defaultOutputModes")]


def test_media_types_down_keeps_present_lists() -> None:
    card = {"capabilities": {}, "defaultInputModes": [], "defaultOutputModes": ["application/json"]}
    assert down(media_types, card) == (card, [])


def test_media_types_down_a_string_becomes_a_list() -> None:
    out, notes = down(media_types, {"defaultInputModes": "text/plain", "defaultOutputModes": ["text/plain"]})
    assert out["defaultInputModes"] == ["text/plain"]
    assert brief(notes) == [("assumed", "/defaultInputModes")]


# -- skill_members ---------------------------------------------------------------------


def test_skill_members_down_writes_missing_skills() -> None:
    out, notes = down(skill_members, {"name": "A"})
    assert out == {"name": "A", "skills": []}
    assert brief(notes) == [("info", "/skills")]


def test_skill_members_down_empty_skills_is_fine_in_0_3() -> None:
    assert down(skill_members, {"skills": []}) == ({"skills": []}, [])


def test_skill_members_down_writes_empty_tags_after_the_description() -> None:
    card = {"skills": [{"id": "s", "name": "S", "description": "d", "examples": ["x"]}, {"id": "t", "name": "T", "description": "d", "tags": ["t"]}]}
    out, notes = down(skill_members, card)
    assert list(out["skills"][0].items()) == [("id", "s"), ("name", "S"), ("description", "d"), ("tags", []), ("examples", ["x"])]
    assert out["skills"][1] == card["skills"][1]
    assert brief(notes) == [("info", "/skills/0/tags")]


def test_skill_members_down_repairs_tags_and_refuses_what_it_cannot() -> None:
    out, notes = down(skill_members, {"skills": [{"id": "s", "name": "S", "description": "d", "tags": "x"},
                                                 {"id": "t", "name": "T", "description": "d", "tags": [1]}]})
    assert out["skills"][0]["tags"] == ["x"]
    assert brief(notes) == [("assumed", "/skills/0/tags"), ("error", "/skills/1/tags")]


def test_skill_members_down_never_invents_tags() -> None:
    out, _ = down(skill_members, {"skills": ["Get weather"]})
    assert out == {"skills": [{"id": "get-weather", "name": "Get weather", "description": "Get weather", "tags": []}]}


# -- the transforms whose down was there before ------------------------------------------


def test_extended_agent_card_down_moves_the_flag_back() -> None:
    out, notes = down(extended_agent_card, {"capabilities": {"extendedAgentCard": False}, "skills": []})
    assert list(out.items()) == [("capabilities", {}), ("supportsAuthenticatedExtendedCard", False), ("skills", [])]
    assert brief(notes) == [("info", "/capabilities/extendedAgentCard")]
    out, _ = down(extended_agent_card, {"capabilities": {"extendedAgentCard": True}}, hybrid=True)
    assert out == {"capabilities": {"extendedAgentCard": True}, "supportsAuthenticatedExtendedCard": True}


@pytest.mark.parametrize(("wrapped", "flat"), [
    ({"apiKeySecurityScheme": {"location": "header", "name": "K"}}, {"type": "apiKey", "in": "header", "name": "K"}),
    ({"httpAuthSecurityScheme": {"scheme": "Bearer"}}, {"type": "http", "scheme": "Bearer"}),
    ({"oauth2SecurityScheme": {"flows": {"clientCredentials": CLIENT}}}, {"type": "oauth2", "flows": {"clientCredentials": CLIENT}}),
    ({"openIdConnectSecurityScheme": {"openIdConnectUrl": "u"}}, {"type": "openIdConnect", "openIdConnectUrl": "u"}),
    ({"mtlsSecurityScheme": {}}, {"type": "mutualTLS"}),
])
def test_security_schemes_down_writes_type(wrapped: dict[str, Any], flat: dict[str, Any]) -> None:
    out, notes = down(security_schemes, {"securitySchemes": {"s": wrapped}})
    assert out == {"securitySchemes": {"s": flat}}
    assert brief(notes) == [("info", f"/securitySchemes/s/{next(iter(wrapped))}")]
    out, _ = down(security_schemes, {"securitySchemes": {"s": wrapped}}, hybrid=True)
    assert out == {"securitySchemes": {"s": {**wrapped, **flat}}}


def test_security_requirements_down_reshapes_card_and_skills() -> None:
    card = {"securityRequirements": [requirement(o=["read"]), {}], "skills": [{"id": "s", "securityRequirements": [requirement(k=[])]}]}
    out, notes = down(security_requirements, card)
    assert out == {"security": [{"o": ["read"]}, {}], "skills": [{"id": "s", "security": [{"k": []}]}]}
    assert brief(notes) == [("info", "/securityRequirements"), ("info", "/skills/0/securityRequirements")]
    assert brief(down(security_requirements, {"securityRequirements": "x"})[1]) == [("error", "/securityRequirements")]


def test_signatures_down_drops_signatures_of_a_changed_card() -> None:
    card = {"url": "u", "signatures": [{"protected": "e30", "signature": "s"}]}
    out, notes = run(signatures, card, "down")
    assert out == card and notes == []  # nothing else changed: the signature still covers the content
    from a2a_migrate.context import Context

    ctx = Context(Options(), original={"supportedInterfaces": [], "signatures": card["signatures"]})
    ctx.transform = "signatures"
    working = copy.deepcopy(card)
    signatures.down(working, ctx)
    assert working == {"url": "u"} and brief(ctx.notes) == [("lossy", "/signatures/0")]


def test_repairs_run_on_the_way_down_too() -> None:
    assert down(proto_field_names, {"default_input_modes": []})[0] == {"defaultInputModes": []}
    assert down(explicit_nulls, {"iconUrl": None, "name": "A"})[0] == {"name": "A"}
    assert brief(down(card_identity, {"name": "A", "description": "d"})[1]) == [("error", "/version")]
    assert down(capabilities_shape, {"name": "A"})[0] == {"name": "A", "capabilities": {}}
    assert down(provider_organization, {"provider": {"organization": "O"}}) == ({}, [
        Note("lossy", "provider_organization", "/provider", 'provider {"organization": "O"} dropped: it needs a non-empty '
             "organization and url (pass --default-provider-url to keep one that has no url)")])


@pytest.mark.parametrize("module", [state_transition_history, skill_io_schemas, vendor_members, legacy_authentication],
                         ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_downs_with_nothing_to_undo_change_nothing(module: Any) -> None:
    card = card_with(iface(), capabilities={}, skills=[{"id": "s", "inputSchema": {}}], **{"x-vendor": 1})
    assert down(module, card) == (card, [])


def test_every_transform_down_has_a_docstring_with_a_reference() -> None:
    for module in DOWNGRADE:
        assert module.down.__doc__, module.__name__
    for module in (endpoints, interface_protocol_version, oauth_flows, media_types, skill_members):
        assert any(word in module.down.__doc__ for word in ("spec", "schema", "a2a.proto")), module.__name__
