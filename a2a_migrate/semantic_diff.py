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
    """The differences from ``old`` to ``new`` (plain JSON values), moves first found."""
    from deepdiff import DeepDiff

    removed: list[_Item] = []
    added: list[_Item] = []
    changed: list[Difference] = []
    for kind, levels in DeepDiff(old, new, view="tree", threshold_to_diff_deeper=0).items():
        for level in levels:
            tokens = tuple(str(token) for token in level.path(output_format="list"))
            if kind in ("dictionary_item_removed", "iterable_item_removed"):
                removed.append(_Item(tokens, level.t1))
            elif kind in ("dictionary_item_added", "iterable_item_added"):
                added.append(_Item(tokens, level.t2))
            elif kind in ("values_changed", "type_changes"):
                changed.append(Difference("changed", _pointer(tokens), old=level.t1, new=level.t2))
    differences = _Matcher(removed, added, old, new).differences() + changed
    return sorted(differences, key=_order)


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
