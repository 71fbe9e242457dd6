"""Hybrid cards: one document that 1.0 clients and 0.3 clients both read.

This is what the official a2a-python v1 server serves (``agent_card_to_dict``,
spec-mapping section 8.3): the clean 1.0 card, recursively merged with its 0.3
downgrade, 1.0 winning where both name a member. The 0.3 members (``url``,
``preferredTransport``, ``protocolVersion``, ``additionalInterfaces``,
``supportsAuthenticatedExtendedCard``, ``security``, and ``type`` / ``in`` /
the flat members beside each security-scheme wrapper) sit next to their 1.0
counterparts. A 0.3 client reads its members and ignores the rest (the 0.3
schema leaves every object open); a 1.0 client that ignores unknown members
(spec v1.0 section 5.7, ``ParseDict(..., ignore_unknown_fields=True)``) reads
the 1.0 ones.

What it costs:

* strict 1.0 parsers (ProtoJSON without "ignore unknown fields", the published
  1.0 JSON Schema with ``additionalProperties: false``) reject the card;
* signatures cover all of it: spec v1.0 section 8.4 canonicalizes the JSON as
  served, so the 0.3 members are signed content too, and any signature made
  over the clean card no longer verifies (verifiers that canonicalize the proto
  form disagree, spec-mapping section 7);
* what 0.3 cannot say is still missing for 0.3 clients (1.0-only interfaces,
  tenants, device-code flows), and is reported as for a downgrade.

Both directions give the same card: the input is upgraded (which strips the
0.3 members of a hybrid input), the result downgraded, and the two merged. A
hybrid card upgraded without ``--hybrid`` becomes the clean 1.0 card again.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any

from a2a_migrate import edit
from a2a_migrate.context import Context, Note, Options
from a2a_migrate.engine import Change, Result, diff, run, shares_objects
from a2a_migrate.io import to_plain
from a2a_migrate.pointer import join
from a2a_migrate.versions import HYBRID

#: The label of the patch operations that add the 0.3 members.
TRANSFORM = "hybrid"


def merge(v1_card: Any, v03_card: Any) -> Any:
    """A new card: ``v1_card`` with every member of ``v03_card`` it lacks, recursively.

    1.0 wins where both have a member; objects merge member by member, and
    lists of the same length item by item (skills get their 0.3 ``security``).
    Lists of different lengths are different lists, and the 1.0 one is kept:
    unlike the SDK's merge, which pairs items up to the shorter length, this
    never adds a member of one requirement alternative to another (a 0.3
    downgrade may have fewer). See :func:`merge_into`.
    """
    merged = to_plain(v1_card)
    merge_into(merged, v03_card)
    return merged


def merge_into(target: MutableMapping[str, Any], extra: Mapping[str, Any], ctx: Context | None = None,
               at: str = "") -> None:
    """Add to ``target``, in place, every member of ``extra`` it lacks, recursively.

    A new member goes after the member that precedes it in ``extra`` and after
    the members only ``target`` has that follow that one, so each 0.3 member
    lands just after its 1.0 counterpart (``url`` after ``supportedInterfaces``,
    ``security`` after ``securityRequirements``). In place, so that a YAML
    card keeps its comments. With ``ctx`` each new member is added through it
    (``at`` is the pointer of ``target``), which records the operation.
    """
    anchor: str | None = None
    for key, value in extra.items():
        if key in target:
            _merge_value(target[key], value, ctx, join(at, key))
        elif ctx is not None:
            ctx.insert_at(target, _after(target, anchor, extra), key, to_plain(value), at=at)
        else:
            edit.insert_at(target, _after(target, anchor, extra), key, to_plain(value))
        anchor = key


def _merge_value(target: Any, extra: Any, ctx: Context | None, at: str) -> None:
    if isinstance(target, MutableMapping) and isinstance(extra, Mapping):
        merge_into(target, extra, ctx, at)
    elif isinstance(target, list) and isinstance(extra, list) and len(target) == len(extra):
        for index, (mine, theirs) in enumerate(zip(target, extra)):
            if isinstance(mine, MutableMapping) and isinstance(theirs, Mapping):
                merge_into(mine, theirs, ctx, join(at, index))


def _after(target: Mapping[str, Any], anchor: str | None, extra: Mapping[str, Any]) -> int:
    """The index just past ``anchor`` and the ``target``-only members that follow it."""
    keys = list(target)
    index = keys.index(anchor) + 1 if anchor is not None else 0
    while index < len(keys) and keys[index] not in extra:
        index += 1
    return index


def migrate(card: Any, options: Options, *, original: Any = None, record: bool = True) -> Result:
    """Make ``card`` (any version) a hybrid card, in place.

    The notes are those of the upgrade and of the downgrade (each said once):
    what the downgrade could not offer 0.3 clients is lossy here too, and a
    card the downgrade refuses is refused. ``original`` and ``record`` are as
    for :func:`a2a_migrate.engine.run`.
    """
    from a2a_migrate.transforms import DOWNGRADE, UPGRADE

    start = original if original is not None else to_plain(card)
    upgraded = run(card, "up", UPGRADE, options, original=start, record=record)
    notes, changes = list(upgraded.notes), list(upgraded.changes)
    if upgraded.ok:
        downgraded = run(to_plain(card), "down", DOWNGRADE, options, record=False)
        notes += downgraded.notes
        if downgraded.ok:
            changes += [Change(TRANSFORM, op) for op in _add_v03_members(card, downgraded.card, record)]
    return Result(card, upgraded.source_version, HYBRID, _unique(notes), changes, to_plain(card) != start)


def _add_v03_members(card: Any, v03_card: Any, record: bool) -> list[dict[str, Any]]:
    """Merge the 0.3 members in; with ``record``, the operations that did it."""
    # A YAML alias is one object in two places, which a merge into one changes in both: only a diff sees that.
    diffed = record and shares_objects(card)
    before = to_plain(card) if diffed else None
    ctx = Context(transform=TRANSFORM, ops=[] if record and not diffed else None)
    merge_into(card, v03_card, ctx)
    # The downgrade decided about signatures against the 1.0 card; that holds
    # for the hybrid, which differs from the 1.0 card by at least as much.
    if "signatures" not in v03_card and "signatures" in card:
        ctx.pop(card, "signatures", at="")
    return diff(before, to_plain(card)) if diffed else ctx.ops or []


def _unique(notes: list[Note]) -> list[Note]:
    return list(dict.fromkeys(notes))
