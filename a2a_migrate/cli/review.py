"""The review commands: ``plan``, ``apply`` and ``diff`` (thin, over plan/apply/semantic_diff).

:mod:`a2a_migrate.cli.app` adds these commands to its group; this module imports
nothing heavy (deepdiff, jsonpatch, ruamel) at import time. Exit codes are the CLI's: 0 success, 2
usage error (a plan or patch file that cannot be read included), 123 at least
one card could not be processed (the others still were).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from a2a_migrate import discover
from a2a_migrate.cli.common import (EXIT_CHECK, EXIT_INPUT, EXIT_OK, echo_diff, echo_error, fetch_all, fetch_options,
                                    input_options, no_cards_found, paths_argument, print_messages, protocol_version,
                                    read_stdin, summary_line, verbosity)
from a2a_migrate.cli.transforms import chain_options, checked


# -- plan ---------------------------------------------------------------------------------


@click.command("plan")
@paths_argument()
@click.option("--to", "target", type=click.Choice(["1.0", "0.3"]), default="1.0", show_default=True,
              help="The version to migrate to: 1.0 (upgrade) or 0.3 (downgrade).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path), default=None,
              help="Write the plan to this file (default: stdout).")
@click.option("--format", "output_format", type=click.Choice(["json", "md"]), default="json", show_default=True,
              help="json: the plan for 'apply'; md: a Markdown review for a pull request.")
@click.option("--max-chars", type=click.IntRange(min=0), default=None, metavar="N",
              help="md: the most characters the review may have (default 60000; 0: no limit); a longer review "
                   "keeps its summary and the cards that fit, and writes the others beside -o FILE, in FILE.d/.")
@click.option("--strict", is_flag=True, help="Treat lossy notes as failures: such a card is refused in the plan.")
@click.option("--interface-version", metavar="VERSION", callback=protocol_version,
              help="The protocol version the card's endpoints speak now (as for upgrade and downgrade).")
@click.option("--default-name", metavar="TEXT", help="Name for a card that has none (else it is refused).")
@click.option("--default-description", metavar="TEXT", help="Description for a card that has none.")
@click.option("--default-version", metavar="TEXT", help="Agent version for a card that has none.")
@click.option("--default-url", metavar="URL", help="Endpoint URL for a card that names none.")
@click.option("--keep-signatures", is_flag=True, help="Keep existing signatures (they no longer verify).")
@click.option("--hybrid", is_flag=True, help="Plan hybrid cards that 1.0 and 0.3 clients both read.")
@click.option("--keep-tenant-interfaces", is_flag=True, help="On downgrade, keep interfaces that have a tenant.")
@click.option("--no-validate", "validate_output", is_flag=True, flag_value=False, default=True,
              help="Plan results even if they fail the target version's rules (normally refused).")
@chain_options  # issue 13: --skip, --only, --plugin, --recipe
@input_options("plan")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Worker processes (default: the CPUs).")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors.")
@click.option("-v", "--verbose", is_flag=True, help="Also print info notes.")
def plan_command(paths: Sequence[str], target: str, output: Path | None, output_format: str, max_chars: int | None,
                 strict: bool, include: Sequence[str], exclude: Sequence[str], max_file_size: int, jobs: int | None,
                 quiet: bool, verbose: bool, **options: Any) -> None:
    """Plan a migration for review: write nothing to the cards.

    The plan holds, per card, its path, the SHA-256 of its bytes, the source
    and target version, the RFC 6902 patch (edit it: delete the operations you
    do not want), the transform and notes behind each operation, and every
    note with its JSON pointer. 'a2a-migrate apply PLAN' applies it. With
    --format md the output is a Markdown review instead: a summary, then per
    card a folded section with its notes and unified diff, within --max-chars.
    """
    from a2a_migrate import plans
    from a2a_migrate.batch import default_jobs
    from a2a_migrate.context import Options
    from a2a_migrate.engine import Direction

    if "-" in paths:
        raise click.UsageError("plan needs card files: a card read from stdin could not be applied later")
    if any(discover.is_url(path) for path in paths):
        raise click.UsageError("plan needs card files: a card fetched from a URL could not be applied later "
                               "(upgrade URL -o DIR fetches it into a file)")
    if max_chars is not None and output_format != "md":
        raise click.UsageError("--max-chars sizes a Markdown review: it goes with --format md")
    direction: Direction = "up" if target == "1.0" else "down"
    settings = checked(Options(**options))  # issue 13: a chain that cannot run is a usage error
    level = verbosity(quiet, verbose)
    planning = plans.make(paths, direction, settings, include=include, exclude=exclude,
                          fail_on="lossy" if strict else None, jobs=jobs or default_jobs(), max_bytes=max_file_size)
    for outcome in planning.outcomes:
        if outcome.status != "skipped":
            print_messages(outcome, level)
    no_cards_found(planning.empty, set(), quiet=level < 0)
    the_plan = planning.plan
    to_stdout = output is None or str(output) == "-"
    if output_format == "md":
        written = _write_review(the_plan, None if to_stdout else output, max_chars)
    else:
        written = _write_text(plans.dumps(the_plan), None if to_stdout else output)
    if level >= 0:
        skipped = sum(outcome.status == "skipped" for outcome in planning.outcomes)
        click.echo(_plan_summary(the_plan, skipped) + written, err=True)
    sys.exit(EXIT_INPUT if any(card.status == "failed" for card in the_plan.cards) else EXIT_OK)


def _write_text(text: str, output: Path | None) -> str:
    """Write the plan to ``output`` (stdout for None); what the summary line adds about it."""
    from a2a_migrate import io

    if output is None:
        sys.stdout.write(text)
        return ""
    try:
        io.write_atomic(output, text)
    except io.CardError as error:
        echo_error(str(output), str(error))
        sys.exit(EXIT_INPUT)
    return f"; plan written to {output}"


def _write_review(the_plan: Any, output: Path | None, max_chars: int | None) -> str:
    """Render the Markdown review within the budget and write it; what the summary line adds about it.

    A review over the budget needs a file to write its sections beside, so on
    stdout it is a usage error that says so rather than a comment too long to post.
    """
    from a2a_migrate import review_markdown

    budget = review_markdown.DEFAULT_MAX_CHARS if max_chars is None else max_chars
    try:
        rendered = review_markdown.review(the_plan, budget, "-" if output is None else output.name)
    except review_markdown.BudgetError as error:
        raise click.UsageError(f"--max-chars {budget}: {error}") from None
    if output is None:
        if rendered.sections:
            raise click.UsageError(f"the review is {rendered.whole:,} characters, over --max-chars {budget}: write "
                                   "it with -o FILE to split it (the cards that do not fit go to FILE.d/), or raise "
                                   "--max-chars")
        return _write_text(rendered.text, output)
    folder = review_markdown.sections_folder(output)
    try:
        removed = review_markdown.write(rendered, output)
    except review_markdown.WriteError as error:
        echo_error(str(error.path), error.reason)
        sys.exit(EXIT_INPUT)
    said = f"; review written to {output}"
    if rendered.sections:
        cards = sum(name != "index.md" for name in rendered.sections)
        said += f" ({len(rendered.text):,} characters), {cards} {'card' if cards == 1 else 'cards'} in {folder}/"
    if removed:  # files deleted are said, not left to be noticed
        said += f"; {len(removed)} section {'file' if len(removed) == 1 else 'files'} of an earlier review removed"
    return said


def _plan_summary(the_plan: Any, skipped: int) -> str:
    cards = the_plan.cards
    changed = [card for card in cards if card.status == "changed"]
    failed = sum(card.status == "failed" for card in cards)
    operations = sum(len(card.patch) for card in changed)
    parts = [f"{len(changed)} {'card' if len(changed) == 1 else 'cards'} to change ({operations} operations)",
             f"{len(cards) - len(changed) - failed} already {the_plan.target_version}"]
    return summary_line(parts, skipped, failed)


# -- apply ---------------------------------------------------------------------------------


@click.command("apply")
@click.argument("args", nargs=-1, metavar="PLAN | --patch FILE CARD")
@click.option("--patch", "patch_file", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
              help="Apply this plain RFC 6902 patch (a JSON array) to CARD instead of a plan; an object keyed by "
                   "card path (as 'upgrade --patch' prints for several cards) patches each of them.")
@click.option("--force", is_flag=True,
              help="Apply to cards changed since the plan was made, skipping (and reporting) operations that no "
                   "longer apply.")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors.")
@click.option("-v", "--verbose", is_flag=True, help="Also say how many operations each card got.")
def apply_command(args: Sequence[str], patch_file: Path | None, force: bool, quiet: bool, verbose: bool) -> None:
    """Apply a reviewed plan (or a plain RFC 6902 patch) to the cards.

    Each card's patch, as edited, is applied in place: the file keeps its
    formatting and YAML comments, and is written atomically only if it
    changes. A card whose bytes changed since the plan was made is refused
    unless --force; a patch that no longer applies fails that card, naming the
    operation; a result that is not a valid card is not written. Operations
    deleted from the plan are not applied, and apply says whose they were.
    Cards refused when planned are skipped.
    """
    from a2a_migrate import applying, plans

    if patch_file is not None:
        outcomes = [applying.apply_patch(path, ops, force=force) for path, ops in _patches(patch_file, args)]
        left_out: dict[str, int] = {}
    else:
        if len(args) != 1:
            raise click.UsageError("apply takes one PLAN file (or --patch FILE CARD)")
        try:
            the_plan = plans.read(Path(args[0]))
        except plans.PlanError as error:
            raise click.UsageError(f"{args[0]}: {error}") from None
        outcomes = [applying.apply_card(card, force=force) for card in the_plan.cards]
        left_out = {}
        for outcome in outcomes:
            for note in outcome.notes:
                if note.message.startswith("left out"):
                    left_out[note.transform] = left_out.get(note.transform, 0) + 1
    level = verbosity(quiet, verbose)
    for outcome in outcomes:
        applying.write(outcome)
        if outcome.status == "skipped":
            if level >= 0:
                click.echo(f"{outcome.name}: skipped: {outcome.error}", err=True)
        else:
            print_messages(outcome, level)
    if level >= 0:
        click.echo(_apply_summary(outcomes, left_out), err=True)
    sys.exit(EXIT_INPUT if any(outcome.status == "failed" for outcome in outcomes) else EXIT_OK)


def _patches(patch_file: Path, cards: Sequence[str]) -> list[tuple[str, list[Any]]]:
    """``(card, operations)`` pairs from a patch file, or a usage error."""
    try:
        text = sys.stdin.read() if str(patch_file) == "-" else patch_file.read_text("utf-8")
        data = json.loads(text)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise click.UsageError(f"{patch_file}: cannot read the patch: {error}") from None
    if isinstance(data, list):
        if len(cards) != 1:
            raise click.UsageError("a patch that is an array applies to exactly one CARD")
        return [(cards[0], data)]
    if isinstance(data, dict) and all(isinstance(ops, list) for ops in data.values()):
        unknown = [card for card in cards if card not in data]
        if unknown:
            raise click.UsageError(f"{patch_file} has no patch for {', '.join(unknown)}")
        return [(card, ops) for card, ops in data.items() if not cards or card in cards]
    raise click.UsageError(f"{patch_file}: a patch is a JSON array of operations, or an object of them by card path")


def _apply_summary(outcomes: Sequence[Any], left_out: dict[str, int]) -> str:
    counts = {status: sum(o.status == status for o in outcomes) for status in ("changed", "unchanged", "skipped", "failed")}
    parts = [f"{counts['changed']} {'card' if counts['changed'] == 1 else 'cards'} applied",
             f"{counts['unchanged']} unchanged"]
    if counts["skipped"]:
        parts.append(f"{counts['skipped']} skipped (refused when planned)")
    if counts["failed"]:
        parts.append(f"{counts['failed']} failed")
    summary = ", ".join(parts)
    if left_out:
        summary += "; left out by the reviewer: " + ", ".join(
            f"{name} ({n} {'card' if n == 1 else 'cards'})" for name, n in left_out.items())
    return summary


# -- diff ------------------------------------------------------------------------------------


@click.command("diff")
@click.argument("old", metavar="OLD")
@click.argument("new", metavar="NEW")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: one line per difference; json: one document for machines.")
@click.option("--exit-code", is_flag=True, help="Exit 1 when the cards differ (as 'git diff --exit-code').")
@fetch_options  # issue 12: OLD or NEW may be a URL
def diff_command(old: str, new: str, output_format: str, exit_code: bool) -> None:
    """Show what differs between two cards, also across versions.

    Members the version mapping moved are shown as moves
    (/url -> /supportedInterfaces/0/url), not as a removal and an addition;
    the rest as changed, added or removed, with JSON pointers and values.
    OLD or NEW may be - (stdin) or a URL.
    """
    from a2a_migrate import io, semantic_diff
    from a2a_migrate.versions import detect_version

    cards = []
    answers = dict(fetch_all([name for name in dict.fromkeys((old, new)) if discover.is_url(name)]))
    for name in (old, new):
        loaded = (discover.load_fetched(name, answers[name]) if name in answers else
                  read_stdin(None) if name == "-" else discover.load(discover.Found(Path(name), Path(".")), None))
        if loaded.document is None:
            echo_error(loaded.name, loaded.error)
            sys.exit(EXIT_INPUT)
        cards.append(loaded.document.original)
    differences = semantic_diff.compare(cards[0], cards[1])
    versions = [detect_version(card) for card in cards]
    if output_format == "json":
        document = {"old": {"path": old, "version": versions[0]}, "new": {"path": new, "version": versions[1]},
                    "differences": [difference.as_dict() for difference in differences]}
        click.echo(json.dumps(document, indent=2, ensure_ascii=False))
    elif differences:
        click.echo(f"--- {old} ({versions[0]})\n+++ {new} ({versions[1]})")
        echo_diff(semantic_diff.render_text(differences))
    click.echo(semantic_diff.summary(differences), err=True)
    sys.exit(EXIT_CHECK if exit_code and differences else EXIT_OK)
