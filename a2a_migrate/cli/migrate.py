"""The migration commands, ``upgrade`` and ``downgrade``: a thin layer over :mod:`a2a_migrate.batch`.

Data goes to stdout, messages to stderr; exit codes are in :mod:`a2a_migrate.cli.common`.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import click

from a2a_migrate import __version__, discover, io
from a2a_migrate.cli import transforms as cli_transforms
from a2a_migrate.cli.common import (EXIT_CHECK, EXIT_INPUT, EXIT_OK, NEEDS_A_LOOK, SHOWN, echo_diff, echo_error,
                                    fetch_all, input_options, is_stdout, least_failing, no_cards_found,
                                    paths_argument, print_messages, protocol_version, refuse_shared_stdout,
                                    summary_line, verbosity)
from a2a_migrate.cli.signing import check_signed_form, pop_signing_request, sign_options, with_signing
from a2a_migrate.context import SEVERITIES, Options, Severity
from a2a_migrate.progress import Progress

if TYPE_CHECKING:  # the batch (and through it the chain) is imported by the commands that migrate, when they run
    from a2a_migrate.batch import Job, Outcome
    from a2a_migrate.engine import Direction

F = TypeVar("F", bound=Callable[..., Any])
_WORDS = {"up": ("upgraded", "1.0"), "down": ("downgraded", "0.3")}


def migration_options(command: F) -> F:
    """The options of ``upgrade``, ``downgrade`` and ``transform``: outputs, checks, defaults, chain, signing."""
    decorators = [
        paths_argument(),
        click.option("-o", "--output", "output_dir", type=click.Path(file_okay=False),  # a str: -o s3://... (Dask)
                     help="Write the cards into this folder (same relative paths) instead of in place."),
        click.option("--check", is_flag=True, help="Write nothing; exit 1 if any card would change."),
        click.option("--format", "output_format", type=click.Choice(["text", "github"]), default="text",
                     help="With --check, github: GitHub Actions annotations on stdout (each card that would change "
                          "and its notes) instead of the message lines."),
        click.option("--jsonl", is_flag=True,
                     help="Each PATH (a file, or - for stdin) holds one card per line: write one result per line "
                          "to stdout (--report: one JSON object per line)."),
        click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff of each change; write nothing."),
        click.option("--patch", "show_patch", is_flag=True,
                     help="Print the RFC 6902 patch (one input: an array; several: an object keyed by path); write nothing."),
        click.option("--report", "report_file", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
                     help="Write a JSON report: per card its versions, notes and patch (- for stdout)."),
        click.option("--strict", is_flag=True, help="Treat lossy notes as failures: such a card is not written "
                                                    "(the same as --fail-on lossy)."),
        click.option("--fail-on", type=click.Choice(["lossy", "warning", "assumed"]), default=None,
                     help="The least severity of note that fails a card (it is not written, and the run exits 123): "
                          "lossy; warning (and lossy); assumed (and warning and lossy)."),
        click.option("--interface-version", metavar="VERSION", callback=protocol_version,
                     help="The protocol version the card's endpoints speak now (upgrade writes it on every interface; "
                          "downgrade treats every interface as speaking it)."),
        click.option("--default-name", metavar="TEXT", help="Name for a card that has none (else it is refused)."),
        click.option("--default-description", metavar="TEXT", help="Description for a card that has none."),
        click.option("--default-version", metavar="TEXT", help="Agent version for a card that has none."),
        click.option("--default-url", metavar="URL", help="Endpoint URL for a card that names none."),
        click.option("--default-provider-url", metavar="URL",
                     help="URL for a provider that has none (else the provider is dropped with a lossy note)."),
        click.option("--no-validate", "validate_output", is_flag=True, flag_value=False, default=True,
                     help="Write results even if they fail the target version's rules (normally refused)."),
        click.option("--keep-signatures", is_flag=True,
                     help="Keep existing signatures (they no longer verify) instead of dropping them."),
        sign_options,  # issue 7: --sign-key, --kid, --jku, --alg (cli/signing.py)
        cli_transforms.chain_options,  # issue 13: --skip, --only, --plugin, --recipe (cli/transforms.py)
        input_options("process"),  # --include, --exclude, --max-file-size: the same for every PATH command
        click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
                     help="Worker processes (default: the number of CPUs)."),
        click.option("-q", "--quiet", is_flag=True, help="Print only errors."),
        click.option("-v", "--verbose", is_flag=True, help="Also print info notes."),
    ]
    for decorator in reversed(decorators):
        command = decorator(command)
    return command


@dataclass
class Run:
    """Everything a migration command was asked to do."""

    direction: Direction
    paths: Sequence[str]
    output_dir: Path | None
    check: bool
    show_diff: bool
    show_patch: bool
    report_file: Path | None
    fail_on: Severity | None  # --fail-on, with --strict folded in
    options: Options
    include: Sequence[str]
    exclude: Sequence[str]
    jobs: int
    verbosity: int
    max_bytes: int | None = io.MAX_CARD_BYTES
    output_format: str = "text"  # issue 14: text, or github (annotations, with --check)
    scheduler: str | None = None  # issue 12: --jsonl on a Dask cluster (cli/jsonl.py)
    output_url: str | None = None  # -o as given: an fsspec URL for --scheduler (a Path would fold its //)

    @property
    def writes(self) -> bool:
        return not (self.check or self.show_diff or self.show_patch)


_HYBRID = click.option(
    "--hybrid", is_flag=True,
    help="Write a hybrid card that 1.0 and 0.3 clients both read: the 1.0 card plus the 0.3 members beside it "
         "(as the official SDK's server serves it). The cost: strict 1.0 parsers reject it, and signatures cover "
         "all of it (old ones are dropped). Same result from upgrade and downgrade.")


_SCHEDULER = click.option(
    "--scheduler", metavar="ADDRESS|local:N",
    help="With --jsonl and -o DIR: run on a Dask cluster, the scheduler at ADDRESS (tcp://host:8786) or local:N "
         "(N worker processes here), writing DIR/results and DIR/reports in parts. PATHs may be globs and "
         "fsspec URLs (s3://...). Needs pip install 'a2a-migrate[dask]'.")


@click.command()
@migration_options
@_HYBRID
@_SCHEDULER
def upgrade(**kwargs: Any) -> None:
    """Upgrade cards (0.3 and older) to protocol 1.0.

    PATH is a card file, a folder (searched for card files), - (stdin to
    stdout) or an https:// URL (to stdout, or into -o DIR; a bare origin is
    read at its well-known card names). Files are rewritten in place,
    atomically, only when they change.
    """
    sys.exit(_migrate("up", **kwargs))


@click.command()
@migration_options
@_HYBRID
@_SCHEDULER
@click.option("--keep-tenant-interfaces", is_flag=True,
              help="Keep interfaces that have a tenant (0.3 cannot say it: the tenant is dropped) instead of "
                   "leaving them out.")
def downgrade(**kwargs: Any) -> None:
    """Downgrade 1.0 cards to protocol 0.3, for 0.3 clients.

    Only interfaces whose protocolVersion is 0.x (or absent) are offered: the
    first becomes url and preferredTransport, several become
    additionalInterfaces. A card with no such interface is refused; when a
    gateway translates for 0.3 clients, --interface-version 0.3 treats every
    interface as a 0.3 endpoint. What 0.3 cannot hold (tenants, 1.0-only
    interfaces, pkceRequired, device-code flows) is reported as lossy; a card
    that would look unauthenticated to 0.3 clients is refused.

    PATH is a card file, a folder (searched for card files), - (stdin to
    stdout) or an https:// URL (to stdout, or into -o DIR; a bare origin is
    read at its well-known card names). Files are rewritten in place,
    atomically, only when they change.
    """
    sys.exit(_migrate("down", **kwargs))


def _migrate(direction: Direction, *, paths: Sequence[str], output_dir: str | None, check: bool,
             show_diff: bool, show_patch: bool, report_file: Path | None, strict: bool, fail_on: Severity | None,
             interface_version: str | None, default_name: str | None, default_description: str | None,
             default_version: str | None, default_url: str | None, default_provider_url: str | None,
             keep_signatures: bool,
             include: Sequence[str], exclude: Sequence[str], jobs: int | None, quiet: bool, verbose: bool,
             max_file_size: int = io.MAX_CARD_BYTES, jsonl: bool = False, output_format: str = "text",
             scheduler: str | None = None, **extra: Any) -> int:
    from a2a_migrate.batch import default_jobs

    if output_format == "github" and (not check or jsonl):  # issue 14: annotations say what --check found
        raise click.UsageError("--format github goes with --check (and not with --jsonl)")
    if scheduler is not None and (not jsonl or jobs is not None):  # issue 12: the cluster's workers do the work
        raise click.UsageError("--scheduler goes with --jsonl and -o DIR; the cluster, not -j, says how many "
                               "workers (local:N)")
    sign_request = pop_signing_request(extra)  # issue 7: reads and checks the key (exit 2 if unusable)
    options = Options(interface_version=interface_version, default_name=default_name,
                      default_description=default_description, default_version=default_version,
                      default_url=default_url, default_provider_url=default_provider_url,
                      keep_signatures=keep_signatures, **extra)
    check_signed_form(sign_request, "hybrid" if options.hybrid else "1.0" if direction == "up" else "0.3")
    options = with_signing(options, sign_request)  # issue 7: batch.migrate_text signs what it writes
    options = cli_transforms.checked(options)  # issue 13: a chain that cannot run is a usage error
    run = Run(direction, paths, None if output_dir is None else Path(output_dir), check, show_diff, show_patch,
              report_file, least_failing(strict, fail_on), options, include, exclude, jobs or default_jobs(),
              verbosity(quiet, verbose), max_file_size, output_format, scheduler, output_dir)
    if jsonl and any(discover.is_url(path) for path in paths):
        raise click.UsageError("--jsonl reads files or stdin (-), not URLs")
    if jsonl:  # issue 12: JSONL streams (cli/jsonl.py)
        from a2a_migrate.cli.jsonl import execute_jsonl

        return execute_jsonl(run)
    return execute(run)


def execute(run: Run) -> int:
    """Migrate every input, streaming messages (and diffs) in input order.

    Workers write the cards themselves; only what a report or a patch needs
    is kept, so memory does not grow with the batch.
    """
    from a2a_migrate.batch import Job, Outcome, run_batch

    _refuse_shared_stdout(run)
    write: Literal["no", "in_place", "to_folder"] = (
        "no" if not run.writes else "to_folder" if run.output_dir is not None else "in_place")
    found, problems = discover.expand(run.paths, run.include, run.exclude, remove_stale=run.writes)
    tally = Tally(run, found)
    job = Job(run.direction, run.options, record=run.show_patch or run.report_file is not None, fail_on=run.fail_on,
              write=write, output_dir=str(run.output_dir) if run.output_dir is not None else None,
              keep_text=run.show_diff, max_bytes=run.max_bytes, locate=located_severities(run, tally.batch))
    for problem in problems:
        tally.add(Outcome(problem.path, "failed", error=problem.reason), problem.arg)
    order = [item.url or str(item.path) for item in found]
    files = [(str(item.path), item.sniff) for item in found if item.arg != "-" and not item.url]
    roots = {str(item.path): str(item.root) for item in found}
    urls = [item.url for item in found if item.url]
    if run.writes and run.output_dir is not None:
        targets = [(name, run.output_dir / Path(name).relative_to(roots[name])) for name, _ in files]
        clashes = _clashes(targets + [(url, _url_target(url, run.output_dir)) for url in urls])
        for name, earlier in clashes.items():
            tally.add(Outcome(name, "failed", error=f"its result would overwrite that of {earlier} in {run.output_dir}"))
        files = [(name, sniff) for name, sniff in files if name not in clashes]
        urls = [url for url in urls if url not in clashes]
        order = [name for name in order if name not in clashes]
    stdin = _migrate_stdin(job, run) if "-" in order else None
    tally.progress = Progress.for_terminal(len(files) + len(urls), sys.stderr, run.verbosity < 0)
    results = run_batch(files, job, run.jobs, roots)
    if files and urls:
        results = _begun(results)
    fetched = _migrate_urls(urls, job, run, tally)
    for outcome in _in_order(results, order, stdin, fetched):
        tally.add(outcome)
    tally.progress.clear()
    return tally.finish()


def located_severities(run: Run, batch: bool) -> tuple[Severity, ...]:
    """The notes that get a line and column (issue 14): those a report or a message line may show.

    Locating is done in the worker, where the card's text is; a quiet run
    locates only errors, and a batch at the default verbosity only what needs a look.
    """
    if run.report_file is not None:
        return SEVERITIES
    one_line = batch and run.verbosity == 0 and run.output_format == "text"
    shown = NEEDS_A_LOOK if one_line else SHOWN[run.verbosity]
    return tuple(severity for severity in SEVERITIES if severity in shown)


def _refuse_shared_stdout(run: Run) -> None:
    """Usage errors for option pairs that would mix two outputs, or lose one, silently."""
    stdin = "-" in run.paths
    if stdin and run.output_dir is not None:
        raise click.UsageError("-o writes files: the card read from stdin (-) is written to stdout; "
                               "name card files, or leave out -o")
    streamed = stdin or (run.output_dir is None and any(discover.is_url(path) for path in run.paths))
    if run.writes and run.output_dir is None:  # issue 12: fetched cards go to stdout, as stdin's does
        refuse_shared_stdout(run.paths, "give -o DIR to write fetched cards into a folder")
    if is_stdout(run.report_file) and (run.show_diff or run.show_patch or (streamed and run.writes)):
        shown = ("--diff" if run.show_diff else "--patch" if run.show_patch else
                 "the card read from stdin (-)" if stdin else "the fetched card")
        raise click.UsageError(f"--report - and {shown} would both go to stdout; give --report a FILE")


def _clashes(targets: list[tuple[str, Path]]) -> dict[str, str]:
    """Inputs whose ``-o`` target another input already has: ``{later: earlier}``."""
    taken: dict[Path, str] = {}
    clashes: dict[str, str] = {}
    for name, target in targets:
        if target in taken:
            clashes[name] = taken[target]
        else:
            taken[target] = name
    return clashes


def _url_target(url: str, output_dir: Path) -> Path:
    """Where ``-o DIR`` puts the card fetched from ``url``: ``DIR/HOST[_PORT][_PATH].agent-card.json``
    (:func:`a2a_migrate.fetch.output_name`); a YAML card's name ends in ``.yaml`` instead."""
    from a2a_migrate.fetch import output_name

    return output_dir / output_name(url)


def _begun(results: Iterator[Outcome]) -> Iterator[Outcome]:
    """The batch started now, so that its worker processes are forked before the fetching threads
    run: a child forked while another thread holds a lock (of OpenSSL, say) could wait on it forever."""
    first = next(results, None)
    return results if first is None else itertools.chain([first], results)


def _in_order(results: Iterator[Outcome], order: list[str], stdin: Outcome | None,
              fetched: Iterator[Outcome]) -> Iterator[Outcome]:
    # stdin and URLs are processed here (they cannot go to a worker) but reported in argument order.
    for name in order:
        if name == "-" and stdin is not None:
            yield stdin
        else:
            yield next(fetched) if discover.is_url(name) else next(results)


def _migrate_stdin(job: Job, run: Run) -> Outcome:
    from a2a_migrate.batch import Outcome

    try:
        text = io.read_stream(sys.stdin.buffer, run.max_bytes)
    except io.CardError as error:
        return Outcome("-", "failed", error=str(error))
    return _migrate_here(text, "-", job, run, None)


def _migrate_urls(urls: Sequence[str], job: Job, run: Run, tally: Tally) -> Iterator[Outcome]:
    """Issue 12: the cards at ``urls``, fetched ahead and concurrently, migrated in order here."""
    from a2a_migrate.batch import Outcome

    for url, answer in fetch_all(urls):
        if isinstance(answer, Exception):
            outcome = Outcome(url, "failed", error=answer.said_of(url))
        else:
            try:
                outcome = _migrate_here(discover.fetched_text(answer), answer.url, job, run,
                                        _url_target(url, run.output_dir) if run.output_dir is not None else None)
            except io.CardError as error:
                outcome = Outcome(answer.url, "failed", error=str(error))
        tally.args.setdefault(outcome.name, url)  # messages name the URL that answered; the PATH was url
        yield outcome


def _migrate_here(text: str, name: str, job: Job, run: Run, target: Path | None) -> Outcome:
    """A card read in this process (stdin, a URL), never written in place: the result goes to
    ``target`` (``-o``), or to stdout."""
    from a2a_migrate.batch import migrate_text

    outcome = migrate_text(text, name, replace(job, write="no", keep_text=True))
    if not run.writes or outcome.status not in ("changed", "unchanged"):
        return outcome
    if target is None:
        sys.stdout.write(outcome.new_text)
        return outcome
    if io.guess_format(name, text) == "yaml":
        target = target.with_name(target.name.removesuffix(".json") + ".yaml")
    try:
        io.write_atomic(target, outcome.new_text)
    except io.CardError as error:
        outcome.status, outcome.error = "failed", f"{target}: {error}"
    return outcome


class Tally:
    """Prints each outcome as it comes and keeps what the end of the run needs."""

    def __init__(self, run: Run, found: Sequence[discover.Found] = ()) -> None:
        self.run = run
        self.counts: Counter[str] = Counter()
        self.kept: list[Outcome] = []  # for --patch and --report only
        self.progress = Progress(0, sys.stderr, False)
        self.args: dict[str, str] = {}  # each input's PATH argument, to tell which PATH gave no card
        for item in found:
            self.args.setdefault(item.url or str(item.path), item.arg)
        self.yielded: set[str] = set()
        self.batch = len(found) > 1  # issue 15: a batch prints one line per card that needs a look

    def add(self, outcome: Outcome, arg: str | None = None) -> None:
        self.counts[outcome.status] += 1
        if outcome.status != "skipped":
            self.yielded.add(arg or self.args.get(outcome.name, outcome.name))
        self.progress.tick()
        if outcome.status != "skipped":
            self.progress.clear()
            if self.run.output_format == "github":
                self._annotate(outcome)
            else:
                print_messages(outcome, self.run.verbosity, self.batch)
        if self.run.show_diff and outcome.status == "changed":
            from a2a_migrate.batch import unified_diff

            echo_diff(unified_diff(outcome))
        if self.run.show_patch or self.run.report_file is not None:
            outcome.old_text = outcome.new_text = ""
            self.kept.append(outcome)

    def _annotate(self, outcome: Outcome) -> None:
        """Issue 14: the card's error, notes and (``--check``) pending change as GitHub annotations."""
        from a2a_migrate.cli import ci_formats

        done, target = _WORDS[self.run.direction]
        target = "a hybrid card" if self.run.options.hybrid else target
        would = f"would be {done} to {target}" if self.run.options.version_chain else "would change"
        ci_formats.print_annotations(ci_formats.outcome_findings(outcome, SHOWN[self.run.verbosity], would))

    def finish(self) -> int:
        run = self.run
        if run.show_patch:
            _print_patch(self.kept, run)
        if run.report_file is not None and not _write_report(run, self.kept):
            self.counts["failed"] += 1  # a report CI relies on must not go missing quietly
        no_cards_found(run.paths, self.yielded, quiet=run.verbosity < 0)
        if run.verbosity >= 0:
            click.echo(_summary(self.counts, run), err=True)
        if self.counts["failed"]:
            return EXIT_INPUT
        if run.check and self.counts["changed"]:
            return EXIT_CHECK
        return EXIT_OK


def _print_patch(outcomes: list[Outcome], run: Run) -> None:
    """One input: its patch as an array; several: an object keyed by path."""
    patchable = [o for o in outcomes if o.status in ("changed", "unchanged")]
    if len(run.paths) == 1 and not Path(run.paths[0]).is_dir():
        document: Any = patchable[0].patch if patchable else []  # one input: always an array
    else:
        document = {outcome.name: outcome.patch for outcome in patchable}
    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def _write_report(run: Run, outcomes: list[Outcome]) -> bool:
    cards = [{
        "path": outcome.name,
        "status": outcome.status,
        "sourceVersion": outcome.source_version or None,
        "targetVersion": outcome.target_version or None,
        "changed": outcome.status == "changed",
        "error": outcome.error or None,
        "notes": [note.as_dict() for note in outcome.notes],
        "patch": outcome.patch,
        "transforms": [change.transform for change in outcome.changes],
    } for outcome in outcomes]
    report = {"tool": "a2a-migrate", "version": __version__, "direction": run.direction, "cards": cards}
    text = json.dumps(report, indent=2, ensure_ascii=False) + "\n"
    if is_stdout(run.report_file):  # nothing else goes to stdout then: _refuse_shared_stdout
        sys.stdout.write(text)
        return True
    try:
        io.write_atomic(run.report_file, text)  # type: ignore[arg-type]
    except io.CardError as error:
        echo_error(str(run.report_file), str(error))
        return False
    return True


def _summary(counts: Mapping[str, int], run: Run) -> str:
    """The black-style closing line: ``12 cards upgraded, 3 already 1.0, 2 skipped, 1 failed``."""
    done, target = _WORDS[run.direction] if run.options.version_chain else ("transformed", "")  # issue 13
    target = "hybrid" if run.options.hybrid else target
    counts = {status: counts.get(status, 0) for status in ("changed", "unchanged", "skipped", "failed")}
    verb = f"would be {done}" if run.check or not run.writes else done
    card = "card" if counts["changed"] == 1 else "cards"
    parts = [f"{counts['changed']} {card} {verb}",
             f"{counts['unchanged']} already {target}" if target else f"{counts['unchanged']} unchanged"]
    return summary_line(parts, counts["skipped"], counts["failed"])
