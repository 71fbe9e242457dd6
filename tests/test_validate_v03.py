"""Validation of 0.3 cards with the official v0.3.0 JSON Schema, rule by rule,
and the packaging of the schema files."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from a2a_migrate.validation import Finding, validate
from shared_support import SPEC, needs

REPO = Path(__file__).resolve().parents[1]
SCHEMAS = REPO / "a2a_migrate" / "schemas"


def minimal_card() -> dict[str, Any]:
    return {
        "name": "Recipe Agent",
        "description": "Helps with recipes.",
        "url": "https://agent.example.com/a2a",
        "version": "1.0.0",
        "protocolVersion": "0.3.0",
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [
            {"id": "recipes", "name": "Recipes", "description": "Finds recipes.", "tags": ["food"]}
        ],
    }


def with_scheme(scheme: Any) -> dict[str, Any]:
    card = minimal_card()
    card["securitySchemes"] = {"k": scheme}
    return card


def found(card: Any, lint: bool = False, version: str | None = "0.3") -> list[tuple[str, str, str]]:
    return [(f.severity, f.pointer, f.rule) for f in validate(card, version, lint=lint)]


# -- packaging -------------------------------------------------------------------------


@needs(SPEC)
@pytest.mark.parametrize(
    "name", ["a2a-v0.3.0.schema.json", "LICENSE-a2aproject-A2A-Apache-2.0.txt", "a2a-v1.0.proto"]
)
def test_copied_files_match_the_pinned_upstream_files(name: str) -> None:
    data = (SCHEMAS / name).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    upstream = (SPEC / "SOURCES.md").read_text(encoding="utf-8")
    ours = (SCHEMAS / "SOURCES.md").read_text(encoding="utf-8")
    assert re.search(rf"`{re.escape(name)}`.*`{digest}`", upstream)
    assert re.search(rf"`{re.escape(name)}`.*`{digest}`", ours)
    assert data == (SPEC / name).read_bytes()


def test_importing_the_module_does_not_import_jsonschema(tmp_path: Path) -> None:
    # Run outside the repository: there the source folder would shadow the installed package (conftest.py).
    code = "import sys, a2a_migrate.validation; print('jsonschema' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True
    )
    assert result.stdout.strip() == "False"


# -- valid cards -------------------------------------------------------------------------


def test_minimal_card_has_no_findings_even_with_lint() -> None:
    assert validate(minimal_card(), "0.3") == []


def test_all_five_scheme_types_and_all_flows_are_valid() -> None:
    card = minimal_card()
    scopes = {"read": "Read"}
    card["securitySchemes"] = {
        "key": {"type": "apiKey", "in": "cookie", "name": "sid"},
        "bearer": {"type": "http", "scheme": "Bearer", "bearerFormat": "JWT"},
        "oidc": {"type": "openIdConnect", "openIdConnectUrl": "https://x.example"},
        "mtls": {"type": "mutualTLS"},
        "oauth": {
            "type": "oauth2",
            "flows": {
                "authorizationCode": {
                    "authorizationUrl": "https://a.example",
                    "tokenUrl": "https://t.example",
                    "scopes": scopes,
                },
                "clientCredentials": {"tokenUrl": "https://t.example", "scopes": scopes},
                "implicit": {"authorizationUrl": "https://a.example", "scopes": {}},
                "password": {"tokenUrl": "https://t.example", "scopes": {}},
            },
        },
    }
    card["security"] = [{"oauth": ["read"]}, {"key": [], "mtls": []}]
    assert found(card) == []


def test_round_trip_yaml_values_validate_like_json() -> None:
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    card = yaml.load(json.dumps(minimal_card()).replace('"Recipe Agent"', "'Recipe Agent'"))
    assert validate(card, "0.3") == []
    del card["url"]
    assert found(card) == [("error", "/url", "required")]


def test_empty_arrays_are_valid_in_0_3() -> None:
    card = minimal_card()
    card.update(skills=[], defaultInputModes=[], defaultOutputModes=[])
    assert found(card) == []


def test_shape_detection_picks_the_0_3_rules_for_0_2_cards() -> None:
    card = minimal_card()
    card["protocolVersion"] = "0.2.5"
    del card["url"]
    assert found(card, version=None) == [("error", "/url", "required")]


def test_a_1_0_card_fails_the_0_3_rules() -> None:
    card = minimal_card()
    del card["url"], card["protocolVersion"]
    card["supportedInterfaces"] = [
        {"url": "https://a.example", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    ]
    assert found(card) == [("error", "/protocolVersion", "required"), ("error", "/url", "required")]


# -- required, type, enum ------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "capabilities",
        "defaultInputModes",
        "defaultOutputModes",
        "description",
        "name",
        "protocolVersion",
        "skills",
        "url",
        "version",
    ],
)
def test_each_required_card_field(name: str) -> None:
    card = minimal_card()
    del card[name]
    assert validate(card, "0.3", lint=False) == [
        Finding("error", f"/{name}", f"missing required member '{name}'", "required")
    ]


def test_snake_case_names_are_not_0_3_json() -> None:
    card = minimal_card()
    card["default_input_modes"] = card.pop("defaultInputModes")
    assert found(card) == [("error", "/defaultInputModes", "required")]


def test_nested_required_and_type_errors() -> None:
    card = minimal_card()
    del card["skills"][0]["tags"]
    card["skills"][0]["examples"] = "one"
    card["additionalInterfaces"] = [{"url": "https://b.example"}]
    card["capabilities"]["streaming"] = "yes"
    card["security"] = [{"k": ["a", 1]}]
    findings = validate(card, "0.3", lint=False)
    assert [(f.severity, f.pointer, f.rule) for f in findings] == [
        ("error", "/additionalInterfaces/0/transport", "required"),
        ("error", "/capabilities/streaming", "type"),
        ("error", "/security/0/k/1", "type"),
        ("error", "/skills/0/examples", "type"),
        ("error", "/skills/0/tags", "required"),
    ]
    assert findings[1].message == "'streaming' must be true or false, not a string"
    assert findings[2].message == "item 1 of 'k' must be a string, not a number"


def test_card_that_is_not_an_object() -> None:
    assert found("card") == [("error", "", "type")]


# -- security schemes: the anyOf, rewritten ---------------------------------------------------


def test_api_key_location_outside_the_enum() -> None:
    card = with_scheme({"type": "apiKey", "in": "body", "name": "k"})
    assert validate(card, "0.3", lint=False) == [
        Finding(
            "error", "/securitySchemes/k/in", "'in' must be one of cookie, header, query", "enum"
        )
    ]


def test_missing_member_of_the_selected_scheme_type() -> None:
    card = with_scheme({"type": "apiKey", "in": "header"})
    assert validate(card, "0.3", lint=False) == [
        Finding("error", "/securitySchemes/k/name", "missing required member 'name'", "required")
    ]


def test_errors_deep_inside_an_oauth_scheme() -> None:
    card = with_scheme(
        {"type": "oauth2", "flows": {"implicit": {"scopes": {"a": 1}}, "password": "x"}}
    )
    assert found(card) == [
        ("error", "/securitySchemes/k/flows/implicit/authorizationUrl", "required"),
        ("error", "/securitySchemes/k/flows/implicit/scopes/a", "type"),
        ("error", "/securitySchemes/k/flows/password", "type"),
    ]


def test_unknown_scheme_type() -> None:
    card = with_scheme({"type": "public"})
    assert validate(card, "0.3", lint=False) == [
        Finding(
            "error",
            "/securitySchemes/k/type",
            "'type' must be one of apiKey, http, oauth2, openIdConnect, mutualTLS, not \"public\"",
            "enum",
        )
    ]


def test_scheme_without_type_names_the_1_0_spelling() -> None:
    card = with_scheme({"httpAuthSecurityScheme": {"scheme": "Bearer"}})
    [finding] = validate(card, "0.3", lint=False)
    assert (finding.pointer, finding.rule) == ("/securitySchemes/k/type", "required")
    assert "'httpAuthSecurityScheme' is the 1.0 spelling" in finding.message


def test_scheme_that_is_not_an_object() -> None:
    assert found(with_scheme(["apiKey"])) == [("error", "/securitySchemes/k", "type")]


@pytest.mark.parametrize(
    "scheme",
    [
        {"type": "apiKey"},
        {"type": "http"},
        {"type": "oauth2", "flows": {"implicit": {}}},
        {"type": "openIdConnect", "openIdConnectUrl": 3},
        {"type": 7},
        {},
    ],
)
def test_messages_never_dump_the_any_of(scheme: dict[str, Any]) -> None:
    findings = validate(with_scheme(scheme), "0.3", lint=False)
    assert findings, "each of these schemes is invalid"
    for finding in findings:
        assert finding.severity == "error"
        assert "is not valid under any of the given schemas" not in finding.message
        assert "{" not in finding.message


# -- agreement with plain jsonschema on the unmodified official schema ---------------------


@pytest.fixture(scope="module")
def official() -> Any:
    from jsonschema import Draft7Validator

    schema = json.loads((SCHEMAS / "a2a-v0.3.0.schema.json").read_text(encoding="utf-8"))
    return Draft7Validator({**schema, "$ref": "#/definitions/AgentCard"})


def rich_card() -> dict[str, Any]:
    card = minimal_card()
    card["additionalInterfaces"] = [{"url": "https://b.example", "transport": "GRPC"}]
    card["provider"] = {"organization": "Example", "url": "https://example.com"}
    card["capabilities"] = {"streaming": True, "extensions": [{"uri": "https://e", "params": {}}]}
    card["securitySchemes"] = {
        "key": {"type": "apiKey", "in": "header", "name": "k"},
        "oidc": {"type": "openIdConnect", "openIdConnectUrl": "https://o"},
        "oauth": {
            "type": "oauth2",
            "flows": {"password": {"tokenUrl": "https://t", "scopes": {"a": "A"}}},
        },
    }
    card["security"] = [{"oauth": ["a"]}]
    card["signatures"] = [{"protected": "p", "signature": "s", "header": {}}]
    return card


def value_paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        items: Any = value.items()
    else:
        items = enumerate(value) if isinstance(value, list) else ()
    paths: list[tuple[Any, ...]] = []
    for key, child in items:
        paths += [(*prefix, key), *value_paths(child, (*prefix, key))]
    return paths


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_mutated_cards_get_the_official_verdict(official: Any, data: Any) -> None:
    card = rich_card()
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(value_paths(card)))
        parent: Any = card
        for key in path[:-1]:
            parent = parent[key]
        if data.draw(st.booleans()):
            del parent[path[-1]]
        else:
            parent[path[-1]] = data.draw(st.sampled_from([None, 1, "", "x", True, [], {}, [1]]))
    findings = validate(card, "0.3", lint=False)
    assert (not findings) == official.is_valid(card)
    assert all("valid under any of the given schemas" not in f.message for f in findings)
