"""A semantic diff of two cards, also across protocol versions.

A line diff of an upgraded card is mostly noise: ``url`` disappears at the top
and reappears inside ``supportedInterfaces``. Here the cards are compared as
JSON values (with deepdiff, imported only when a diff is made) and what the
version mapping moved is shown as a move, ``/url -> /supportedInterfaces/0/url``,
not as a removal and an addition; what is left is changed, added or removed.

Moves are found in three steps: members the version mapping (:data:`MAPPING`,
spec-mapping sections 3 to 6) sends somewhere else, in either direction;
members renamed from proto (snake_case) to JSON (camelCase) names; and any
member that reappears elsewhere, with the same name and the same value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from a2a_migrate import bindings
from a2a_migrate import pointer as jp

Kind = Literal["moved", "changed", "added", "removed"]
Tokens = tuple[str, ...]

#: Where the version mapping moves 0.3 members in 1.0: ``(0.3 prefix, 1.0 prefix)``.
#: ``*`` is any one token; what follows the prefix stays the same.
MAPPING: tuple[tuple[str, str], ...] = (
    ("/url", "/supportedInterfaces/*/url"),
    ("/preferredTransport", "/supportedInterfaces/*/protocolBinding"),
    ("/protocolVersion", "/supportedInterfaces/*/protocolVersion"),
    ("/additionalInterfaces/*/url", "/supportedInterfaces/*/url"),
    ("/additionalInterfaces/*/transport", "/supportedInterfaces/*/protocolBinding"),
    ("/supportsAuthenticatedExtendedCard", "/capabilities/extendedAgentCard"),
    ("/supportsExtendedAgentCard", "/capabilities/extendedAgentCard"),
    ("/extensions", "/capabilities/extensions"),
    ("/provider/name", "/provider/organization"),
    ("/security/*/*/*", "/securityRequirements/*/schemes/*/list/*"),
    ("/security/*/*", "/securityRequirements/*/schemes/*"),
    ("/security/*", "/securityRequirements/*"),
    ("/skills/*/security/*/*/*", "/skills/*/securityRequirements/*/schemes/*/list/*"),
    ("/skills/*/security/*/*", "/skills/*/securityRequirements/*/schemes/*"),
    ("/skills/*/security/*", "/skills/*/securityRequirements/*"),
    ("/securitySchemes/*/in", "/securitySchemes/*/apiKeySecurityScheme/location"),
    ("/securitySchemes/*", "/securitySchemes/*/*"),  # members go into the oneof wrapper
)


@dataclass(frozen=True)
class Difference:
    """One difference: ``path`` is where it is in the new card (in the old one
    for ``removed``); ``source`` is where a moved member was in the old card."""

    kind: Kind
    path: str
    source: str | None = None
    old: Any = None
    new: Any = None

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON: ``kind``, ``path``, and ``from``, ``old``, ``new`` where they apply."""
        data: dict[str, Any] = {"kind": self.kind, "path": self.path}
        if self.kind == "moved":
            data["from"] = self.source
        if self.kind != "added":
            data["old"] = self.old
        if self.kind != "removed":
            data["new"] = self.new
        return data

    def as_text(self, width: int = 200) -> str:
        """One line: ``moved /url -> /supportedInterfaces/0/url: "https://..."``."""
        if self.kind == "moved":
            values = _short(self.old, width) if _same(self.old, self.new) else (
                f"{_short(self.old, width)} -> {_short(self.new, width)}")
            return f"moved    {self.source or '/'} -> {self.path or '/'}: {values}"
        if self.kind == "changed":
            return f"changed  {self.path or '/'}: {_short(self.old, width)} -> {_short(self.new, width)}"
        value = self.new if self.kind == "added" else self.old
        return f"{self.kind:<8} {self.path or '/'}: {_short(value, width)}"


def compare(old: Any, new: Any) -> list[Difference]:
    """The differences from ``old`` to ``new`` (plain JSON values), moves first found.

    Members of the arrays :func:`identity` knows are paired by what they are
    (an interface by URL and binding, a skill by id, a security requirement by
    its scheme names) before positions and values are looked at.
    """
    from deepdiff import DeepDiff

    keyed = _Keyed(old, new)
    removed: list[_Item] = []
    added: list[_Item] = []
    changed: list[Difference] = []
    for kind, levels in DeepDiff(keyed.old, keyed.new, view="tree", threshold_to_diff_deeper=0).items():
        for level in levels:
            tokens = tuple(str(token) for token in level.path(output_format="list"))
            if kind in ("dictionary_item_removed", "iterable_item_removed"):
                real = keyed.real(tokens, 0)
                removed.append(_Item(real, jp.resolve(old, real)))
            elif kind in ("dictionary_item_added", "iterable_item_added"):
                real = keyed.real(tokens, 1)
                added.append(_Item(real, jp.resolve(new, real)))
            elif kind in ("values_changed", "type_changes"):
                real = keyed.real(tokens, 1)
                changed.append(Difference("changed", _pointer(real), old=jp.resolve(old, keyed.real(tokens, 0)),
                                          new=jp.resolve(new, real)))
    differences = _Matcher(removed, added, old, new).differences() + changed + keyed.reordered()
    return sorted(differences, key=_order)


def identity(array: str, member: Any) -> tuple[Any, ...] | None:
    """What a member of the array named ``array`` is, wherever it stands; None if unknown.

    Interfaces (0.3 ``additionalInterfaces``, 1.0 ``supportedInterfaces``) by
    ``(url, binding)``, skills by ``id``, security requirements (0.3
    ``security``, 1.0 ``securityRequirements``) by their scheme names.
    """
    if not isinstance(member, dict):
        return None
    name = _camel((array,))[0]
    fields = {_camel((str(key),))[0]: value for key, value in member.items()}
    if name in ("additionalInterfaces", "supportedInterfaces") and isinstance(fields.get("url"), str):
        return ("interface", fields["url"], bindings.spelled(fields.get("protocolBinding", fields.get("transport"))))
    if name == "skills" and isinstance(fields.get("id"), str):
        return ("skill", fields["id"])
    schemes = fields.get("schemes") if name == "securityRequirements" else member if name == "security" else None
    return ("requirement", *sorted(schemes)) if isinstance(schemes, dict) else None


#: The 0.3 top-level members that describe the primary interface (with ``preferredTransport``).
_PRIMARY = ("url", "preferredTransport", "protocolVersion")


def _identities(document: Any, tokens: Tokens) -> tuple[Any, ...]:
    """The identities of the array members on the way to ``tokens``; a 0.3 card's
    top-level ``url``, ``preferredTransport`` and ``protocolVersion`` are its primary interface."""
    chain: list[Any] = []
    value = document
    for index, token in enumerate(tokens):
        if index and isinstance(value, list) and token.isdigit() and int(token) < len(value):
            found = identity(tokens[index - 1], value[int(token)])
            if found is not None:
                chain.append(found)
        value = jp.resolve(value, (token,), _ABSENT)
    if not chain and len(tokens) == 1 and _camel(tokens)[0] in _PRIMARY and isinstance(document, dict):
        fields = {_camel((str(key),))[0]: item for key, item in document.items()}
        if isinstance(fields.get("url"), str):
            chain.append(("interface", fields["url"], bindings.spelled(fields.get("preferredTransport") or bindings.JSONRPC)))
    return tuple(chain)


class _Keyed:
    """Both cards with each pair of arrays at the same place whose members all have
    distinct identities turned into objects keyed by identity, so that DeepDiff
    pairs their members by it; :meth:`real` takes keyed tokens back to positions."""

    def __init__(self, old: Any, new: Any) -> None:
        self.indexes: dict[Tokens, tuple[dict[str, int], dict[str, int]]] = {}
        self.source, self.target = old, new
        self.old, self.new = self._key(old, new, ())

    def _key(self, old: Any, new: Any, tokens: Tokens) -> tuple[Any, Any]:
        if isinstance(old, dict) and isinstance(new, dict):
            old_keyed, new_keyed = dict(old), dict(new)
            for name in old:
                if name in new:
                    old_keyed[name], new_keyed[name] = self._key(old[name], new[name], tokens + (str(name),))
            return old_keyed, new_keyed
        if isinstance(old, list) and isinstance(new, list) and tokens:
            old_keys, new_keys = _member_keys(tokens[-1], old), _member_keys(tokens[-1], new)
            if old_keys is not None and new_keys is not None:
                self.indexes[tokens] = ({key: i for i, key in enumerate(old_keys)}, {key: i for i, key in enumerate(new_keys)})
                return self._key(dict(zip(old_keys, old)), dict(zip(new_keys, new)), tokens)
        return old, new

    def real(self, tokens: Tokens, side: int) -> Tokens:
        """``tokens`` with identity keys back as positions in the old (``side`` 0) or new (1) card."""
        real: list[str] = []
        for index, token in enumerate(tokens):
            where = self.indexes.get(tokens[:index])
            real.append(str(where[side][token]) if where is not None and token in where[side] else token)
        return tuple(real)

    def reordered(self) -> list[Difference]:
        """A move for each member whose place among the members both cards have changed."""
        moves = []
        for tokens, (old_indexes, new_indexes) in self.indexes.items():
            old_order = [key for key in old_indexes if key in new_indexes]
            new_order = sorted(old_order, key=new_indexes.__getitem__)
            for key in old_order:
                source, target = self.real(tokens + (key,), 0), self.real(tokens + (key,), 1)
                if old_order.index(key) != new_order.index(key) and source != target:
                    moves.append(Difference("moved", _pointer(target), _pointer(source),
                                            jp.resolve(self.source, source), jp.resolve(self.target, target)))
        return moves


def _member_keys(array: str, members: list[Any]) -> list[str] | None:
    """One key per member, from its identity; None unless every member has a distinct one."""
    keys = [identity(array, member) for member in members]
    if any(key is None for key in keys) or len(set(keys)) != len(keys):
        return None
    return [json.dumps(key) for key in keys]


@dataclass
class _Item:
    """A removed or added value at ``tokens``, and its leaves once split."""

    tokens: Tokens
    value: Any
    leaves: list[_Leaf] = field(default_factory=list)


@dataclass
class _Leaf:
    tokens: Tokens
    value: Any
    partner: _Leaf | None = None


class _Matcher:
    """Pairs removed and added values into moves."""

    def __init__(self, removed: list[_Item], added: list[_Item], old: Any, new: Any) -> None:
        self.removed, self.added, self.old, self.new = removed, added, old, new
        self.moves: list[Difference] = []

    def differences(self) -> list[Difference]:
        self._whole_moves()
        for item in self.removed + self.added:
            item.leaves = [_Leaf(tokens, value) for tokens, value in _leaves(item.tokens, item.value)]
        removed = [leaf for item in self.removed for leaf in item.leaves]
        added = [leaf for item in self.added for leaf in item.leaves]
        self._pair_members(removed, added)
        self._pair(removed, added, _mapped)
        self._pair(removed, added, _same_name_and_value)
        self._collapse_moves()
        return self.moves + list(self._leftovers(self.removed, "removed")) + list(self._leftovers(self.added, "added"))

    def _whole_moves(self) -> None:
        """A removed value that reappears whole, where the mapping or its name says."""
        for item in list(self.removed):
            for other in self.added:
                if _same(item.value, other.value) and any(rule(item.tokens, item.value, other.tokens, other.value)
                                                          for rule in (_mapped, _same_name_and_value)):
                    self.moves.append(Difference("moved", _pointer(other.tokens), _pointer(item.tokens), item.value, other.value))
                    self.removed.remove(item)
                    self.added.remove(other)
                    break

    def _pair_members(self, removed: list[_Leaf], added: list[_Leaf]) -> None:
        """Leaves the mapping moves within the same member (by :func:`identity`), paired first.

        A member the migration merged into another (0.3's repeat of the primary
        interface in ``additionalInterfaces``) pairs with that one too, where the values are equal.
        """
        chains = {id(leaf): _identities(self.new, leaf.tokens) for leaf in added}
        for leaf in removed:
            chain = _identities(self.old, leaf.tokens)
            candidates = [other for other in added if chain and chains[id(other)] == chain
                          and (other.partner is None or _same(leaf.value, other.value))
                          and _mapped(leaf.tokens, leaf.value, other.tokens, other.value)]
            if candidates:
                best = max(candidates, key=lambda other: (other.partner is None, _same(leaf.value, other.value)))
                leaf.partner = best
                best.partner = best.partner or leaf

    def _pair(self, removed: list[_Leaf], added: list[_Leaf], rule: Callable[[Tokens, Any, Tokens, Any], bool]) -> None:
        for leaf in removed:
            if leaf.partner is not None:
                continue
            candidates = [other for other in added if other.partner is None
                          and rule(leaf.tokens, leaf.value, other.tokens, other.value)]
            if candidates:
                best = max(candidates, key=lambda other: (_same(leaf.value, other.value), _shared(leaf.tokens, other.tokens)))
                leaf.partner, best.partner = best, leaf

    def _collapse_moves(self) -> None:
        """Leaf moves become one move of the largest value that moved whole.

        ``/a/flows/x/tokenUrl -> /a/wrapper/flows/x/tokenUrl`` and its siblings
        are ``/a/flows/x -> /a/wrapper/flows/x`` when those two values are equal.
        """
        leaves = [(leaf, leaf.partner) for item in self.removed for leaf in item.leaves if leaf.partner is not None]
        done: set[int] = set()
        for leaf, partner in leaves:
            if id(leaf) in done:
                continue
            source, target = self._whole(leaf.tokens, partner.tokens)
            group = [(l, p) for l, p in leaves if l.tokens[: len(source)] == source and p.tokens[: len(target)] == target]
            done.update(id(l) for l, _ in group)
            if len(group) > 1 or (source, target) != (leaf.tokens, partner.tokens):
                value = jp.resolve(self.new, target, _ABSENT)
                self.moves.append(Difference("moved", _pointer(target), _pointer(source), value, value))
            else:
                self.moves.append(Difference("moved", _pointer(partner.tokens), _pointer(leaf.tokens), leaf.value, partner.value))

    def _whole(self, source: Tokens, target: Tokens) -> tuple[Tokens, Tokens]:
        """The largest ``(source, target)`` ancestors, with the same tail, holding equal values."""
        best = (source, target)
        while source and target and source[-1] == target[-1]:
            source, target = source[:-1], target[:-1]
            if not source or not target:
                break
            if _same(jp.resolve(self.old, source, _ABSENT), jp.resolve(self.new, target, _ABSENT)):
                best = (source, target)
        return best

    @staticmethod
    def _leftovers(items: list[_Item], kind: Kind) -> Iterator[Difference]:
        for item in items:
            alone = [leaf for leaf in item.leaves if leaf.partner is None]
            if len(alone) == len(item.leaves):  # nothing of it moved: report it whole
                yield _unpaired(kind, item.tokens, item.value)
            else:
                yield from (_unpaired(kind, leaf.tokens, leaf.value) for leaf in alone)


def _unpaired(kind: Kind, tokens: Tokens, value: Any) -> Difference:
    if kind == "removed":
        return Difference("removed", _pointer(tokens), old=value)
    return Difference("added", _pointer(tokens), new=value)


_ABSENT = object()


def _leaves(tokens: Tokens, value: Any) -> Iterator[tuple[Tokens, Any]]:
    """Every scalar and empty container inside ``value``, with its tokens."""
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from _leaves(tokens + (str(key),), item)
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            yield from _leaves(tokens + (str(index),), item)
    else:
        yield tokens, value


def _mapped(old: Tokens, old_value: Any, new: Tokens, new_value: Any) -> bool:
    """True when the version mapping (either way) or a proto-name rename takes ``old`` to ``new``."""
    if _camel(old) == _camel(new) and old != new:
        return True
    old, new = _camel(old), _camel(new)
    for v03, v10 in _PATTERNS:
        if _prefix_move(old, new, v03, v10) or _prefix_move(old, new, v10, v03):
            return True
    return False


def _prefix_move(old: Tokens, new: Tokens, from_pattern: Tokens, to_pattern: Tokens) -> bool:
    if len(old) < len(from_pattern) or len(new) < len(to_pattern):
        return False
    return (_matches(old[: len(from_pattern)], from_pattern) and _matches(new[: len(to_pattern)], to_pattern)
            and old[len(from_pattern):] == new[len(to_pattern):])


def _matches(tokens: Tokens, pattern: Tokens) -> bool:
    return all(want == "*" or want == got for got, want in zip(tokens, pattern))


_PATTERNS = tuple((tuple(jp.split(a)), tuple(jp.split(b))) for a, b in MAPPING)


def _same_name_and_value(old: Tokens, old_value: Any, new: Tokens, new_value: Any) -> bool:
    """A member that reappears elsewhere with its name and its (non-trivial) value."""
    if not old or not new or _camel(old[-1:]) != _camel(new[-1:]) or not _same(old_value, new_value):
        return False
    return old_value not in (None, True, False, "", [], {}) and not (old[-1].isdigit() and new[-1].isdigit())


_SNAKE = re.compile(r"_([a-z0-9])")


def _camel(tokens: Tokens) -> Tokens:
    return tuple(_SNAKE.sub(lambda m: m.group(1).upper(), t) if "_" in t and t.islower() else t for t in tokens)


def _shared(a: Tokens, b: Tokens) -> int:
    return sum(x == y for x, y in zip(a, b))


def _same(a: Any, b: Any) -> bool:
    from a2a_migrate.patching import json_equal

    return json_equal(a, b)


def _pointer(tokens: Iterable[str]) -> str:
    return jp.join("", *tokens)


def _order(difference: Difference) -> tuple[Any, ...]:
    where = difference.source if difference.kind == "moved" and difference.source is not None else difference.path
    return tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in jp.split(where))


def _short(value: Any, width: int) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def render_text(differences: Sequence[Difference]) -> str:
    """One line per difference (see :meth:`Difference.as_text`)."""
    return "".join(difference.as_text() + "\n" for difference in differences)


def summary(differences: Sequence[Difference]) -> str:
    """``5 differences: 3 moved, 1 changed, 1 removed`` (or ``no differences``)."""
    if not differences:
        return "no differences"
    counts = {kind: sum(d.kind == kind for d in differences) for kind in ("moved", "changed", "added", "removed")}
    noun = "difference" if len(differences) == 1 else "differences"
    return f"{len(differences)} {noun}: " + ", ".join(f"{n} {kind}" for kind, n in counts.items() if n)
