"""Choosing transforms on the command line (issue 13): ``--recipe``, ``--skip``, ``--only``,
``--plugin``, and the ``transform`` and ``transforms`` commands.

Thin over :mod:`a2a_migrate.recipes` and :mod:`a2a_migrate.chain`: a recipe or
a choice of transforms the library refuses is a usage error (exit 2) with the
library's one-line message. :mod:`a2a_migrate.cli.app` adds the commands to its group.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from a2a_migrate.cli.common import input_options, least_failing, paths_argument, verbosity

F = TypeVar("F", bound=Callable[..., Any])


def _recipes(ctx: click.Context, param: click.Parameter, value: Sequence[str]) -> tuple[Any, ...]:
    """Each ``--recipe FILE`` read and checked, or a usage error naming the file, step and field."""
    if not value:  # click calls back for every run: without a recipe, recipes are not imported (issue 15)
        return ()
    from a2a_migrate.recipes import RecipeError, load

    try:
        return tuple(load(path) for path in value)
    except RecipeError as error:
        raise click.BadParameter(str(error)) from None


RECIPE = click.option("--recipe", "recipes", multiple=True, metavar="FILE", callback=_recipes,
                      help="Apply the steps of this recipe (YAML or JSON) after the version chain; repeatable.")
PLUGIN = click.option("--plugin", "plugins", multiple=True, metavar="NAME",
                      help="Run this installed plugin transform (entry-point group a2a_migrate.transforms) "
                           "after the version chain; repeatable.")


def chain_options(command: F) -> F:
    """``--skip``, ``--only``, ``--plugin`` and ``--recipe``, for upgrade, downgrade and plan."""
    decorators = [
        click.option("--skip", "skip", multiple=True, metavar="NAME",
                     help="Leave this transform out of the chain (see 'a2a-migrate transforms'); repeatable."),
        click.option("--only", "only", multiple=True, metavar="NAME",
                     help="Run only these transforms of the chain; repeatable."),
        PLUGIN,
        RECIPE,
    ]
    for decorator in reversed(decorators):
        command = decorator(command)
    return command


def checked(options: Any) -> Any:
    """``options`` if their transforms can run, else a usage error saying which transform needs which."""
    from a2a_migrate.chain import ChainError, check

    try:
        check(options)
    except ChainError as error:
        raise click.UsageError(str(error)) from None
    return options


# -- transform ---------------------------------------------------------------------------------


@click.command("transform")
@paths_argument()
@click.option("--recipe", "recipes", multiple=True, required=True, metavar="FILE", callback=_recipes,
              help="Apply the steps of this recipe (YAML or JSON); repeatable.")
@PLUGIN
@click.option("-o", "--output", "output_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write the cards into this folder (same relative paths) instead of in place.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if any card would change.")
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff of each change; write nothing.")
@click.option("--patch", "show_patch", is_flag=True, help="Print the RFC 6902 patch; write nothing.")
@click.option("--report", "report_file", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
              help="Write a JSON report: per card its notes and patch (- for stdout).")
@click.option("--strict", is_flag=True, help="Treat lossy notes as failures: such a card is not written.")
@click.option("--no-validate", "validate_output", is_flag=True, flag_value=False, default=True,
              help="Write results even if they fail their version's rules (normally refused).")
@click.option("--keep-signatures", is_flag=True,
              help="Keep existing signatures (they no longer verify) instead of dropping them.")
@input_options("process")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Worker processes (default: the CPUs).")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors.")
@click.option("-v", "--verbose", is_flag=True, help="Also print info notes.")
def transform_command(paths: Sequence[str], recipes: tuple[Any, ...], plugins: tuple[str, ...],
                      output_dir: Path | None, check: bool, show_diff: bool, show_patch: bool,
                      report_file: Path | None, strict: bool, validate_output: bool, keep_signatures: bool,
                      include: Sequence[str], exclude: Sequence[str], max_file_size: int, jobs: int | None,
                      quiet: bool, verbose: bool) -> None:
    """Apply recipes (and plugins) to cards without changing their protocol version.

    Each step is a transform: its notes name it (recipe:FILE#N or its name),
    its operations are labelled in --patch and --report, what it replaces or
    removes is reported lossy, and the result is validated against the
    card's version. PATH is a card file, a folder, - (stdin to stdout) or an
    https:// URL (to stdout, or into -o DIR).
    """
    from a2a_migrate.batch import default_jobs
    from a2a_migrate.cli.migrate import Run, execute
    from a2a_migrate.context import Options

    options = checked(Options(recipes=recipes, plugins=plugins, version_chain=False, validate_output=validate_output,
                              keep_signatures=keep_signatures))
    run = Run("up", paths, output_dir, check, show_diff, show_patch, report_file, least_failing(strict, None),
                   options, include, exclude, jobs or default_jobs(), verbosity(quiet, verbose),
                   max_file_size)
    sys.exit(execute(run))


# -- transforms ---------------------------------------------------------------------------------


@click.command("transforms")
@click.argument("name", required=False)
@click.option("--down", "direction", flag_value="down", default="up",
              help="List the downgrade chain's order instead of the upgrade's.")
def transforms_command(name: str | None, direction: str) -> None:
    """List the transforms in chain order, or document one: NAME prints its documentation and an example.

    Each line: the transform's name, its one-line purpose and where the spec
    says it. Installed plugins (entry-point group a2a_migrate.transforms) are
    listed after the chain; they run only when named with --plugin.
    """
    from a2a_migrate import chain

    if name is not None:
        try:
            transform = chain.find(name)
            _document(chain.entry(transform, name), transform)
        except chain.ChainError as error:
            raise click.UsageError(str(error)) from None
        return
    entries = chain.catalogue("down" if direction == "down" else "up")
    width = max(len(item.name) for item in entries)
    builtin = [item for item in entries if not item.plugin]
    for number, item in enumerate(builtin, 1):
        click.echo(f"{number:2}. {item.name:<{width}}  {item.purpose}" + (f"  [{item.spec}]" if item.spec else ""))
    plugins = [item for item in entries if item.plugin]
    if plugins:
        click.echo("\nPlugins (run only with --plugin NAME):")
        for item in plugins:
            click.echo(f"    {item.name:<{width}}  {item.purpose}  (from {item.plugin})")


def _document(item: Any, transform: Any) -> None:
    """A transform's documentation, what it needs, and its example before and after."""
    import json

    from a2a_migrate import chain

    click.echo(f"{item.name}" + (f"  (plugin from {item.plugin})" if item.plugin else ""))
    if item.spec:
        click.echo(f"Spec: {item.spec}")
    if item.needs:
        click.echo(f"Needs: {', '.join(item.needs)} (in the same chain)")
    click.echo(f"\n{item.doc}\n")
    shown = chain.example(transform)
    if shown is None:
        click.echo("(no example)")
        return
    before, after, notes = shown
    click.echo("Example (upgrade), before:")
    click.echo(json.dumps(before, indent=2, ensure_ascii=False))
    click.echo("after:")
    click.echo(json.dumps(after, indent=2, ensure_ascii=False))
    for note in notes:
        click.echo(f"{note.severity}: {note.pointer or '/'}: {note.message}")
