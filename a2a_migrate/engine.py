"""Run a chain of transforms over a card and record what each one changed.

Each transform's changes become RFC 6902 operations labelled with its name;
applying all operations in order to the input gives the output. The built-in
transforms record their operations as they edit (``RECORDS_EDITS``: every edit
goes through the :class:`~a2a_migrate.context.Context` methods, which know the
pointers). For any other transform (a plugin, a recipe step) the engine copies
the card around it and diffs the copies, so that a transform mutating the card
however it likes still gets a right patch.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Literal

from a2a_migrate.context import Context, Note, Options
from a2a_migrate.io import json_values, to_plain
from a2a_migrate.versions import V0_3, V1_0, detect_version

Direction = Literal["up", "down"]
TARGET = {"up": V1_0, "down": V0_3}


@dataclass(frozen=True)
class Change:
    """One RFC 6902 operation and the transform that made it."""

    transform: str
    op: dict[str, Any]


@dataclass
class Result:
    """What a migration produced.

    ``card`` is the migrated card, ``notes`` what each transform reported,
    ``changes`` the labelled patch operations (``patch`` gives them plain),
    ``changed`` whether the card differs from the input at all. A result with an
    ``error`` note is refused: ``ok`` is False and its card must not be written.
    """

    card: Any
    source_version: str
    target_version: str
    notes: list[Note] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    changed: bool = False

    @property
    def patch(self) -> list[dict[str, Any]]:
        """The RFC 6902 patch from the input to ``card``."""
        return [change.op for change in self.changes]

    @property
    def ok(self) -> bool:
        """False when any note is an error: the card was refused."""
        return not any(note.severity == "error" for note in self.notes)


def transform_name(module: Any) -> str:
    """A transform's name: its ``name`` if it has one (a recipe step, a plugin), else its module's
    name (``endpoints``, ``signatures``, ...)."""
    # A module's members are its __dict__: a look there spares the AttributeError that getattr with a
    # default raises and catches for a module with no name (2 µs, for each transform of each card).
    name = module.__dict__.get("name") if isinstance(module, ModuleType) else getattr(module, "name", None)
    return name if isinstance(name, str) else module.__name__.rsplit(".", 1)[-1]


def run(
    card: Any,
    direction: Direction,
    chain: Iterable[ModuleType | Any],
    options: Options | None = None,
    *,
    original: Any = None,
    record: bool = True,
) -> Result:
    """Run ``chain`` over ``card`` in place, in ``direction`` ("up" or "down").

    A transform is anything with ``up(card, ctx)`` and ``down(card, ctx)``: a
    module of the chain, a recipe step, a plugin (see :func:`transform_name`).

    ``original`` is a plain copy of the input when the caller already has one.
    With ``record`` False no patch is computed, which is all a plain in-place
    rewrite needs. With it, a transform that sets ``RECORDS_EDITS`` gives the
    operations its context recorded; any other one (or any transform of a card
    whose YAML aliases share objects) the diff of copies made around it.
    """
    source = detect_version(card)
    start = original if original is not None else to_plain(card)
    ctx = Context(options or Options(), original=start)
    changes: list[Change] = []
    trusted = record and not shares_objects(card)
    before: Any = start  # a copy of the card as it is now, while one is kept (None: none is)
    for module in chain:
        ctx.transform = transform_name(module)
        if trusted and getattr(module, "RECORDS_EDITS", False):
            ctx.ops = []
            getattr(module, direction)(card, ctx)
            changes.extend(Change(ctx.transform, op) for op in ctx.ops)
            before = None if ctx.ops else before
            continue
        ctx.ops = None
        if record and before is None:
            before = to_plain(card)
        getattr(module, direction)(card, ctx)
        if record:
            after = to_plain(card)
            if after != before:
                changes.extend(Change(ctx.transform, op) for op in diff(before, after))
            before = after
    ctx.ops = None
    # Without a record, compare the working copy itself: dict equality holds across
    # ruamel's types, and a copy per card would cost as much as a parse. With one, no
    # operation means no change; operations may still cancel out, which only a copy tells.
    if not record:
        changed = card != start
    else:
        changed = bool(changes) and (before if before is not None else to_plain(card)) != start
    return Result(card, source, TARGET[direction], ctx.notes, changes, changed)


def shares_objects(card: Any) -> bool:
    """Whether one object or array stands in two places of the card: a YAML alias.

    An edit made through one place shows through the other, which only a diff
    of copies sees. Parsed JSON and plain copies (``io.to_plain``, which the
    API makes of every card it is given) share nothing: only a YAML card (a
    ruamel mapping) is walked.
    """
    if type(card) is dict:
        return False
    seen: set[int] = set()
    pending = [card]
    while pending:
        node = pending.pop()
        children = node.values() if isinstance(node, dict) else node
        for child in children:
            if isinstance(child, (dict, list)):
                if id(child) in seen:
                    return True
                seen.add(id(child))
                pending.append(child)
    return False


def diff(before: Any, after: Any) -> list[dict[str, Any]]:
    """The RFC 6902 operations from one plain copy of a card to another (as JSON values)."""
    import jsonpatch

    return [json_values(op) for op in jsonpatch.make_patch(before, after).patch]
