"""Structural validation of 1.0 cards: rule by rule, then the hand-written
walker against jsonschema running the same generated schema."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from a2a_migrate.validation import Finding, validate
from shared_support import CORPUS, corpus_files, needs

SCHEMA = Path(__file__).resolve().parents[1] / "a2a_migrate/schemas/a2a-v1.0.card.schema.json"


def minimal_card() -> dict[str, Any]:
    return {
        "name": "Recipe Agent",
        "description": "Helps with recipes.",
        "version": "1.0.0",
        "supportedInterfaces": [
            {
                "url": "https://agent.example.com/a2a",
                "protocolBinding": "JSONRPC",
                "protocolVersion": "1.0",
            }
        ],
        "capabilities": {"streaming": True},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain", "application/json"],
        "skills": [
            {"id": "recipes", "name": "Recipes", "description": "Finds recipes.", "tags": ["food"]}
        ],
    }


def rich_card() -> dict[str, Any]:
    """Every message of the card tree, each oneof member once."""
    card = minimal_card()

    def flow(**extra: Any) -> dict[str, Any]:
        return {"tokenUrl": "https://auth.example.com/token", "scopes": {"read": "Read"}, **extra}

    card.update(
        {
            "provider": {"organization": "Example", "url": "https://example.com"},
            "documentationUrl": "https://example.com/docs",
            "iconUrl": "https://example.com/icon.png",
            "capabilities": {
                "streaming": False,
                "pushNotifications": True,
                "extendedAgentCard": False,
                "extensions": [
                    {"uri": "https://ext.example.com/x", "required": True, "params": {"a": [1]}}
                ],
            },
            "securitySchemes": {
                "key": {"apiKeySecurityScheme": {"location": "header", "name": "X-Key"}},
                "bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer", "bearerFormat": "JWT"}},
                "oidc": {"openIdConnectSecurityScheme": {"openIdConnectUrl": "https://x.example"}},
                "mtls": {"mtlsSecurityScheme": {}},
                "code": {
                    "oauth2SecurityScheme": {
                        "flows": {
                            "authorizationCode": flow(
                                authorizationUrl="https://auth.example.com/authorize",
                                pkceRequired=True,
                            )
                        }
                    }
                },
                "cc": {"oauth2SecurityScheme": {"flows": {"clientCredentials": flow()}}},
                "implicit": {"oauth2SecurityScheme": {"flows": {"implicit": {"scopes": {}}}}},
                "password": {"oauth2SecurityScheme": {"flows": {"password": flow()}}},
                "device": {
                    "oauth2SecurityScheme": {
                        "oauth2MetadataUrl": "https://auth.example.com/.well-known/x",
                        "flows": {
                            "deviceCode": flow(
                                deviceAuthorizationUrl="https://auth.example.com/device"
                            )
                        },
                    }
                },
            },
            "securityRequirements": [
                {"schemes": {"code": {"list": ["read"]}}},
                {"schemes": {"key": {}, "mtls": {"list": []}}},
            ],
            "signatures": [{"protected": "eyJhbGciOiJ9", "signature": "c2ln", "header": {}}],
        }
    )
    card["skills"][0].update(
        {
            "examples": ["a soup"],
            "inputModes": ["text/plain"],
            "outputModes": ["application/json"],
            "securityRequirements": [{"schemes": {"bearer": {}}}],
        }
    )
    return card


def found(card: Any, lint: bool = False, version: str | None = "1.0") -> list[tuple[str, str, str]]:
    """(severity, pointer, rule) of each finding, in the order validate gives."""
    return [(f.severity, f.pointer, f.rule) for f in validate(card, version, lint=lint)]


# -- valid cards ---------------------------------------------------------------


def test_minimal_card_has_no_findings_even_with_lint() -> None:
    assert validate(minimal_card(), "1.0") == []


def test_rich_card_is_structurally_valid() -> None:
    assert found(rich_card()) == []


def test_shape_detection_picks_the_1_0_rules() -> None:
    card = minimal_card()
    del card["name"]
    assert found(card, version=None) == [("error", "/name", "required")]


def test_proto_names_are_accepted_as_aliases() -> None:
    card = minimal_card()
    card["supported_interfaces"] = [
        {"url": "https://a.example.com", "protocol_binding": "GRPC", "protocol_version": "1.0"}
    ]
    del card["supportedInterfaces"]
    card["default_input_modes"] = card.pop("defaultInputModes")
    card["capabilities"] = {"push_notifications": True, "extended_agent_card": True}
    card["security_schemes"] = {
        "key": {"api_key_security_scheme": {"location": "query", "name": "k"}},
        "cc": {
            "oauth2_security_scheme": {
                "flows": {"client_credentials": {"token_url": "https://t.example", "scopes": {}}}
            }
        },
    }
    assert validate(card, "1.0") == []


def test_null_means_unset_for_optional_fields() -> None:
    card = minimal_card()
    card.update(provider=None, documentationUrl=None, securitySchemes=None, signatures=None)
    card["capabilities"] = {"streaming": None, "extensions": None}
    assert found(card) == []


# -- required ------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "name",
        "description",
        "supportedInterfaces",
        "version",
        "capabilities",
        "defaultInputModes",
        "defaultOutputModes",
        "skills",
    ],
)
def test_each_required_card_field(name: str) -> None:
    card = minimal_card()
    del card[name]
    assert validate(card, "1.0", lint=False) == [
        Finding("error", f"/{name}", f"missing required member '{name}'", "required")
    ]


def test_missing_nested_required_fields_point_where_they_belong() -> None:
    card = minimal_card()
    del card["skills"][0]["tags"]
    del card["supportedInterfaces"][0]["protocolVersion"]
    card["provider"] = {"url": "https://example.com"}
    assert found(card) == [
        ("error", "/provider/organization", "required"),
        ("error", "/skills/0/tags", "required"),
        ("error", "/supportedInterfaces/0/protocolVersion", "required"),
    ]


def test_required_field_that_is_null() -> None:
    card = minimal_card()
    card["version"] = None
    assert validate(card, "1.0", lint=False) == [
        Finding(
            "error", "/version", "required member 'version' is null, which means unset", "required"
        )
    ]


def test_required_string_that_is_empty() -> None:
    card = minimal_card()
    card["supportedInterfaces"][0]["url"] = ""
    assert found(card) == [("error", "/supportedInterfaces/0/url", "required")]


def test_empty_required_arrays_are_warnings() -> None:
    card = minimal_card()
    card["skills"] = []
    card["defaultInputModes"] = []
    assert found(card) == [
        ("warning", "/defaultInputModes", "min-items"),
        ("warning", "/skills", "min-items"),
    ]


def test_required_map_may_be_empty() -> None:
    card = minimal_card()
    card["securitySchemes"] = {
        "cc": {
            "oauth2SecurityScheme": {
                "flows": {"clientCredentials": {"tokenUrl": "https://t.example", "scopes": {}}}
            }
        }
    }
    assert found(card) == []


def test_missing_required_in_a_flow() -> None:
    card = minimal_card()
    card["securitySchemes"] = {
        "dc": {"oauth2SecurityScheme": {"flows": {"deviceCode": {"tokenUrl": "https://t"}}}}
    }
    base = "/securitySchemes/dc/oauth2SecurityScheme/flows/deviceCode"
    # An absent scopes map is the empty map (ProtoJSON omits it), which is valid.
    assert found(card) == [("error", f"{base}/deviceAuthorizationUrl", "required")]
    card["securitySchemes"]["dc"]["oauth2SecurityScheme"]["flows"]["deviceCode"]["scopes"] = None
    assert ("error", f"{base}/scopes", "type") in found(card)  # a null map is not the empty map


# -- types ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "value", "pointer", "message"),
    [
        (("name",), 5, "/name", "'name' must be a string, not a number"),
        (("capabilities",), [], "/capabilities", "'capabilities' must be an object, not an array"),
        (
            ("capabilities", "streaming"),
            "true",
            "/capabilities/streaming",
            "'streaming' must be true or false, not a string",
        ),
        (("skills",), {}, "/skills", "'skills' must be an array, not an object"),
        (
            ("defaultInputModes",),
            ["text/plain", None],
            "/defaultInputModes/1",
            "item 1 of 'defaultInputModes' must be a string, not null",
        ),
        (("skills", 0), "x", "/skills/0", "item 0 of 'skills' must be an object, not a string"),
        (("iconUrl",), False, "/iconUrl", "'iconUrl' must be a string, not a boolean"),
    ],
)
def test_type_errors(path: tuple[Any, ...], value: Any, pointer: str, message: str) -> None:
    card = minimal_card()
    target: Any = card
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    assert validate(card, "1.0", lint=False) == [Finding("error", pointer, message, "type")]


def test_struct_and_map_values() -> None:
    card = rich_card()
    card["capabilities"]["extensions"][0]["params"] = "x"
    card["signatures"][0]["header"] = []
    flows = card["securitySchemes"]["code"]["oauth2SecurityScheme"]["flows"]
    flows["authorizationCode"]["scopes"]["write"] = 1
    card["securityRequirements"][0]["schemes"]["code"] = {"list": "read"}
    findings = validate(card, "1.0", lint=False)
    assert [(f.pointer, f.rule) for f in findings] == [
        ("/capabilities/extensions/0/params", "type"),
        ("/securityRequirements/0/schemes/code/list", "type"),
        (
            "/securitySchemes/code/oauth2SecurityScheme/flows/authorizationCode/scopes/write",
            "type",
        ),
        ("/signatures/0/header", "type"),
    ]
    assert findings[2].message == "'write' in 'scopes' must be a string, not a number"


def test_card_that_is_not_an_object() -> None:
    assert validate([1], "1.0") == [
        Finding("error", "", "the card must be a JSON object, not an array", "type")
    ]


# -- oneof ---------------------------------------------------------------------


def test_scheme_without_a_member() -> None:
    card = minimal_card()
    card["securitySchemes"] = {"k": {}}
    [finding] = validate(card, "1.0", lint=False)
    assert (finding.severity, finding.pointer) == ("error", "/securitySchemes/k")
    assert finding.rule == "oneof"
    assert finding.message == (
        "'k' in 'securitySchemes' must hold exactly one of apiKeySecurityScheme, "
        "httpAuthSecurityScheme, oauth2SecurityScheme, openIdConnectSecurityScheme, "
        "mtlsSecurityScheme; found none"
    )


def test_scheme_with_two_members() -> None:
    card = minimal_card()
    card["securitySchemes"] = {
        "k": {"mtlsSecurityScheme": {}, "httpAuthSecurityScheme": {"scheme": "Basic"}}
    }
    [finding] = validate(card, "1.0", lint=False)
    assert (finding.pointer, finding.rule) == ("/securitySchemes/k", "oneof")
    assert finding.message.endswith("found 'httpAuthSecurityScheme', 'mtlsSecurityScheme'")


def test_flows_with_two_members() -> None:
    card = minimal_card()
    card["securitySchemes"] = {
        "o": {
            "oauth2SecurityScheme": {
                "flows": {"implicit": {}, "password": {}},
            }
        }
    }
    assert found(card) == [("error", "/securitySchemes/o/oauth2SecurityScheme/flows", "oneof")]


def test_0_3_scheme_in_a_1_0_card() -> None:
    card = minimal_card()
    card["securitySchemes"] = {"k": {"type": "apiKey", "in": "header", "name": "X"}}
    findings = validate(card, "1.0", lint=False)
    assert [(f.severity, f.pointer, f.rule) for f in findings] == [
        ("error", "/securitySchemes/k", "oneof"),
        ("warning", "/securitySchemes/k/in", "unknown-member"),
        ("warning", "/securitySchemes/k/name", "unknown-member"),
        ("warning", "/securitySchemes/k/type", "unknown-member"),
    ]
    assert "looks like a 0.3 scheme" in findings[0].message


def test_oneof_member_must_not_be_null() -> None:
    card = minimal_card()
    card["securitySchemes"] = {"k": {"mtlsSecurityScheme": None}}
    assert found(card) == [("error", "/securitySchemes/k/mtlsSecurityScheme", "type")]


# -- unknown and duplicate members ---------------------------------------------------


def test_unknown_members_are_warnings() -> None:
    card = minimal_card()
    card["x-vendor"] = {"a": 1}
    card["capabilities"]["stateTransitionHistory"] = True
    card["skills"][0]["inputSchema"] = {}
    assert found(card) == [
        ("warning", "/capabilities/stateTransitionHistory", "unknown-member"),
        ("warning", "/skills/0/inputSchema", "unknown-member"),
        ("warning", "/x-vendor", "unknown-member"),
    ]


def test_a_field_spelled_both_ways_is_an_error() -> None:
    card = minimal_card()
    card["default_input_modes"] = ["text/plain"]
    [finding] = validate(card, "1.0", lint=False)
    assert (finding.severity, finding.pointer, finding.rule) == (
        "error",
        "/default_input_modes",
        "duplicate-member",
    )
    assert finding.message == (
        "'default_input_modes' and 'defaultInputModes' are the same field; give it once"
    )


def test_pointer_tokens_are_escaped_and_odd_keys_sort() -> None:
    card = minimal_card()
    card["securitySchemes"] = {"a/b~c": {}, "\u00b2": {}, "10": {}, "9": {}}
    assert found(card) == [
        ("error", "/securitySchemes/9", "oneof"),
        ("error", "/securitySchemes/10", "oneof"),
        ("error", "/securitySchemes/a~1b~0c", "oneof"),
        ("error", "/securitySchemes/\u00b2", "oneof"),
    ]


def test_round_trip_yaml_values_are_plain_json_to_the_validator() -> None:
    """The CLI keeps comments with ruamel's round-trip types (dict, list and str
    subclasses); they must validate like plain JSON values."""
    from ruamel.yaml import YAML

    text = json.dumps(rich_card()).replace('"JSONRPC"', "'JSONRPC'")
    card = YAML(typ="rt").load(text)
    assert type(card) is not dict
    assert found(card) == []


# -- API behaviour -------------------------------------------------------------------


def test_findings_sort_by_pointer_with_numeric_indexes() -> None:
    card = minimal_card()
    skill = card["skills"][0]
    card["skills"] = [dict(skill, id=f"s{i}") for i in range(12)]
    del card["skills"][2]["tags"]
    del card["skills"][10]["tags"]
    assert found(card) == [
        ("error", "/skills/2/tags", "required"),
        ("error", "/skills/10/tags", "required"),
    ]


def test_deterministic_and_does_not_touch_the_card() -> None:
    card = rich_card()
    card["supportedInterfaces"][0]["url"] = "http://localhost"
    before = copy.deepcopy(card)
    assert validate(card) == validate(card)
    assert card == before


@pytest.mark.parametrize("version", ["1.0", "1.0.0", "hybrid"])
def test_version_spellings_for_the_1_0_rules(version: str) -> None:
    assert validate(minimal_card(), version) == []


def test_unsupported_version_is_a_usage_error() -> None:
    with pytest.raises(ValueError, match="2.0"):
        validate(minimal_card(), "2.0")


# -- the walker against jsonschema on the same schema ----------------------------------


@pytest.fixture(scope="module")
def schema_validator() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))


def walker_says_valid(card: Any) -> bool:
    """The verdict jsonschema should give: minItems is a schema failure there,
    a warning here (tool policy); unknown members are allowed by both."""
    return not any(
        f.severity == "error" or f.rule == "min-items" for f in validate(card, "1.0", lint=False)
    )


def corpus_cards() -> list[Any]:
    cards = []
    for path in corpus_files((".json",)):
        try:
            cards.append(json.loads(path.read_text(encoding="utf-8")))
        except ValueError:
            continue  # deliberately broken files: not JSON, nothing to validate
    return cards


@needs(CORPUS)
def test_walker_agrees_with_jsonschema_on_the_corpus(schema_validator: Any) -> None:
    cards = corpus_cards()
    assert len(cards) > 60
    disagreements = [
        index
        for index, card in enumerate(cards)
        if walker_says_valid(card) != schema_validator.is_valid(card)
    ]
    assert disagreements == []


def value_paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value below the root."""
    paths: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        items: Any = value.items()
    else:
        items = enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        paths.append((*prefix, key))
        paths += value_paths(child, (*prefix, key))
    return paths


REPLACEMENTS: list[Any] = [None, 0, 1.5, "", "x", True, [], {}, [None], ["x"], {"x": 1}, [{}]]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_walker_agrees_with_jsonschema_on_mutated_cards(schema_validator: Any, data: Any) -> None:
    card = rich_card()
    for _ in range(data.draw(st.integers(1, 3))):
        paths = value_paths(card)
        path = data.draw(st.sampled_from(paths))
        parent: Any = card
        for key in path[:-1]:
            parent = parent[key]
        action = data.draw(st.sampled_from(["delete", "replace", "extra", "alias"]))
        if action == "delete":
            del parent[path[-1]]
        elif action == "replace":
            parent[path[-1]] = copy.deepcopy(data.draw(st.sampled_from(REPLACEMENTS)))
        elif action == "extra" and isinstance(parent, dict):
            parent[data.draw(st.sampled_from(["x", "type", "list", "schemes"]))] = 1
        elif action == "alias" and isinstance(parent, dict) and isinstance(path[-1], str):
            snake = "".join("_" + c.lower() if c.isupper() else c for c in path[-1])
            parent[snake] = copy.deepcopy(parent[path[-1]])
    assert walker_says_valid(card) == schema_validator.is_valid(card)
