"""The conservation check: every value a card states is accounted for after a migration.

In the spirit of black's AST equivalence check, the engine's result is checked
against its input after every migration (design.md, "Conservation"). Each
scalar of the input, and each name in a map whose names are data (security
scheme names, the schemes a requirement names, OAuth scope names), must be

* present in the output: the same value, or a documented rewrite of it
  (a version ``0.3.0`` written ``0.3``, a mode word written as its media type,
  a scheme ``type`` written as its wrapper member, a binding spelled the
  canonical way, a value kept inside an example written as JSON text), or
* covered by a ``lossy`` or ``error`` note whose pointer is its own or an
  ancestor's.

A value that is neither is a bug of the tool, never of the card: it becomes an
``error`` note of the transform ``conservation``, and the card is not written.
``assumed`` and ``info`` notes never excuse a loss.

What counts as stated: a value equal to its proto3 default (``null``,
``false``, ``""``, ``0``) says nothing that the member's absence does not, so
dropping one is no loss (1.0 writers omit them). Strings and numbers are looked
for anywhere in the output, ``true`` under the member name it had (or the
name that member has in the other version): a flag is only kept if the same
flag is set.

The check is deliberately a set check, not a place check: a value dropped at
one place while the same value stays at another is not seen. It costs one walk
of the input and one of the output.
"""

from __future__ import annotations

import datetime
import functools
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from a2a_migrate.cardtree import FLOW_NAMES, HTTP_WORDS, NO_AUTH_WORDS, SCHEME_TYPE_WORDS, SCHEME_WRAPPERS
from a2a_migrate.context import Note, Options, stated
from a2a_migrate.io import TIMESTAMP
from a2a_migrate.pointer import join
from a2a_migrate.versions import major_minor

TRANSFORM = "conservation"
#: Severities whose notes account for what they point at (and everything below it).
EXCUSING = frozenset({"lossy", "error"})

#: Flags that have another name in the other version (either direction).
_FLAG_NAMES = {
    "supportsAuthenticatedExtendedCard": "extendedAgentCard",
    "supportsExtendedAgentCard": "extendedAgentCard",
    "extendedAgentCard": "supportsAuthenticatedExtendedCard",
}
#: Maps whose member names are data, by the name of the member holding them.
_NAMED_MAPS = frozenset({"securitySchemes", "security_schemes", "scopes"})
#: Lists of requirement objects whose member names are scheme names.
_REQUIREMENT_LISTS = frozenset({"security", "securityRequirements", "security_requirements"})
_SNAKE = re.compile(r"_([a-z0-9])")


@dataclass(frozen=True)
class Leaf:
    """One thing the input states: its pointer, the member name it sits under, its value."""

    pointer: str
    name: str
    value: Any
    is_name: bool = False  # a map member's name (a scheme name), not a value


def check(original: Any, result: Any, notes: Sequence[Note], options: Options | None = None) -> list[Note]:
    """The error notes for every input value the result neither holds nor reports lost.

    ``original`` is the plain input, ``result`` the migrated card (plain or
    ruamel), ``notes`` everything the chain said about it, ``options`` what
    the user declared: with ``--interface-version`` the user, not the card,
    says which protocol version the endpoints speak, so the card's own
    ``protocolVersion`` is superseded, not lost.
    """
    excused = [note.pointer for note in notes if note.severity in EXCUSING]
    if options is not None and options.interface_version is not None:
        excused += _version_pointers(original)
    held = _Inventory.of(result)
    errors: list[Note] = []

    def visit(path: list[Any], name: str, value: Any, is_name: bool) -> None:
        if held.holds(path, name, value, is_name):
            return
        pointer = join("", *path)  # only for what is missing: most values are found
        if not _excused(pointer, excused):
            what = "name" if is_name else "value"
            errors.append(Note("error", TRANSFORM, pointer,
                               f"{what} {json.dumps(value, ensure_ascii=False)} dropped without a note"))

    _walk(original, [], "", visit)
    return errors


def _version_pointers(card: Any) -> list[str]:
    """Where a card states the protocol version of its endpoints (top level and per interface)."""
    found = [join("", key) for key in ("protocolVersion", "protocolVersions") if isinstance(card, Mapping) and key in card]
    for member in ("supportedInterfaces", "additionalInterfaces"):
        listed = card.get(member) if isinstance(card, Mapping) else None
        found += [join("", member, index, "protocolVersion") for index in range(len(listed))] if isinstance(listed, list) else []
    return found


def leaves(card: Any) -> list[Leaf]:
    """Every stated scalar of ``card`` (defaults left out), and the data names of its maps."""
    found: list[Leaf] = []
    _walk(card, [], "", lambda path, name, value, is_name: found.append(Leaf(join("", *path), name, value, is_name)))
    return found


Visit = Callable[[list[Any], str, Any, bool], None]


def _walk(value: Any, path: list[Any], name: str, visit: Visit) -> None:
    """Call ``visit(path, member name, value, is_name)`` for each stated scalar and data name.

    ``path`` is the list of pointer tokens, shared and mutated as the walk goes
    (a pointer string is built only where a value is missing).
    """
    if isinstance(value, dict):
        if len(value) == 1 and TIMESTAMP in value:  # a YAML timestamp (io.to_plain's marker)
            visit(path, name, value[TIMESTAMP], False)
            return
        names_are_data = _names_are_data(value, path, name)
        for key, item in value.items():
            path.append(key)
            if names_are_data:
                visit(path, name, key, True)
            if isinstance(item, (dict, list)):
                _walk(item, path, str(key), visit)
            elif stated(item):
                visit(path, str(key), item, False)
            path.pop()
    elif isinstance(value, list):
        for index, item in enumerate(value):
            path.append(index)
            if isinstance(item, (dict, list)):
                _walk(item, path, name, visit)
            elif stated(item):
                visit(path, name, item, False)
            path.pop()


def _names_are_data(mapping: Mapping[str, Any], path: list[Any], name: str) -> bool:
    """Scheme maps, scope maps, and the scheme names of a requirement in either shape."""
    if name in _NAMED_MAPS:
        return True
    if _in_requirement(path):  # 0.3 {"oauth": [...]}; the 1.0 {"schemes": {...}} names them one level down
        return list(mapping) != ["schemes"]
    return name == "schemes" and _in_requirement(path[:-1])


def _in_requirement(path: list[Any]) -> bool:
    """``/security/0`` or ``/skills/2/securityRequirements/1``: a requirement object."""
    return len(path) >= 2 and path[-2] in _REQUIREMENT_LISTS and isinstance(path[-1], int)


def _excused(pointer: str, excused: Sequence[str]) -> bool:
    return any(pointer == where or pointer.startswith(where + "/") or where == "" for where in excused)


def _camel(name: str) -> str:
    return _SNAKE.sub(lambda match: match.group(1).upper(), name)


@dataclass
class _Inventory:
    """What the result holds, indexed for the rewrites the check accepts."""

    strings: set[str] = field(default_factory=set)
    numbers: set[float] = field(default_factory=set)
    flags: set[str] = field(default_factory=set)  # camelCase names of members that are true
    keys: set[str] = field(default_factory=set)
    examples: list[str] = field(default_factory=list)  # example texts, which may hold JSON

    @classmethod
    def of(cls, card: Any) -> _Inventory:
        inventory = cls()
        inventory._add(card, "")
        return inventory

    def _add(self, value: Any, name: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                self.keys.add(str(key))
                self._add(item, str(key))
        elif isinstance(value, list):
            for item in value:
                self._add(item, name)
        elif value is True:
            self.flags.add(_camel(name))
        elif isinstance(value, str):
            self.strings.add(value)
            if name == "examples":
                self.examples.append(value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            self.numbers.add(value)
        elif isinstance(value, (datetime.date, datetime.datetime)):
            self.strings.add(value.isoformat())

    def holds(self, path: list[Any], name: str, value: Any, is_name: bool) -> bool:
        """True when the result holds ``value`` (stated under ``name`` at ``path``) or a documented rewrite of it."""
        if isinstance(value, str):
            if value in self.strings:
                return True
            if _means_no_authentication(name, value, is_name):
                return True  # said by the requirements: nothing, or no empty alternative
            if is_name:
                return value in self.keys or self._merged_flow(value)
            if name == "capabilities" and _camel(value.strip()) in self.flags:
                return True  # a flag name in a list, written as a member set to true
            return any(form in self.strings or form in self.keys for form in rewrites(name, value)) \
                or self._in_example(value)
        if path == ["authentication", "required"]:
            return True  # a v0.1 flag the requirements say: no empty alternative, or one
        if value is True:
            flag = _camel(name)
            return flag in self.flags or _FLAG_NAMES.get(flag) in self.flags or self._in_example(value)
        if isinstance(value, (int, float)):
            return value in self.numbers or str(value) in self.strings or self._in_example(value)
        return False

    def _merged_flow(self, name: str) -> bool:
        """``oauth__implicit``, a scheme split per flow on the way up, merged back into ``oauth``."""
        base, _, flow = name.rpartition("__")
        return bool(base) and flow in FLOW_NAMES and base in self.keys

    def _in_example(self, value: Any) -> bool:
        # skill_members writes an example that is not a string as its JSON text
        text = json.dumps(value, ensure_ascii=False)
        return any(text in example for example in self.examples)


#: Members whose string values name a kind of security scheme.
_SCHEME_WORD_MEMBERS = frozenset({"type", "schemes", "methods"})


def rewrites(name: str, value: str) -> Iterator[str]:
    """The documented forms a migration may write a stated string in."""
    bindings, media_words, payment_words, payment_uri = _rewrite_tables()
    version = major_minor(value)
    if version is not None:
        yield version
        yield f"{version}.0"
    binding = bindings(value)
    if binding is not None:
        yield binding
    lowered = value.strip().lower()
    if lowered in media_words:
        yield media_words[lowered]
    if name in _SCHEME_WORD_MEMBERS:
        scheme_type = SCHEME_TYPE_WORDS.get(lowered)
        if scheme_type is not None:
            yield SCHEME_WRAPPERS[scheme_type]
        if lowered in HTTP_WORDS:
            yield HTTP_WORDS[lowered]
            yield SCHEME_WRAPPERS["http"]
        if lowered in payment_words:
            yield payment_uri


@functools.cache
def _rewrite_tables() -> tuple[Callable[[Any], str | None], Mapping[str, str], frozenset[str], str]:
    """The tables live with the transforms that apply them; read once, on first need."""
    from a2a_migrate import bindings
    from a2a_migrate.transforms import legacy_authentication, media_types

    return bindings.canonical, media_types.WORDS, legacy_authentication.PAYMENT_WORDS, legacy_authentication.X402_URI


def _means_no_authentication(name: str, value: str, is_name: bool) -> bool:
    """A ``none``/``public`` scheme (its name, its type, a v0.1 word).

    1.0 says "no authentication" by requiring nothing (an empty requirement
    alternative, or none at all), so these words have no place of their own.
    """
    return (is_name or name in _SCHEME_WORD_MEMBERS) and value.strip().lower() in NO_AUTH_WORDS
