"""Property: any 1.0 card downgrades to a valid 0.3 card or is refused, and says what it loses.

Cards are generated from the shape of the 1.0 proto (``AgentCard``,
``AgentInterface`` with 0.x, 1.x or no ``protocolVersion`` and an optional
``tenant``, every ``SecurityScheme`` kind, every OAuth flow including
``deviceCode`` and ``pkceRequired``, requirements on the card and on skills,
lean cards that omit empty lists), with and without ``--hybrid``,
``--keep-tenant-interfaces`` and ``--interface-version 0.3``.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_downgrade_golden import describe, v03_model_error, v03_schema_errors, v10_lenient_error

from a2a_migrate import downgrade
from a2a_migrate.context import Note, Options
from a2a_migrate.pointer import join
from a2a_migrate.transforms.interface_protocol_version import legacy_version

URLS = st.sampled_from(["https://a.example/a2a", "https://b.example/rest", "b.example:443", "https://c.example/v0"])
BINDINGS = st.sampled_from(["JSONRPC", "GRPC", "HTTP+JSON"])
VERSIONS = st.sampled_from(["0.3", "0.3", "1.0", "1.0", "0.2", "1.1"])
SCOPES = st.dictionaries(st.sampled_from(["read", "write", "admin"]), st.sampled_from(["Read", "Write", "All"]), max_size=2)
TEXT = st.sampled_from(["d", "Company sign-in", "ü"])


def optional(**members: st.SearchStrategy[Any]) -> dict[str, st.SearchStrategy[Any]]:
    return members


interfaces = st.fixed_dictionaries(
    {"url": URLS, "protocolBinding": BINDINGS},
    optional=optional(protocolVersion=VERSIONS, tenant=st.sampled_from(["acme", "beta"])),
)


def _flow(required: dict[str, Any], **extra: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({key: st.just(value) for key, value in required.items()},
                                 optional=optional(scopes=SCOPES, refreshUrl=st.just("https://auth/refresh"), **extra))


FLOWS = st.one_of(
    _flow({"authorizationUrl": "https://auth/authorize", "tokenUrl": "https://auth/token"}, pkceRequired=st.booleans())
    .map(lambda flow: {"authorizationCode": flow}),
    _flow({"tokenUrl": "https://auth/token"}).map(lambda flow: {"clientCredentials": flow}),
    _flow({"authorizationUrl": "https://auth/authorize"}).map(lambda flow: {"implicit": flow}),
    _flow({"tokenUrl": "https://auth/token"}).map(lambda flow: {"password": flow}),
    _flow({"deviceAuthorizationUrl": "https://auth/device", "tokenUrl": "https://auth/token"}).map(lambda flow: {"deviceCode": flow}),
)

SCHEMES = st.one_of(
    st.fixed_dictionaries({"location": st.sampled_from(["header", "query", "cookie"]), "name": st.just("X-Key")},
                          optional=optional(description=TEXT)).map(lambda body: {"apiKeySecurityScheme": body}),
    st.fixed_dictionaries({"scheme": st.sampled_from(["Bearer", "Basic"])},
                          optional=optional(bearerFormat=st.just("JWT"))).map(lambda body: {"httpAuthSecurityScheme": body}),
    st.fixed_dictionaries({"flows": FLOWS}, optional=optional(description=TEXT, oauth2MetadataUrl=st.just("https://auth/meta")))
    .map(lambda body: {"oauth2SecurityScheme": body}),
    st.just({"openIdConnectSecurityScheme": {"openIdConnectUrl": "https://id/.well-known/openid-configuration"}}),
    st.fixed_dictionaries({}, optional=optional(description=TEXT)).map(lambda body: {"mtlsSecurityScheme": body}),
)
SCHEME_NAMES = st.sampled_from(["o", "o__clientCredentials", "o__implicit", "key", "dev", "bearer"])


def requirements(names: list[str]) -> st.SearchStrategy[list[dict[str, Any]]]:
    if not names:
        return st.just([])
    scheme = st.dictionaries(st.sampled_from(names), st.one_of(st.just({}), st.lists(
        st.sampled_from(["read", "write"]), min_size=1, max_size=2, unique=True).map(lambda scopes: {"list": scopes})),
        min_size=1, max_size=2)
    return st.lists(st.one_of(scheme.map(lambda schemes: {"schemes": schemes}), st.just({})), max_size=3)


def skills(names: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"id": st.sampled_from(["s1", "s2"]), "name": st.just("Skill"), "description": st.just("Does it")},
        optional=optional(tags=st.lists(st.sampled_from(["a", "b"]), min_size=1, max_size=2, unique=True),
                          examples=st.just(["an example"]), securityRequirements=requirements(names)),
    )


@st.composite
def cards(draw: st.DrawFn) -> dict[str, Any]:
    schemes = draw(st.dictionaries(SCHEME_NAMES, SCHEMES, max_size=4))
    names = list(schemes)
    card: dict[str, Any] = {
        "name": "Agent", "description": "Does things",
        "supportedInterfaces": draw(st.lists(interfaces, min_size=1, max_size=4)),
        "version": "1.0.0",
        "capabilities": draw(st.fixed_dictionaries({}, optional=optional(
            streaming=st.booleans(), extendedAgentCard=st.booleans()))),
    }
    if schemes:
        card["securitySchemes"] = schemes
    if (card_requirements := draw(requirements(names))):
        card["securityRequirements"] = card_requirements
    for member in ("defaultInputModes", "defaultOutputModes"):  # lean cards omit them
        if draw(st.booleans()):
            card[member] = ["text/plain"]
    if (card_skills := draw(st.lists(skills(names), max_size=2))):
        card["skills"] = card_skills
    return card


OPTIONS = st.fixed_dictionaries({}, optional=optional(
    hybrid=st.booleans(), keep_tenant_interfaces=st.booleans(), interface_version=st.just("0.3")))


def _lossy_at(notes: list[Note], pointer: str) -> bool:
    return any(note.severity == "lossy" and note.pointer == pointer for note in notes)


def expected_losses(card: dict[str, Any], options: Options) -> list[str]:
    """Pointers of everything a 0.3 client cannot be told: each must have a lossy note."""
    losses = []
    for index, interface in enumerate(card["supportedInterfaces"]):
        if legacy_version(interface, options) is None:
            losses.append(join("/supportedInterfaces", index))
        elif "tenant" in interface:  # the tenant alone when the interface is kept, else all of it
            losses.append(join("/supportedInterfaces", index, *(["tenant"] if options.keep_tenant_interfaces else [])))
    for name, scheme in card.get("securitySchemes", {}).items():
        flows = scheme.get("oauth2SecurityScheme", {}).get("flows", {})
        if "deviceCode" in flows:  # the flow alone, or the whole scheme when it was the only flow (not in hybrids)
            alone = len(flows) == 1 and not options.hybrid
            losses.append(join("/securitySchemes", name, *([] if alone else ["oauth2SecurityScheme", "flows", "deviceCode"])))
        if flows.get("authorizationCode", {}).get("pkceRequired"):
            losses.append(join("/securitySchemes", name, "oauth2SecurityScheme", "flows", "authorizationCode", "pkceRequired"))
    return losses


def _holders(card: dict[str, Any], name: str) -> list[tuple[Any, Any]]:
    """(input, output) pairs of the card and each skill, with their requirement lists under ``name``."""
    return [(card, card.get(name))] + [(skill, skill.get(name)) for skill in card.get("skills", [])]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(card=cards(), chosen=OPTIONS)
def test_downgrade_is_valid_or_refused_and_reports_every_loss(card: dict[str, Any], chosen: dict[str, Any]) -> None:
    options = Options(**chosen)
    result = downgrade(card, **chosen)
    notes = result.notes
    if not result.ok:
        assert [n for n in notes if n.severity == "error"]
    else:
        assert v03_schema_errors(result.card) == [], describe(notes)
        assert v03_model_error(result.card) is None, describe(notes)
        if options.hybrid:
            assert v10_lenient_error(result.card) is None
            endpoints = [(i["url"], i["protocolBinding"], i.get("tenant")) for i in card["supportedInterfaces"]]
            assert [(i["url"], i["protocolBinding"], i.get("tenant")) for i in result.card["supportedInterfaces"]] == endpoints
        _never_unauthenticated(card, result.card)
        _only_offered_interfaces(card, result.card, options)
    missing = [pointer for pointer in expected_losses(card, options) if not _lossy_at(notes, pointer)]
    assert not missing, f"losses without a lossy note: {missing}\n{describe(notes)}"


def _never_unauthenticated(card: dict[str, Any], out: dict[str, Any]) -> None:
    """A card or skill that required authentication still does, for 0.3 clients."""
    holders = [(card, out)] + list(zip(card.get("skills", []), out["skills"]))
    for before, after in holders:
        if before.get("securityRequirements"):
            assert after.get("security"), (before, after)


def _only_offered_interfaces(card: dict[str, Any], out: dict[str, Any], options: Options) -> None:
    """Every 0.3 endpoint is an input interface that speaks 0.x (no tenant unless kept)."""
    offered = {(i["url"], i["protocolBinding"]) for i in card["supportedInterfaces"]
               if legacy_version(i, options) is not None and ("tenant" not in i or options.keep_tenant_interfaces)}
    listed = [(out["url"], out["preferredTransport"])]
    listed += [(i["url"], i["transport"]) for i in out.get("additionalInterfaces", [])]
    assert set(listed) <= offered
    assert out["protocolVersion"].startswith("0.")
