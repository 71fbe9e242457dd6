"""The Python API: migrate cards in memory or as text, plan, apply, diff, validate, sign, verify.

Every public function here is importable from the package (``from a2a_migrate
import upgrade``). Options are typed keyword arguments (:class:`OptionFields`
lists them) or one :class:`~a2a_migrate.context.Options` value; a card is a
JSON object (a ``dict``): anything else is a ``TypeError`` at the call.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, TypedDict

from a2a_migrate import conservation
from a2a_migrate.context import Context, Note, Options
from a2a_migrate.engine import Direction, Result, run
from a2a_migrate.io import to_plain
from a2a_migrate.versions import detect_version

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing.Unpack is 3.11+; only the type checker reads this

    from a2a_migrate.batch import Outcome
    from a2a_migrate.plans import Plan, Planning
    from a2a_migrate.recipes import Recipe
    from a2a_migrate.semantic_diff import Difference
    from a2a_migrate.signing import Check
    from a2a_migrate.signing_choices import SignedForm
    from a2a_migrate.validation import Finding


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
    RECORDS_EDITS: ClassVar[bool] = True  # as the signatures module: it edits through the context it is given

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
    from a2a_migrate.validation import validate
    from a2a_migrate.versions import UNKNOWN

    return [Note("error", "validate", finding.pointer, f"the result is not a valid {version} card: {finding.message}")
            for finding in validate(card, None if version == UNKNOWN else version, lint=False)
            if finding.severity == "error"]


class OptionFields(TypedDict, total=False):
    """The options every migration function takes as keyword arguments (see
    :class:`~a2a_migrate.context.Options` for what each means)."""

    interface_version: str | None
    default_name: str | None
    default_description: str | None
    default_version: str | None
    default_url: str | None
    default_provider_url: str | None
    keep_signatures: bool
    hybrid: bool
    keep_tenant_interfaces: bool
    validate_output: bool
    skip: Sequence[str]
    only: Sequence[str]
    plugins: Sequence[str]
    recipes: Sequence[Recipe]


#: What each option field must hold, checked at the call (a typo or a wrong type fails there, not deep inside).
_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    **{name: (str, type(None)) for name in ("interface_version", "default_name", "default_description",
                                            "default_version", "default_url", "default_provider_url")},
    **{name: (bool,) for name in ("keep_signatures", "hybrid", "keep_tenant_interfaces", "validate_output")},
    **{name: (list, tuple) for name in ("skip", "only", "plugins", "recipes")},
}


def _options(options: Options | None, fields: Mapping[str, Any]) -> Options:
    """One :class:`Options` from either an ``options`` value or keyword fields (not both)."""
    if options is not None:
        if not isinstance(options, Options):
            raise TypeError(f"options must be an a2a_migrate.Options, not {type(options).__name__}")
        if fields:
            raise TypeError(f"give options= or keyword options ({', '.join(sorted(fields))}), not both")
        return options
    chosen: dict[str, Any] = {}
    for name, value in fields.items():
        expected = _FIELD_TYPES.get(name)
        if expected is None:
            raise TypeError(f"unknown option {name!r}; the options are: {', '.join(_FIELD_TYPES)}")
        if expected == (list, tuple):
            item_type, what = _item_type(name)
            if not isinstance(value, (list, tuple)) or not all(isinstance(item, item_type) for item in value):
                raise TypeError(f"option {name!r} must be a list of {what}, not {value!r}")
            value = tuple(value)
        elif not isinstance(value, expected):
            want = "a bool" if expected == (bool,) else "a str or None"
            raise TypeError(f"option {name!r} must be {want}, not {value!r}")
        chosen[name] = value
    return Options(**chosen)


def _in_memory(options: Options) -> Options:
    """``options`` for a migration in memory, which signs nothing: a signing request there would be dropped silently."""
    if options.signing is not None:
        raise TypeError("Options.signing signs what a batch writes; in memory, sign the result: "
                        "a2a_migrate.sign(result.card, key_file)")
    return options


def _item_type(name: str) -> tuple[type, str]:
    """What each item of a list option must be: a name, or a loaded recipe (``recipes.load``)."""
    if name == "recipes":
        from a2a_migrate.recipes import Recipe

        return Recipe, "recipes (a2a_migrate.recipes.load)"
    return str, "str"


def _card(card: Any) -> Mapping[str, Any]:
    if not isinstance(card, Mapping):  # a card is a JSON object: say so here, not deep in a transform
        hint = "; to migrate card text keeping its layout, use migrate_text()" if isinstance(card, (str, bytes)) else ""
        raise TypeError(f"a card is a JSON object (a dict), not {type(card).__name__}{hint}")
    return card


def upgrade(card: Mapping[str, Any], options: Options | None = None, /, *, patch: bool = True,
            **fields: Unpack[OptionFields]) -> Result:
    """Upgrade a card (a JSON object) to protocol 1.0.

    Options are keyword arguments (``interface_version="1.0"``,
    ``default_version="1.0.0"``, ...: :class:`OptionFields`) or one
    :class:`Options`. The input is not modified; ``Result.card`` is the
    upgraded copy, ``Result.patch`` the RFC 6902 patch from the input to it
    (empty with ``patch=False``, which is faster), ``Result.notes`` what was
    assumed, lost or refused. A result with an ``error`` note has ``ok`` False.

    ``hybrid=True`` gives a hybrid card instead (``target_version``
    ``"hybrid"``): the 1.0 card plus the 0.3 members, which 1.0 clients that
    ignore unknown members and 0.3 clients both read. Strict 1.0 parsers reject
    it, and signatures cover all of it; see :mod:`a2a_migrate.hybrid`.
    """
    return migrate_in_place(to_plain(_card(card)), "up", _in_memory(_options(options, fields)), record=patch)


def downgrade(card: Mapping[str, Any], options: Options | None = None, /, *, patch: bool = True,
              **fields: Unpack[OptionFields]) -> Result:
    """Downgrade a card (a JSON object) to protocol 0.3; options as for :func:`upgrade`.

    Only interfaces that speak 0.x are offered (``interface_version="0.3"``
    treats every interface as a 0.3 endpoint, for a gateway that translates);
    ``keep_tenant_interfaces=True`` keeps interfaces with a ``tenant``, which is
    dropped. ``hybrid=True`` gives the same hybrid card as :func:`upgrade`.
    Whatever 0.3 cannot hold is a ``lossy`` note; a card 0.3 clients could not
    use (no 0.x interface, or authentication 0.3 cannot express) is refused.
    """
    return migrate_in_place(to_plain(_card(card)), "down", _in_memory(_options(options, fields)), record=patch)


class TextResult(NamedTuple):
    """What :func:`migrate_text` gives: the new text (the input's when nothing changed or the card was refused) and the
    migration's :class:`Result`."""

    text: str
    result: Result


def migrate_text(text: str, direction: Direction = "up", options: Options | None = None, /, *, name: str = "-",
                 patch: bool = True, **fields: Unpack[OptionFields]) -> TextResult:
    """Migrate card text (JSON or YAML), keeping its layout: member order, indentation, YAML comments.

    ``direction`` is ``"up"`` or ``"down"``; ``name`` (a file name, for its
    suffix and for messages) decides JSON or YAML, else the text does. A text
    that is not a card raises :class:`~a2a_migrate.io.CardError` (a
    ``ValueError``) naming the line and column. A refused card (``result.ok``
    False) gives back the input text. Each note carries its ``line`` and
    ``column`` in ``text`` (:mod:`a2a_migrate.locate`).
    """
    from a2a_migrate.io import CardError, parse
    from a2a_migrate.locate import located

    if not isinstance(text, str):
        raise TypeError(f"migrate_text takes the card's text (a str), not {type(text).__name__}")
    if direction not in ("up", "down"):
        raise ValueError(f"direction is 'up' or 'down', not {direction!r}")
    where = "" if name == "-" else f"{name}: "
    try:
        document = parse(text, name)
    except CardError as error:
        raise CardError(f"{where}{error}") from None
    result = migrate_in_place(document.data, direction, _in_memory(_options(options, fields)),
                              original=document.original, record=patch)
    result.notes = located(document, result.notes)  # issue 14: the text is here, and notes are for showing
    return TextResult(document.render() if result.ok and result.changed else text, result)


def plan(paths: Sequence[str | os.PathLike[str]], direction: Direction = "up", options: Options | None = None, /, *,
         include: Sequence[str] = (), exclude: Sequence[str] = (), strict: bool = False, jobs: int = 1,
         **fields: Unpack[OptionFields]) -> Planning:
    """Plan the migration of card files (or folders of them) for review; nothing is written.

    ``Planning.plan`` is the :class:`~a2a_migrate.plans.Plan` (``plans.dumps``
    gives the JSON that ``a2a-migrate apply`` and :func:`apply` read);
    ``Planning.outcomes`` what became of each input. ``strict`` refuses cards
    with lossy notes.
    """
    from a2a_migrate import plans

    return plans.make([os.fspath(path) for path in paths], direction, _options(options, fields), include=include,
                      exclude=exclude, fail_on="lossy" if strict else None, jobs=jobs)


def apply(planned: Plan | str | os.PathLike[str], /, *, force: bool = False, write: bool = True) -> list[Outcome]:
    """Apply a reviewed plan (a :class:`~a2a_migrate.plans.Plan`, or the path of a plan file) to its card files.

    Each card's patch, as edited, is applied to the file's text keeping its
    layout; with ``write`` the changed ones are written atomically. A card
    changed since the plan was made fails unless ``force``. Each outcome's
    ``status``, ``error``, ``notes`` and ``new_text`` say what happened.
    """
    from pathlib import Path

    from a2a_migrate import applying, plans

    the_plan = planned if isinstance(planned, plans.Plan) else plans.read(Path(os.fspath(planned)))
    outcomes = [applying.apply_card(card, force=force) for card in the_plan.cards]
    if write:
        for outcome in outcomes:
            applying.write(outcome)
    return outcomes


def diff(old: Mapping[str, Any], new: Mapping[str, Any], /) -> list[Difference]:
    """What differs between two cards, also across versions: moves the version mapping made are moves, array
    members are paired by identity (interfaces by URL and binding, skills by id) before values."""
    from a2a_migrate.semantic_diff import compare

    return compare(to_plain(_card(old)), to_plain(_card(new)))


def validate(card: Mapping[str, Any], version: str | None = None, /, *, lint: bool = True) -> list[Finding]:
    """Check a card against the 0.3 JSON Schema or the 1.0 proto's rules (``version``, else by its shape), plus lint."""
    from a2a_migrate.validation import validate as check

    return check(to_plain(_card(card)), version, lint=lint)


def sign(card: Mapping[str, Any], key_file: str | os.PathLike[str], /, *, kid: str | None = None,
         alg: str | None = None, jku: str | None = None, replace: bool = False,
         signed_form: SignedForm = "spec") -> dict[str, Any]:
    """A signed copy of ``card`` (spec 8.4): a detached JWS over its RFC 8785 form, added to ``signatures``.

    ``key_file`` holds the private key (PEM or JWK). A signature of the same
    ``kid`` is replaced; ``replace`` removes every existing one.
    ``signed_form="sdk"`` signs the form the official a2a-sdk's verifier
    canonicalizes instead of the card as published (see the README). Raises
    :class:`~a2a_migrate.signing.SigningError` for an unusable key (the
    ``sign`` extra must be installed).
    """
    from a2a_migrate import signing

    signed: dict[str, Any] = to_plain(_card(card))
    request = signing.signing_request(os.fspath(key_file), kid, alg, jku, signed_form)
    signing.add_signature(signed, signing.sign(signed, request), replace=replace)
    return signed


def verify(card: Mapping[str, Any], key_files: Sequence[str | os.PathLike[str]] = (), /, *,
           fetch_jku: bool = False, signed_form: SignedForm = "spec") -> list[Check]:
    """Check every signature of ``card`` against the keys in ``key_files`` (PEM, JWK or JWK Set), and with
    ``fetch_jku`` the JWK Set at each signature's ``jku``. One :class:`~a2a_migrate.signing.Check` per signature;
    an empty list when the card has none. ``signed_form="sdk"`` checks what the official a2a-sdk's verifier
    checks instead of the card as published."""
    from a2a_migrate import signing

    keys = [key for path in key_files for key in signing.load_keys(signing.read_key_file(os.fspath(path)),
                                                                    os.fspath(path))]
    return signing.verify(to_plain(_card(card)), keys, signing.key_fetcher() if fetch_jku else None, signed_form)
