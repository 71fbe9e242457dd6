"""RFC 6902 JSON Patch applied in place to a card document, keeping its layout.

The document is an :class:`a2a_migrate.io.Document`'s working copy: a plain
``dict`` for JSON, a ruamel ``CommentedMap`` for YAML. Operations change it in
place so that :meth:`~a2a_migrate.io.Document.render` rewrites only what
changed. JSON objects are unordered, so a patch cannot say where a new member
goes: :class:`Patcher` appends it, renames a member in place when a ``move``
stays inside one object, and :func:`order_members` then puts members in the
order a plan's ``layout`` records. In YAML a string the patch removes and adds
elsewhere has moved: it keeps its quoting and its comment; a member of the
same name added again takes its comment; a replaced string keeps its quoting.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from a2a_migrate import edit
from a2a_migrate import pointer as jp

_OPS = ("add", "remove", "replace", "move", "copy", "test")


class PatchError(Exception):
    """An operation that does not apply; the message names it and says why."""

    def __init__(self, index: int, op: Any, reason: str) -> None:
        super().__init__(f"operation {index} ({describe(op)}) does not apply: {reason}")
        self.index = index
        self.op = op
        self.reason = reason


def describe(op: Any) -> str:
    """``replace /a/b`` or ``move /a -> /b``: an operation in a few words."""
    if not isinstance(op, Mapping):
        return json.dumps(op)[:60]
    name, path = op.get("op", "?"), op.get("path", "?")
    if name in ("move", "copy"):
        return f"{name} {op.get('from', '?')} -> {path}"
    return f"{name} {path}"


def sha256(text: str) -> str:
    """The SHA-256 of a card's bytes (its text as read, encoded as UTF-8)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# -- the in-place RFC 6902 applier ------------------------------------------------


@dataclass
class _Removed:
    """A removed YAML member or item, whose comment or quoting may reappear with its value."""

    mapping: Any  # the mapping it was removed from (None for an array item)
    key: str
    before: str | None  # the member that preceded it
    comment: Any
    value: Any
    used: bool = False
    inner: bool = False  # inside a removed value: its comment has no place to hand on to


@dataclass
class Patcher:
    """Apply RFC 6902 operations to a JSON value in place, keeping member order.

    ``root`` must be an object (a card). Members keep their places: a replaced
    value stays where it was, a new member is appended, a ``move`` inside one
    object renames the member where it stands (keeping its YAML comment).
    """

    root: MutableMapping[str, Any]
    _removed: list[_Removed] = field(default_factory=list)
    _added: list[tuple[Any, str]] = field(default_factory=list)  # (mapping, key) of new members

    def apply(self, ops: Sequence[Any], *, skip_failures: bool = False) -> list[PatchError]:
        """Apply ``ops`` in order. Raises the first :class:`PatchError`, or with
        ``skip_failures`` skips each failing operation and returns them."""
        skipped: list[PatchError] = []
        for index, op in enumerate(ops):
            try:
                self.apply_one(op)
            except _Failure as failure:
                error = PatchError(index, op, str(failure))
                if not skip_failures:
                    raise error from None
                skipped.append(error)
        return skipped

    def apply_one(self, op: Any) -> None:
        """Apply one operation (raises :class:`_Failure` without changing anything)."""
        name, path = _checked(op)
        if name == "add":
            value, moved = self._fresh(op["value"])
            self._add(path, value, moved)
        elif name == "remove":
            self._remove(path)
        elif name == "replace":
            parent, token = self._parent(path)
            old = self._get(parent, token, path)
            # A replaced object's members may come back inside the new value (a scheme rewritten in its
            # 1.0 form): as for a removed one, they bring their comments and quoting.
            self._removed.extend(_inner_members(old))
            self._set(parent, token, _restyled(old, self._fresh(op["value"])[0]))
        elif name == "move":
            self._move(op["from"], path)
        elif name == "copy":
            self._add(path, copy.deepcopy(self.get(op["from"])), None)
        elif not json_equal(self.get(path), op["value"]):
            raise _Failure(f"the value at {path or 'the root'} is not the one the test expects")

    def get(self, path: str) -> Any:
        """The value at ``path``."""
        node: Any = self.root
        tokens = _tokens(path)
        for depth, token in enumerate(tokens):
            node = self._get(node, token, jp.join("", *tokens[: depth + 1]))
        return node

    def _parent(self, path: str) -> tuple[Any, str]:
        tokens = _tokens(path)
        if not tokens:
            raise _Failure("the root cannot be replaced, removed or added to in place")
        parent = self.get(jp.join("", *tokens[:-1]))
        if not isinstance(parent, (dict, list)):
            raise _Failure(f"{jp.join('', *tokens[:-1]) or 'the root'} is not an object or an array")
        return parent, tokens[-1]

    @staticmethod
    def _get(node: Any, token: str, where: str) -> Any:
        if isinstance(node, dict):
            if token not in node:
                raise _Failure(f"{where} does not exist")
            return node[token]
        if isinstance(node, list):
            index = _index(token, len(node) - 1, where)
            return node[index]
        raise _Failure(f"{where} does not exist: its parent is not an object or an array")

    def _set(self, parent: Any, token: str, value: Any) -> None:
        if isinstance(parent, list):
            parent[_index(token, len(parent) - 1, token)] = value
        else:
            parent[token] = value

    def _add(self, path: str, value: Any, moved: _Removed | None) -> None:
        """Add ``value``; ``moved`` is the removed member it is, whose comment comes along."""
        parent, token = self._parent(path)
        if isinstance(parent, list):
            parent.insert(len(parent) if token == "-" else _index(token, len(parent), path), value)
            return
        if token not in parent:
            self._added.append((parent, token))
        parent[token] = value
        if moved is not None and moved.mapping is not None:
            edit.move_comment(moved.mapping, moved.key, parent, token)

    def _remove(self, path: str) -> Any:
        parent, token = self._parent(path)
        value = self._get(parent, token, path)
        if isinstance(parent, list):
            del parent[_index(token, len(parent) - 1, path)]
            if type(value) is not str and isinstance(value, str):
                self._removed.append(_Removed(None, token, None, None, value))
            return value
        # Comment lines after the member stay where they are (edit.remove); only its own comment travels.
        comment = None if edit.keeps_following_comments(parent, token) else _comments(parent).get(token)
        if comment is not None or (type(value) is not str and isinstance(value, str)):
            keys = list(parent)
            position = keys.index(token)
            self._removed.append(_Removed(parent, token, keys[position - 1] if position else None, comment, value))
        edit.remove(parent, token)
        self._removed.extend(_inner_members(value))
        return value

    def _fresh(self, value: Any) -> tuple[Any, _Removed | None]:
        """A copy of an operation's value, and the removed member it brings back.

        In YAML a string the patch removed elsewhere comes back as the removed
        scalar (with its quoting) and its comment: the pair is a move.
        """
        value = copy.deepcopy(value)
        if not self._removed:
            return value, None
        if isinstance(value, str):
            taken = self._taken(value)
            return (taken.value, taken) if taken else (value, None)
        return self._adopt(value), None

    def _adopt(self, value: Any) -> Any:
        if isinstance(value, list):
            for index, item in enumerate(value):
                taken = self._taken(item) if isinstance(item, str) else None
                value[index] = taken.value if taken else self._adopt(item)
            return value
        if not isinstance(value, dict):
            return value
        comments: dict[str, _Removed] = {}
        for key, item in value.items():
            taken = self._taken(item) if isinstance(item, str) else self._taken_key(key)
            value[key] = taken.value if isinstance(item, str) and taken else self._adopt(item)
            if taken and taken.comment is not None and taken.mapping is not None:
                comments[key] = taken
        if not comments:
            return value
        from ruamel.yaml.comments import CommentedMap

        mapping = CommentedMap(value)
        for key, taken in comments.items():
            edit.move_comment(taken.mapping, taken.key, mapping, key)
        return mapping

    def _taken_key(self, key: str) -> _Removed | None:
        """A removed member of the same name whose value was no string (its comment comes along)."""
        for removed in self._removed:
            if not removed.used and removed.key == key and removed.comment is not None and not isinstance(removed.value, str):
                removed.used = True
                return removed
        return None

    def _taken(self, text: str) -> _Removed | None:
        for removed in self._removed:
            if not removed.used and isinstance(removed.value, str) and str(removed.value) == text:
                removed.used = True
                return removed
        return None

    def _move(self, source: str, path: str) -> None:
        """RFC 6902 move: remove at ``source``, then add at ``path`` (read after the removal)."""
        value = self.get(source)
        if source == path:
            return
        if path.startswith(source + "/"):
            raise _Failure(f"{source} cannot be moved into itself")
        from_parent, from_token = self._parent(source)
        to_parent, to_token = self._parent(path)
        if from_parent is to_parent and isinstance(from_parent, dict):
            if to_token not in from_parent:
                self._added.append((from_parent, to_token))
            edit.rename(from_parent, from_token, to_token)  # in place, comment and all
            return
        position = list(from_parent).index(from_token) if isinstance(from_parent, dict) else int(from_token)
        removed = len(self._removed)
        self._remove(source)
        try:
            self._add(path, value, self._removed[removed] if len(self._removed) > removed else None)
            del self._removed[removed:]  # moved with its value
        except _Failure:
            del self._removed[removed:]
            if isinstance(from_parent, list):
                from_parent.insert(position, value)
            else:
                edit.insert_at(from_parent, position, from_token, value)
            raise

    def hand_on_comments(self) -> None:
        """Give a removed member's YAML comment to the new member now standing in its place.

        Its place is right after the member that preceded it (first, if none
        did), as :func:`a2a_migrate.edit.replace` does for the transforms.
        """
        for removed in self._removed:
            if removed.used or removed.inner or removed.comment is None or removed.mapping is None:
                continue
            mapping, keys = removed.mapping, list(removed.mapping)
            if removed.key in mapping or (removed.before is not None and removed.before not in mapping):
                continue
            position = 0 if removed.before is None else keys.index(removed.before) + 1
            comments = _comments(mapping)
            if position < len(keys) and self._is_new(mapping, keys[position]) and keys[position] not in comments:
                comments[keys[position]] = removed.comment


    def _is_new(self, mapping: Any, key: str) -> bool:
        return any(parent is mapping and name == key for parent, name in self._added)


def _inner_members(value: Any) -> Iterable[_Removed]:
    """The YAML members inside a removed value that have a comment or a quoting style."""
    if isinstance(value, list):
        for item in value:
            yield from _inner_members(item)
    elif isinstance(value, dict):
        comments = _comments(value)
        for key, item in value.items():
            if key in comments or (type(item) is not str and isinstance(item, str)):
                yield _Removed(value, key, None, comments.get(key), item, inner=True)
            yield from _inner_members(item)


def _restyled(old: Any, new: Any) -> Any:
    """A new string in the quoting style of the YAML scalar it replaces."""
    if type(new) is not str:
        return new
    if isinstance(old, str) and type(old) is not str:
        return type(old)(new)
    return new


class _Failure(Exception):
    """Why one operation does not apply (turned into a :class:`PatchError`)."""


def _checked(op: Any) -> tuple[str, str]:
    if not isinstance(op, Mapping):
        raise _Failure("an operation must be an object")
    name, path = op.get("op"), op.get("path")
    if name not in _OPS:
        raise _Failure(f"unknown op {name!r}")
    if not isinstance(path, str):
        raise _Failure("'path' must be a JSON pointer string")
    _tokens(path)
    if name in ("add", "replace", "test") and "value" not in op:
        raise _Failure(f"a {name} operation needs a 'value'")
    if name in ("move", "copy"):
        if not isinstance(op.get("from"), str):
            raise _Failure(f"a {name} operation needs a 'from' pointer")
        _tokens(op["from"])
    return name, path


def _tokens(path: str) -> list[str]:
    try:
        return jp.split(path)
    except ValueError as error:
        raise _Failure(str(error)) from None


def _index(token: str, highest: int, where: str) -> int:
    """An array index token (RFC 6901: no sign, no leading zero) no larger than ``highest``."""
    if not token.isdigit() or not token.isascii() or (len(token) > 1 and token[0] == "0"):
        raise _Failure(f"{where}: {token!r} is not an array index")
    index = int(token)
    if index > highest:
        raise _Failure(f"{where} is past the end of its array")
    return index


def _comments(mapping: Any) -> dict[Any, Any]:
    """A ruamel mapping's comments by key (an empty throwaway dict for a plain one)."""
    items = getattr(getattr(mapping, "ca", None), "items", None)
    return items if isinstance(items, dict) else {}


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON sees it: ``1 == 1.0`` but ``1 != true``; member order ignored."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(json_equal(a[key], b[key]) for key in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, str) and isinstance(b, str):
        return str(a) == str(b)
    return a is None and b is None


def order_members(root: Any, layout: Mapping[str, Sequence[str]]) -> None:
    """Put the members of each object ``layout`` names in the recorded order.

    Members the order does not name keep their places; the named ones are
    sorted into the places named members hold. An object that is no longer
    there is left alone.
    """
    for where, order in layout.items():
        try:
            node = Patcher(root).get(where) if where else root
        except _Failure:
            continue
        if isinstance(node, dict):
            _reorder(node, order)


def _reorder(mapping: MutableMapping[str, Any], order: Sequence[str]) -> None:
    rank = {key: position for position, key in enumerate(order)}
    keys = list(mapping)
    named = iter(sorted((key for key in keys if key in rank), key=rank.__getitem__))
    wanted = [next(named) if key in rank else key for key in keys]
    for position, key in enumerate(wanted):
        if list(mapping)[position] != key:
            edit.insert_at(mapping, position, key, mapping[key])


def patch_in_place(root: MutableMapping[str, Any], ops: Sequence[Any], layout: Mapping[str, Sequence[str]] | None = None,
                   *, skip_failures: bool = False) -> list[PatchError]:
    """Apply ``ops`` to ``root`` in place, order members by ``layout``, hand on comments.

    Returns the operations skipped with ``skip_failures``; otherwise the first
    failing operation raises :class:`PatchError` and ``root`` must be dropped
    (earlier operations were applied).
    """
    unshare(root)
    patcher = Patcher(root)
    skipped = patcher.apply(ops, skip_failures=skip_failures)
    order_members(root, layout or {})
    patcher.hand_on_comments()
    return skipped


def unshare(root: Any) -> None:
    """Give every YAML alias its own copy, so an operation on one place changes only that place.

    A patch names places (``/securitySchemes/key2/type``); in a YAML document an
    alias (``key2: *scheme``) is the very node its anchor marks, and a change
    through one name would show through the other. The copies drop the anchor:
    the migrated members are different values anyway.
    """
    seen: set[int] = set()

    def walk(node: Any) -> None:
        items = list(node.items()) if isinstance(node, MutableMapping) else enumerate(node) if isinstance(node, list) else []
        for key, child in items:
            if not isinstance(child, (MutableMapping, list)):
                continue
            if id(child) in seen:
                child = copy.deepcopy(child)
                anchor = getattr(child, "anchor", None)
                if anchor is not None and getattr(anchor, "value", None) is not None:
                    anchor.value = None
                node[key] = child
            seen.add(id(child))
            walk(child)

    seen.add(id(root))
    walk(root)
