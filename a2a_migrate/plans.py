"""Migration plans: what a migration would change, for a person to review and edit.

A plan is a JSON document; per card it holds the path, the SHA-256 of the
card's bytes, the source and target version, and:

* ``patch``: the RFC 6902 operations, plain, one per line, so a reviewer can
  delete or edit them and any JSON Patch tool can apply them;
* ``planned`` (read-only): each operation as planned, with its ``index``, the
  ``transform`` that made it and the ``notes`` (indexes into ``notes``) that
  explain it, so that :mod:`a2a_migrate.applying` can tell what a reviewer
  removed or changed;
* ``notes``: every note of the migration, with its JSON pointer;
* ``layout`` (read-only): for objects whose member order a patch cannot
  express (JSON objects are unordered), the order the migration writes.

Cards the migration refuses are in the plan with status ``failed``, their
error and notes, and no patch; ``apply`` skips them. Nothing here writes cards.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast

from a2a_migrate import __version__, io
from a2a_migrate import pointer as jp
from a2a_migrate.patching import Patcher, PatchError, sha256
from a2a_migrate.batch import Outcome
from a2a_migrate.context import SEVERITIES, Note, Options, Severity
from a2a_migrate.engine import TARGET, Change, Direction

FORMAT = "a2a-migrate plan"
FORMAT_VERSION = 1
ABOUT = ("Review this plan, edit or delete operations in each card's 'patch', then run "
         "'a2a-migrate apply' on it. 'planned', 'notes' and 'layout' are read-only: apply uses them to "
         "report what was left out and to keep the member order the migration writes.")


class PlanError(Exception):
    """A plan file that cannot be read; the message says where."""


@dataclass(frozen=True)
class PlannedOp:
    """One planned operation: its index in the patch, its transform, and the notes explaining it."""

    index: int
    transform: str
    op: dict[str, Any]
    notes: tuple[int, ...] = ()


@dataclass
class CardPlan:
    """The plan for one card.

    ``patch`` is what a reviewer edits (as read back it may hold anything;
    :mod:`a2a_migrate.applying` checks each operation). ``outcome`` is the
    migration's outcome when the plan was just built (for diffs and Markdown),
    ``None`` when it was read from a file.
    """

    path: str
    sha256: str | None
    status: str
    source_version: str
    target_version: str
    error: str = ""
    notes: list[Note] = field(default_factory=list)
    patch: list[Any] = field(default_factory=list)
    planned: list[PlannedOp] = field(default_factory=list)
    layout: dict[str, list[str]] = field(default_factory=dict)
    outcome: Outcome | None = None

    def notes_of(self, planned: PlannedOp) -> list[Note]:
        """The notes that explain one planned operation."""
        return [self.notes[i] for i in planned.notes if 0 <= i < len(self.notes)]

    def to_json(self) -> dict[str, Any]:
        """The card as plain JSON, in the plan file's member order."""
        return {
            "path": self.path,
            "sha256": self.sha256,
            "status": self.status,
            "sourceVersion": self.source_version or None,
            "targetVersion": self.target_version or None,
            "error": self.error or None,
            "patch": self.patch,
            "planned": [{"index": p.index, "transform": p.transform, "op": p.op, "notes": list(p.notes)}
                        for p in self.planned],
            "notes": [note.as_dict() for note in self.notes],
            "layout": self.layout,
        }

    @classmethod
    def from_json(cls, data: Any, where: str) -> CardPlan:
        """Read one card of a plan file; raises :class:`PlanError` naming ``where``."""
        if not isinstance(data, dict):
            raise PlanError(f"{where}: a card must be an object")
        path = _member(data, "path", str, where)
        patch = data.get("patch", [])
        if not isinstance(patch, list):
            raise PlanError(f"{where}: 'patch' must be an array of operations")
        return cls(
            path=path,
            sha256=_member(data, "sha256", (str, type(None)), where, None),
            status=_member(data, "status", str, where, "changed"),
            source_version=_member(data, "sourceVersion", (str, type(None)), where, "") or "",
            target_version=_member(data, "targetVersion", (str, type(None)), where, "") or "",
            error=_member(data, "error", (str, type(None)), where, "") or "",
            notes=[_note(item, f"{where}/notes/{i}") for i, item in enumerate(_list(data, "notes", where))],
            patch=patch,
            planned=[_planned(item, f"{where}/planned/{i}") for i, item in enumerate(_list(data, "planned", where))],
            layout=_layout(data.get("layout", {}), where),
        )


@dataclass
class Plan:
    """A whole plan: the direction, the options it was made with, and its cards."""

    direction: Direction
    options: dict[str, Any]
    cards: list[CardPlan]
    tool_version: str = __version__

    @property
    def target_version(self) -> str:
        """``1.0`` for an upgrade, ``0.3`` for a downgrade, ``hybrid`` for a hybrid card."""
        return "hybrid" if self.options.get("hybrid") else TARGET[self.direction]

    def to_json(self) -> dict[str, Any]:
        """The plan as plain JSON."""
        return {
            "format": FORMAT,
            "formatVersion": FORMAT_VERSION,
            "about": ABOUT,
            "tool": "a2a-migrate",
            "version": self.tool_version,
            "direction": self.direction,
            "targetVersion": self.target_version,
            "options": self.options,
            "cards": [card.to_json() for card in self.cards],
        }


# -- building -------------------------------------------------------------------------


@dataclass
class Planning:
    """A plan and how it was made (:func:`make`).

    ``outcomes`` holds every input's outcome in input order, skipped and failed
    ones too, for the caller to report; ``empty`` the PATH arguments that held no card.
    """

    plan: Plan
    outcomes: list[Outcome]
    empty: list[str]


def make(paths: Sequence[str], direction: Direction = "up", options: Options | None = None, *,
         include: Sequence[str] = (), exclude: Sequence[str] = (), fail_on: Severity | None = None,
         jobs: int = 1, max_bytes: int | None = io.MAX_CARD_BYTES) -> Planning:
    """Plan the migration of the cards PATHs name (files or folders, as the commands find them).

    Nothing is written. ``fail_on`` refuses cards with notes that severe
    (``"lossy"`` is ``--strict``); ``jobs`` worker processes migrate them.
    """
    from a2a_migrate import discover
    from a2a_migrate.batch import Job, run_batch

    options = options or Options()
    found, problems = discover.expand(paths, include, exclude)
    outcomes = [Outcome(problem.path, "failed", error=problem.reason) for problem in problems]
    # Every note located (issue 14): the plan holds them all, each with its line and column.
    job = Job(direction, options, record=True, fail_on=fail_on, max_bytes=max_bytes, locate=SEVERITIES)
    outcomes += run_batch([(str(item.path), item.sniff) for item in found], job, jobs)
    args = {str(item.path): item.arg for item in reversed(found)}  # the first PATH that named each file
    yielded = {problem.arg for problem in problems} | {args.get(o.name, o.name) for o in outcomes if o.status != "skipped"}
    return Planning(build(outcomes, direction, options), outcomes, discover.empty_paths(paths, yielded))


def build(outcomes: Iterable[Outcome], direction: Direction, options: Options) -> Plan:
    """A plan from migration outcomes (computed with ``Job(record=True)``); skipped inputs are left out."""
    cards = [card_plan(outcome) for outcome in outcomes if outcome.status != "skipped"]
    return Plan(direction, _non_default(options), cards)


def card_plan(outcome: Outcome) -> CardPlan:
    """The plan for one migrated card."""
    card = CardPlan(outcome.name, sha256(outcome.old_text) if outcome.old_text or not outcome.error else None,
                    outcome.status, outcome.source_version, outcome.target_version, outcome.error,
                    list(outcome.notes), outcome=outcome)
    if outcome.status == "failed":
        return card
    card.patch = [copy.deepcopy(change.op) for change in outcome.changes]
    card.planned = [PlannedOp(i, change.transform, copy.deepcopy(change.op), tuple(explaining(change, outcome.notes)))
                    for i, change in enumerate(outcome.changes)]
    if card.patch:
        card.layout = layout(outcome.old_text, outcome.new_text, card.patch, outcome.name)
    return card


def explaining(change: Change, notes: Sequence[Note]) -> list[int]:
    """Indexes of the notes that explain one operation.

    The notes of the same transform whose pointer is the operation's ``path``
    or ``from``, inside it, or above it; failing those, all notes of that
    transform (a note on ``/url`` explains removing ``/preferredTransport``).
    """
    places = [change.op.get("path", ""), change.op.get("from")]
    own = [i for i, note in enumerate(notes) if note.transform == change.transform]
    near = [i for i in own if any(isinstance(p, str) and related(notes[i].pointer, p) for p in places)]
    return near or own


def related(a: str, b: str) -> bool:
    """True when one pointer is the other or inside it."""
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")


def layout(old_text: str, new_text: str, patch: Sequence[Any], name: str) -> dict[str, list[str]]:
    """Member orders the patch alone would get wrong, by object pointer.

    Applies the patch to the parsed input the way :mod:`a2a_migrate.applying`
    will, and records the order of every object whose members come out in
    another order than in the migration's output.
    """
    patched = io.parse(old_text, name).original
    try:
        Patcher(patched).apply(patch)
    except PatchError as error:  # the engine's invariant says this cannot happen
        raise AssertionError(f"{name}: the planned patch does not apply to its own input: {error}") from None
    wanted = io.parse(new_text, name).original
    orders: dict[str, list[str]] = {}
    for where, obj in _objects(wanted):
        got = jp.resolve(patched, where, None)
        if isinstance(got, dict) and list(got) != list(obj):
            orders[where] = list(obj)
    return orders


def _objects(value: Any, where: str = "") -> Iterable[tuple[str, dict[str, Any]]]:
    if isinstance(value, dict):
        yield where, value
        for key, item in value.items():
            yield from _objects(item, jp.join(where, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _objects(item, jp.join(where, index))


def _non_default(options: Options) -> dict[str, Any]:
    defaults = asdict(Options())
    return {key: value for key, value in asdict(options).items() if value != defaults[key]}


# -- writing and reading ------------------------------------------------------------------


def dumps(plan: Plan) -> str:
    """The plan as JSON text: indented, with each operation on one line for easy editing."""
    ops: list[str] = []

    def one_line(value: Any) -> str:
        ops.append(json.dumps(value, ensure_ascii=False))
        return f"\0op{len(ops) - 1}\0"

    data = plan.to_json()
    for card in data["cards"]:
        card["patch"] = [one_line(op) for op in card["patch"]]
        card["planned"] = [one_line(entry) for entry in card["planned"]]
        card["notes"] = [one_line(note) for note in card["notes"]]
        card["layout"] = {where: one_line(order) for where, order in card["layout"].items()}
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    for index, op in enumerate(ops):
        text = text.replace(json.dumps(f"\0op{index}\0"), op, 1)
    return text


def loads(text: str) -> Plan:
    """Read a plan from JSON text; raises :class:`PlanError`."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise PlanError(f"line {error.lineno} column {error.colno}: not valid JSON: {error.msg}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise PlanError(f"not an a2a-migrate plan (no \"format\": \"{FORMAT}\")")
    if data.get("formatVersion") != FORMAT_VERSION:
        raise PlanError(f"plan format version {data.get('formatVersion')!r} is not {FORMAT_VERSION}")
    direction = data.get("direction")
    if direction not in ("up", "down"):
        raise PlanError("'direction' must be \"up\" or \"down\"")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise PlanError("'options' must be an object")
    cards = data.get("cards")
    if not isinstance(cards, list):
        raise PlanError("'cards' must be an array")
    return Plan(cast(Direction, direction), options, [CardPlan.from_json(card, f"/cards/{i}") for i, card in enumerate(cards)],
                str(data.get("version", "")))


def read(path: Path) -> Plan:
    """Read a plan file; raises :class:`PlanError`."""
    try:
        return loads(io.read_text(path))
    except io.CardError as error:
        raise PlanError(str(error)) from None


def _member(data: Mapping[str, Any], key: str, kind: Any, where: str, default: Any = ...) -> Any:
    if key not in data:
        if default is ...:
            raise PlanError(f"{where}: '{key}' is missing")
        return default
    value = data[key]
    if not isinstance(value, kind):
        raise PlanError(f"{where}/{key}: wrong type")
    return value


def _list(data: Mapping[str, Any], key: str, where: str) -> list[Any]:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise PlanError(f"{where}/{key}: must be an array")
    return value


def _note(data: Any, where: str) -> Note:
    if not isinstance(data, dict) or data.get("severity") not in SEVERITIES:
        raise PlanError(f"{where}: not a note")
    line, column = data.get("line"), data.get("column")  # issue 14: where the note is in the card (optional)
    place = (line, column) if type(line) is int and type(column) is int else (None, None)
    return Note(data["severity"], str(data.get("transform", "")), str(data.get("pointer", "")),
                str(data.get("message", "")), *place)


def _planned(data: Any, where: str) -> PlannedOp:
    if not isinstance(data, dict) or not isinstance(data.get("op"), dict):
        raise PlanError(f"{where}: not a planned operation")
    notes = data.get("notes", [])
    return PlannedOp(int(data.get("index", -1)), str(data.get("transform", "")), data["op"],
                     tuple(n for n in notes if isinstance(n, int)) if isinstance(notes, list) else ())


def _layout(data: Any, where: str) -> dict[str, list[str]]:
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise PlanError(f"{where}/layout: must be an object of arrays")
    return {str(k): [str(key) for key in v] for k, v in data.items()}
