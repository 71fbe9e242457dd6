"""The Python API: migrate card values in memory."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from a2a_migrate import conservation
from a2a_migrate.context import Context, Note, Options
from a2a_migrate.engine import Direction, Result, run
from a2a_migrate.io import to_plain
from a2a_migrate.versions import detect_version


def migrate_in_place(card: Any, direction: Direction, options: Options, *,
                     original: Any = None, record: bool = True) -> Result:
    """Run the chain of ``direction`` over ``card`` in place, or make it hybrid.

    With ``options.hybrid`` both directions give the hybrid card
    (:mod:`a2a_migrate.hybrid`); otherwise this is
    :func:`a2a_migrate.engine.run` with the direction's chain (as
    ``options.skip`` and ``options.only`` choose it: :mod:`a2a_migrate.chain`).
    Plugins and recipe steps then run one by one, each checked for
    conservation against the card it was given (its notes point into that
    card). ``original`` and ``record`` are as for ``run``. The one place the
    CLI, batches and the API choose.
    """
    from a2a_migrate.chain import extras

    if original is None:  # the conservation check needs the input as it was
        original = to_plain(card)
    if not options.version_chain:
        version = detect_version(original)
        result = Result(card, version, version)
    else:
        result = _version_chain(card, direction, options, original, record)
    later = extras(options)
    if later and result.ok:
        _run_extras(result, later, direction, options, record)
    if options.validate_output and result.ok:
        result.notes.extend(output_errors(result.card, result.target_version))
    return result


def _version_chain(card: Any, direction: Direction, options: Options, original: Any, record: bool) -> Result:
    from a2a_migrate.chain import ChainError, select

    if options.hybrid:
        if options.skip or options.only:
            raise ChainError("--skip and --only cannot be used with --hybrid, which needs both whole chains")
        from a2a_migrate import hybrid  # only when asked for: not on every migration's import path

        result = hybrid.migrate(card, options, original=original, record=record)
    else:
        chain = select(direction, options.skip, options.only)
        result = run(card, direction, chain, options, original=original, record=record)
    if result.ok:  # a result refused already is not written: nothing to account for
        result.notes.extend(conservation.check(original, result.card, result.notes, options))
    return result


def _run_extras(result: Result, transforms: list[Any], direction: Direction, options: Options, record: bool) -> None:
    """Run plugins and recipe steps after the chain, then drop the signatures they invalidated."""
    from a2a_migrate.chain import chosen

    start = to_plain(result.card)
    for transform in transforms:
        _run_one(result, transform, direction, options, record)
        if not result.ok:
            return
    if chosen("signatures", options):
        _run_one(result, _SignaturesAfter(start), direction, options, record)


def _run_one(result: Result, transform: Any, direction: Direction, options: Options, record: bool) -> None:
    """One transform over ``result.card``, its notes, changes and conservation added to ``result``."""
    before = to_plain(result.card)
    step = run(result.card, direction, [transform], options, original=before, record=record)
    if step.ok:
        step.notes.extend(conservation.check(before, result.card, step.notes))
    result.notes.extend(step.notes)
    result.changes.extend(step.changes)
    result.changed = result.changed or step.changed


@dataclass(frozen=True)
class _SignaturesAfter:
    """The ``signatures`` transform judging against the card before the plugins and recipes.

    A signature verifies only over the content it signed: once a recipe edits
    a card the chain left alone, its signatures must go (or be kept with a
    warning) exactly as after a migration.
    """

    start: Any
    name: ClassVar[str] = "signatures"

    def up(self, card: Any, ctx: Context) -> None:
        from a2a_migrate.transforms import signatures

        signatures.up(card, replace(ctx, original=self.start))

    def down(self, card: Any, ctx: Context) -> None:
        self.up(card, ctx)


def output_errors(card: Any, version: str) -> list[Note]:
    """The structural errors of a migrated card, as ``validate`` error notes.

    A migration must never write a card its target version rejects (a scheme
    with no ``location``, an ``examples`` entry that is not a string, ...): such
    a result is refused rather than written.
    """
    from a2a_migrate.validate import validate
    from a2a_migrate.versions import UNKNOWN

    return [Note("error", "validate", finding.pointer, f"the result is not a valid {version} card: {finding.message}")
            for finding in validate(card, None if version == UNKNOWN else version, lint=False)
            if finding.severity == "error"]


def _migrate(card: Any, direction: Direction, options: dict[str, Any]) -> Result:
    if not isinstance(card, Mapping):  # a card is a JSON object: say so here, not deep in a transform
        raise TypeError(f"a card is a JSON object (a dict), not {type(card).__name__}; "
                        "to migrate card text, parse it first (json.loads)")
    return migrate_in_place(to_plain(card), direction, Options(**options))


def upgrade(card: Any, **options: Any) -> Result:
    """Upgrade a card (a JSON value) to protocol 1.0.

    ``options`` are the fields of :class:`a2a_migrate.context.Options`
    (``interface_version="1.0"``, ``default_version="1.0.0"``, ...). The input
    is not modified; ``Result.card`` is the upgraded copy, ``Result.patch`` the
    RFC 6902 patch from the input to it, ``Result.notes`` what was assumed,
    lost or refused. A result with an ``error`` note has ``ok`` False.

    ``hybrid=True`` gives a hybrid card instead (``target_version``
    ``"hybrid"``): the 1.0 card plus the 0.3 members, which 1.0 clients that
    ignore unknown members and 0.3 clients both read. Strict 1.0 parsers reject
    it, and signatures cover all of it; see :mod:`a2a_migrate.hybrid`.
    """
    return _migrate(card, "up", options)


def downgrade(card: Any, **options: Any) -> Result:
    """Downgrade a card (a JSON value) to protocol 0.3; see :func:`upgrade`.

    Only interfaces that speak 0.x are offered (``interface_version="0.3"``
    treats every interface as a 0.3 endpoint, for a gateway that translates);
    ``keep_tenant_interfaces=True`` keeps interfaces with a ``tenant``, which is
    dropped. ``hybrid=True`` gives the same hybrid card as :func:`upgrade`.
    Whatever 0.3 cannot hold is a ``lossy`` note; a card 0.3 clients could not
    use (no 0.x interface, or authentication 0.3 cannot express) is refused.
    """
    return _migrate(card, "down", options)
