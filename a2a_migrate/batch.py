"""Migrating card files: one file in, one outcome out, and many in parallel.

:func:`migrate_file` is a pure function of its arguments (picklable in and
out), so a batch is a map over files, in worker processes when asked for, and
the results come back in input order whatever the number of workers.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from a2a_migrate import io
from a2a_migrate.api import migrate_in_place
from a2a_migrate.context import SEVERITIES, Note, Options, Severity
from a2a_migrate.discover import parse_card
from a2a_migrate.engine import Change, Direction

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

Status = Literal["changed", "unchanged", "failed", "skipped"]


@dataclass(frozen=True)
class Job:
    """What to do with every file of a batch."""

    direction: Direction
    options: Options = field(default_factory=Options)
    record: bool = False  # compute the labelled patch (for --patch and --report)
    fail_on: Severity | None = None  # the least severity that fails a card (--fail-on; --strict is "lossy")
    sniff: bool = False  # a file not named like a card is processed only if it looks like one
    write: Literal["no", "in_place", "to_folder"] = "no"  # where a worker writes the result
    output_dir: str | None = None  # for "to_folder": the tree mirroring the inputs' roots
    keep_text: bool = True  # send the old and new text back (diffs, reviews); large batches don't
    max_bytes: int | None = io.MAX_CARD_BYTES  # larger files are refused unread (--max-file-size)
    # Notes of these severities get their line and column in the input (issue 14), here where the
    # text is (a worker's outcome carries no text); none when nothing will show them.
    locate: tuple[Severity, ...] = ()


@dataclass
class Outcome:
    """What became of one input."""

    name: str
    status: Status
    source_version: str = ""
    target_version: str = ""
    notes: list[Note] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    old_text: str = ""
    new_text: str = ""
    error: str = ""
    #: The file the notes' line numbers count in, where ``name`` is not one (a JSONL line is ``SOURCE:LINE``).
    source: str = ""

    @property
    def patch(self) -> list[dict[str, Any]]:
        """The plain RFC 6902 operations."""
        return [change.op for change in self.changes]


def refusal_reason(notes: Sequence[Note], fail_on: Severity | None) -> str:
    """Why ``--fail-on`` refuses a card with ``notes`` ("" when it does not), naming the notes' places."""
    if fail_on is None:
        return ""
    least = SEVERITIES.index(fail_on)
    failing = [note for note in notes if least <= SEVERITIES.index(note.severity) < SEVERITIES.index("error")]
    if not failing:
        return ""
    counts = ", ".join(f"{sum(n.severity == s for n in failing)} {s}" for s in SEVERITIES if any(n.severity == s for n in failing))
    places = ", ".join(dict.fromkeys(note.pointer or "/" for note in failing))
    return f"refused by --fail-on {fail_on}: {counts} note(s) at {places}"


def migrate_text(text: str, name: str, job: Job) -> Outcome:
    """Migrate one card given as text."""
    loaded = parse_card(text, name, job.sniff)  # the same test of "is it a card" as every command's
    if loaded.document is None:
        return Outcome(name, "failed" if loaded.status == "failed" else "skipped", old_text=text, error=loaded.error)
    document = loaded.document
    result = migrate_in_place(document.data, job.direction, job.options,
                              original=document.original, record=job.record)
    outcome = Outcome(name, "unchanged", result.source_version, result.target_version,
                      result.notes, result.changes, text, text)
    refusal = refusal_reason(result.notes, job.fail_on) if result.ok else ""
    outcome.error = refusal
    refused = not result.ok or bool(refusal)
    if not refused and result.changed and job.options.signing is not None:  # issue 7: sign the final card
        signed = _sign(document.data, job.options)
        outcome.notes.extend(signed.notes)
        outcome.changes.extend(Change("sign", op) for op in signed.ops)
        refused = not signed.ok
    if job.locate:
        from a2a_migrate.locate import located

        outcome.notes = located(document, outcome.notes, job.locate)
    if refused:
        outcome.status = "failed"
    elif result.changed and job.write == "no" and not job.keep_text and document.format == "json":
        outcome.status = "changed"  # --check: the text itself is not needed (JSON values compare exactly)
    elif result.changed:
        outcome.new_text = document.render()
        outcome.status = "changed" if outcome.new_text != text else "unchanged"
    return outcome


def _sign(card: Any, options: Options) -> Any:
    """Sign a migrated card in place when the options carry a request (issue 7); a missing extra is an error note."""
    from a2a_migrate import signing

    try:
        return signing.sign_migrated(card, options)
    except signing.MissingExtra as error:  # the CLI checks it when it reads the key; API callers meet it here
        return signing.SignResult([Note("error", "sign", "/signatures", str(error))])


def unified_diff(outcome: Outcome) -> str:
    """A unified diff of one outcome, ``a/`` and ``b/`` prefixed like git's."""
    import difflib

    lines = difflib.unified_diff(outcome.old_text.splitlines(keepends=True), outcome.new_text.splitlines(keepends=True),
                                 f"a/{outcome.name.lstrip('/')}", f"b/{outcome.name.lstrip('/')}")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def migrate_file(path: str, job: Job, root: str | None = None) -> Outcome:
    """Migrate one card file and, as ``job.write`` says, write the result.

    Writing happens here, in the worker, so a batch sends back only notes and
    patches, not card texts (unless ``job.keep_text``). ``root`` is the folder
    the file was found under, for ``to_folder``.
    """
    return migrate_files([(path, job, root)])[0]


#: Items of a group: (path, job, root) as :func:`migrate_file` takes them.
Item = tuple[str, Job, "str | None"]


def migrate_files(items: Sequence[Item]) -> list[Outcome]:
    """Migrate a group of card files, writing their results as one :class:`io.WriteGroup`.

    Every result is written to a temporary file first; they are made durable
    together and only then renamed into place, so the group pays for one sync
    instead of one per card, and each card is still old or new after a crash.
    """
    group = io.WriteGroup()
    outcomes, targets = [], []
    for path, job, root in items:
        outcome, target = _migrate_one(path, job, root)
        outcomes.append(outcome)
        if target is not None:
            try:
                group.add(target, outcome.new_text)
                targets.append((outcome, target))
            except io.CardError as error:
                outcome.status, outcome.error = "failed", str(error)
    failed = group.commit()
    for outcome, target in targets:
        if target in failed:
            outcome.status, outcome.error = "failed", failed[target]
    for outcome, (_, job, _) in zip(outcomes, items):
        if not job.keep_text:
            outcome.old_text = outcome.new_text = ""
    return outcomes


def _migrate_one(path: str, job: Job, root: str | None) -> tuple[Outcome, Path | None]:
    """The outcome of one file and where its result is to be written (None: nowhere)."""
    try:
        text = io.read_text(Path(path), job.max_bytes)
    except io.CardError as error:
        return Outcome(path, "skipped" if job.sniff else "failed", error="" if job.sniff else str(error)), None
    outcome = migrate_text(text, path, job)
    return outcome, _target(outcome, job, root)


def _target(outcome: Outcome, job: Job, root: str | None) -> Path | None:
    if job.write == "no" or outcome.status not in ("changed", "unchanged"):
        return None
    if job.write == "to_folder" and job.output_dir is not None:
        base = Path(root) if root is not None else Path(outcome.name).parent
        return Path(job.output_dir) / Path(outcome.name).relative_to(base)
    # in place, and only what changed: mtimes of the rest stay
    return Path(outcome.name) if outcome.status == "changed" else None


def run_batch(paths: Iterable[tuple[str, bool]], job: Job, jobs: int = 1,
              roots: Mapping[str, str] | None = None) -> Iterator[Outcome]:
    """Migrate files, yielding outcomes in input order whatever the number of workers.

    ``paths`` holds ``(path, sniff)`` pairs: ``sniff`` means the file was not
    named like a card and is processed only if its content is one. ``roots``
    gives each path's root folder for ``Job.write == "to_folder"``.
    """
    items = [(path, replace(job, sniff=sniff), (roots or {}).get(path)) for path, sniff in paths]
    if jobs <= 1 or len(items) < 2:
        for group in _groups(items, GROUP):
            yield from migrate_files(group)
        return
    size = max(1, min(GROUP, len(items) // (jobs * 8)))
    with worker_pool(jobs) as pool:
        for outcomes in pool.map(migrate_files, _groups(items, size)):
            yield from outcomes


def worker_pool(jobs: int) -> ProcessPoolExecutor:
    """A pool of ``jobs`` worker processes that end with this one (use it as a context manager)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # fork: the workers are the batch's own children, which _die_with_parent relies on
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    return ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_die_with_parent,
                               initargs=(os.getpid(),))


#: Cards written per durable group: one sync pass each (see :class:`io.WriteGroup`); also the
#: most a worker holds before it reports back.
GROUP = 64


def _groups(items: Sequence[Item], size: int) -> Iterator[Sequence[Item]]:
    return (items[start:start + size] for start in range(0, len(items), size))


def _die_with_parent(parent: int) -> None:
    """Make a worker end when the batch's process is killed (Linux), not write on, orphaned."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the pool's own shutdown is all there is
        return
    if os.getppid() != parent:  # killed between fork and prctl: no signal will come, so go now
        os._exit(1)


def default_jobs() -> int:
    """One worker per CPU this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
