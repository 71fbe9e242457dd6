"""Choosing what a migration runs: ``--skip``, ``--only`` and ``--plugin`` (issue 13).

The chains themselves are :data:`a2a_migrate.transforms.UPGRADE` and
``DOWNGRADE``. What each transform assumes an earlier (or later) one does is
data here, :data:`NEEDS`, checked whenever a user leaves transforms out: a
chain that would hand a transform a shape it does not expect is refused with
the pair named, never run.

Plugins are third-party transforms registered under the entry-point group
:data:`GROUP`; they run only when named, after the version chain.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from a2a_migrate.context import Context, Options
from a2a_migrate.engine import Direction, transform_name

#: The entry-point group third-party transforms register under.
GROUP = "a2a_migrate.transforms"

#: ``transform: the transforms it needs in the same chain``, and why.
NEEDS: dict[str, tuple[str, ...]] = {
    # it reads the supportedInterfaces endpoints builds (up), and decides which ones endpoints offers (down)
    "interface_protocol_version": ("endpoints",),
    # it splits and merges 1.0 oneof-wrapped schemes and rewrites 1.0 requirement lists
    "oauth_flows": ("security_schemes", "security_requirements"),
    # removing a "none" scheme rewrites the requirements naming it, in the 1.0 shape
    "security_schemes": ("security_requirements",),
    # it writes the 0.3 shape, which the two security transforms take to 1.0
    "legacy_authentication": ("security_requirements", "security_schemes"),
}


class ChainError(ValueError):
    """A choice of transforms that cannot run; the message names the transforms."""


def full_chain(direction: Direction) -> tuple[ModuleType, ...]:
    """The built-in chain of a direction, in order."""
    from a2a_migrate.transforms import DOWNGRADE, UPGRADE

    return UPGRADE if direction == "up" else DOWNGRADE


def select(direction: Direction, skip: Sequence[str] = (), only: Sequence[str] = ()) -> tuple[ModuleType, ...]:
    """The chain without ``skip``, or with ``only`` these; raises :class:`ChainError`.

    Unknown names are refused, and so is a chain in which a transform lacks
    one it :data:`NEEDS` ("oauth_flows needs security_schemes").
    """
    chain = full_chain(direction)
    if not skip and not only:  # nearly every run, once per card: the whole chain has all it needs
        return chain
    known = [transform_name(module) for module in chain]
    for name in (*skip, *only):
        if name not in known:
            raise ChainError(f"no transform named {name!r} (known: {', '.join(known)})")
    chosen = tuple(module for module, name in zip(chain, known) if (not only or name in only) and name not in skip)
    names = {transform_name(module) for module in chosen}
    for name in (transform_name(module) for module in chosen):
        for needed in NEEDS.get(name, ()):
            if needed not in names:
                how = f"--skip {needed} leaves it out" if needed in skip else f"add --only {needed}"
                raise ChainError(f"{name} needs {needed}: {how} (or leave out {name} too)")
    return chosen


def check(options: Options) -> None:
    """Raise :class:`ChainError` for options whose transforms cannot run (before any card is read)."""
    if (options.skip or options.only) and options.hybrid:
        raise ChainError("--skip and --only cannot be used with --hybrid, which needs both whole chains")
    for direction in ("up", "down"):
        select(direction, options.skip, options.only)
    for name in options.plugins:
        plugin(name)


# -- plugins ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Plugin:
    """A third-party transform, named by its entry point (the name that labels its operations)."""

    name: str
    transform: Any
    distribution: str = ""

    def up(self, card: Any, ctx: Context) -> None:
        """Run the plugin's ``up``."""
        self.transform.up(card, ctx)

    def down(self, card: Any, ctx: Context) -> None:
        """Run the plugin's ``down``."""
        self.transform.down(card, ctx)


def installed() -> list[Any]:
    """The entry points of every installed plugin, by name."""
    from importlib.metadata import entry_points

    return sorted(entry_points(group=GROUP), key=lambda point: point.name)


def plugin(name: str) -> Plugin:
    """Load the plugin registered as ``name``; raises :class:`ChainError`."""
    points = [point for point in installed() if point.name == name]
    if not points:
        known = ", ".join(point.name for point in installed()) or "none is installed"
        raise ChainError(f"no plugin named {name!r} in entry-point group {GROUP} ({known})")
    try:
        loaded = points[0].load()
    except Exception as error:  # a third party's import error must not become a traceback
        raise ChainError(f"plugin {name!r} cannot be loaded: {type(error).__name__}: {error}") from None
    if not (callable(getattr(loaded, "up", None)) and callable(getattr(loaded, "down", None))):
        raise ChainError(f"plugin {name!r} ({points[0].value}) has no up(card, ctx) and down(card, ctx)")
    dist = getattr(points[0], "dist", None)
    return Plugin(name, loaded, getattr(dist, "name", "") or "")


def extras(options: Options) -> list[Any]:
    """What runs after the version chain: the plugins named, then the recipe steps."""
    if not (options.plugins or options.recipes):  # most runs: recipes are not even imported (issue 15)
        return []
    from a2a_migrate.recipes import steps_of

    return [*(plugin(name) for name in options.plugins), *steps_of(options.recipes)]


@dataclass(frozen=True)
class Entry:
    """What ``a2a-migrate transforms`` says about one transform."""

    name: str
    purpose: str  # the first paragraph of its docstring, on one line
    spec: str  # its ``SPEC``: where the spec says what it implements
    doc: str
    needs: tuple[str, ...] = ()
    plugin: str = ""  # the distribution of a plugin, "" for the built-in chain


def entry(transform: Any, name: str | None = None, plugin: str = "") -> Entry:
    """The catalogue entry of a transform (a chain module, or a plugin's loaded object)."""
    name = name or transform_name(transform)
    doc = (getattr(transform, "__doc__", None) or "").strip()
    purpose = " ".join(doc.split("\n\n", 1)[0].split()).replace("``", "")  # a terminal line, not reST
    return Entry(name, purpose, str(getattr(transform, "SPEC", "")), doc, NEEDS.get(name, ()), plugin)


def catalogue(direction: Direction = "up") -> list[Entry]:
    """The built-in chain in order, then the installed plugins (which run only when named)."""
    entries = [entry(module) for module in full_chain(direction)]
    for point in installed():
        try:
            loaded = plugin(point.name)
        except ChainError as error:  # a broken plugin is listed with why, never a traceback
            entries.append(Entry(point.name, str(error), "", "", (), getattr(point.dist, "name", "") or "?"))
            continue
        entries.append(entry(loaded.transform, loaded.name, loaded.distribution or "?"))
    return entries


def find(name: str) -> Any:
    """The transform called ``name``: a chain module, else an installed plugin; raises :class:`ChainError`."""
    for module in full_chain("up"):
        if transform_name(module) == name:
            return module
    if any(point.name == name for point in installed()):
        return plugin(name).transform
    known = [transform_name(module) for module in full_chain("up")] + [point.name for point in installed()]
    raise ChainError(f"no transform named {name!r} (known: {', '.join(known)})")


def example(transform: Any) -> tuple[Any, Any, list[Any]] | None:
    """``(before, after, notes)`` of the transform's ``EXAMPLE`` upgraded by it alone, or None without one."""
    import copy

    before = getattr(transform, "EXAMPLE", None)
    if not isinstance(before, dict):
        return None
    after = copy.deepcopy(before)
    ctx = Context(Options())
    ctx.transform = transform_name(transform)
    transform.up(after, ctx)
    return before, after, ctx.notes


def chosen(name: str, options: Options) -> bool:
    """True when ``--skip`` and ``--only`` leave the transform ``name`` in."""
    return name not in options.skip and (not options.only or name in options.only)
