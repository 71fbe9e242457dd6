"""Notes and options: what a transform is told, and what it says back."""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from a2a_migrate.pointer import join

if TYPE_CHECKING:
    from a2a_migrate.recipes import Recipe
    from a2a_migrate.signing import SigningRequest

Severity = Literal["info", "assumed", "warning", "lossy", "error"]

#: Severities in rising order of gravity.
SEVERITIES: tuple[Severity, ...] = ("info", "assumed", "warning", "lossy", "error")


def show(value: Any) -> str:
    """A value as it is written in a card (JSON), for messages: ``true``, ``{"x": 1}``."""
    import json

    return json.dumps(value, ensure_ascii=False, default=str)


def stated(value: Any) -> bool:
    """Whether a value says anything: ``null``, ``false``, ``""``, ``0`` and empty containers are
    proto3 defaults, which say what the member's absence says (1.0 writers omit them)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value != 0
    return value is not None and value != "" and value != [] and value != {}


@dataclass(frozen=True)
class Note:
    """One thing a transform did or found, at a JSON pointer into the card.

    ``info``: a move with no loss. ``assumed``: the tool filled in or guessed
    something. ``warning``: kept as it is, but it needs a person's look.
    ``lossy``: information the target version cannot hold was dropped.
    ``error``: the card cannot be migrated, or the result would be invalid.

    ``line`` and ``column`` (1-based) are where the pointer's place is in the
    input text, once :func:`a2a_migrate.locate.located` has found it; None before.
    """

    severity: Severity
    transform: str
    pointer: str
    message: str
    line: int | None = None
    column: int | None = None

    def as_dict(self) -> dict[str, str | int]:
        """The note as plain JSON for reports (``line`` and ``column`` when located)."""
        data: dict[str, str | int] = {
            "severity": self.severity,
            "transform": self.transform,
            "pointer": self.pointer,
            "message": self.message,
        }
        if self.line is not None and self.column is not None:
            data["line"], data["column"] = self.line, self.column
        return data

    def at(self, line: int, column: int) -> Note:
        """This note placed at ``line`` and ``column`` (built directly: ``dataclasses.replace`` is slow)."""
        return Note(self.severity, self.transform, self.pointer, self.message, line, column)


@dataclass(frozen=True)
class Options:
    """Choices a user makes on the command line or through the API.

    ``interface_version``: the protocol version the card's endpoints now speak;
    upgrade writes it on every interface, downgrade treats every interface as
    speaking it. ``None`` keeps what the card says.
    ``default_name`` / ``default_description`` / ``default_version``: supply a
    missing identity member instead of refusing the card.
    ``default_url``: the endpoint of a card that names none.
    ``default_provider_url``: the URL of a provider that has none (else the
    provider, which needs one, is dropped with a lossy note).
    ``keep_signatures``: keep ``signatures`` (they no longer verify).
    ``hybrid``: also write the 0.3 members beside the 1.0 ones.
    ``keep_tenant_interfaces``: on downgrade, keep an interface whose ``tenant``
    0.3 cannot express (the tenant itself is always dropped).
    ``validate_output``: refuse a result its target version's rules reject.
    ``signing``: sign each card the migration changes (``--sign-key``).
    ``skip`` / ``only``: leave out transforms of the chain, or run only these
    (:mod:`a2a_migrate.chain` checks what each needs).
    ``plugins``: third-party transforms to run after the chain, by entry-point name.
    ``recipes``: recipe steps to run after the chain and plugins (:mod:`a2a_migrate.recipes`).
    ``version_chain``: False runs no version chain, only plugins and recipes
    (the ``transform`` command): the card keeps its version.
    """

    interface_version: str | None = None
    default_name: str | None = None
    default_description: str | None = None
    default_version: str | None = None
    default_url: str | None = None
    default_provider_url: str | None = None
    keep_signatures: bool = False
    hybrid: bool = False
    keep_tenant_interfaces: bool = False
    validate_output: bool = True
    signing: SigningRequest | None = None
    skip: tuple[str, ...] = ()
    only: tuple[str, ...] = ()
    plugins: tuple[str, ...] = ()
    recipes: tuple[Recipe, ...] = ()
    version_chain: bool = True


@dataclass
class Context:
    """Carries the options into a chain and collects the notes coming out (and, when the engine records
    them, the patch operations of each edit a transform makes through the methods below)."""

    options: Options = field(default_factory=Options)
    notes: list[Note] = field(default_factory=list)
    transform: str = ""
    #: A plain copy of the card as it came in, for transforms that must know
    #: whether the chain changed anything (signatures).
    original: Any = None
    #: The RFC 6902 operations of the transform now running, when the engine
    #: records them (None: it does not, and the editing methods below only edit).
    ops: list[dict[str, Any]] | None = None

    def note(self, pointer: str, severity: Severity, message: str) -> None:
        """Record a note from the transform now running."""
        self.notes.append(Note(severity, self.transform, pointer, message))

    def filled(self, pointer: str, what: str, old: Any, new: Any, source: str) -> None:
        """Record that ``new`` (from ``source``, an option) was put where the card had ``old``.

        ``assumed`` where the card said nothing (absent or empty); ``lossy``
        where it replaced something the card stated, however unusable: a value
        the card states is never replaced silently.
        """
        if old is None or old == "":
            self.note(pointer, "assumed", f"{what} missing: set to {show(new)} from {source}")
        else:
            self.note(pointer, "lossy", f"{what} {show(old)} unusable: replaced by {show(new)} from {source}")

    @property
    def failed(self) -> bool:
        """True once any transform has recorded an error."""
        return any(note.severity == "error" for note in self.notes)

    # -- edits of the card, recorded as RFC 6902 operations ---------------------------------------
    #
    # A transform that sets RECORDS_EDITS makes every change to the card through
    # these methods, naming the pointer of the container it edits (``at``), so
    # that the engine need not copy and diff the card around it. Each operation
    # holds a plain JSON copy of its value taken at the edit: a later edit of
    # the same value must not change an earlier operation. Objects not yet in
    # the card (a new interface being built) are edited with :mod:`edit` itself.

    def set(self, container: Any, key: str | int, value: Any, *, at: str) -> None:
        """``container[key] = value``: a member (added or replaced in place) or an array item."""
        if self.ops is not None:
            self._put(container, key, join(at, key), value)
        container[key] = value

    def insert_at(self, mapping: MutableMapping[str, Any], index: int, key: str, value: Any, *, at: str) -> None:
        """:func:`edit.insert_at`, recorded."""
        if self.ops is not None:
            self._put(mapping, key, join(at, key), value)
        from a2a_migrate import edit  # not on the command line's import path

        edit.insert_at(mapping, index, key, value)

    def replace(self, mapping: MutableMapping[str, Any], old_keys: Iterable[str], new_key: str, value: Any, *,
                at: str) -> None:
        """:func:`edit.replace`, recorded: the old members removed, the new one added."""
        old_keys = list(old_keys)
        if self.ops is not None:
            for key in old_keys:
                if key != new_key and key in mapping:
                    self.ops.append({"op": "remove", "path": join(at, key)})
            self._put(mapping, new_key, join(at, new_key), value)
        from a2a_migrate import edit  # not on the command line's import path

        edit.replace(mapping, old_keys, new_key, value)

    def rename(self, mapping: MutableMapping[str, Any], old_key: str, new_key: str, *, at: str) -> None:
        """:func:`edit.rename`, recorded as a ``move`` (which keeps the member's YAML comment when applied)."""
        if self.ops is not None and old_key in mapping and old_key != new_key:
            self.ops.append({"op": "move", "from": join(at, old_key), "path": join(at, new_key)})
        from a2a_migrate import edit  # not on the command line's import path

        edit.rename(mapping, old_key, new_key)

    def remove(self, container: Any, key: str | int, *, at: str) -> Any:
        """Remove a member (:func:`edit.remove`, which keeps the YAML comment lines after it) or an array
        item, and return its value."""
        if self.ops is not None:
            self.ops.append({"op": "remove", "path": join(at, key)})
        if isinstance(container, list):
            return container.pop(key)  # type: ignore[arg-type]
        from a2a_migrate import edit

        return edit.remove(container, key)  # type: ignore[arg-type]

    def pop(self, container: Any, key: str | int, *, at: str) -> Any:
        """``container.pop(key)``, recorded: unlike :meth:`remove`, YAML comment lines after a member go with it."""
        if self.ops is not None:
            self.ops.append({"op": "remove", "path": join(at, key)})
        return container.pop(key)

    def append(self, items: list[Any], value: Any, *, at: str) -> None:
        """Add ``value`` at the end of an array."""
        if self.ops is not None:
            self._record("add", join(at, len(items)), value)
        items.append(value)

    def set_items(self, items: list[Any], values: list[Any], *, at: str) -> None:
        """Make an array hold ``values``, in place (a YAML flow list stays one): item by item."""
        if self.ops is not None:
            for index, value in enumerate(values[:len(items)]):
                self._put(items, index, join(at, index), value)
            for index in reversed(range(len(values), len(items))):
                self.ops.append({"op": "remove", "path": join(at, index)})
            for index in range(len(items), len(values)):
                self._record("add", join(at, index), values[index])
        items[:] = values

    def _put(self, container: Any, key: str | int, path: str, value: Any) -> None:
        """Record an ``add`` where ``key`` is new, a ``replace`` where it holds another value, and nothing
        where it holds this one (a reviewer's plan shows no operation that changes nothing)."""
        if not _holds(container, key):
            self._record("add", path, value)
        elif not _same(container[key], value):
            self._record("replace", path, value)

    def _record(self, op: str, path: str, value: Any) -> None:
        from a2a_migrate.io import json_copy

        assert self.ops is not None
        self.ops.append({"op": op, "path": path, "value": json_copy(value)})


def _same(old: Any, new: Any) -> bool:
    """Whether ``new`` written over ``old`` changes nothing: the very object, or an equal value of the same
    type (a YAML date written as its string is a change, and so is ``true`` for ``1``, even nested)."""
    if old is new:
        return True
    if type(old) is not type(new):
        return False
    from a2a_migrate.patching import json_equal

    return json_equal(old, new)


def _holds(container: Any, key: str | int) -> bool:
    return isinstance(key, int) and 0 <= key < len(container) if isinstance(container, list) else key in container


