"""Applying reviewed patches to card files, keeping each file's formatting.

A plan (:mod:`a2a_migrate.plan`) holds, per card, an RFC 6902 patch a person
may edit. Applying it here is an in-place edit of the card's working copy
(:attr:`a2a_migrate.io.Document.data`: a plain ``dict`` for JSON, a ruamel
``CommentedMap`` for YAML), so that :meth:`~a2a_migrate.io.Document.render`
rewrites only what changed, in the file's own layout, with its YAML comments.

JSON objects are unordered, so a patch cannot say where a new member goes: the
applier appends it, renames a member in place when a ``move`` stays inside one
object, and then puts members in the order the plan's ``layout`` records (the
order the migration itself wrote). In YAML a patch that removes a string and
adds it again elsewhere has moved it: it keeps its quoting and its comment
(``url: ... # prod`` stays commented inside ``supportedInterfaces``); a member
of the same name added again takes its comment; a replaced string keeps its
quoting; any other comment beside a removed member goes to the new member that
takes its place, as :func:`a2a_migrate.edit.replace` does for the transforms.

Per card: a card whose bytes no longer match the planned SHA-256 is refused
(``force`` applies it anyway); an operation that does not apply is an error
naming it (``force`` skips it and reports it); operations a reviewer deleted
are not applied and are reported by transform; the result must be a valid card
of the target version (:func:`a2a_migrate.api.output_errors`).
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from a2a_migrate import edit, io
from a2a_migrate import pointer as jp
from a2a_migrate.batch import Outcome
from a2a_migrate.context import Note
from a2a_migrate.engine import Change
from a2a_migrate.versions import UNKNOWN, detect_version

if TYPE_CHECKING:
    from a2a_migrate.plan import CardPlan

#: The ``transform`` of messages about operations no transform planned.
REVIEWER = "reviewer"
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
    patcher = Patcher(root)
    skipped = patcher.apply(ops, skip_failures=skip_failures)
    order_members(root, layout or {})
    patcher.hand_on_comments()
    return skipped


# -- comparing a reviewed patch with the plan -------------------------------------


@dataclass
class Review:
    """How a (possibly edited) patch relates to the operations that were planned.

    ``transforms[i]`` names the transform of patch operation ``i`` (``reviewer``
    for one the plan did not hold); ``left_out`` and ``edited`` are planned
    operations missing from the patch, or present with another value, each as
    ``(transform, op)``; ``added`` are indexes of operations no transform planned.
    """

    transforms: list[str]
    left_out: list[tuple[str, Any]] = field(default_factory=list)
    edited: list[tuple[str, Any]] = field(default_factory=list)
    added: list[int] = field(default_factory=list)


def review(planned: Iterable[tuple[str, Any]], patch: Sequence[Any]) -> Review:
    """Match patch operations to planned ``(transform, op)`` pairs.

    Equal operations match first (each planned one at most once); then an
    operation with the same ``op``, ``path`` and ``from`` as a planned one is
    that one, edited.
    """
    pending = list(planned)
    transforms: list[str | None] = [None] * len(patch)
    edited: list[tuple[str, Any]] = []
    for key in (_canonical, _target):
        for index, op in enumerate(patch):
            if transforms[index] is not None:
                continue
            match = next((n for n, (_, wanted) in enumerate(pending) if key(wanted) == key(op)), None)
            if match is None:
                continue
            transform, wanted = pending.pop(match)
            transforms[index] = transform
            if key is _target:
                edited.append((transform, wanted))
    added = [index for index, transform in enumerate(transforms) if transform is None]
    return Review([transform or REVIEWER for transform in transforms], pending, edited, added)


def _canonical(op: Any) -> str:
    return json.dumps(op, sort_keys=True)


def _target(op: Any) -> str:
    if not isinstance(op, Mapping):
        return _canonical(op)
    return json.dumps([op.get("op"), op.get("path"), op.get("from")])


def by_transform(ops: Iterable[tuple[str, Any]]) -> dict[str, list[Any]]:
    """Group ``(transform, op)`` pairs by transform, in first-seen order."""
    groups: dict[str, list[Any]] = {}
    for transform, op in ops:
        groups.setdefault(transform, []).append(op)
    return groups


# -- applying to card files ----------------------------------------------------------


def apply_card(card: CardPlan, *, force: bool = False) -> Outcome:
    """Apply one card's reviewed patch to its file's text; nothing is written here.

    The outcome's status is ``changed`` (``new_text`` is to be written),
    ``unchanged``, ``skipped`` (the card was refused when planned) or
    ``failed`` (``error`` and the error notes say why); its notes report what
    was left out, edited or added by the reviewer, and what ``force`` skipped.
    """
    outcome = Outcome(card.path, "failed", card.source_version, card.target_version)
    if card.status == "failed":
        outcome.status, outcome.error = "skipped", "refused when planned: " + (card.error or _first_error(card.notes))
        return outcome
    try:
        text = io.read_text(Path(card.path))
    except io.CardError as error:
        outcome.error = str(error)
        return outcome
    outcome.old_text = outcome.new_text = text
    drifted = card.sha256 is not None and sha256(text) != card.sha256
    if drifted:
        if not force:
            outcome.error = "the card changed since the plan was made (its SHA-256 differs); --force applies the plan anyway"
            return outcome
        outcome.notes.append(Note("warning", "apply", "", "the card changed since the plan was made: applied anyway (--force)"))
    matched = review(((p.transform, p.op) for p in card.planned), card.patch)
    outcome.notes.extend(_review_notes(matched, card.patch))
    return _apply_to_text(outcome, text, card.patch, matched.transforms, card.layout, card.target_version, force)


def apply_patch(path: str, patch: Sequence[Any], *, force: bool = False) -> Outcome:
    """Apply one plain RFC 6902 patch to one card file (nothing is written here).

    With no plan there is no hash, no transform labels and no recorded member
    order: new members are appended. The result is validated against the
    version its shape has.
    """
    outcome = Outcome(path, "failed")
    try:
        text = io.read_text(Path(path))
    except io.CardError as error:
        outcome.error = str(error)
        return outcome
    outcome.old_text = outcome.new_text = text
    return _apply_to_text(outcome, text, patch, [REVIEWER] * len(patch), {}, None, force)


def _apply_to_text(outcome: Outcome, text: str, patch: Sequence[Any], transforms: Sequence[str],
                   layout: Mapping[str, Sequence[str]], target: str | None, force: bool) -> Outcome:
    try:
        document = io.parse(text, outcome.name)
    except io.CardError as error:
        outcome.error = str(error)
        return outcome
    outcome.source_version = outcome.source_version or detect_version(document.original)
    try:
        skipped = patch_in_place(document.data, patch, layout, skip_failures=force)
    except PatchError as error:
        outcome.notes.append(Note("error", transforms[error.index], _path_of(error.op), str(error)))
        outcome.error = "the patch does not apply; nothing was changed"
        return outcome
    for failure in skipped:
        outcome.notes.append(Note("warning", transforms[failure.index], _path_of(failure.op),
                                  f"not applied (--force): {failure}"))
    done = {failure.index for failure in skipped}
    outcome.changes = [Change(transforms[i], op) for i, op in enumerate(patch) if i not in done]
    plain = io.to_plain(document.data)
    version = target or detect_version(plain)
    outcome.target_version = version
    if version == UNKNOWN:
        version_errors = [Note("error", "validate", "", "the result is not a card of any version")]
    else:
        from a2a_migrate.api import output_errors

        version_errors = output_errors(plain, version)
    if version_errors:
        outcome.notes.extend(version_errors)
        outcome.error = f"the result is not a valid {version} card; nothing was written"
        return outcome
    outcome.new_text = document.render()
    outcome.status = "changed" if outcome.new_text != text else "unchanged"
    outcome.notes.append(Note("info", "apply", "", f"{_count(outcome.changes)} applied"))
    return outcome


def _review_notes(matched: Review, patch: Sequence[Any]) -> list[Note]:
    notes = []
    for transform, ops in by_transform(matched.left_out).items():
        notes.append(Note("warning", transform, _first_path(ops),
                          f"left out by the reviewer: {_count(ops)} ({', '.join(describe(op) for op in ops)})"))
    for transform, ops in by_transform(matched.edited).items():
        notes.append(Note("warning", transform, _first_path(ops),
                          f"edited by the reviewer: {_count(ops)} ({', '.join(describe(op) for op in ops)})"))
    if matched.added:
        ops = [patch[i] for i in matched.added]
        notes.append(Note("warning", REVIEWER, _first_path(ops),
                          f"not in the plan: {_count(ops)} ({', '.join(describe(op) for op in ops)})"))
    return notes


def _count(ops: Sequence[Any]) -> str:
    return f"{len(ops)} operation" + ("" if len(ops) == 1 else "s")


def _first_path(ops: Sequence[Any]) -> str:
    return _path_of(ops[0]) if ops else ""


def _path_of(op: Any) -> str:
    path = op.get("path") if isinstance(op, Mapping) else None
    return path if isinstance(path, str) else ""


def _first_error(notes: Sequence[Note]) -> str:
    errors = [note for note in notes if note.severity == "error"]
    if not errors:
        return "see its notes"
    first = errors[0]
    where = f" {first.pointer}:" if first.pointer else ""
    return f"[{first.transform}]{where} {first.message}"


def write(outcome: Outcome) -> None:
    """Write a ``changed`` outcome's text over its file, atomically; a failure fails the outcome."""
    if outcome.status != "changed":
        return
    try:
        io.write_atomic(Path(outcome.name), outcome.new_text)
    except io.CardError as error:
        outcome.status, outcome.error = "failed", str(error)
