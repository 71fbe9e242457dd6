"""Recipes: a card owner's own edits, run as transforms after the version chain (issue 13).

A recipe is a YAML or JSON file holding a list of steps (or ``{"steps": [...]}``).
Each step is a mapping with ``step`` (its kind), an optional ``name`` and the
kind's fields; :func:`load` checks every field and raises :class:`RecipeError`
naming the file, the step and the field. A step is a transform like the built-in
ones: ``up(card, ctx)`` and ``down(card, ctx)`` edit the card in place (the same
edit in both directions), and ``name`` (``recipe:FILE#N`` unless the step names
itself) labels its operations in patches, reports and plans.

Rules every step keeps:

* **Idempotent**: a second run changes nothing (an edit that would change its
  own result again is refused with an error note).
* **Never silent**: a value the card stated that a step replaces or removes (an
  old URL, a dropped skill) gets a ``lossy`` note at its pointer, so the
  conservation check (:mod:`a2a_migrate.conservation`) still proves nothing
  else went missing; an added value gets an ``info`` note.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar

from a2a_migrate import bindings, edit
from a2a_migrate import pointer as jp
from a2a_migrate.context import Context, show
from a2a_migrate.patching import json_equal
from a2a_migrate.versions import major_minor


class RecipeError(ValueError):
    """A recipe that cannot be used; the message names the file, the step and the field."""


#: A step kind's fields: each one's check (which returns the value to keep) and whether it is required.
Fields = dict[str, tuple[Callable[[Any], Any], bool]]


class _Bad(Exception):
    """A field of one step is wrong: ``(field, message)``; :func:`_build` adds the place."""


# -- fields -------------------------------------------------------------------------------------


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError("must be a non-empty string")
    return value


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError("must be a string")
    return value


def _texts(value: Any) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(item, str) and item for item in items):
        raise TypeError("must be a string or a non-empty list of strings")
    return tuple(items)


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError("must be true or false")
    return value


def _any(value: Any) -> Any:
    return value


def _mapping(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError("must be a mapping")
    return value


def _version(value: Any) -> str:
    version = major_minor(value) if isinstance(value, str) else None
    if version is None:
        # a YAML number would read 1.10 as 1.1: versions are written as strings
        quote = ' (quote it: "1.0")' if isinstance(value, (int, float)) and not isinstance(value, bool) else ""
        raise TypeError(f"{show(value)} is not a protocol version such as \"0.3\" or \"1.0\"{quote}")
    return version


def _binding(value: Any) -> str:
    """A binding as cards write it: a core binding's canonical name, any other name as given."""
    return bindings.canonical(value) or _text(value)


def _regex(value: Any) -> str:
    try:
        re.compile(_text(value))
    except re.error as error:
        raise TypeError(f"not a regular expression: {error}") from None
    return str(value)


def _pointer(value: Any) -> str:
    try:
        jp.split(_text(value))
    except ValueError:
        raise TypeError(f"{show(value)} is not a JSON pointer (it starts with /)") from None
    return str(value)


def _url_rule(value: Any) -> dict[str, Any]:
    """Which interfaces a step means: every interface matching all the given fields."""
    rule = _mapping(value)
    checks: dict[str, Callable[[Any], Any]] = {
        "url": _text, "url_prefix": _text, "url_pattern": _regex, "binding": _binding,
        "protocol_version": _version, "tenant": _text}
    for key in rule:
        if key not in checks:
            raise TypeError(f"unknown member {show(key)} (known: {', '.join(checks)})")
    return {key: _checked(checks[key], item, f"/{key}") for key, item in rule.items()}


def _checked(check: Callable[[Any], Any], value: Any, where: str) -> Any:
    try:
        return check(value)
    except TypeError as error:
        raise TypeError(f"{where}: {error}") from None


def _condition(value: Any) -> dict[str, Any]:
    """Which skills a ``skills`` step means: by ``ids``, ``tags``, or a ``where`` condition."""
    rule = _mapping(value)
    checks: dict[str, Callable[[Any], Any]] = {"ids": _texts, "tags": _texts, "where": _where}
    for key in rule:
        if key not in checks:
            raise TypeError(f"unknown member {show(key)} (known: {', '.join(checks)})")
    if not rule:
        raise TypeError("must name ids, tags or a where condition")
    return {key: _checked(checks[key], item, f"/{key}") for key, item in rule.items()}


def _where(value: Any) -> dict[str, Any]:
    rule = _mapping(value)
    unknown = set(rule) - {"pointer", "equals", "exists"}
    if unknown or "pointer" not in rule or ("equals" in rule) == ("exists" in rule):
        raise TypeError('must be {"pointer": ..., "equals": VALUE} or {"pointer": ..., "exists": true|false}')
    _checked(_pointer, rule["pointer"], "/pointer")
    if "exists" in rule:
        _checked(_flag, rule["exists"], "/exists")
    return rule


# -- the step kinds ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One recipe step: a transform whose ``up`` and ``down`` make the same edit.

    Subclasses declare ``KIND`` (the ``step`` word in a recipe) and ``FIELDS``:
    each field's check (which returns the value to keep) and whether it is required.
    """

    name: str
    KIND: ClassVar[str] = ""
    FIELDS: ClassVar[Fields] = {}
    #: Every edit goes through the context, which records it as a patch operation (see engine.run).
    RECORDS_EDITS: ClassVar[bool] = True

    def up(self, card: Any, ctx: Context) -> None:
        """Make the edit (towards 1.0: the same edit as towards 0.3)."""
        self.apply(card, ctx)

    def down(self, card: Any, ctx: Context) -> None:
        """Make the edit (towards 0.3: the same edit as towards 1.0)."""
        self.apply(card, ctx)

    def apply(self, card: Any, ctx: Context) -> None:
        raise NotImplementedError

    def check(self) -> None:
        """Rules between fields; raise :class:`_Bad` naming the field."""


# - interfaces


def interfaces(card: Any) -> Iterator[tuple[str, Any, str | None]]:
    """Every interface a card lists: ``(pointer, mapping holding "url", binding)``.

    1.0 ``supportedInterfaces`` entries, and the 0.3 members (the card's own
    ``url`` with ``preferredTransport``, default JSONRPC; ``additionalInterfaces``).
    """
    for member, binding_key in (("supportedInterfaces", "protocolBinding"), ("additionalInterfaces", "transport")):
        listed = card.get(member)
        for index, interface in enumerate(listed if isinstance(listed, list) else []):
            if isinstance(interface, Mapping) and isinstance(interface.get("url"), str):
                yield jp.join("", member, index), interface, bindings.spelled(interface.get(binding_key))
    if isinstance(card.get("url"), str):
        yield "", card, bindings.spelled(card.get("preferredTransport", bindings.JSONRPC))


def _matches(rule: Mapping[str, Any], interface: Mapping[str, Any], binding: str | None) -> bool:
    url = interface.get("url") if isinstance(interface.get("url"), str) else ""
    version = major_minor(interface.get("protocolVersion")) if "protocolVersion" in interface else None
    return (rule.get("url", url) == url and url.startswith(rule.get("url_prefix", ""))
            and ("url_pattern" not in rule or re.search(rule["url_pattern"], url) is not None)
            and rule.get("binding", binding) == binding and rule.get("protocol_version", version) == version
            and rule.get("tenant", interface.get("tenant")) == interface.get("tenant"))


def _supported(card: Any, step: Step, ctx: Context) -> list[Any] | None:
    """The card's ``supportedInterfaces``, or None with an error note (the step needs a 1.0 card)."""
    listed = card.get("supportedInterfaces")
    if isinstance(listed, list):
        return listed
    ctx.note("/supportedInterfaces", "error", f"step {step.KIND} needs a 1.0 card (supportedInterfaces): "
                                              "run it with upgrade, or on 1.0 cards")
    return None


@dataclass(frozen=True)
class RewriteUrls(Step):
    """Rewrite interface URLs: a ``prefix`` replaced by ``to``, or a ``pattern`` substituted (``\\1`` groups)."""

    KIND: ClassVar[str] = "rewrite_urls"
    prefix: str | None = None
    pattern: str | None = None
    to: str = ""
    binding: str | None = None

    FIELDS: ClassVar[Fields] = {
        "prefix": (_text, False), "pattern": (_regex, False), "to": (_str, True), "binding": (_binding, False)}

    def check(self) -> None:
        if (self.prefix is None) == (self.pattern is None):
            raise _Bad("prefix", "give exactly one of prefix and pattern")
        try:
            self.rewritten("http://x")
        except (re.error, IndexError) as error:
            raise _Bad("to", f"unusable replacement: {error}") from None

    def rewritten(self, url: str) -> str:
        if self.prefix is not None:
            return self.to + url[len(self.prefix):] if url.startswith(self.prefix) else url
        return re.sub(str(self.pattern), self.to, url)

    def apply(self, card: Any, ctx: Context) -> None:
        for where, interface, binding in list(interfaces(card)):
            if self.binding is not None and binding != self.binding:
                continue
            old = interface["url"]
            new = self.rewritten(old)
            if new == old:
                continue
            pointer = jp.join(where, "url")
            if self.rewritten(new) != new:  # a second run would change it again
                ctx.note(pointer, "error", f"rewriting {show(old)} gives {show(new)}, which it would rewrite again: "
                                           "the step is not idempotent")
                continue
            _assign(interface, "url", pointer, edit.restyled(old, new), ctx)
            ctx.note(pointer, "lossy", f"url {show(old)} rewritten to {show(new)}")


@dataclass(frozen=True)
class AddInterface(Step):
    """Add an interface unless one with its url, binding and tenant is listed.

    A 1.0 card gets it in ``supportedInterfaces``. A 0.3 card (after a
    downgrade) gets it in ``additionalInterfaces``, which is then written with
    the primary endpoint first (0.3 section 5.6.2: it "SHOULD include all
    supported transports, including the main URL's transport"); 0.3 cannot
    say that an interface speaks 1.0 or has a tenant, so such a step is an error there.
    """

    KIND: ClassVar[str] = "add_interface"
    FIELDS: ClassVar[Fields] = {
        "url": (_text, True), "binding": (_binding, True), "protocol_version": (_version, True),
        "tenant": (_text, False)}
    url: str = ""
    binding: str = ""
    protocol_version: str = ""
    tenant: str | None = None

    def apply(self, card: Any, ctx: Context) -> None:
        if "supportedInterfaces" not in card and isinstance(card.get("url"), str):
            self._add_v03(card, ctx)
            return
        listed = _supported(card, self, ctx)
        if listed is None:
            return
        rule = {"url": self.url, "binding": self.binding, "tenant": self.tenant}
        if any(_matches(rule, interface, binding) for _, interface, binding in interfaces(card)
               if interface is not card):
            return
        # AgentInterface member order in a2a.proto: url, protocol_binding, tenant, protocol_version
        added = edit.like(card, [("url", self.url), ("protocolBinding", self.binding)]
                          + ([("tenant", self.tenant)] if self.tenant is not None else [])
                          + [("protocolVersion", self.protocol_version)])
        ctx.append(listed, added, at="/supportedInterfaces")
        ctx.note(jp.join("/supportedInterfaces", len(listed) - 1), "info",
                 f"interface added: {show(self.url)} ({self.binding}, protocol {self.protocol_version})")

    def _add_v03(self, card: Any, ctx: Context) -> None:
        if not self.protocol_version.startswith("0.") or self.tenant is not None:
            said = f"speaks {self.protocol_version}" if self.tenant is None else "has a tenant"
            ctx.note("/additionalInterfaces", "error", f"a 0.3 card cannot list an interface that {said}: "
                                                       "add it to the 1.0 card (with upgrade) instead")
            return
        if any(_matches({"url": self.url, "binding": self.binding}, interface, binding)
               for _, interface, binding in interfaces(card)):
            return
        listed = card.get("additionalInterfaces")
        if listed is None:
            primary = edit.like(card, [("url", card["url"]), ("transport", card.get("preferredTransport", bindings.JSONRPC))])
            anchor = "preferredTransport" if "preferredTransport" in card else "url"
            ctx.insert_at(card, edit.position(card, anchor) + 1, "additionalInterfaces", listed := [primary], at="")
            ctx.note("/additionalInterfaces/0", "info", "the primary endpoint listed first (0.3 section 5.6.2)")
        if not isinstance(listed, list):
            ctx.note("/additionalInterfaces", "error", "additionalInterfaces is not a list")
            return
        added = edit.like(card, [("url", self.url), ("transport", self.binding)])
        ctx.append(listed, added, at="/additionalInterfaces")
        ctx.note(jp.join("/additionalInterfaces", len(listed) - 1), "info",
                 f"interface added: {show(self.url)} ({self.binding})")


@dataclass(frozen=True)
class RemoveInterfaces(Step):
    """Remove the interfaces matching a rule (never all of them: a card needs one)."""

    KIND: ClassVar[str] = "remove_interfaces"
    FIELDS: ClassVar[Fields] = {"match": (_url_rule, True)}
    match: dict[str, Any] = field(default_factory=dict)

    def check(self) -> None:
        if not self.match:
            raise _Bad("match", "must name at least one of url, url_prefix, url_pattern, binding, "
                                "protocol_version, tenant")

    def apply(self, card: Any, ctx: Context) -> None:
        listed = _supported(card, self, ctx)
        if listed is None:
            return
        gone = [index for index, (_, interface, binding) in enumerate(_listed_interfaces(listed))
                if _matches(self.match, interface, binding)]
        if gone and len(gone) == len(listed):
            ctx.note("/supportedInterfaces", "error", "the rule matches every interface: a card needs one")
            return
        for index in reversed(gone):
            interface = ctx.pop(listed, index, at="/supportedInterfaces")
            ctx.note(jp.join("/supportedInterfaces", index), "lossy",
                     f"interface {show(interface.get('url'))} removed")


def _listed_interfaces(listed: list[Any]) -> list[tuple[int, Any, str | None]]:
    return [(index, item, bindings.spelled(item.get("protocolBinding"))) if isinstance(item, Mapping) else (index, {}, None)
            for index, item in enumerate(listed)]


@dataclass(frozen=True)
class PinProtocolVersion(Step):
    """Write ``protocolVersion`` on the interfaces matching a rule (all without one)."""

    KIND: ClassVar[str] = "pin_protocol_version"
    FIELDS: ClassVar[Fields] = {
        "version": (_version, True), "match": (_url_rule, False)}
    version: str = ""
    match: dict[str, Any] = field(default_factory=dict)

    def apply(self, card: Any, ctx: Context) -> None:
        listed = _supported(card, self, ctx)
        if listed is None:
            return
        for index, interface, binding in _listed_interfaces(listed):
            if isinstance(listed[index], Mapping) and _matches(self.match, interface, binding):
                _put(listed[index], "protocolVersion", jp.join("/supportedInterfaces", index, "protocolVersion"),
                     self.version, ctx)


# - members by pointer

Place = tuple[Any, Any, str]  # (container, key or index, pointer)


def places(card: Any, pointer: str, ctx: Context | None = None) -> list[Place]:
    """Where a pointer with ``*`` (every array element) lands: ``(container, key, pointer)`` each.

    Only places whose container exists are returned; with ``ctx`` missing
    intermediate objects are made (never array elements), edited through it.
    """
    tokens = jp.split(pointer)
    found: list[tuple[Any, str]] = [(card, "")]
    for token in tokens[:-1]:
        found = [child for value, where in found for child in _children(value, where, token, ctx)]
    last = tokens[-1]
    result: list[Place] = []
    for value, where in found:
        if isinstance(value, list) and last == "*":
            result += [(value, index, jp.join(where, index)) for index in range(len(value))]
        elif isinstance(value, list) and last.isdigit() and int(last) < len(value):
            result.append((value, int(last), jp.join(where, last)))
        elif isinstance(value, Mapping):
            result.append((value, last, jp.join(where, last)))
    return result


def _children(value: Any, where: str, token: str, ctx: Context | None) -> list[tuple[Any, str]]:
    if isinstance(value, list):
        indexes = range(len(value)) if token == "*" else [int(token)] if token.isdigit() and int(token) < len(value) else []
        return [(value[index], jp.join(where, index)) for index in indexes]
    if isinstance(value, MutableMapping):
        if token not in value and ctx is not None:
            ctx.set(value, token, edit.like(value), at=where)
        return [(value[token], jp.join(where, token))] if token in value else []
    return []


def _has(container: Any, key: Any) -> bool:
    return key in container if isinstance(container, Mapping) else isinstance(key, int) and key < len(container)


def _put(container: Any, key: Any, where: str, value: Any, ctx: Context) -> None:
    """Set one member (or element) to ``value``: info where it was absent, lossy where it replaces a value."""
    if _has(container, key) and json_equal(container[key], value):  # true is no 1 in a card
        return
    old = container[key] if _has(container, key) else None
    _assign(container, key, where, copy.deepcopy(value), ctx)  # each card gets its own copy of the recipe's value
    if old is None:
        ctx.note(where, "info", f"set to {show(value)}")
    else:
        ctx.note(where, "lossy", f"{show(old)} replaced by {show(value)}")


def _assign(container: Any, key: Any, where: str, value: Any, ctx: Context) -> None:
    """Set a member (at pointer ``where``); a YAML end-of-line comment after it moves to two spaces after the
    new value."""
    ctx.set(container, key, value, at=_parent(where))
    if isinstance(container, Mapping):
        edit.move_comment(container, key, container, key)


def _parent(where: str) -> str:
    """The pointer of the container of the member at ``where`` (its last token, escaped, has no slash)."""
    return where[:where.rfind("/")]


def _drop(container: Any, key: Any, where: str, ctx: Context, what: str = "") -> None:
    old = ctx.remove(container, key, at=_parent(where))
    ctx.note(where, "lossy", f"{what} removed: {show(old)}" if what else f"removed: {show(old)}")


@dataclass(frozen=True)
class SetMember(Step):
    """Set the member at a pointer (``*`` for every array element) to a value."""

    KIND: ClassVar[str] = "set"
    FIELDS: ClassVar[Fields] = {"pointer": (_pointer, True), "value": (_any, True)}
    pointer: str = ""
    value: Any = None

    def apply(self, card: Any, ctx: Context) -> None:
        for container, key, where in places(card, self.pointer, ctx):
            _put(container, key, where, self.value, ctx)


@dataclass(frozen=True)
class MergeMember(Step):
    """Merge an object into the member at a pointer (RFC 7396: ``null`` removes a member)."""

    KIND: ClassVar[str] = "merge"
    FIELDS: ClassVar[Fields] = {"pointer": (_pointer, True),
                                                                        "value": (_mapping, True)}
    pointer: str = ""
    value: dict[str, Any] = field(default_factory=dict)

    def apply(self, card: Any, ctx: Context) -> None:
        for container, key, where in places(card, self.pointer, ctx):
            if not _has(container, key) or not isinstance(container[key], Mapping):
                _put(container, key, where, _without_nulls(self.value), ctx)
            else:
                _merge(container[key], self.value, where, ctx)


def _merge(target: Any, patch: Mapping[str, Any], where: str, ctx: Context) -> None:
    for key, value in patch.items():
        place = jp.join(where, key)
        if value is None:
            if key in target:
                _drop(target, key, place, ctx)
        elif isinstance(value, Mapping) and isinstance(target.get(key), Mapping):
            _merge(target[key], value, place, ctx)
        else:
            _put(target, key, place, _without_nulls(value), ctx)


def _without_nulls(value: Any) -> Any:
    """A merge value as it is written where nothing was (RFC 7396: its nulls say remove)."""
    if isinstance(value, Mapping):
        return {key: _without_nulls(item) for key, item in value.items() if item is not None}
    return value


@dataclass(frozen=True)
class RemoveMember(Step):
    """Remove the member at a pointer (``*`` for every array element)."""

    KIND: ClassVar[str] = "remove"
    FIELDS: ClassVar[Fields] = {"pointer": (_pointer, True)}
    pointer: str = ""

    def apply(self, card: Any, ctx: Context) -> None:
        for container, key, where in reversed(places(card, self.pointer)):  # later elements first
            if _has(container, key):
                _drop(container, key, where, ctx)


# - skills


@dataclass(frozen=True)
class FilterSkills(Step):
    """Keep only the skills a rule matches (``keep``), or drop them (``drop``)."""

    KIND: ClassVar[str] = "skills"
    FIELDS: ClassVar[Fields] = {"keep": (_condition, False),
                                                                        "drop": (_condition, False)}
    keep: dict[str, Any] | None = None
    drop: dict[str, Any] | None = None

    def check(self) -> None:
        if (self.keep is None) == (self.drop is None):
            raise _Bad("keep", "give exactly one of keep and drop")

    def apply(self, card: Any, ctx: Context) -> None:
        skills = card.get("skills")
        if not isinstance(skills, list):
            return
        for index in reversed(range(len(skills))):
            matched = _skill_matches(self.keep or self.drop or {}, skills[index])
            if matched != (self.keep is not None):
                _drop(skills, index, jp.join("/skills", index), ctx, "skill")


def _skill_matches(rule: Mapping[str, Any], skill: Any) -> bool:
    if not isinstance(skill, Mapping):
        return False
    tags = skill.get("tags")
    if skill.get("id") in rule.get("ids", ()) or (isinstance(tags, list) and set(map(str, tags)) & set(rule.get("tags", ()))):
        return True
    where = rule.get("where")
    if where is None:
        return False
    value = jp.resolve(skill, where["pointer"])
    if "exists" in where:
        return (value is not jp.MISSING) == where["exists"]
    return value is not jp.MISSING and json_equal(value, where["equals"])


# - card members


@dataclass(frozen=True)
class SetProvider(Step):
    """Set the card's ``provider`` (organization and url, both required by 0.3 and 1.0)."""

    KIND: ClassVar[str] = "set_provider"
    FIELDS: ClassVar[Fields] = {"organization": (_text, True),
                                                                        "url": (_text, True)}
    organization: str = ""
    url: str = ""

    def apply(self, card: Any, ctx: Context) -> None:
        old = card.get("provider")
        if not isinstance(old, Mapping):
            _put(card, "provider", "/provider", {"organization": self.organization, "url": self.url}, ctx)
            return
        for key in ("organization", "url"):
            _put(old, key, jp.join("/provider", key), getattr(self, key), ctx)


@dataclass(frozen=True)
class SetDocumentationUrl(Step):
    """Set the card's ``documentationUrl``."""

    KIND: ClassVar[str] = "set_documentation_url"
    MEMBER: ClassVar[str] = "documentationUrl"
    FIELDS: ClassVar[Fields] = {"url": (_text, True)}
    url: str = ""

    def apply(self, card: Any, ctx: Context) -> None:
        _put(card, self.MEMBER, jp.join("", self.MEMBER), self.url, ctx)


@dataclass(frozen=True)
class SetIconUrl(SetDocumentationUrl):
    """Set the card's ``iconUrl``."""

    KIND: ClassVar[str] = "set_icon_url"
    MEMBER: ClassVar[str] = "iconUrl"


# - extensions


@dataclass(frozen=True)
class AddExtension(Step):
    """Declare an extension in ``capabilities.extensions`` unless its ``uri`` is declared."""

    KIND: ClassVar[str] = "add_extension"
    FIELDS: ClassVar[Fields] = {
        "uri": (_text, True), "description": (_str, False), "required": (_flag, False), "params": (_mapping, False)}
    uri: str = ""
    description: str | None = None
    required: bool | None = None
    params: dict[str, Any] | None = None

    def apply(self, card: Any, ctx: Context) -> None:
        declared = places(card, "/capabilities/extensions", ctx)
        if not declared:
            return
        capabilities = declared[0][0]
        if "extensions" not in capabilities:
            ctx.set(capabilities, "extensions", [], at="/capabilities")
        extensions = capabilities["extensions"]
        if not isinstance(extensions, list) or any(isinstance(e, Mapping) and e.get("uri") == self.uri for e in extensions):
            return
        members = [(key, getattr(self, key)) for key in ("uri", "description", "required", "params")]
        ctx.append(extensions, edit.like(capabilities, [(key, copy.deepcopy(value)) for key, value in members
                                                        if value is not None]), at="/capabilities/extensions")
        ctx.note(jp.join("/capabilities/extensions", len(extensions) - 1), "info", f"extension {show(self.uri)} declared")


@dataclass(frozen=True)
class RemoveExtension(Step):
    """Remove the declaration of the extension with this ``uri``."""

    KIND: ClassVar[str] = "remove_extension"
    FIELDS: ClassVar[Fields] = {"uri": (_text, True)}
    uri: str = ""

    def apply(self, card: Any, ctx: Context) -> None:
        for container, index, where in reversed(places(card, "/capabilities/extensions/*")):
            if isinstance(container[index], Mapping) and container[index].get("uri") == self.uri:
                _drop(container, index, where, ctx, "extension")


#: Every step kind, by the ``step`` word a recipe uses.
KINDS: dict[str, type[Step]] = {kind.KIND: kind for kind in (
    RewriteUrls, AddInterface, RemoveInterfaces, PinProtocolVersion, SetMember, MergeMember, RemoveMember,
    FilterSkills, SetProvider, SetDocumentationUrl, SetIconUrl, AddExtension, RemoveExtension)}


# -- reading a recipe ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Recipe:
    """A recipe file's steps, checked; ``path`` as the user gave it (it names the steps)."""

    path: str
    steps: tuple[Step, ...]


def load(path: str) -> Recipe:
    """Read and check a recipe file; raises :class:`RecipeError`."""
    from a2a_migrate import io

    try:
        text = io.read_text(Path(path), io.MAX_CARD_BYTES)
    except io.CardError as error:
        raise RecipeError(f"{path}: {error}") from None
    return parse(text, path)


def parse(text: str, path: str) -> Recipe:
    """Check a recipe given as text (``path`` names it); raises :class:`RecipeError`."""
    data = _data(text, path)
    if isinstance(data, dict):
        unknown = [key for key in data if key != "steps"]
        if unknown:
            raise RecipeError(f"{path}: {unknown[0]}: unknown member (a recipe holds 'steps')")
        data = data.get("steps")
    if not isinstance(data, list) or not data:
        raise RecipeError(f"{path}: a recipe is a non-empty list of steps, or a mapping with 'steps'")
    return Recipe(path, tuple(_build(entry, number, path) for number, entry in enumerate(data, 1)))


def _data(text: str, path: str) -> Any:
    """The recipe as plain JSON data; raises :class:`RecipeError` naming what is not JSON."""
    from a2a_migrate import io  # the cards' reader: the same limits, duplicate members refused

    try:
        data = io.parse_value(text, path)
    except io.CardError as error:
        raise RecipeError(f"{path}: {error}") from None
    where = _not_json(data, "")
    if where is not None:
        raise RecipeError(f"{path}: {where or '/'}: not a JSON value (a YAML date, a non-string key, NaN, ...): "
                          "quote it")
    return io.to_plain(data)


def _not_json(value: Any, where: str) -> str | None:
    """The pointer (in the recipe) of the first value a card could not hold, or None."""
    if isinstance(value, dict):
        for key, item in value.items():
            found = jp.join(where, str(key)) if not isinstance(key, str) else _not_json(item, jp.join(where, key))
            if found is not None:
                return found
        return None
    if isinstance(value, list):
        return next((found for index, item in enumerate(value)
                     if (found := _not_json(item, jp.join(where, index))) is not None), None)
    if isinstance(value, float) and not math.isfinite(value):
        return where
    return None if value is None or isinstance(value, (str, int, float, bool)) else where


def _build(entry: Any, number: int, path: str) -> Step:
    """One step from its recipe entry, every field checked."""
    place = f"{path}: step {number}"
    if not isinstance(entry, dict):
        raise RecipeError(f"{place}: must be a mapping with a 'step' member")
    word = entry.get("step")
    kind = KINDS.get(word) if isinstance(word, str) else None
    if kind is None:
        raise RecipeError(f"{place}: step: {show(entry.get('step'))} is not a step kind (known: {', '.join(KINDS)})")
    place = f"{place} ({kind.KIND})"
    name = entry.get("name", f"recipe:{path}#{number}")
    if not isinstance(name, str) or not name:
        raise RecipeError(f"{place}: name: must be a non-empty string")
    values: dict[str, Any] = {}
    for key, value in entry.items():
        if key in ("step", "name"):
            continue
        if key not in kind.FIELDS:
            raise RecipeError(f"{place}: {key}: unknown field (known: {', '.join(kind.FIELDS)})")
        try:
            values[key] = kind.FIELDS[key][0](value)
        except TypeError as error:
            raise RecipeError(f"{place}: {key}: {error}") from None
    missing = [key for key, (_, required) in kind.FIELDS.items() if required and key not in values]
    if missing:
        raise RecipeError(f"{place}: {missing[0]}: missing (required)")
    step = kind(name=name, **values)
    try:
        step.check()
    except _Bad as bad:
        raise RecipeError(f"{place}: {bad.args[0]}: {bad.args[1]}") from None
    return step


def steps_of(recipes: Iterable[Recipe]) -> list[Step]:
    """The steps of several recipes, in order."""
    return [step for recipe in recipes for step in recipe.steps]
