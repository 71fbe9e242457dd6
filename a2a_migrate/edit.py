"""In-place edits of card mappings that keep key order (and YAML comments).

Transforms mutate the working copy, which is a plain ``dict`` for JSON and a
ruamel ``CommentedMap`` for YAML. These helpers put a new member where the
member it replaces stood, and carry a YAML comment along with a renamed key.
The built-in transforms call them through the methods of
:class:`a2a_migrate.context.Context`, which also record each edit as a patch
operation; a new object not yet in the card is edited with them directly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, MutableMapping
from typing import Any

Card = MutableMapping[str, Any]


def _comments(mapping: Any) -> dict[Any, Any] | None:
    ca = getattr(mapping, "ca", None)
    return getattr(ca, "items", None)


def insert_at(mapping: Card, index: int, key: str, value: Any) -> None:
    """Insert ``key`` at position ``index`` (replacing any member of that name)."""
    if key in mapping:
        del mapping[key]
    index = max(0, min(index, len(mapping)))
    insert = getattr(mapping, "insert", None)
    if insert is not None:  # ruamel CommentedMap keeps comments through insert()
        insert(index, key, value)
        return
    items = list(mapping.items())
    items.insert(index, (key, value))
    mapping.clear()
    mapping.update(items)


def replace(mapping: Card, old_keys: Iterable[str], new_key: str, value: Any) -> None:
    """Remove ``old_keys`` and put ``new_key: value`` where the first of them stood.

    If none of ``old_keys`` is present the new member goes where ``new_key``
    already is, or last.
    """
    olds = [key for key in old_keys if key in mapping]
    keys = list(mapping)
    if olds:
        index = keys.index(olds[0])
    elif new_key in mapping:
        index = keys.index(new_key)
    else:
        index = len(keys)
    comments = _comments(mapping)
    moved = comments.get(olds[0]) if comments is not None and olds else None
    for key in olds:
        if key != new_key:
            del mapping[key]
            index -= 1 if keys.index(key) < index else 0
    insert_at(mapping, index, new_key, value)
    if comments is not None and moved is not None:
        comments[new_key] = moved


def rename(mapping: Card, old_key: str, new_key: str) -> None:
    """Rename a member in place, keeping its position and its comment."""
    if old_key in mapping and old_key != new_key:
        replace(mapping, [old_key], new_key, mapping[old_key])


def position(mapping: Card, key: str) -> int:
    """Index of ``key`` in the mapping's order, or its length if absent."""
    for index, name in enumerate(mapping):
        if name == key:
            return index
    return len(mapping)


def like(template: Any, items: Iterable[tuple[str, Any]] = ()) -> Any:
    """A new mapping of the template's kind: a ruamel ``CommentedMap`` in a YAML card."""
    mapping = type(template)() if _comments(template) is not None else {}
    mapping.update(items)
    return mapping


def move_comment(source: Any, source_key: str, target: Any, target_key: str) -> None:
    """Carry the end-of-line comment of ``source_key`` to ``target_key`` (YAML only).

    The comment's column is reset: its line has changed, and ruamel would pad
    the new line out to the old column.
    """
    comments, into = _comments(source), _comments(target)
    if comments is None or into is None or source_key not in comments:
        return
    into[target_key] = _realigned(comments.pop(source_key))


def _realigned(token: Any) -> Any:
    """A comment whose line changed: two spaces before ``#`` (yamllint's rule), not the old column."""
    for part in token:
        if part is not None and hasattr(part, "column") and isinstance(getattr(part, "value", None), str):
            part.column = 0
            if part.value.startswith("#"):
                part.value = " " + part.value
    return token


def renamed_copy(mapping: Any, renames: Mapping[str, str], drop: Iterable[str] = ()) -> Any:
    """A copy of ``mapping`` with keys renamed in place and ``drop`` left out, comments kept."""
    dropped = set(drop)
    copy = like(mapping, ((renames.get(key, key), value) for key, value in mapping.items() if key not in dropped))
    comments, into = _comments(mapping), _comments(copy)
    if comments is not None and into is not None:
        for key, token in comments.items():
            if key not in dropped:
                into[renames.get(key, key)] = _realigned(token) if key in renames else token
    return copy


def remove(mapping: Any, key: str) -> Any:
    """Delete ``key`` and return its value; full-line YAML comments after it stay.

    ruamel keeps comment lines that follow a value as that key's trailing
    comment, so deleting the key would delete the comment above the next key:
    they are handed to the key before it instead.
    """
    comments = _comments(mapping)
    keys = list(mapping)
    value = mapping.pop(key)
    token = comments.get(key) if comments is not None else None
    following = _following_lines(token)
    index = keys.index(key)
    if following.strip() and index > 0 and comments is not None:
        del comments[key]  # (any other comment stays filed under the key, as ruamel's del leaves it)
        previous = comments.get(keys[index - 1])
        if previous is not None and len(previous) > 2 and previous[2] is not None:
            previous[2].value += following
        else:
            token[2].value = "\n" + following  # type: ignore[index]
            comments[keys[index - 1]] = token
    return value


def keeps_following_comments(mapping: Any, key: str) -> bool:
    """True when :func:`remove` would hand comment lines after ``key`` to the key before it."""
    comments = _comments(mapping)
    keys = list(mapping)
    return (comments is not None and keys.index(key) > 0
            and bool(_following_lines(comments.get(key)).strip()))


def _following_lines(token: Any) -> str:
    """The full-line comments after a value's own end-of-line comment, in a ruamel token."""
    text = getattr(token[2], "value", "") if token is not None and len(token) > 2 and token[2] is not None else ""
    return text.split("\n", 1)[1] if "\n" in text else ""


def restyled(old: Any, new: str) -> str:
    """``new`` in the quoting style of the value it replaces (a ruamel scalar string keeps its quotes)."""
    style = type(old)
    return style(new) if isinstance(old, str) and style is not str else new
