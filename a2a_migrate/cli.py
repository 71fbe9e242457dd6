"""The command line: a thin layer over :mod:`a2a_migrate.batch`.

Data goes to stdout, messages to stderr. Exit codes: 0 success; 1 ``--check``
found work (or ``validate`` found an invalid card); 2 usage error; 123 at least
one input could not be processed (the others still were).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import click

from a2a_migrate import __version__, discover, io
from a2a_migrate.cli_inputs import Inputs, input_options, is_stdout, no_cards_found, summary_line, verbosity
from a2a_migrate.context import SEVERITIES, Note, Options, Severity
from a2a_migrate.progress import Progress

if TYPE_CHECKING:  # the batch (and through it the chain) is imported by the commands that migrate, when they run
    from a2a_migrate.batch import Job, Outcome
    from a2a_migrate.engine import Direction

EXIT_OK, EXIT_CHECK, EXIT_USAGE, EXIT_INPUT = 0, 1, 2, 123
F = TypeVar("F", bound=Callable[..., Any])
_VERBOSITY = {-1: {"error"}, 0: {"assumed", "warning", "lossy", "error"}, 1: {"info", "assumed", "warning", "lossy", "error"}}
_WORDS = {"up": ("upgraded", "1.0"), "down": ("downgraded", "0.3")}


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="a2a-migrate")
def main() -> None:
    """Upgrade A2A Agent Cards to protocol 1.0, or downgrade them for 0.3 clients.

    Every change is made by a named transform, can be shown as a diff or an RFC
    6902 patch, and anything the target version cannot hold is reported with
    its JSON pointer.
    """


def _protocol_version(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``Major.Minor`` of a version the user typed, or a usage error."""
    from a2a_migrate.versions import major_minor

    if value is None:
        return None
    version = major_minor(value)
    if version is None:
        raise click.BadParameter(f"{json.dumps(value)} is not a protocol version such as 0.3 or 1.0")
    return version


def _migration_options(command: F) -> F:
    from a2a_migrate.cli_signing import sign_options  # issue 7: re-signing
    from a2a_migrate.cli_transforms import chain_options  # issue 13: recipes, --skip/--only, plugins

    decorators = [
        click.argument("paths", nargs=-1, required=True, metavar="PATH..."),
        click.option("-o", "--output", "output_dir", type=click.Path(file_okay=False, path_type=Path),
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
        click.option("--interface-version", metavar="VERSION", callback=_protocol_version,
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
        sign_options,  # issue 7: --sign-key, --kid, --jku, --alg (a2a_migrate/cli_signing.py)
        chain_options,  # issue 13: --skip, --only, --plugin, --recipe (a2a_migrate/cli_transforms.py)
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
class _Run:
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

    @property
    def writes(self) -> bool:
        return not (self.check or self.show_diff or self.show_patch)


_HYBRID = click.option(
    "--hybrid", is_flag=True,
    help="Write a hybrid card that 1.0 and 0.3 clients both read: the 1.0 card plus the 0.3 members beside it "
         "(as the official SDK's server serves it). The cost: strict 1.0 parsers reject it, and signatures cover "
         "all of it (old ones are dropped). Same result from upgrade and downgrade.")


@main.command()
@_migration_options
@_HYBRID
def upgrade(**kwargs: Any) -> None:
    """Upgrade cards (0.3 and older) to protocol 1.0.

    PATH is a card file, a folder (searched for card files) or - (stdin to
    stdout). Files are rewritten in place, atomically, only when they change.
    """
    sys.exit(_migrate("up", **kwargs))


@main.command()
@_migration_options
@_HYBRID
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

    PATH is a card file, a folder (searched for card files) or - (stdin to
    stdout). Files are rewritten in place, atomically, only when they change.
    """
    sys.exit(_migrate("down", **kwargs))


def least_failing(strict: bool, fail_on: Severity | None) -> Severity | None:
    """``--strict`` is ``--fail-on lossy``; with both, the stricter (lesser) severity wins."""
    chosen = [severity for severity in (fail_on, "lossy" if strict else None) if severity is not None]
    return min(chosen, key=SEVERITIES.index) if chosen else None


def _migrate(direction: Direction, *, paths: Sequence[str], output_dir: Path | None, check: bool,
             show_diff: bool, show_patch: bool, report_file: Path | None, strict: bool, fail_on: Severity | None,
             interface_version: str | None, default_name: str | None, default_description: str | None,
             default_version: str | None, default_url: str | None, default_provider_url: str | None,
             keep_signatures: bool,
             include: Sequence[str], exclude: Sequence[str], jobs: int | None, quiet: bool, verbose: bool,
             max_file_size: int = io.MAX_CARD_BYTES, jsonl: bool = False, output_format: str = "text",
             **extra: Any) -> int:
    from a2a_migrate.batch import default_jobs
    from a2a_migrate.cli_signing import pop_signing_request, with_signing  # issue 7: re-signing

    if output_format == "github" and (not check or jsonl):  # issue 14: annotations say what --check found
        raise click.UsageError("--format github goes with --check (and not with --jsonl)")
    sign_request = pop_signing_request(extra)  # issue 7: reads and checks the key (exit 2 if unusable)
    options = Options(interface_version=interface_version, default_name=default_name,
                      default_description=default_description, default_version=default_version,
                      default_url=default_url, default_provider_url=default_provider_url,
                      keep_signatures=keep_signatures, **extra)
    options = with_signing(options, sign_request)  # issue 7: batch.migrate_text signs what it writes
    options = cli_transforms.checked(options)  # issue 13: a chain that cannot run is a usage error
    run = _Run(direction, paths, output_dir, check, show_diff, show_patch, report_file, least_failing(strict, fail_on),
               options,
               include, exclude, jobs or default_jobs(), verbosity(quiet, verbose), max_file_size,
               output_format)
    if jsonl:  # issue 12: JSONL streams (a2a_migrate/cli_jsonl.py)
        from a2a_migrate.cli_jsonl import execute_jsonl

        return execute_jsonl(run)
    return _execute(run)


def _execute(run: _Run) -> int:
    """Migrate every input, streaming messages (and diffs) in input order.

    Workers write the cards themselves; only what a report or a patch needs
    is kept, so memory does not grow with the batch.
    """
    from a2a_migrate.batch import Job, Outcome, run_batch

    _refuse_shared_stdout(run)
    write: Literal["no", "in_place", "to_folder"] = (
        "no" if not run.writes else "to_folder" if run.output_dir is not None else "in_place")
    job = Job(run.direction, run.options, record=run.show_patch or run.report_file is not None, fail_on=run.fail_on,
              write=write, output_dir=str(run.output_dir) if run.output_dir is not None else None,
              keep_text=run.show_diff, max_bytes=run.max_bytes)
    found, problems = discover.expand(run.paths, run.include, run.exclude, remove_stale=run.writes)
    tally = _Tally(run, found)
    for problem in problems:
        tally.add(Outcome(problem.path, "failed", error=problem.reason), problem.arg)
    order = [str(item.path) for item in found]
    files = [(str(item.path), item.sniff) for item in found if item.arg != "-"]
    roots = {str(item.path): str(item.root) for item in found}
    if run.writes and run.output_dir is not None:
        clashes = _clashes(files, roots, run.output_dir)
        for name, earlier in clashes.items():
            tally.add(Outcome(name, "failed", error=f"its result would overwrite that of {earlier} in {run.output_dir}"))
        files = [(name, sniff) for name, sniff in files if name not in clashes]
        order = [name for name in order if name not in clashes]
    stdin = _migrate_stdin(job, run) if "-" in order else None
    tally.progress = Progress.for_terminal(len(files), sys.stderr, run.verbosity < 0)
    for outcome in _with_stdin(run_batch(files, job, run.jobs, roots), stdin, order):
        tally.add(outcome)
    tally.progress.clear()
    return tally.finish()


def _refuse_shared_stdout(run: _Run) -> None:
    """Usage errors for option pairs that would mix two outputs, or lose one, silently."""
    stdin = "-" in run.paths
    if stdin and run.output_dir is not None:
        raise click.UsageError("-o writes files: the card read from stdin (-) is written to stdout; "
                               "name card files, or leave out -o")
    if is_stdout(run.report_file) and (run.show_diff or run.show_patch or (stdin and run.writes)):
        shown = "--diff" if run.show_diff else "--patch" if run.show_patch else "the card read from stdin (-)"
        raise click.UsageError(f"--report - and {shown} would both go to stdout; give --report a FILE")


def _clashes(files: list[tuple[str, bool]], roots: dict[str, str], output_dir: Path) -> dict[str, str]:
    """Inputs whose ``-o`` target another input already has: ``{later: earlier}``."""
    taken: dict[Path, str] = {}
    clashes: dict[str, str] = {}
    for name, _ in files:
        target = output_dir / Path(name).relative_to(roots[name])
        if target in taken:
            clashes[name] = taken[target]
        else:
            taken[target] = name
    return clashes


def _with_stdin(results: Iterator[Outcome], stdin: Outcome | None, order: list[str]) -> Iterator[Outcome]:
    # stdin is processed first (it cannot go to a worker) but reported in argument order.
    for name in order:
        yield stdin if name == "-" and stdin is not None else next(results)


def _migrate_stdin(job: Job, run: _Run) -> Outcome:
    from a2a_migrate.batch import Outcome, migrate_text

    try:
        text = io.read_stream(sys.stdin.buffer, run.max_bytes)
    except io.CardError as error:
        return Outcome("-", "failed", error=str(error))
    outcome = migrate_text(text, "-", replace(job, write="no", keep_text=True))
    if run.writes and outcome.status in ("changed", "unchanged"):
        sys.stdout.write(outcome.new_text)
    return outcome


class _Tally:
    """Prints each outcome as it comes and keeps what the end of the run needs."""

    def __init__(self, run: _Run, found: Sequence[discover.Found] = ()) -> None:
        self.run = run
        self.counts: Counter[str] = Counter()
        self.kept: list[Outcome] = []  # for --patch and --report only
        self.progress = Progress(0, sys.stderr, False)
        self.args: dict[str, str] = {}  # each input's PATH argument, to tell which PATH gave no card
        for item in found:
            self.args.setdefault(str(item.path), item.arg)
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
                _print_messages(outcome, self.run.verbosity, self.batch)
        if self.run.show_diff and outcome.status == "changed":
            from a2a_migrate.batch import unified_diff

            sys.stdout.write(unified_diff(outcome))
        if self.run.show_patch or self.run.report_file is not None:
            outcome.old_text = outcome.new_text = ""
            self.kept.append(outcome)

    def _annotate(self, outcome: Outcome) -> None:
        """Issue 14: the card's error, notes and (``--check``) pending change as GitHub annotations."""
        from a2a_migrate import cli_ci

        done, target = _WORDS[self.run.direction]
        target = "a hybrid card" if self.run.options.hybrid else target
        would = f"would be {done} to {target}" if self.run.options.version_chain else "would change"
        cli_ci.print_annotations(cli_ci.outcome_findings(outcome, _VERBOSITY[self.run.verbosity], would))

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


#: What a card of a batch is reported for at the default verbosity: what needs a look.
_NEEDS_A_LOOK = ("warning", "lossy", "error")


def _print_messages(outcome: Outcome, verbosity: int, batch: bool = False) -> None:
    """Print a card's error and notes as the verbosity asks (-q errors, -v everything).

    In a batch at the default verbosity, a card is one line, and only if it
    needs a look: its error or its most severe warning or lossy note, with how
    many more there are. Assumed notes of thousands of cards would bury those;
    ``-v`` and ``--report`` still give every note.
    """
    if batch and verbosity == 0:
        _print_one_line(outcome)
        return
    if outcome.error:
        click.echo(f"{outcome.name}: error: {outcome.error}", err=True)
    shown = _VERBOSITY[verbosity]
    for note in outcome.notes:
        if note.severity in shown:  # -q: errors only (a card refused for lossy notes says so in its error)
            click.echo(f"{outcome.name}: {_note_line(note)}", err=True)


def _note_line(note: Note) -> str:
    """``severity: [transform] /pointer: message``, as every note is printed."""
    where = f" {note.pointer}:" if note.pointer else ""
    return f"{note.severity}: [{note.transform}]{where} {note.message}"


def _print_one_line(outcome: Outcome) -> None:
    notes = sorted((note for note in outcome.notes if note.severity in _NEEDS_A_LOOK),
                   key=lambda note: -SEVERITIES.index(note.severity))
    lines = [f"error: {outcome.error}"] if outcome.error else []
    lines += [_note_line(note) for note in notes]
    if lines:
        more = f" (and {len(lines) - 1} more: -v shows all)" if len(lines) > 1 else ""
        click.echo(f"{outcome.name}: {lines[0]}{more}", err=True)


def _print_patch(outcomes: list[Outcome], run: _Run) -> None:
    """One input: its patch as an array; several: an object keyed by path."""
    patchable = [o for o in outcomes if o.status in ("changed", "unchanged")]
    if len(run.paths) == 1 and not Path(run.paths[0]).is_dir():
        document: Any = patchable[0].patch if patchable else []  # one input: always an array
    else:
        document = {outcome.name: outcome.patch for outcome in patchable}
    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def _write_report(run: _Run, outcomes: list[Outcome]) -> bool:
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
        click.echo(f"{run.report_file}: error: {error}", err=True)
        return False
    return True


def _summary(counts: Mapping[str, int], run: _Run) -> str:
    """The black-style closing line: ``12 cards upgraded, 3 already 1.0, 2 skipped, 1 failed``."""
    done, target = _WORDS[run.direction] if run.options.version_chain else ("transformed", "")  # issue 13
    target = "hybrid" if run.options.hybrid else target
    counts = {status: counts.get(status, 0) for status in ("changed", "unchanged", "skipped", "failed")}
    verb = f"would be {done}" if run.check or not run.writes else done
    card = "card" if counts["changed"] == 1 else "cards"
    parts = [f"{counts['changed']} {card} {verb}",
             f"{counts['unchanged']} already {target}" if target else f"{counts['unchanged']} unchanged"]
    return summary_line(parts, counts["skipped"], counts["failed"])


@main.command()
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text",
              help="text: one line per card on stdout; json: one document for machines.")
@input_options("detect")
def detect(paths: Sequence[str], output_format: str, include: Sequence[str], exclude: Sequence[str],
           max_file_size: int) -> None:
    """Print each card's protocol version, judged by its shape.

    One line per card: PATH: VERSION, where VERSION is 1.0, hybrid (1.0 with
    0.3 members), 0.3, 0.2, 0.1 or unknown. PATH is a card file, a folder
    (searched for cards, as upgrade does) or - (stdin). With --format json,
    one document instead: {"cards": [{"path": PATH, "version": VERSION}, ...]}.
    """
    from a2a_migrate.versions import detect_version

    inputs = Inputs(paths, include, exclude, max_file_size)
    versions: Counter[str] = Counter()
    cards = []
    for card in inputs:
        version = detect_version(card.document.original) if card.document else ""
        versions[version] += 1
        cards.append({"path": card.name, "version": version})
        if output_format == "text":
            click.echo(f"{card.name}: {version}")
    if output_format == "json":
        click.echo(json.dumps({"cards": cards}, indent=2, ensure_ascii=False))
    inputs.empty()
    detected = sum(versions.values())
    parts = [f"{detected} {'card' if detected == 1 else 'cards'} detected"]
    parts += [f"{count} {version}" for version, count in sorted(versions.items())]
    click.echo(inputs.summary(*parts), err=True)
    sys.exit(EXIT_INPUT if inputs.failed else EXIT_OK)


@main.command("validate")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--version", "version", type=click.Choice(["0.3", "1.0"]), default=None,
              help="Validate against this version instead of the one the card has by shape.")
@click.option("--format", "output_format", type=click.Choice(["text", "json", "github", "sarif"]), default="text",
              help="text: one line per finding on stdout; json: one document for machines; github: GitHub Actions "
                   "annotations; sarif: a SARIF 2.1.0 log (code scanning).")
@click.option("--strict", is_flag=True, help="Warnings make a card invalid too.")
@input_options("validate")
def validate_command(paths: Sequence[str], version: str | None, output_format: str, strict: bool,
                     include: Sequence[str], exclude: Sequence[str], max_file_size: int) -> None:
    """Check cards against the 0.3 JSON Schema or the 1.0 proto's rules, plus lint.

    One line per finding: PATH: error|warning: /pointer: message [rule]. Exit 1
    when any card is invalid (has an error; with --strict, any finding), 123
    when a file cannot be read or a PATH holds no card (a check that checked
    nothing must not pass).
    """
    inputs = Inputs(paths, include, exclude, max_file_size)
    results = [_validate_card(card, version, strict, output_format) for card in inputs]
    invalid = sum(not result["valid"] for result in results)
    if output_format == "json":
        click.echo(json.dumps({"cards": results}, indent=2, ensure_ascii=False))
    elif output_format in ("github", "sarif"):  # issue 14: CI formats (a2a_migrate/cli_ci.py)
        from a2a_migrate import cli_ci

        findings = cli_ci.validation_findings(results)
        if output_format == "github":
            cli_ci.print_annotations(findings)
        else:
            cli_ci.print_sarif(findings, __version__)
    empty = inputs.empty()
    click.echo(inputs.summary(f"{len(results) - invalid} valid", f"{invalid} invalid"), err=True)
    sys.exit(EXIT_INPUT if inputs.failed or empty else EXIT_CHECK if invalid else EXIT_OK)


def _validate_card(card: discover.Loaded, version: str | None, strict: bool, output_format: str) -> dict[str, Any]:
    """Validate one card, print its findings (text format), and return its entry of the JSON document."""
    from a2a_migrate.validate import validate
    from a2a_migrate.versions import detect_version

    assert card.document is not None  # Inputs yields only cards that parsed
    findings = validate(card.document.original, version)
    if output_format == "text":
        for f in findings:
            click.echo(f"{card.name}: {f.severity}: {f.pointer or '/'}: {f.message} [{f.rule}]")
    return {"path": card.name, "version": version or detect_version(card.document.original),
            "valid": not any(f.severity == "error" or strict for f in findings),
            "findings": [{"severity": f.severity, "pointer": f.pointer, "message": f.message, "rule": f.rule}
                         for f in findings]}


# -- issue 7: the signing commands (a2a_migrate/cli_signing.py) -------------------------
from a2a_migrate import cli_signing  # noqa: E402  (after main: cli_signing must not import cli)

main.add_command(cli_signing.sign_command)
main.add_command(cli_signing.verify_command)


# -- issue 6: the review commands (a2a_migrate/cli_review.py) -------------------------
from a2a_migrate.cli_review import apply_command, diff_command, plan_command  # noqa: E402  (after main)

main.add_command(plan_command)
main.add_command(apply_command)
main.add_command(diff_command)


# -- issue 13: recipes and choosing transforms (a2a_migrate/cli_transforms.py) ----------------
from a2a_migrate import cli_transforms  # noqa: E402  (after main: cli_transforms imports cli only inside)

main.add_command(cli_transforms.transform_command)
main.add_command(cli_transforms.transforms_command)
