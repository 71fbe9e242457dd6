"""Validate an Agent Card against protocol 0.3 or 1.0, and lint it.

Two layers, both reported as :class:`Finding` values with an RFC 6901 pointer:

* **Structure** (always on): 0.3 cards are checked with the official v0.3.0 JSON
  Schema (``schemas/a2a-v0.3.0.schema.json``, through ``jsonschema``); 1.0 cards
  with ``schemas/a2a-v1.0.card.schema.json``, which ``scripts/gen_v1_schema.py``
  derives from the normative ``a2a.proto``. The 1.0 schema is interpreted by a
  small walker in this module rather than by ``jsonschema``: it is the hot path
  of every upgrade (``jsonschema`` took about 450-700 us per card, the walker a
  few tens), and it lets unknown members be warnings, as spec v1.0 section 5.7
  asks ("SHOULD ignore unrecognized fields"), while strict parsers reject them.
* **Lint** (``lint=True``): advice beyond the schemas, always warnings.
"""

from __future__ import annotations

import functools
import ipaddress
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Literal
from urllib.parse import urlsplit

from . import pointer as jp
from .versions import HYBRID, V0_1, V0_2, V0_3, V1_0, detect_version, major_minor

__all__ = ["Finding", "validate"]

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


def _sort_key(finding: Finding) -> tuple[Any, ...]:
    tokens = tuple(
        (0, int(token), "") if token.isdigit() else (1, 0, token)
        for token in jp.split(finding.pointer)
    )
    return (tokens, finding.rule, finding.severity, finding.message)


# ---------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------


def _read_schema(name: str) -> Any:
    return json.loads(resources.files(__package__).joinpath("schemas", name).read_text("utf-8"))


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
    # Imported here: a plain `import a2a_migrate.validate` must stay cheap.
    from jsonschema import Draft7Validator

    schema = _read_schema(V03_SCHEMA)
    # Draft 7 ignores keywords beside "$ref", and the ref resolves against the
    # document root, so this validates `definitions/AgentCard` unchanged.
    return Draft7Validator({**schema, "$ref": "#/definitions/AgentCard"})


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
        yield Finding("error", where, f"{_label(path)} must be {error.validator_value!r}", "const")
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
    oneof_members: frozenset[str] = field(default_factory=frozenset)

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
        oneof_members=frozenset(n for group in oneofs for n in group),
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
    messages = _v10_messages()
    findings: list[Finding] = []
    _walk_message(card, messages["AgentCard"], "", "the card", messages, findings)
    return findings


def _walk_message(
    obj: Mapping[str, Any],
    message: _Message,
    where: str,
    label: str,
    messages: Mapping[str, _Message],
    out: list[Finding],
) -> None:
    spelled: dict[str, str] = {}  # JSON name -> the key used in obj
    for key, value in obj.items():
        f = message.fields.get(key)
        if f is None:
            out.append(_unknown_member(message, jp.join(where, key), key))
        elif f.name in spelled:
            text = f"'{key}' and '{spelled[f.name]}' are the same field; give it once"
            out.append(Finding("error", jp.join(where, key), text, "duplicate-member"))
        else:
            spelled[f.name] = key
            if value is not None or not f.required:  # null required: reported below
                _check(value, f.type, jp.join(where, key), f"'{key}'", messages, out)
    for name in message.required:
        key = spelled.get(name)
        if key is None:
            text = f"missing required member '{name}'"
            out.append(Finding("error", jp.join(where, name), text, "required"))
        elif obj[key] is None:
            text = f"required member '{key}' is null, which means unset"
            out.append(Finding("error", jp.join(where, key), text, "required"))
    for group in message.oneofs:
        _check_oneof(obj, group, spelled, where, label, out)


def _unknown_member(message: _Message, where: str, key: str) -> Finding:
    text = (
        f"'{key}' is not a field of {message.name} in 1.0: readers ignore it "
        "(spec section 5.7), strict ProtoJSON parsers reject the card"
    )
    return Finding("warning", where, text, "unknown-member")


def _check_oneof(
    obj: Mapping[str, Any],
    group: tuple[str, ...],
    spelled: Mapping[str, str],
    where: str,
    label: str,
    out: list[Finding],
) -> None:
    present = [spelled[name] for name in group if name in spelled]
    if len(present) == 1:
        return
    found = ", ".join(f"'{k}'" for k in present) if present else "none"
    text = f"{label} must hold exactly one of {', '.join(group)}; found {found}"
    if not present and "type" in obj:
        text += " (it looks like a 0.3 scheme: 1.0 wraps it in one of these members)"
    out.append(Finding("error", where, text, "oneof"))


def _check(
    value: Any,
    t: _Type,
    where: str,
    label: str,
    messages: Mapping[str, _Message],
    out: list[Finding],
) -> None:
    """Check one value against its type; recurse into messages, arrays, maps."""
    if value is None:
        if not t.nullable:
            out.append(_type_error(where, label, t, value))
        return
    kind = t.kind
    if kind == "string":
        if not isinstance(value, str):
            out.append(_type_error(where, label, t, value))
        elif t.non_empty and not value:  # proto3: "" is the unset value
            out.append(Finding("error", where, f"required member {label} is empty", "required"))
    elif kind == "boolean":
        if not isinstance(value, bool):
            out.append(_type_error(where, label, t, value))
    elif not isinstance(value, list if kind == "array" else Mapping):
        out.append(_type_error(where, label, t, value))
    elif kind == "message":
        _walk_message(value, messages[t.ref], where, label, messages, out)
    elif kind == "array":
        _check_array(value, t, where, label, messages, out)
    elif kind == "map":
        assert t.item is not None
        for key, item in value.items():
            _check(item, t.item, jp.join(where, key), f"'{key}' in {label}", messages, out)


def _check_array(
    value: list[Any],
    t: _Type,
    where: str,
    label: str,
    messages: Mapping[str, _Message],
    out: list[Finding],
) -> None:
    assert t.item is not None
    if t.non_empty and not value:
        # Spec section 5.7 says required arrays MUST be non-empty, but its own
        # section 8.4.1 example keeps "skills": []; a warning, by tool policy
        # (spec-mapping section 2.1).
        text = f"{label} is empty; spec section 5.7 wants required arrays non-empty"
        out.append(Finding("warning", where, text, "min-items"))
    for index, item in enumerate(value):
        _check(item, t.item, jp.join(where, index), f"item {index} of {label}", messages, out)


def _type_error(where: str, label: str, t: _Type, value: Any) -> Finding:
    text = f"{label} must be {_TYPE_WORDS[t.kind]}, not {_kind(value)}"
    return Finding("error", where, text, "type")


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
_HYBRID_CARD = (
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
)
_HYBRID_CAPABILITIES = ("stateTransitionHistory", "state_transition_history")
_HYBRID_INTERFACE = ("transport",)
_HYBRID_SKILL = ("security",)
_HYBRID_SCHEME = (
    "type",
    "in",
    "name",
    "description",
    "scheme",
    "bearerFormat",
    "flows",
    "oauth2MetadataUrl",
    "openIdConnectUrl",
)


def url_problem(url: Any) -> str | None:
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


def _url_finding(url: Any, where: str, label: str) -> Iterator[Finding]:
    problem = url_problem(url)
    if problem:
        text = f"{label} {url!r} {problem}; clients need an absolute https URL"
        yield Finding("warning", where, text, "url-not-https")


def _lint_common(card: Mapping[str, Any], fields: _Message | None) -> Iterator[Finding]:
    """Rules that read the same in both versions (1.0 passes its field table
    so that proto-name spellings are found too)."""

    def key(obj: Mapping[str, Any], name: str) -> str:
        return (fields.key(obj, name) if fields else None) or name

    skill_fields = _v10_messages()["AgentSkill"] if fields else None
    yield from _lint_description(card, "", "the card's description")
    for name in ("defaultInputModes", "defaultOutputModes"):
        yield from _lint_modes(card.get(key(card, name)), jp.join("", key(card, name)))
    skills_key = key(card, "skills")
    seen: dict[Any, str] = {}
    for index, skill in _items(card.get(skills_key)):
        where = jp.join("", skills_key, index)
        yield from _lint_description(skill, where, f"skill {index}'s description")
        for name in ("inputModes", "outputModes"):
            spelled = (skill_fields.key(skill, name) if skill_fields else None) or name
            yield from _lint_modes(skill.get(spelled), jp.join(where, spelled))
        yield from _duplicate_skill(skill.get("id"), jp.join(where, "id"), seen)
    signatures = card.get("signatures")
    if isinstance(signatures, list) and signatures:
        text = (
            "signatures cannot be verified here, and any change to the card "
            "(a migration included) invalidates them"
        )
        yield Finding("warning", "/signatures", text, "signatures")


def _lint_description(obj: Mapping[str, Any], where: str, label: str) -> Iterator[Finding]:
    text = obj.get("description")
    if isinstance(text, str) and len(text) > LONG_DESCRIPTION:
        message = f"{label} has {len(text)} characters; keep it under {LONG_DESCRIPTION}"
        yield Finding("warning", jp.join(where, "description"), message, "long-description")


def _lint_modes(modes: Any, where: str) -> Iterator[Finding]:
    if not isinstance(modes, list):
        return
    for index, mode in enumerate(modes):
        if isinstance(mode, str) and not _MEDIA_TYPE.match(mode):
            text = f"{mode!r} is not a media type (type/subtype, e.g. 'text/plain')"
            yield Finding("warning", jp.join(where, index), text, "media-type")


def _duplicate_skill(skill_id: Any, where: str, seen: dict[Any, str]) -> Iterator[Finding]:
    if not isinstance(skill_id, str):
        return
    if skill_id in seen:
        text = f"skill id {skill_id!r} is already used at {seen[skill_id]}"
        yield Finding("warning", where, text, "duplicate-skill-id")
    else:
        seen[skill_id] = where


def _lint_v10(card: Mapping[str, Any]) -> list[Finding]:
    messages = _v10_messages()
    findings = list(_lint_common(card, messages["AgentCard"]))
    findings += _lint_v10_interfaces(card, messages)
    findings += _lint_hybrid(card, messages)
    return findings


def _lint_v10_interfaces(card: Mapping[str, Any], messages: Mapping[str, _Message]) -> Iterator[Finding]:
    interfaces_key = messages["AgentCard"].key(card, "supportedInterfaces")
    if interfaces_key is None:
        return
    fields = messages["AgentInterface"]
    seen: dict[tuple[Any, ...], str] = {}
    for index, interface in _items(card[interfaces_key]):
        where = jp.join("", interfaces_key, index)
        yield from _url_finding(interface.get("url"), jp.join(where, "url"), "interface url")
        version_key = fields.key(interface, "protocolVersion")
        if version_key is not None:
            yield from _lint_protocol_version(interface[version_key], jp.join(where, version_key))
        identity = tuple(
            _hashable(fields.get(interface, n))
            for n in ("url", "protocolBinding", "protocolVersion", "tenant")
        )
        if identity in seen:
            text = f"interface repeats {seen[identity]} (same url, binding, version and tenant)"
            yield Finding("warning", where, text, "duplicate-interface")
        else:
            seen[identity] = where


def _hashable(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)


def _lint_protocol_version(value: Any, where: str) -> Iterator[Finding]:
    if not isinstance(value, str) or not value or _MAJOR_MINOR.fullmatch(value):
        return
    better = major_minor(value)
    if better and _WITH_PATCH.fullmatch(value.strip()):
        text = (
            f"protocol version {value!r} has a patch number; write {better!r} "
            "(spec section 3.6: patch versions SHOULD NOT be used in Agent Cards)"
        )
        yield Finding("warning", where, text, "version-patch")
    else:
        hint = f"; write {better!r}" if better else ""
        text = f"protocol version {value!r} is not in Major.Minor form{hint}"
        yield Finding("warning", where, text, "version-format")


def _lint_hybrid(card: Mapping[str, Any], messages: Mapping[str, _Message]) -> Iterator[Finding]:
    """0.3 members left in a 1.0 card: what a hybrid (dual-generation) card
    carries. 1.0 readers ignore them; a strict parser rejects the card."""
    yield from _hybrid_members(card, "", _HYBRID_CARD)
    card_fields = messages["AgentCard"]
    capabilities = card_fields.get(card, "capabilities")
    if isinstance(capabilities, Mapping):
        key = card_fields.key(card, "capabilities") or "capabilities"
        yield from _hybrid_members(capabilities, jp.join("", key), _HYBRID_CAPABILITIES)
    for name, members in (("supportedInterfaces", _HYBRID_INTERFACE), ("skills", _HYBRID_SKILL)):
        key = card_fields.key(card, name)
        for index, item in _items(card.get(key) if key else None):
            yield from _hybrid_members(item, jp.join("", key or name, index), members)
    schemes_key = card_fields.key(card, "securitySchemes")
    schemes = card.get(schemes_key) if schemes_key else None
    if isinstance(schemes, Mapping):
        for scheme_name, scheme in schemes.items():
            if isinstance(scheme, Mapping):
                where = jp.join("", schemes_key or "", scheme_name)
                yield from _hybrid_members(scheme, where, _HYBRID_SCHEME)


def _hybrid_members(obj: Mapping[str, Any], where: str, names: Iterable[str]) -> Iterator[Finding]:
    for name in names:
        if name in obj:
            text = (
                f"'{name}' is a 0.3 member left in a 1.0 card (a hybrid card): 1.0 "
                "readers ignore it, strict parsers reject the card"
            )
            yield Finding("warning", jp.join(where, name), text, "hybrid")


def _lint_v03(card: Mapping[str, Any]) -> list[Finding]:
    findings = list(_lint_common(card, None))
    if "url" in card:
        findings += _url_finding(card["url"], "/url", "url")
    # An additional interface equal to the main url is what 0.3 section 5.6.2
    # asks for, so only repeats among the additional interfaces are flagged.
    seen: dict[tuple[Any, ...], str] = {}
    for index, interface in _items(card.get("additionalInterfaces")):
        where = jp.join("/additionalInterfaces", index)
        findings += _url_finding(interface.get("url"), jp.join(where, "url"), "interface url")
        identity = (_hashable(interface.get("url")), _hashable(interface.get("transport")))
        if identity in seen:
            text = f"interface repeats {seen[identity]} (same url and transport)"
            findings.append(Finding("warning", where, text, "duplicate-interface"))
        else:
            seen[identity] = where
    return findings
