"""Lint rules: warnings beyond the schemas, for both versions."""

from __future__ import annotations

from typing import Any

import pytest

from a2a_migrate.validation import validate


def card_v10(url: str = "https://agent.example.com/a2a") -> dict[str, Any]:
    return {
        "name": "Recipe Agent",
        "description": "Helps with recipes.",
        "version": "1.0.0",
        "supportedInterfaces": [
            {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [
            {"id": "recipes", "name": "Recipes", "description": "Finds recipes.", "tags": ["food"]}
        ],
    }


def card_v03(url: str = "https://agent.example.com/a2a") -> dict[str, Any]:
    return {
        "name": "Recipe Agent",
        "description": "Helps with recipes.",
        "url": url,
        "version": "1.0.0",
        "protocolVersion": "0.3.0",
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [
            {"id": "recipes", "name": "Recipes", "description": "Finds recipes.", "tags": ["food"]}
        ],
    }


def warnings(card: Any, version: str) -> list[tuple[str, str]]:
    """(pointer, rule) of every finding, asserting they are all warnings."""
    findings = validate(card, version)
    assert all(f.severity == "warning" for f in findings), findings
    return [(f.pointer, f.rule) for f in findings]


def test_valid_cards_have_no_lint_findings() -> None:
    assert validate(card_v10(), "1.0") == []
    assert validate(card_v03(), "0.3") == []


# -- interface URLs ------------------------------------------------------------------------

BAD_URLS = [
    ("{{BASE_URL}}/a2a", "looks like a placeholder"),
    ("https://REPLACE_ME/a2a", "looks like a placeholder"),
    ("REPLACE_WITH_RAILWAY_URL_AFTER_DEPLOYMENT", "looks like a placeholder"),
    ("https://${HOST}/a2a", "looks like a placeholder"),
    ("https://<your-host>/a2a", "looks like a placeholder"),
    ("https://your-domain.com/a2a", "looks like a placeholder"),
    ("/a2a", "is not an absolute URL"),
    ("agent.example.com/a2a", "is not an absolute URL"),
    ("localhost:8080", "is not an absolute URL"),
    ("https://localhost:8443/a2a", "points at a local address"),
    ("http://127.0.0.1:8000/", "points at a local address"),
    ("http://0.0.0.0:8000/", "points at a local address"),
    ("https://[::1]/a2a", "points at a local address"),
    ("https://agent.localhost/a2a", "points at a local address"),
    ("http://agent.example.com/a2a", "uses plain http"),
    ("wss://agent.example.com/a2a", "uses 'wss', not https"),
    ("https://[::1/a2a", "is not a valid URL"),
]


@pytest.mark.parametrize(("url", "reason"), BAD_URLS)
def test_1_0_interface_urls(url: str, reason: str) -> None:
    [finding] = validate(card_v10(url), "1.0")
    assert (finding.severity, finding.pointer, finding.rule) == (
        "warning",
        "/supportedInterfaces/0/url",
        "url-not-https",
    )
    assert reason in finding.message


@pytest.mark.parametrize(("url", "reason"), BAD_URLS)
def test_0_3_main_url(url: str, reason: str) -> None:
    [finding] = validate(card_v03(url), "0.3")
    assert (finding.severity, finding.pointer, finding.rule) == ("warning", "/url", "url-not-https")
    assert reason in finding.message


@pytest.mark.parametrize(
    "url",
    [
        "https://agent.example.com",
        "https://Agent.Example.com:8443/a2a/v1?x=1",
        "https://10.0.0.1/a",
    ],
)
def test_good_urls(url: str) -> None:
    assert validate(card_v10(url), "1.0") == []


def test_0_3_additional_interface_urls() -> None:
    card = card_v03()
    card["additionalInterfaces"] = [
        {"url": "https://agent.example.com/a2a", "transport": "JSONRPC"},
        {"url": "http://agent.example.com/rest", "transport": "HTTP+JSON"},
    ]
    assert warnings(card, "0.3") == [("/additionalInterfaces/1/url", "url-not-https")]


def test_proto_name_spelling_is_linted_too() -> None:
    card = card_v10()
    interfaces = card.pop("supportedInterfaces")
    interfaces[0]["url"] = "http://agent.example.com"
    card["supported_interfaces"] = interfaces
    assert warnings(card, "1.0") == [("/supported_interfaces/0/url", "url-not-https")]


# -- duplicates ----------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["1.0", "0.3"])
def test_duplicate_skill_ids(version: str) -> None:
    card = card_v10() if version == "1.0" else card_v03()
    skill = card["skills"][0]
    card["skills"] = [skill, dict(skill, id="other"), dict(skill)]
    [finding] = validate(card, version)
    assert (finding.severity, finding.pointer, finding.rule) == (
        "warning",
        "/skills/2/id",
        "duplicate-skill-id",
    )
    assert finding.message == 'skill id "recipes" is already used by skill 0'


def test_duplicate_1_0_interfaces() -> None:
    card = card_v10()
    first = card["supportedInterfaces"][0]
    card["supportedInterfaces"] = [
        first,
        dict(first, protocolVersion="0.3"),
        dict(first, tenant="t1"),
        dict(first, tenant="t1"),
        dict(first),
    ]
    assert warnings(card, "1.0") == [
        ("/supportedInterfaces/3", "duplicate-interface"),
        ("/supportedInterfaces/4", "duplicate-interface"),
    ]


def test_duplicate_0_3_interfaces_but_not_the_main_one() -> None:
    card = card_v03()
    main = {"url": card["url"], "transport": "JSONRPC"}  # 0.3 section 5.6.2 asks for this one
    grpc = {"url": "https://agent.example.com/grpc", "transport": "GRPC"}
    card["additionalInterfaces"] = [main, grpc, dict(grpc)]
    assert warnings(card, "0.3") == [("/additionalInterfaces/2", "duplicate-interface")]


# -- protocol versions -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "rule"),
    [
        ("1.0.0", "version-patch"),
        ("0.3.0", "version-patch"),
        ("v1", "version-format"),
        ("one", "version-format"),
    ],
)
def test_1_0_interface_protocol_version(value: str, rule: str) -> None:
    card = card_v10()
    card["supportedInterfaces"][0]["protocolVersion"] = value
    assert warnings(card, "1.0") == [("/supportedInterfaces/0/protocolVersion", rule)]


def test_patch_version_message() -> None:
    card = card_v10()
    card["supportedInterfaces"][0]["protocolVersion"] = "1.0.0"
    [finding] = validate(card, "1.0")
    assert finding.message.startswith('protocol version "1.0.0" has a patch number; write "1.0"')


def test_0_3_patch_version_is_the_schema_default_not_a_warning() -> None:
    assert validate(card_v03(), "0.3") == []


# -- media types ----------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["1.0", "0.3"])
def test_mode_words_are_not_media_types(version: str) -> None:
    card = card_v10() if version == "1.0" else card_v03()
    card["defaultInputModes"] = ["text", "text/plain; charset=utf-8", "*/*", "image/*"]
    card["skills"][0]["outputModes"] = ["application/json", "json"]
    assert warnings(card, version) == [
        ("/defaultInputModes/0", "media-type"),
        ("/skills/0/outputModes/1", "media-type"),
    ]


# -- hybrid cards ----------------------------------------------------------------------------


def hybrid_card() -> dict[str, Any]:
    card = card_v10()
    card.update(
        url="https://agent.example.com/a2a",
        preferredTransport="JSONRPC",
        protocolVersion="0.3.0",
        additionalInterfaces=[],
        supportsAuthenticatedExtendedCard=True,
        security=[{"key": []}],
        securitySchemes={
            "key": {
                "apiKeySecurityScheme": {"location": "header", "name": "X-Key"},
                "type": "apiKey",
                "in": "header",
                "name": "X-Key",
            }
        },
    )
    card["capabilities"]["stateTransitionHistory"] = False
    card["skills"][0]["security"] = [{"key": []}]
    return card


def test_hybrid_members_are_named_once_each() -> None:
    assert warnings(hybrid_card(), "1.0") == [
        ("/additionalInterfaces", "hybrid"),
        ("/capabilities/stateTransitionHistory", "hybrid"),
        ("/preferredTransport", "hybrid"),
        ("/protocolVersion", "hybrid"),
        ("/security", "hybrid"),
        ("/securitySchemes/key/in", "hybrid"),
        ("/securitySchemes/key/name", "hybrid"),
        ("/securitySchemes/key/type", "hybrid"),
        ("/skills/0/security", "hybrid"),
        ("/supportsAuthenticatedExtendedCard", "hybrid"),
        ("/url", "hybrid"),
    ]


def test_without_lint_hybrid_members_are_plain_unknown_members() -> None:
    findings = validate(hybrid_card(), "1.0", lint=False)
    assert {f.rule for f in findings} == {"unknown-member"}
    assert len(findings) == 11


def test_detection_treats_a_hybrid_card_as_1_0() -> None:
    assert validate(hybrid_card()) == validate(hybrid_card(), "1.0")


# -- descriptions and signatures -----------------------------------------------------------------


@pytest.mark.parametrize("version", ["1.0", "0.3"])
def test_long_descriptions(version: str) -> None:
    card = card_v10() if version == "1.0" else card_v03()
    card["description"] = "x" * 1000
    card["skills"][0]["description"] = "y" * 1001
    assert warnings(card, version) == [("/skills/0/description", "long-description")]


@pytest.mark.parametrize("version", ["1.0", "0.3"])
def test_signatures_cannot_be_checked(version: str) -> None:
    card = card_v10() if version == "1.0" else card_v03()
    card["signatures"] = [{"protected": "eyJhbGciOiJFUzI1NiJ9", "signature": "c2ln"}]
    assert warnings(card, version) == [("/signatures", "signatures")]
    card["signatures"] = []
    assert validate(card, version) == []


# -- lint=False and robustness --------------------------------------------------------------------


def test_lint_false_keeps_only_schema_findings() -> None:
    card = card_v10("http://localhost")
    card["description"] = "x" * 2000
    card["defaultInputModes"] = ["text"]
    card["signatures"] = [{"protected": "a", "signature": "b"}]
    card["skills"].append(dict(card["skills"][0]))
    assert len(validate(card, "1.0")) == 5
    assert validate(card, "1.0", lint=False) == []


@pytest.mark.parametrize("version", ["1.0", "0.3"])
def test_lint_survives_wrong_types(version: str) -> None:
    card = card_v10() if version == "1.0" else card_v03()
    card.update(
        skills="skills",
        supportedInterfaces={"url": 1},
        additionalInterfaces=[1, {"url": 2}],
        defaultInputModes={"text": 1},
        securitySchemes=[1],
        capabilities=["streaming"],
        signatures={"a": 1},
        description=None,
        url=["https://x"],
    )
    findings = validate(card, version)
    assert any(f.severity == "error" for f in findings)


def test_the_signatures_warning_points_at_the_verify_command() -> None:
    from a2a_migrate.validation import validate

    card = {"name": "A", "description": "d", "version": "1", "capabilities": {},
            "supportedInterfaces": [{"url": "https://a.example.com", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "s", "name": "S", "description": "d", "tags": ["t"]}],
            "signatures": [{"protected": "eyJhbGciOiJFUzI1NiJ9", "signature": "c2ln"}]}
    (finding,) = [f for f in validate(card) if f.rule == "signatures"]
    assert "a2a-migrate verify" in finding.message
