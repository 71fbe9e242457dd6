"""Applying reviewed patches to card files, keeping each file's formatting.

A plan (:mod:`a2a_migrate.plans`) holds, per card, an RFC 6902 patch a person
may edit. Applying it here is an in-place edit of the card's working copy
(:attr:`a2a_migrate.io.Document.data`: a plain ``dict`` for JSON, a ruamel
``CommentedMap`` for YAML), so that :meth:`~a2a_migrate.io.Document.render`
rewrites only what changed, in the file's own layout, with its YAML comments.

The patch is applied in place by :mod:`a2a_migrate.patching`, which keeps the
file's layout and YAML comments.

Per card: a card whose bytes no longer match the planned SHA-256 is refused
(``force`` applies it anyway); an operation that does not apply is an error
naming it (``force`` skips it and reports it); operations a reviewer deleted
are not applied and are reported by transform; the result must be a valid card
of the target version (:func:`a2a_migrate.api.output_errors`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from a2a_migrate import io
from a2a_migrate.batch import Outcome
from a2a_migrate.context import Note
from a2a_migrate.engine import Change
from a2a_migrate.patching import PatchError, describe, patch_in_place, sha256
from a2a_migrate.versions import UNKNOWN, detect_version

if TYPE_CHECKING:
    from a2a_migrate.plans import CardPlan

#: The ``transform`` of messages about operations no transform planned.
REVIEWER = "reviewer"
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
    from a2a_migrate.locate import located

    try:
        document = io.parse(text, outcome.name)
    except io.CardError as error:
        outcome.error = str(error)
        return outcome
    _apply_to_document(outcome, document, patch, transforms, layout, target, force)
    outcome.notes = located(document, outcome.notes)  # issue 14: each note's line and column in the card as read
    return outcome


def _apply_to_document(outcome: Outcome, document: io.Document, patch: Sequence[Any], transforms: Sequence[str],
                       layout: Mapping[str, Sequence[str]], target: str | None, force: bool) -> None:
    outcome.source_version = outcome.source_version or detect_version(document.original)
    aliases = _aliases(document.data)
    try:
        skipped = patch_in_place(document.data, patch, layout, skip_failures=force)
    except PatchError as error:
        outcome.notes.append(Note("error", transforms[error.index], _path_of(error.op), str(error)))
        outcome.error = "the patch does not apply; nothing was changed"
        return
    for failure in skipped:
        outcome.notes.append(Note("warning", transforms[failure.index], _path_of(failure.op),
                                  f"not applied (--force): {failure}"))
    _reshare(aliases)
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
        return
    outcome.new_text = document.render()
    outcome.status = "changed" if outcome.new_text != document.text else "unchanged"
    outcome.notes.append(Note("info", "apply", "", f"{_count(outcome.changes)} applied"))


def _aliases(root: Any) -> list[tuple[Any, Any, Any, str]]:
    """``(parent, key, anchored value, its JSON)`` for each place of a YAML anchor that has aliases.

    The patch is applied to a copy at each alias (:func:`a2a_migrate.patching.unshare`),
    so that an operation on one place does not change the other.
    """
    places: dict[int, list[tuple[Any, Any, Any]]] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        for key, child in list(node.items() if isinstance(node, dict) else enumerate(node)):
            if isinstance(child, (dict, list)):
                places.setdefault(id(child), []).append((node, key, child))
                if len(places[id(child)]) == 1:
                    stack.append(child)
    return [(*site, _canonical(io.to_plain(site[2]))) for found in places.values() if len(found) > 1
            for site in found if getattr(getattr(site[2], "anchor", None), "value", None) is not None]


def _reshare(sites: list[tuple[Any, Any, Any, str]]) -> None:
    """Make each place of an anchor the patch left as it was an alias again, as the input wrote it.

    Where the patch changed the value (a migrated scheme), the places are
    written out separately, as ``upgrade`` writes them.
    """
    unchanged: dict[int, bool] = {}
    for parent, key, anchored, before in sites:
        if not unchanged.setdefault(id(anchored), _canonical(io.to_plain(anchored)) == before):
            continue
        present = key in parent if isinstance(parent, dict) else isinstance(key, int) and key < len(parent)
        if present and parent[key] is not anchored and _canonical(io.to_plain(parent[key])) == before:
            parent[key] = anchored


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
