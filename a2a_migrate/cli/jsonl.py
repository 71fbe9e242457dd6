"""``upgrade --jsonl`` / ``downgrade --jsonl`` (issue 12): JSONL streams on the command line.

Each PATH is a JSONL file or ``-`` (stdin); each non-blank line is a card.
The result of each line goes to stdout (the migrated card as compact JSON, or
the line unchanged when it did not migrate), messages to stderr as
``PATH:LINE:COL: severity: ...`` for notes (the column in the line) and
``PATH:LINE: error: ...`` for a line that could not be read, and ``--report
FILE`` gets one JSON object per line. The work is :mod:`a2a_migrate.jsonl`'s;
this module reads and writes.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, IO

import click

from a2a_migrate.cli.common import EXIT_INPUT, UsageExit, echo_error, is_stdout, print_messages

if TYPE_CHECKING:
    from a2a_migrate.batch import Job
    from a2a_migrate.cli.migrate import Run, Tally
    from a2a_migrate.jsonl import LineResult


def execute_jsonl(run: Run) -> int:
    """Migrate every line of every PATH, writing results, messages and report lines as they come."""
    from a2a_migrate.batch import Job
    from a2a_migrate.cli.migrate import Tally, located_severities

    if run.scheduler is not None:
        return execute_registry(run)
    _refuse(run)
    job = Job(run.direction, run.options, record=run.report_file is not None, fail_on=run.fail_on,
              keep_text=not run.check, max_bytes=run.max_bytes, locate=located_severities(run, batch=True))
    tally = Tally(replace(run, report_file=None, show_patch=False))
    tally.batch = True  # a stream is a batch: one line per card that needs a look
    with _report_stream(run.report_file, EXIT_INPUT) as report:
        for path in run.paths:
            for result in _results(path, job, run.jobs, tally):
                tally.add(result.outcome, path)
                _write(result, report)
    return tally.finish()


def execute_registry(run: Run) -> int:
    """``--scheduler``: the lines of every PATH migrated on a Dask cluster, in parts under ``-o DIR``.

    Each part's first failed line is printed (the reports hold every line's
    notes), then where the parts are and the usual summary line.
    """
    from a2a_migrate import dask
    from a2a_migrate.batch import Job
    from a2a_migrate.cli.migrate import Tally

    _refuse_on_cluster(run)
    assert run.output_url is not None and run.scheduler is not None  # _refuse_on_cluster
    job = Job(run.direction, run.options, fail_on=run.fail_on, max_bytes=run.max_bytes)
    try:
        registry = dask.migrate_registry(run.paths, run.output_url, job, run.scheduler)
    except dask.MissingExtra as error:
        raise UsageExit(error.message) from None
    except dask.RegistryError as error:
        echo_error(error.place, error.message)
        return EXIT_INPUT
    for part in registry.parts:
        if part.first_failure is not None:
            print_messages(part.first_failure, run.verbosity, batch=True)
    tally = Tally(run)
    tally.counts.update(registry.counts)
    tally.yielded.update(run.paths)  # a PATH that named no file was an error already
    if run.verbosity >= 0:
        click.echo(f"{len(registry.parts)} parts in {run.output_url}: results/, reports/ (every line's notes "
                   f"and patch), parts.jsonl (each part's file and first line)", err=True)
    return tally.finish()



def _refuse_on_cluster(run: Run) -> None:
    """Usage errors for what a run on a cluster cannot do: it writes parts under -o, nothing to stdout."""
    if run.output_url is None:
        raise click.UsageError("--scheduler writes the results in parts: give -o DIR")
    for given, option in ((run.check, "--check"), (run.show_diff, "--diff"), (run.show_patch, "--patch"),
                          (run.report_file, "--report (the reports are in DIR/reports)"),
                          (run.include, "--include"), (run.exclude, "--exclude"), ("-" in run.paths, "- (stdin)")):
        if given:
            raise click.UsageError(f"--scheduler writes every result and report under -o DIR; {option} cannot be "
                                   f"used with it")
    if run.options.signing is not None:
        raise click.UsageError("--sign-key with --scheduler would send the private key to every worker; "
                               "sign the results afterwards")
    from a2a_migrate.dask import RegistryError, local_workers

    try:
        local_workers(run.scheduler or "")
    except RegistryError as error:
        raise click.UsageError(f"--scheduler {error.place}: {error.message}") from None


def _refuse(run: Run) -> None:
    """Usage errors for options that make no sense with a stream on stdout."""
    for given, option in ((run.show_diff, "--diff"), (run.show_patch, "--patch"), (run.output_dir, "-o"),
                          (run.include, "--include"), (run.exclude, "--exclude")):
        if given:
            raise click.UsageError(f"--jsonl reads the named streams and writes the results to stdout; "
                                   f"{option} cannot be used with it")
    if is_stdout(run.report_file) and not run.check:
        raise click.UsageError("--report - and the --jsonl results would both go to stdout; give --report a FILE")


def _results(path: str, job: Job, jobs: int, tally: Tally) -> Iterator[LineResult]:
    """The results of one PATH's lines; a file that cannot be opened is a failed input."""
    from a2a_migrate.batch import Outcome
    from a2a_migrate.jsonl import migrate_lines, read_lines

    if path == "-":
        yield from migrate_lines(read_lines(sys.stdin.buffer, job.max_bytes), job, jobs, "-")
        return
    try:
        stream = open(path, "rb")  # noqa: SIM115  (closed below, after the lazy reading)
    except OSError as error:
        tally.add(Outcome(path, "failed", error=f"cannot read: {error.strerror or error}"), path)
        return
    with stream:
        yield from migrate_lines(read_lines(stream, job.max_bytes), job, jobs, path)


def _write(result: LineResult, report: IO[str] | None) -> None:
    """Write a line's result to stdout (bytes as read, for lines that were not UTF-8) and its report line."""
    output = result.output_bytes()
    if output is not None:
        sys.stdout.buffer.write(output)
    if report is not None:
        report.write(result.report_line())


@contextmanager
def _report_stream(report_file: Path | None, exit_code: int) -> Iterator[IO[str] | None]:
    """The ``--report`` stream: None without one, stdout for ``-``, else the file (written as it goes).

    A report file that cannot be opened ends the run with ``exit_code`` before any line is read.
    """
    if report_file is None:
        yield None
        return
    if is_stdout(report_file):
        yield sys.stdout
        return
    try:
        stream = open(report_file, "w", encoding="utf-8")  # noqa: SIM115  (closed below)
    except OSError as error:
        echo_error(str(report_file), f"cannot write: {error.strerror or error}")
        sys.exit(exit_code)
    with stream:
        yield stream
