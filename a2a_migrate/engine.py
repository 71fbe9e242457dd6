"""Run a chain of transforms over a card and record what each one changed.

The engine, not the transforms, produces the patch: it snapshots the card
around each transform and turns the difference into RFC 6902 operations
labelled with the transform's name. Applying all operations in order to the
input gives the output.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Literal

from a2a_migrate.context import Context, Note, Options
from a2a_migrate.io import TIMESTAMP, to_plain
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
    name = getattr(module, "name", None)
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
    rewrite needs.
    """
    source = detect_version(card)
    before = original if original is not None else to_plain(card)
    start = before
    ctx = Context(options or Options(), original=start)
    changes: list[Change] = []
    for module in chain:
        ctx.transform = transform_name(module)
        getattr(module, direction)(card, ctx)
        if record:
            after = to_plain(card)
            if after != before:
                changes.extend(Change(ctx.transform, op) for op in _diff(before, after))
            before = after
    # Without a record, compare the working copy itself: dict equality holds across
    # ruamel's types, and a copy per card would cost as much as a parse.
    final = before if record else card
    return Result(card, source, TARGET[direction], ctx.notes, changes, final != start)


def _diff(before: Any, after: Any) -> list[dict[str, Any]]:
    import jsonpatch

    return [_json_values(op) for op in jsonpatch.make_patch(before, after).patch]


def _json_values(value: Any) -> Any:
    """An operation as JSON: a YAML timestamp (``io.to_plain``'s marker) is its ISO string."""
    if isinstance(value, dict):
        if len(value) == 1 and TIMESTAMP in value:
            return value[TIMESTAMP]
        return {key: _json_values(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_values(item) for item in value]
    return value
