"""Validate an Agent Card against protocol 0.3 or 1.0, and lint it.

Two layers, both reported as :class:`Finding` values with an RFC 6901 pointer:

* **Structure** (always on): 0.3 cards are checked with the official v0.3.0 JSON
  Schema (``schemas/a2a-v0.3.0.schema.json``, through ``jsonschema``); 1.0 cards
  with ``schemas/a2a-v1.0.card.schema.json``, which ``scripts/gen_v1_schema.py``
  derives from the normative ``a2a.proto``. The 1.0 schema is interpreted by a
  small walker in this module rather than by ``jsonschema``: it is the hot path
  of every upgrade (``jsonschema`` took 450-750 us per corpus card, the walker
  35-65), and it lets unknown members be warnings, as spec v1.0 section 5.7 asks
  ("SHOULD ignore unrecognized fields"), while strict parsers reject them. A
  test runs both on the corpus and on thousands of mutated cards: same verdicts.
* **Lint** (``lint=True``): advice beyond the schemas, always warnings.
"""

from __future__ import annotations

import functools
import ipaddress
import json
from pathlib import Path
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from . import pointer as jp
from .versions import HYBRID, V0_1, V0_2, V0_3, V1_0, detect_version, major_minor

__all__ = ["Finding", "proto_json", "validate"]

Severity = Literal["error", "warning"]

V03_SCHEMA = "a2a-v0.3.0.schema.json"
V10_SCHEMA = "a2a-v1.0.card.schema.json"

#: Which rule set applies to each shape :func:`detect_version` can name.
_RULESETS = {V1_0: V1_0, HYBRID: V1_0, V0_3: V0_3, V0_2: V0_3, V0_1: V0_3}

LONG_DESCRIPTION = 1000


@dataclass(frozen=True)
class Finding:
    """One problem found in a card.

    ``pointer`` is an RFC 6901 JSON Pointer into the card; for a missing member
    it points where the member belongs (``/skills/0/tags``). ``rule`` is a short
    stable id (``required``, ``type``, ``oneof``, ``unknown-member``, ...) that
    scripts can match on; ``message`` is for people.
    """

    severity: Severity
    pointer: str
    message: str
    rule: str


def validate(card: Any, version: str | None = None, *, lint: bool = True) -> list[Finding]:
    """Check ``card`` against the rules of protocol ``version``.

    ``version`` is ``"0.3"`` or ``"1.0"`` (``"hybrid"``, ``"0.2"`` and ``"0.1"``
    are accepted too); ``None`` detects it by the card's shape: 1.0 and hybrid
    cards get the 1.0 rules, 0.3, 0.2 and 0.1 cards the 0.3 rules, and a card of
    unknown shape gets a single ``unknown-version`` error. ``lint=False`` keeps
    only the findings of the schema (errors, plus ``unknown-member`` and
    ``min-items`` warnings for 1.0).

    Returns the findings sorted by pointer (array indexes numerically), then
    rule; the card is valid for that version when none has severity "error".
    Raises ValueError for a version this module has no rules for.
    """
    if not isinstance(card, Mapping):
        return [Finding("error", "", f"the card must be a JSON object, not {_kind(card)}", "type")]
    ruleset = _ruleset(card, version)
    if ruleset is None:
        message = (
            "cannot tell the protocol version from the card's shape: it has neither "
            "'supportedInterfaces' (1.0) nor 'url'/'protocolVersion' (0.3)"
        )
        return [Finding("error", "", message, "unknown-version")]
    if ruleset == V1_0:
        findings = _structure_v10(card)
        if lint:
            findings += _lint_v10(card)
    else:
        findings = _structure_v03(card)
        if lint:
            findings += _lint_v03(card)
    return _finish(findings)


def _ruleset(card: Mapping[str, Any], version: str | None) -> str | None:
    if version is None:
        return _RULESETS.get(detect_version(card))
    ruleset = _RULESETS.get(version) or _RULESETS.get(major_minor(version) or "")
    if ruleset is None:
        raise ValueError(f"no validation rules for version {version!r}; use '0.3' or '1.0'")
    return ruleset


def _finish(findings: list[Finding]) -> list[Finding]:
    """Deduplicate and sort; a 'hybrid' lint finding replaces the plain
    'unknown-member' warning at the same pointer (one member, one message)."""
    hybrid = {f.pointer for f in findings if f.rule == "hybrid"}
    unique = {f for f in findings if not (f.rule == "unknown-member" and f.pointer in hybrid)}
    return sorted(unique, key=_sort_key)


_INDEX = re.compile(r"[0-9]+")


def _sort_key(finding: Finding) -> tuple[Any, ...]:
    tokens = tuple(
        (0, int(token), "") if _INDEX.fullmatch(token) else (1, 0, token)
        for token in jp.split(finding.pointer)
    )
    return (tokens, finding.rule, finding.severity, finding.message)


# ---------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------


def _read_schema(name: str) -> Any:
    # Beside this module in the package (a wheel installs it unzipped); importlib.resources
    # would cost the command-line start-up more than the read itself.
    return json.loads((Path(__file__).parent / "schemas" / name).read_text("utf-8"))


def _kind(value: Any) -> str:
    """A JSON value's type in words, with its article."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return f"a {type(value).__name__}"


_TYPE_WORDS = {
    "string": "a string",
    "boolean": "true or false",
    "object": "an object",
    "array": "an array",
    "number": "a number",
    "integer": "an integer",
    "null": "null",
    "struct": "an object",
    "message": "an object",
    "map": "an object",
}


def _label(path: Iterable[str | int]) -> str:
    """Name the member at ``path`` in plain words: 'url', item 2 of 'tags'."""
    tokens = list(path)
    if not tokens:
        return "the card"
    last = tokens[-1]
    if isinstance(last, int):
        owner = f"'{tokens[-2]}'" if len(tokens) > 1 else "the array"
        return f"item {last} of {owner}"
    return f"'{last}'"


def _items(value: Any) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """The objects of an array, with their indexes; anything else is skipped
    (the structural check reports wrong types, lint must not crash on them)."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, Mapping):
                yield index, item


# ---------------------------------------------------------------------------
# 0.3: the official JSON Schema through jsonschema, messages rewritten
# ---------------------------------------------------------------------------


@functools.cache
def _v03_validator() -> Any:
    # Imported here: a plain `import a2a_migrate.validation` must stay cheap.
    from jsonschema import Draft7Validator

    definitions = _read_schema(V03_SCHEMA)["definitions"]
    return Draft7Validator(_inline_refs(definitions["AgentCard"], definitions))


def _inline_refs(node: Any, definitions: Mapping[str, Any]) -> Any:
    """Replace each ``{"$ref": "#/definitions/X"}`` by X itself.

    The same schema: draft 7 ignores every keyword beside "$ref", and the card's
    definitions have no cycles. It spares jsonschema a reference lookup on each
    descent, about a fifth of its time on a card.
    """
    if isinstance(node, dict):
        if "$ref" in node:
            return _inline_refs(definitions[node["$ref"].rsplit("/", 1)[-1]], definitions)
        return {key: _inline_refs(value, definitions) for key, value in node.items()}
    if isinstance(node, list):
        return [_inline_refs(item, definitions) for item in node]
    return node


@functools.cache
def _v03_scheme_branches() -> dict[str, int]:
    """Map each 0.3 security scheme ``type`` to its ``anyOf`` branch index."""
    definitions = _read_schema(V03_SCHEMA)["definitions"]
    branches: dict[str, int] = {}
    for index, branch in enumerate(definitions["SecurityScheme"]["anyOf"]):
        target = definitions[branch["$ref"].rsplit("/", 1)[-1]]
        branches[target["properties"]["type"]["const"]] = index
    return branches


def _structure_v03(card: Mapping[str, Any]) -> list[Finding]:
    findings: list[Finding] = []
    for error in _v03_validator().iter_errors(card):
        findings.extend(_v03_findings(error))
    return findings


def _v03_findings(error: Any) -> Iterator[Finding]:
    """Turn one jsonschema error into findings that name the field."""
    path = list(error.absolute_path)
    where = jp.join("", *path)
    keyword = error.validator
    if keyword == "required":
        for name in error.validator_value:
            if isinstance(error.instance, Mapping) and name not in error.instance:
                yield Finding(
                    "error", jp.join(where, name), f"missing required member '{name}'", "required"
                )
    elif keyword == "type":
        expected = error.validator_value
        words = " or ".join(_TYPE_WORDS.get(t, t) for t in _listify(expected))
        message = f"{_label(path)} must be {words}, not {_kind(error.instance)}"
        yield Finding("error", where, message, "type")
    elif keyword == "enum":
        values = ", ".join(str(v) for v in error.validator_value)
        yield Finding("error", where, f"{_label(path)} must be one of {values}", "enum")
    elif keyword == "const":
        yield Finding("error", where, f"{_label(path)} must be {json.dumps(error.validator_value)}", "const")
    elif keyword == "anyOf":
        yield from _v03_scheme_findings(error, path)
    else:  # not used by the 0.3 card schema today; keep the library's words
        yield Finding("error", where, f"{_label(path)}: {error.message}", str(keyword))


def _listify(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def _v03_scheme_findings(error: Any, path: list[Any]) -> Iterator[Finding]:
    """The only ``anyOf`` in the 0.3 card is SecurityScheme: report the errors of
    the branch its ``type`` selects, instead of the five branches' dump."""
    where = jp.join("", *path)
    scheme = error.instance
    branches = _v03_scheme_branches()
    types = ", ".join(branches)
    if not isinstance(scheme, Mapping):
        message = f"security scheme {_label(path)} must be an object, not {_kind(scheme)}"
        yield Finding("error", where, message, "type")
        return
    kind = scheme.get("type")
    if "type" not in scheme:
        message = f"missing required member 'type' (one of {types})"
        wrapper = next((k for k in scheme if k.endswith("SecurityScheme")), None)
        if wrapper:
            message += f"; '{wrapper}' is the 1.0 spelling, which 0.3 readers do not know"
        yield Finding("error", jp.join(where, "type"), message, "required")
        return
    if not isinstance(kind, str) or kind not in branches:
        message = f"'type' must be one of {types}, not {json.dumps(kind)}"
        yield Finding("error", jp.join(where, "type"), message, "enum")
        return
    for sub in error.context or ():
        if sub.relative_schema_path and sub.relative_schema_path[0] == branches[kind]:
            yield from _v03_findings(sub)


# ---------------------------------------------------------------------------
# 1.0: a walker driven by the generated schema
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Type:
    """What one field (or array item, or map value) holds."""

    kind: str  # string, boolean, struct, message, array or map
    nullable: bool = False  # ProtoJSON reads null as "unset"
    non_empty: bool = False  # minLength / minItems 1
    ref: str = ""  # the message, for kind "message"
    item: _Type | None = None  # the element, for "array" and "map"


@dataclass(frozen=True)
class _Field:
    name: str  # the lowerCamelCase JSON name
    type: _Type
    required: bool


@dataclass(frozen=True)
class _Message:
    name: str
    fields: dict[str, _Field]  # by JSON name and by proto-name alias
    aliases: dict[str, str]  # JSON name -> proto name, where they differ
    required: tuple[str, ...]
    oneofs: tuple[tuple[str, ...], ...]

    def key(self, obj: Mapping[str, Any], name: str) -> str | None:
        """The spelling of field ``name`` present in ``obj``, if any."""
        if name in obj:
            return name
        alias = self.aliases.get(name)
        return alias if alias is not None and alias in obj else None

    def get(self, obj: Mapping[str, Any], name: str) -> Any:
        key = self.key(obj, name)
        return obj[key] if key is not None else None


_ANNOTATIONS = {"description", "$comment", "deprecated", "title"}
_TYPE_KEYWORDS = {"type", "items", "minItems", "minLength", "additionalProperties", "$ref", "anyOf"}


@functools.cache
def _v10_messages() -> dict[str, _Message]:
    """Compile the generated schema once per process into field tables."""
    definitions = _read_schema(V10_SCHEMA)["$defs"]
    return {name: _compile_message(name, schema) for name, schema in definitions.items()}


def _compile_message(name: str, schema: Mapping[str, Any]) -> _Message:
    properties: Mapping[str, Any] = schema["properties"]
    alias_of = {
        prop: sub["$ref"].rsplit("/", 1)[-1]
        for prop, sub in properties.items()
        if sub.get("$ref", "").startswith(f"#/$defs/{name}/properties/")
    }
    required = list(schema.get("required", ()))
    oneofs: list[tuple[str, ...]] = []
    for clause in schema.get("allOf", ()):
        if "anyOf" in clause:  # a required field that has a proto-name alias
            required.append(clause["anyOf"][0]["required"][0])
        elif "oneOf" in clause:
            names = (branch["required"][0] for branch in clause["oneOf"])
            oneofs.append(tuple(dict.fromkeys(alias_of.get(n, n) for n in names)))
        else:
            raise ValueError(f"{name}: unexpected allOf clause {clause}")
    fields: dict[str, _Field] = {
        prop: _Field(prop, _compile_type(sub), prop in required)
        for prop, sub in properties.items()
        if prop not in alias_of
    }
    for alias, target in alias_of.items():
        fields[alias] = fields[target]
    return _Message(
        name=name,
        fields=fields,
        aliases={target: alias for alias, target in alias_of.items()},
        required=tuple(required),
        oneofs=tuple(oneofs),
    )


def _compile_type(schema: Mapping[str, Any]) -> _Type:
    """Read one of the few shapes the generator writes; refuse anything else,
    so that a generator change cannot be silently half-understood."""
    unknown = set(schema) - _ANNOTATIONS - _TYPE_KEYWORDS
    if unknown:
        raise ValueError(f"unsupported schema keywords {sorted(unknown)} in {schema}")
    if "anyOf" in schema:  # an optional message: [{"$ref": ...}, {"type": "null"}]
        ref, null = schema["anyOf"]
        if null != {"type": "null"}:
            raise ValueError(f"unsupported anyOf in {schema}")
        return _Type("message", nullable=True, ref=ref["$ref"].rsplit("/", 1)[-1])
    if "$ref" in schema:
        return _Type("message", ref=schema["$ref"].rsplit("/", 1)[-1])
    types = _listify(schema["type"])
    nullable = "null" in types
    (base,) = [t for t in types if t != "null"]
    if base == "array":
        item = _compile_type(schema["items"])
        return _Type("array", nullable, schema.get("minItems", 0) > 0, item=item)
    if base == "object" and "additionalProperties" in schema:
        return _Type("map", nullable, item=_compile_type(schema["additionalProperties"]))
    if base == "object":
        return _Type("struct", nullable)
    if base in ("string", "boolean"):
        return _Type(base, nullable, schema.get("minLength", 0) > 0)
    raise ValueError(f"unsupported type in {schema}")


def _structure_v10(card: Mapping[str, Any]) -> list[Finding]:
    walker = _Walker(_v10_messages())
    walker.message(card, walker.messages["AgentCard"], _ROOT)
    return walker.out


#: Findings that mean a ProtoJSON parser refuses the card (a missing required
#: member does not: proto3 has no required fields, the value is just unset).
_UNPARSABLE = ("type", "duplicate-member")


def proto_json(card: Mapping[str, Any]) -> dict[str, Any]:
    """A 1.0 card as a lenient ProtoJSON reader reads it, written back as ProtoJSON writes it.

    That is ``ParseDict(card, AgentCard(), ignore_unknown_fields=True)``
    followed by ``MessageToDict``, modelled on the schema: members 1.0 does not
    define are gone, proto names (``default_input_modes``) become JSON names,
    nulls are unset, and numbers in ``Struct`` values are doubles. Presence and
    empty values are the caller's business. Raises :class:`ValueError` naming
    the place when such a reader refuses the card (a wrong type, a field given
    twice, two members of a oneof).
    """
    refused = [f for f in _structure_v10(card) if f.rule in _UNPARSABLE]
    if refused:
        raise ValueError(f"{refused[0].pointer or '/'}: {refused[0].message}")
    messages = _v10_messages()
    return _proto_message(card, messages["AgentCard"], messages, "")


def _proto_message(obj: Mapping[str, Any], message: _Message, messages: Mapping[str, _Message],
                   where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in obj.items():
        f = message.fields.get(key)
        if f is not None and value is not None:
            out[f.name] = _proto_value(value, f.type, messages, jp.join(where, key))
    for group in message.oneofs:
        if sum(name in out for name in group) > 1:
            raise ValueError(f"{where or '/'}: {', '.join(n for n in group if n in out)} are one field (a oneof): "
                             "give one")
    return out


def _proto_value(value: Any, t: _Type, messages: Mapping[str, _Message], where: str) -> Any:
    if t.kind == "message":
        return _proto_message(value, messages[t.ref], messages, where)
    if t.kind == "struct":
        return _doubles(value, where)
    if t.kind in ("array", "map"):
        assert t.item is not None
        item = t.item
        if isinstance(value, list):
            return [_proto_value(v, item, messages, jp.join(where, i)) for i, v in enumerate(value)]
        return {k: _proto_value(v, item, messages, jp.join(where, k)) for k, v in value.items()}
    return value


def _doubles(value: Any, where: str) -> Any:
    """A ``Struct`` value as protobuf holds it: every number a double."""
    if isinstance(value, dict):
        return {k: _doubles(v, jp.join(where, k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_doubles(v, jp.join(where, i)) for i, v in enumerate(value)]
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:
            raise ValueError(f"{where}: {value} is beyond what a double holds") from None
    return value


#: Where a value sits: (parent node, key, whether the parent is a map), or the
#: root. Pointers and labels are spelled out only when a finding needs them:
#: on a valid card, building one per value cost more than the checks.
_Node = tuple[Any, ...]
_ROOT: _Node = ()


def _pointer(node: _Node) -> str:
    keys: list[str | int] = []
    while node:
        node, key, _ = node
        keys.append(key)
    return jp.join("", *reversed(keys))


def _node_label(node: _Node) -> str:
    """A value in plain words: a field ('url'), an array item (item 2 of
    'tags') or a map value ('read' in 'scopes')."""
    if not node:
        return "the card"
    parent, key, in_map = node
    if isinstance(key, int):
        return f"item {key} of {_node_label(parent)}"
    return f"'{key}' in {_node_label(parent)}" if in_map else f"'{key}'"


class _Walker:
    """Walks a card along the compiled 1.0 schema, collecting findings."""

    def __init__(self, messages: Mapping[str, _Message]) -> None:
        self.messages = messages
        self.out: list[Finding] = []

    def message(self, obj: Mapping[str, Any], message: _Message, node: _Node) -> None:
        spelled: dict[str, str] = {}  # JSON name -> the key used in obj
        for key, value in obj.items():
            f = message.fields.get(key)
            if f is None:
                self.out.append(_unknown_member(message, _pointer((node, key, False)), key))
            elif f.name in spelled:
                text = f"'{key}' and '{spelled[f.name]}' are the same field; give it once"
                self._add("error", (node, key, False), text, "duplicate-member")
            else:
                spelled[f.name] = key
                if value is not None or not f.required:  # a null required field: below
                    self.value(value, f.type, (node, key, False))
        for name in message.required:
            self._required(obj, spelled.get(name), message.fields[name].type, name, node)
        for group in message.oneofs:
            self._oneof(obj, group, spelled, node)

    def value(self, value: Any, t: _Type, node: _Node) -> None:
        """Check one value against its type; recurse into messages, arrays, maps."""
        kind = t.kind
        if value is None:
            if not t.nullable:
                self._type_error(value, t, node)
        elif kind == "string":
            if not isinstance(value, str):
                self._type_error(value, t, node)
            elif t.non_empty and not value:  # proto3: "" is the unset value
                text = f"required member {_node_label(node)} is empty"
                self._add("error", node, text, "required")
        elif kind == "boolean":
            if not isinstance(value, bool):
                self._type_error(value, t, node)
        elif kind == "array":
            if isinstance(value, list):
                self._array(value, t, node)
            else:
                self._type_error(value, t, node)
        elif not isinstance(value, Mapping):  # message, map and struct are objects
            self._type_error(value, t, node)
        elif kind == "message":
            self.message(value, self.messages[t.ref], node)
        elif kind == "map":
            assert t.item is not None
            for map_key, item in value.items():
                self.value(item, t.item, (node, map_key, True))

    def _array(self, value: list[Any], t: _Type, node: _Node) -> None:
        item = t.item
        assert item is not None
        if t.non_empty and not value:
            # Spec section 5.7 says required arrays MUST be non-empty, but its own
            # section 8.4.1 example keeps "skills": []; a warning, by tool policy
            # (spec-mapping section 2.1).
            text = f"{_node_label(node)} is empty; spec section 5.7 wants required arrays non-empty"
            self._add("warning", node, text, "min-items")
        if item.kind == "string" and all(isinstance(x, str) for x in value):
            return  # the common case (modes, tags, examples): nothing to report
        for index, element in enumerate(value):
            self.value(element, item, (node, index, False))

    def _required(self, obj: Mapping[str, Any], used: str | None, t: _Type, name: str, node: _Node) -> None:
        if used is None and t.kind == "map":
            return  # ProtoJSON omits an empty map: absent is the empty map, which is allowed
        if used is None:
            self._add("error", (node, name, False), f"missing required member '{name}'", "required")
        elif obj[used] is None:
            text = f"required member '{used}' is null, which means unset"
            self._add("error", (node, used, False), text, "required")

    def _oneof(
        self,
        obj: Mapping[str, Any],
        group: tuple[str, ...],
        spelled: Mapping[str, str],
        node: _Node,
    ) -> None:
        present = [spelled[name] for name in group if name in spelled]
        if len(present) == 1:
            return
        found = ", ".join(f"'{k}'" for k in present) if present else "none"
        text = f"{_node_label(node)} must hold exactly one of {', '.join(group)}; found {found}"
        if not present and "type" in obj:
            text += " (it looks like a 0.3 scheme: 1.0 wraps it in one of these members)"
        self._add("error", node, text, "oneof")

    def _type_error(self, value: Any, t: _Type, node: _Node) -> None:
        text = f"{_node_label(node)} must be {_TYPE_WORDS[t.kind]}, not {_kind(value)}"
        self._add("error", node, text, "type")

    def _add(self, severity: Severity, node: _Node, text: str, rule: str) -> None:
        self.out.append(Finding(severity, _pointer(node), text, rule))


def _unknown_member(message: _Message, where: str, key: str) -> Finding:
    text = (
        f"'{key}' is not a field of {message.name} in 1.0: readers ignore it "
        "(spec section 5.7), strict ProtoJSON parsers reject the card"
    )
    return Finding("warning", where, text, "unknown-member")


# ---------------------------------------------------------------------------
# Lint: advice beyond the schemas (warnings only)
# ---------------------------------------------------------------------------

# Template markers and ALL_CAPS_WITH_UNDERSCORES words: {{BASE_URL}}, ${HOST},
# <your-host>, REPLACE_WITH_RAILWAY_URL, REMPLACER_PAR_L_ENDPOINT_A2A.
_PLACEHOLDER = re.compile(r"[{}<>]|\$\{|%7B|%7D|[A-Z]{2,}[A-Z0-9]*(?:_[A-Z0-9]+)+", re.ASCII)
_PLACEHOLDER_WORDS = re.compile(
    r"placeholder|change[-_]?me|replace[-_]?me|your[-_]?(?:domain|host|url)", re.IGNORECASE
)
_LOCAL_NAMES = ("localhost", "localhost.localdomain")
_MEDIA_TYPE = re.compile(
    r"^(?:\*/\*|[A-Za-z0-9][\w!#$&^.+-]*/(?:\*|[A-Za-z0-9][\w!#$&^.+-]*))(?:\s*;.*)?$"
)
_MAJOR_MINOR = re.compile(r"\d+\.\d+")
_WITH_PATCH = re.compile(r"\d+\.\d+\.\d+")

#: 0.3 members that a hybrid card keeps beside the 1.0 ones, by where they sit.
_HYBRID_CARD = frozenset(
    {
        "url",
        "preferredTransport",
        "preferred_transport",
        "protocolVersion",
        "protocol_version",
        "additionalInterfaces",
        "additional_interfaces",
        "supportsAuthenticatedExtendedCard",
        "supports_authenticated_extended_card",
        "supportsExtendedAgentCard",  # the pre-1.0 draft name (spec-mapping section 8.2)
        "security",
    }
)
_HYBRID_CAPABILITIES = frozenset({"stateTransitionHistory", "state_transition_history"})
_HYBRID_INTERFACE = frozenset({"transport"})
_HYBRID_SKILL = frozenset({"security"})
_HYBRID_SCHEME = frozenset(
    {
        "type",
        "in",
        "name",
        "description",
        "scheme",
        "bearerFormat",
        "flows",
        "oauth2MetadataUrl",
        "openIdConnectUrl",
    }
)

# Lint builds a pointer only for a finding: paths travel as token tuples.
_Path = tuple[str | int, ...]


def _warn(path: _Path, text: str, rule: str) -> Finding:
    return Finding("warning", jp.join("", *path), text, rule)


def _url_problem(url: Any) -> str | None:
    """Why ``url`` is not an absolute https URL of a public host, or None."""
    if not isinstance(url, str):
        return None  # a wrong type is the schema's finding
    if _PLACEHOLDER.search(url) or _PLACEHOLDER_WORDS.search(url):
        return "looks like a placeholder"
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname or ""
    except ValueError:
        return "is not a valid URL"
    if not parts.scheme or not parts.netloc or not host:
        return "is not an absolute URL"
    if _is_local(host):
        return "points at a local address"
    if parts.scheme.lower() == "http":
        return "uses plain http"
    if parts.scheme.lower() != "https":
        return f"uses '{parts.scheme}', not https"
    return None


def _is_local(host: str) -> bool:
    if host in _LOCAL_NAMES or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def _lint_url(url: Any, path: _Path, label: str) -> Iterator[Finding]:
    problem = _url_problem(url)
    if problem:
        text = f"{label} {json.dumps(url)} {problem}; clients need an absolute https URL"
        yield _warn(path, text, "url-not-https")


def _spelling(fields: _Message | None, obj: Mapping[str, Any], name: str) -> str:
    """The key under which ``obj`` holds field ``name`` (1.0 also reads proto names)."""
    return (fields.key(obj, name) if fields is not None else None) or name


def _lint_common(
    card: Mapping[str, Any], card_fields: _Message | None, skill_fields: _Message | None
) -> Iterator[Finding]:
    """Rules that read the same in both versions; 1.0 passes its field tables
    so that proto-name spellings are found too."""
    yield from _lint_description(card, (), "the card's description")
    for name in ("defaultInputModes", "defaultOutputModes"):
        key = _spelling(card_fields, card, name)
        yield from _lint_modes(card.get(key), (key,))
    skills_key = _spelling(card_fields, card, "skills")
    first_use: dict[str, int] = {}
    for index, skill in _items(card.get(skills_key)):
        path = (skills_key, index)
        yield from _lint_description(skill, path, f"skill {index}'s description")
        for name in ("inputModes", "outputModes"):
            key = _spelling(skill_fields, skill, name)
            yield from _lint_modes(skill.get(key), (*path, key))
        yield from _duplicate_skill(skill.get("id"), path, first_use)
    signatures = card.get("signatures")
    if isinstance(signatures, list) and signatures:
        text = (
            "signatures are not checked by validate (use `a2a-migrate verify CARD --key ...`), and any "
            "change to the card (a migration included) invalidates them"
        )
        yield _warn(("signatures",), text, "signatures")


def _lint_description(obj: Mapping[str, Any], path: _Path, label: str) -> Iterator[Finding]:
    text = obj.get("description")
    if isinstance(text, str) and len(text) > LONG_DESCRIPTION:
        message = f"{label} has {len(text)} characters; keep it under {LONG_DESCRIPTION}"
        yield _warn((*path, "description"), message, "long-description")


def _lint_modes(modes: Any, path: _Path) -> Iterator[Finding]:
    if not isinstance(modes, list):
        return
    for index, mode in enumerate(modes):
        if isinstance(mode, str) and not _MEDIA_TYPE.match(mode):
            text = f"{json.dumps(mode)} is not a media type (type/subtype, e.g. text/plain)"
            yield _warn((*path, index), text, "media-type")


def _duplicate_skill(skill_id: Any, path: _Path, first_use: dict[str, int]) -> Iterator[Finding]:
    if not isinstance(skill_id, str):
        return
    if skill_id in first_use:
        text = f"skill id {json.dumps(skill_id)} is already used by skill {first_use[skill_id]}"
        yield _warn((*path, "id"), text, "duplicate-skill-id")
    else:
        first_use[skill_id] = int(path[-1])


def _lint_v10(card: Mapping[str, Any]) -> list[Finding]:
    messages = _v10_messages()
    findings = list(_lint_common(card, messages["AgentCard"], messages["AgentSkill"]))
    findings += _lint_v10_interfaces(card, messages)
    findings += _lint_hybrid(card, messages["AgentCard"])
    return findings


def _lint_v10_interfaces(
    card: Mapping[str, Any], messages: Mapping[str, _Message]
) -> Iterator[Finding]:
    key = _spelling(messages["AgentCard"], card, "supportedInterfaces")
    fields = messages["AgentInterface"]
    first_use: dict[tuple[Any, ...], int] = {}
    for index, interface in _items(card.get(key)):
        path = (key, index)
        yield from _lint_url(interface.get("url"), (*path, "url"), "interface url")
        version_key = fields.key(interface, "protocolVersion")
        if version_key is not None:
            yield from _lint_protocol_version(interface[version_key], (*path, version_key))
        identity = tuple(
            _hashable(fields.get(interface, n))
            for n in ("url", "protocolBinding", "protocolVersion", "tenant")
        )
        if identity in first_use:
            text = (
                f"interface repeats interface {first_use[identity]} "
                "(same url, binding, version and tenant)"
            )
            yield _warn(path, text, "duplicate-interface")
        else:
            first_use[identity] = index


def _hashable(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)


def _lint_protocol_version(value: Any, path: _Path) -> Iterator[Finding]:
    if not isinstance(value, str) or not value or _MAJOR_MINOR.fullmatch(value):
        return
    better = major_minor(value)
    if better and _WITH_PATCH.fullmatch(value.strip()):
        text = (
            f"protocol version {json.dumps(value)} has a patch number; write {json.dumps(better)} "
            "(spec section 3.6: patch versions SHOULD NOT be used in Agent Cards)"
        )
        yield _warn(path, text, "version-patch")
    else:
        hint = f"; write {json.dumps(better)}" if better else ""
        text = f"protocol version {json.dumps(value)} is not in Major.Minor form{hint}"
        yield _warn(path, text, "version-format")


def _lint_hybrid(card: Mapping[str, Any], card_fields: _Message) -> Iterator[Finding]:
    """0.3 members left in a 1.0 card: what a hybrid (dual-generation) card
    carries. 1.0 readers ignore them; a strict parser rejects the card."""
    yield from _hybrid_members(card, (), _HYBRID_CARD)
    key = _spelling(card_fields, card, "capabilities")
    if isinstance(card.get(key), Mapping):
        yield from _hybrid_members(card[key], (key,), _HYBRID_CAPABILITIES)
    for name, members in (("supportedInterfaces", _HYBRID_INTERFACE), ("skills", _HYBRID_SKILL)):
        key = _spelling(card_fields, card, name)
        for index, item in _items(card.get(key)):
            yield from _hybrid_members(item, (key, index), members)
    key = _spelling(card_fields, card, "securitySchemes")
    schemes = card.get(key)
    if isinstance(schemes, Mapping):
        for scheme_name, scheme in schemes.items():
            if isinstance(scheme, Mapping):
                yield from _hybrid_members(scheme, (key, scheme_name), _HYBRID_SCHEME)


def _hybrid_members(
    obj: Mapping[str, Any], path: _Path, names: frozenset[str]
) -> Iterator[Finding]:
    for name in names.intersection(obj):
        text = (
            f"'{name}' is a 0.3 member left in a 1.0 card (a hybrid card): 1.0 "
            "readers ignore it, strict parsers reject the card"
        )
        yield _warn((*path, name), text, "hybrid")


def _lint_v03(card: Mapping[str, Any]) -> list[Finding]:
    findings = list(_lint_common(card, None, None))
    if "url" in card:
        findings += _lint_url(card["url"], ("url",), "url")
    # An additional interface equal to the main url is what 0.3 section 5.6.2
    # asks for, so only repeats among the additional interfaces are flagged.
    first_use: dict[tuple[Any, ...], int] = {}
    for index, interface in _items(card.get("additionalInterfaces")):
        path = ("additionalInterfaces", index)
        findings += _lint_url(interface.get("url"), (*path, "url"), "interface url")
        identity = (_hashable(interface.get("url")), _hashable(interface.get("transport")))
        if identity in first_use:
            text = f"interface repeats interface {first_use[identity]} (same url and transport)"
            findings.append(_warn(path, text, "duplicate-interface"))
        else:
            first_use[identity] = index
    return findings
