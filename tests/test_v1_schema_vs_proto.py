"""The generated 1.0 card schema against its sources: the committed file is
what the generator writes, and every message and field of the card tree in the
normative proto is in it with the same REQUIRED marks (checked against a
second, deliberately simple parse of the proto, and against the descriptors the
official SDK compiled from its own copy of the proto)."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
SCHEMAS = REPO / "a2a_migrate" / "schemas"
PROTO = SCHEMAS / "a2a-v1.0.proto"
SCHEMA_FILE = SCHEMAS / "a2a-v1.0.card.schema.json"

#: The card tree as the task names it; the test derives it from the proto too.
CARD_TREE = {
    "AgentCard",
    "AgentInterface",
    "AgentProvider",
    "AgentCapabilities",
    "AgentExtension",
    "AgentSkill",
    "AgentCardSignature",
    "SecurityScheme",
    "APIKeySecurityScheme",
    "HTTPAuthSecurityScheme",
    "OAuth2SecurityScheme",
    "OpenIdConnectSecurityScheme",
    "MutualTlsSecurityScheme",
    "OAuthFlows",
    "AuthorizationCodeOAuthFlow",
    "ClientCredentialsOAuthFlow",
    "ImplicitOAuthFlow",
    "PasswordOAuthFlow",
    "DeviceCodeOAuthFlow",
    "SecurityRequirement",
    "StringList",
}


def load_generator() -> ModuleType:
    path = REPO / "scripts" / "gen_v1_schema.py"
    spec = importlib.util.spec_from_file_location("gen_v1_schema", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return loaded


# -- a second parse of the proto: regular expressions over the message blocks ----------------

FIELD = re.compile(
    r"^\s*(repeated\s+|optional\s+)?"  # label
    r"(map<\s*string\s*,\s*([\w.]+)\s*>|[\w.]+)\s+"  # type, or map<string, value type>
    r"(\w+)\s*=\s*\d+\s*(\[[^\]]*\])?\s*;",  # name = number [options];
    re.MULTILINE,
)


def simple_parse(text: str) -> dict[str, dict[str, dict[str, Any]]]:
    """{message: {proto field name: {type, repeated, map, required, oneof}}}."""
    text = re.sub(r"//[^\n]*", "", text)
    messages: dict[str, dict[str, dict[str, Any]]] = {}
    for match in re.finditer(r"^message (\w+) \{(.*?)^\}", text, re.MULTILINE | re.DOTALL):
        body = match.group(2)
        oneof_of: dict[str, str] = {}
        for block in re.finditer(r"oneof (\w+) \{(.*?)\}", body, re.DOTALL):
            for f in FIELD.finditer(block.group(2)):
                oneof_of[f.group(4)] = block.group(1)
        fields = {}
        for f in FIELD.finditer(body):
            repeated, type_name, map_value, name, options = f.groups()
            fields[name] = {
                "type": map_value or type_name,
                "repeated": bool(repeated and repeated.strip() == "repeated"),
                "map": map_value is not None,
                "required": "REQUIRED" in (options or ""),
                "oneof": oneof_of.get(name),
            }
        messages[match.group(1)] = fields
    return messages


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def reachable(messages: dict[str, dict[str, dict[str, Any]]]) -> set[str]:
    seen, todo = set(), ["AgentCard"]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += [f["type"] for f in messages[name].values() if f["type"] in messages]
    return seen


@pytest.fixture(scope="module")
def proto() -> dict[str, dict[str, dict[str, Any]]]:
    return simple_parse(PROTO.read_text(encoding="utf-8"))


def required_names(definition: dict[str, Any]) -> set[str]:
    """Required JSON names: plain ``required`` plus camel/snake alternatives."""
    names = set(definition.get("required", ()))
    for clause in definition.get("allOf", ()):
        for branch in clause.get("anyOf", ()):
            names.update(branch["required"])
    return names


def oneof_names(definition: dict[str, Any]) -> set[str]:
    return {
        branch["required"][0]
        for clause in definition.get("allOf", ())
        for branch in clause.get("oneOf", ())
    }


def strip_null(subschema: dict[str, Any]) -> dict[str, Any]:
    """The non-null part of a property schema."""
    if "anyOf" in subschema:
        return next(s for s in subschema["anyOf"] if s != {"type": "null"})
    types = subschema.get("type")
    if isinstance(types, list):
        return {**subschema, "type": next(t for t in types if t != "null")}
    return subschema


# -- the tests ------------------------------------------------------------------------------------


def test_committed_schema_is_what_the_generator_writes() -> None:
    generator = load_generator()
    expected = generator.render(PROTO.read_text(encoding="utf-8"))
    assert SCHEMA_FILE.read_text(encoding="utf-8") == expected


def test_generator_check_mode_agrees() -> None:
    assert load_generator().main(["--check"]) == 0


def test_the_schema_is_a_valid_draft_2020_12_schema(schema: dict[str, Any]) -> None:
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(schema)
    assert schema["$ref"] == "#/$defs/AgentCard"


def test_the_simple_parse_sees_every_field(proto: Any) -> None:
    """Guard the regular expressions: counts taken from spec-mapping section 2.1."""
    assert len(proto["AgentCard"]) == 14
    assert sum(f["required"] for m in CARD_TREE for f in proto[m].values()) == 32
    assert [n for n, f in proto["SecurityScheme"].items() if f["oneof"] == "scheme"] == [
        "api_key_security_scheme",
        "http_auth_security_scheme",
        "oauth2_security_scheme",
        "open_id_connect_security_scheme",
        "mtls_security_scheme",
    ]


def test_card_tree_is_exactly_the_expected_messages(proto: Any, schema: dict[str, Any]) -> None:
    assert reachable(proto) == CARD_TREE
    assert set(schema["$defs"]) == CARD_TREE


def test_every_field_is_present_with_its_required_mark(proto: Any, schema: dict[str, Any]) -> None:
    for message in sorted(CARD_TREE):
        definition = schema["$defs"][message]
        properties = definition["properties"]
        expected_names = set()
        for name, f in proto[message].items():
            json_name = camel(name)
            expected_names |= {json_name, name}
            assert json_name in properties, f"{message}.{name}"
            if json_name != name:
                alias_ref = f"#/$defs/{message}/properties/{json_name}"
                assert properties[name] == {"$ref": alias_ref}, f"{message}.{name}"
            required = json_name in required_names(definition)
            # A REQUIRED map may be absent: ProtoJSON omits an empty map (the generator says why).
            assert required == (f["required"] and not f["map"]), f"{message}.{name}: REQUIRED mark differs"
        assert set(properties) == expected_names, message


def test_field_types_follow_the_proto(proto: Any, schema: dict[str, Any]) -> None:
    for message in sorted(CARD_TREE):
        properties = schema["$defs"][message]["properties"]
        for name, f in proto[message].items():
            sub = strip_null(properties[camel(name)])
            where = f"{message}.{name}"
            if f["repeated"]:
                assert sub["type"] == "array", where
                assert ("minItems" in sub) == f["required"], where
                sub = sub["items"]
            elif f["map"]:
                assert sub["type"] == "object", where
                sub = sub["additionalProperties"]
            if f["type"] in proto:
                assert sub["$ref"] == f"#/$defs/{f['type']}", where
            elif f["type"] == "google.protobuf.Struct":
                assert sub["type"] == "object" and "additionalProperties" not in sub, where
            else:
                assert sub["type"] == {"string": "string", "bool": "boolean"}[f["type"]], where


def test_null_is_allowed_only_where_a_field_may_be_unset(proto: Any, schema: Any) -> None:
    for message in sorted(CARD_TREE):
        properties = schema["$defs"][message]["properties"]
        for name, f in proto[message].items():
            allows_null = properties[camel(name)] != strip_null(properties[camel(name)])
            assert allows_null == (not f["required"] and f["oneof"] is None), f"{message}.{name}"


def test_oneofs_become_exactly_one_member(proto: Any, schema: dict[str, Any]) -> None:
    for message in sorted(CARD_TREE):
        members = {n for n, f in proto[message].items() if f["oneof"]}
        expected = {camel(n) for n in members} | members
        assert oneof_names(schema["$defs"][message]) == expected, message
    schemes = oneof_names(schema["$defs"]["SecurityScheme"])
    assert {"apiKeySecurityScheme", "mtlsSecurityScheme"} <= schemes
    assert {"authorizationCode", "deviceCode"} <= oneof_names(schema["$defs"]["OAuthFlows"])


def test_the_official_sdk_descriptors_agree(schema: dict[str, Any]) -> None:
    """a2a-sdk compiles its own copy of the proto: same JSON names, same REQUIRED."""
    import a2a.types
    from google.api import field_behavior_pb2

    for message in sorted(CARD_TREE):
        descriptor = getattr(a2a.types, message).DESCRIPTOR
        definition = schema["$defs"][message]
        sdk = {  # a REQUIRED map may be absent (ProtoJSON omits it when empty)
            f.json_name: field_behavior_pb2.REQUIRED
            in f.GetOptions().Extensions[field_behavior_pb2.field_behavior]
            and not (f.message_type is not None and f.message_type.GetOptions().map_entry)
            for f in descriptor.fields
        }
        ours = {
            name: name in required_names(definition)
            for name, sub in definition["properties"].items()
            if "/properties/" not in sub.get("$ref", "")
        }
        assert ours == sdk, message
