#!/usr/bin/env python3
"""Generate the JSON Schema of the A2A v1.0 Agent Card from the normative proto.

Spec v1.0 section 1.4 makes ``a2a.proto`` "the single authoritative normative
definition"; the JSON Schema the A2A docs site publishes is non-normative and
defective (no ``required`` arrays, dangling ``$ref``s; see
``a2a_migrate/schemas/SOURCES.md``). So we derive our own, mechanically:

* every message reachable from ``AgentCard`` becomes a ``$defs`` entry;
* JSON names are protoc's lowerCamelCase (the proto has no ``json_name``); the
  proto (snake_case) name is accepted too, as a ``$ref`` alias of the camelCase
  property, because ProtoJSON parsers accept both; ``dependentSchemas`` forbids
  spelling one field both ways;
* ``[(google.api.field_behavior) = REQUIRED]`` fields are required, non-null
  (a REQUIRED map may be absent: ProtoJSON omits it when empty);
  required strings get ``minLength: 1`` and required repeated fields
  ``minItems: 1`` (spec section 5.7: "MUST be present and set", "Arrays marked as
  required MUST contain at least one element");
* fields that are not required accept ``null``: ProtoJSON reads null as "unset";
* a ``oneof`` becomes a ``oneOf`` of ``required`` clauses: exactly one member;
* objects stay open (no ``additionalProperties: false``): spec section 5.7 says
  implementations SHOULD ignore unrecognized fields, so unknown members are
  reported as warnings by ``a2a_migrate.validation``, not rejected here.

Usage::

    python scripts/gen_v1_schema.py            # rewrite the committed schema
    python scripts/gen_v1_schema.py --check    # exit 1 if it is out of date
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SCHEMAS = REPO / "a2a_migrate" / "schemas"
DEFAULT_PROTO = SCHEMAS / "a2a-v1.0.proto"
DEFAULT_OUT = SCHEMAS / "a2a-v1.0.card.schema.json"
ROOT_MESSAGE = "AgentCard"
STRUCT = "google.protobuf.Struct"
SCALARS = {"string": "string", "bool": "boolean"}

# Comment lines that are tooling directives, not documentation.
_NOISE = re.compile(r"^(protolint:|Next ID:|\(--|aip\.dev/|api-linter:|--\))")


# --------------------------------------------------------------------------
# Proto parsing: a small tokenizer and a recursive-descent reader that keeps
# what the card schema needs (messages, fields, oneofs, options, comments).
# --------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<comment>//[^\n]*)
  | (?P<block>/\*.*?\*/)
  | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<word>[A-Za-z_][\w.]*)
  | (?P<number>[-+]?\d[\w.]*)
  | (?P<punct>[{}\[\]()<>=;,:])
  | (?P<space>\s+)
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass
class Token:
    kind: str
    text: str
    line: int


def tokenize(text: str) -> list[Token]:
    """Split proto text into tokens; whitespace dropped, comments kept."""
    tokens: list[Token] = []
    pos, line = 0, 1
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise ValueError(f"proto line {line}: unexpected {text[pos]!r}")
        kind = match.lastgroup or ""
        if kind not in ("space", "block"):
            tokens.append(Token(kind, match.group(), line))
        line += match.group().count("\n")
        pos = match.end()
    return tokens


@dataclass
class ProtoField:
    name: str
    type: str  # scalar, message name, or google.protobuf.Struct
    label: str  # "", "repeated", "optional" or "map"
    options: dict[str, str]
    comment: str
    oneof: str | None = None

    @property
    def required(self) -> bool:
        return self.options.get("(google.api.field_behavior)") == "REQUIRED"

    @property
    def deprecated(self) -> bool:
        return self.options.get("deprecated") == "true"


@dataclass
class ProtoMessage:
    name: str
    comment: str
    fields: list[ProtoField] = field(default_factory=list)
    oneofs: dict[str, list[str]] = field(default_factory=dict)


class Parser:
    """Reads top-level messages; skips services, enums, options and imports."""

    def __init__(self, text: str) -> None:
        self.tokens = tokenize(text)
        self.pos = 0
        self.comments: list[Token] = []
        self.last_line = 0  # line of the last ';', '{' or '}' (for trailing comments)

    # token helpers --------------------------------------------------------
    def _skip_comments(self) -> None:
        while self.pos < len(self.tokens) and self.tokens[self.pos].kind == "comment":
            token = self.tokens[self.pos]
            if token.line != self.last_line:  # a trailing comment documents nothing new
                self.comments.append(token)
            self.pos += 1

    def peek(self) -> Token | None:
        self._skip_comments()
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def peek_text(self) -> str:
        token = self.peek()
        return token.text if token is not None else ""

    def next(self) -> Token:
        token = self.peek()
        if token is None:
            raise ValueError("proto: unexpected end of file")
        self.pos += 1
        if token.text in (";", "{", "}"):
            self.last_line = token.line
        return token

    def expect(self, text: str) -> Token:
        token = self.next()
        if token.text != text:
            raise ValueError(f"proto line {token.line}: expected {text!r}, got {token.text!r}")
        return token

    def take_comment(self) -> str:
        lines = [t.text[2:].strip() for t in self.comments]
        self.comments = []
        return " ".join(line for line in lines if line and not _NOISE.match(line))

    def skip_statement(self) -> None:
        """Skip to the end of a statement or a balanced ``{...}`` block."""
        depth = 0
        while True:
            text = self.next().text
            if text == "{":
                depth += 1
            elif text == "}":
                depth -= 1
                if depth == 0:
                    return
            elif text == ";" and depth == 0:
                return

    # grammar --------------------------------------------------------------
    def parse(self) -> dict[str, ProtoMessage]:
        messages: dict[str, ProtoMessage] = {}
        while (text := self.peek_text()) != "":
            if text == "message":
                message = self.message()
                messages[message.name] = message
            else:
                self.take_comment()
                self.skip_statement()  # syntax, package, import, option, enum, service
        return messages

    def message(self) -> ProtoMessage:
        comment = self.take_comment()
        self.expect("message")
        message = ProtoMessage(self.next().text, comment)
        self.expect("{")
        while (text := self.peek_text()) not in ("}", ""):
            if text == "oneof":
                self.oneof(message)
            elif text in ("option", "reserved", "message", "enum", "extensions"):
                self.take_comment()
                self.skip_statement()  # nested types are outside the card tree
            else:
                message.fields.append(self.field())
        self.expect("}")
        return message

    def oneof(self, message: ProtoMessage) -> None:
        self.take_comment()
        self.expect("oneof")
        name = self.next().text
        self.expect("{")
        members: list[str] = []
        while (text := self.peek_text()) not in ("}", ""):
            if text == "option":
                self.take_comment()
                self.skip_statement()
                continue
            member = self.field()
            member.oneof = name
            message.fields.append(member)
            members.append(member.name)
        self.expect("}")
        message.oneofs[name] = members

    def field(self) -> ProtoField:
        comment = self.take_comment()
        label = ""
        if self.peek_text() in ("repeated", "optional"):
            label = self.next().text
        type_name = self.next().text
        if type_name == "map":
            self.expect("<")
            key = self.next().text
            if key != "string":
                raise ValueError(f"map<{key}, ...>: only string keys are supported")
            self.expect(",")
            type_name = self.next().text
            self.expect(">")
            label = "map"
        name = self.next().text
        self.expect("=")
        self.next()  # field number: irrelevant to JSON
        options = self.options()
        self.expect(";")
        return ProtoField(name, type_name, label, options, comment)

    def options(self) -> dict[str, str]:
        options: dict[str, str] = {}
        if self.peek_text() != "[":
            return options
        self.expect("[")
        while True:
            name = self.next().text
            if name == "(":
                name = "(" + self.next().text + ")"
                self.expect(")")
            self.expect("=")
            options[name] = self.next().text
            if self.next().text == "]":
                return options


def parse_proto(text: str) -> dict[str, ProtoMessage]:
    """Parse proto text into its top-level messages, by name."""
    return Parser(text).parse()


# --------------------------------------------------------------------------
# Schema building
# --------------------------------------------------------------------------


def json_name(proto_name: str) -> str:
    """protoc's ToJsonName: drop each '_' and upper-case the next character."""
    out: list[str] = []
    upper = False
    for char in proto_name:
        if char == "_":
            upper = True
        else:
            out.append(char.upper() if upper else char)
            upper = False
    return "".join(out)


def card_tree(messages: dict[str, ProtoMessage], root: str = ROOT_MESSAGE) -> list[str]:
    """Messages reachable from ``root``, in first-reference order."""
    order: list[str] = []
    pending = [root]
    while pending:
        name = pending.pop(0)
        if name in order:
            continue
        if name not in messages:
            raise ValueError(f"message {name} is referenced but not defined")
        order.append(name)
        pending += [f.type for f in messages[name].fields if f.type in messages]
    return order


def value_schema(type_name: str, messages: dict[str, ProtoMessage]) -> dict[str, Any]:
    """Schema of one value of a proto type (an array item or a map value)."""
    if type_name in SCALARS:
        return {"type": SCALARS[type_name]}
    if type_name == STRUCT:
        # No additionalProperties: that is how a Struct differs from a map.
        return {"type": "object", "$comment": f"{STRUCT}: any JSON object"}
    if type_name in messages:
        return {"$ref": f"#/$defs/{type_name}"}
    raise ValueError(f"type {type_name} is not supported in the card tree")


def field_schema(f: ProtoField, messages: dict[str, ProtoMessage]) -> dict[str, Any]:
    """Schema of one field; ``null`` allowed unless required or a oneof member."""
    nullable = not f.required and f.oneof is None
    value = value_schema(f.type, messages)
    if f.label == "repeated":
        schema: dict[str, Any] = {"type": "array", "items": value}
        if f.required:
            schema["minItems"] = 1
    elif f.label == "map":
        schema = {"type": "object", "additionalProperties": value}
    elif "$ref" in value:
        schema = {"anyOf": [value, {"type": "null"}]} if nullable else value
        nullable = False
    else:
        schema = dict(value)
        if f.required and schema["type"] == "string":
            schema["minLength"] = 1
    if nullable:
        schema["type"] = [schema["type"], "null"]
    if f.deprecated:
        schema["deprecated"] = True
    if f.comment:
        schema = {"description": f.comment, **schema}
    return schema


def message_schema(message: ProtoMessage, messages: dict[str, ProtoMessage]) -> dict[str, Any]:
    """Schema of one message: properties, aliases, required and oneof rules."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    all_of: list[dict[str, Any]] = []
    dependent: dict[str, Any] = {}
    for f in message.fields:
        camel = json_name(f.name)
        properties[camel] = field_schema(f, messages)
        if camel != f.name:
            properties[f.name] = {"$ref": f"#/$defs/{message.name}/properties/{camel}"}
            dependent[f.name] = {"not": {"required": [camel]}}
        if f.required and f.label == "map":
            # ProtoJSON omits an empty map, so an absent REQUIRED map is the empty
            # map and valid (flow scopes); "REQUIRED" there only forbids null.
            pass
        elif f.required and camel == f.name:
            required.append(camel)
        elif f.required:
            all_of.append({"anyOf": [{"required": [camel]}, {"required": [f.name]}]})
    for oneof, members in message.oneofs.items():
        names = [n for m in members for n in dict.fromkeys((json_name(m), m))]
        all_of.append(
            {"$comment": f"proto oneof {oneof}", "oneOf": [{"required": [n]} for n in names]}
        )
    schema: dict[str, Any] = {"type": "object"}
    if message.comment:
        schema["description"] = message.comment
    schema["properties"] = properties
    if required:
        schema["required"] = required
    if all_of:
        schema["allOf"] = all_of
    if dependent:
        schema["dependentSchemas"] = dependent
    return schema


def build_schema(proto_text: str) -> dict[str, Any]:
    """The whole card schema for a proto text."""
    messages = parse_proto(proto_text)
    digest = hashlib.sha256(proto_text.encode("utf-8")).hexdigest()
    package = re.search(r"^package\s+([\w.]+)\s*;", proto_text, re.MULTILINE)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "A2A v1.0 AgentCard",
        "$comment": (
            "Generated by scripts/gen_v1_schema.py from a2a.proto "
            f"(package {package.group(1) if package else '?'}, sha256 {digest}); "
            "do not edit by hand. Objects are open on purpose: unknown members are "
            "warnings (spec v1.0 section 5.7)."
        ),
        "$ref": f"#/$defs/{ROOT_MESSAGE}",
        "$defs": {name: message_schema(messages[name], messages) for name in card_tree(messages)},
    }


def render(proto_text: str) -> str:
    """The schema file's exact text (deterministic: stable order, final newline)."""
    return json.dumps(build_schema(proto_text), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--proto", type=Path, default=DEFAULT_PROTO)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--check", action="store_true", help="exit 1 if --out is out of date")
    args = parser.parse_args(argv)
    text = render(args.proto.read_text(encoding="utf-8"))
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is out of date; run {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    args.out.write_text(text, encoding="utf-8", newline="\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
