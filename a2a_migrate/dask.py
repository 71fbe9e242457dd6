"""A Dask engine for registries (issue 12): JSONL files migrated on a cluster, results in parts.

:func:`migrate_registry` cuts the input files (local paths or fsspec URLs such
as ``s3://``, globs allowed) into blocks of whole lines, maps
:func:`a2a_migrate.jsonl.migrate_lines` over a ``dask.bag`` of the blocks, and
has each worker write its block's results and report lines:

    OUT/results/part-00000.jsonl   one result per input line, as ``--jsonl`` writes them
    OUT/reports/part-00000.jsonl   one report object per input line, as ``--jsonl --report``
    OUT/parts.jsonl                which file and lines each part holds, and its counts

A part is one block of one file, numbered in input order (files in the order
given, a glob's files sorted, blocks by offset), so the same inputs and block
size give the same names whatever the cluster, and the parts concatenated in
name order are what the single-process run writes. Line numbers are the files'
own: blocks after the first of a file have their newlines counted first (a
cheap pass), so each block knows the number of its first line.

A block is written to a temporary name and renamed into place, so a worker
lost mid-run leaves no half part: Dask runs the block again elsewhere. Dask
and distributed are an optional extra (``pip install 'a2a-migrate[dask]'``):
they are imported only when a run starts.
"""

from __future__ import annotations

import io
import json
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from a2a_migrate.batch import Job, Outcome
from a2a_migrate.context import SEVERITIES
from a2a_migrate.jsonl import Line, migrate_lines, read_lines

if TYPE_CHECKING:
    from distributed import Client

INSTALL_HINT = "pip install 'a2a-migrate[dask]'"
#: Bytes of input per block (one task, one part): large enough that a task outweighs its scheduling.
BLOCK_SIZE = 8 * 1024 * 1024
#: Runs of a block that failed with an exception (a read that broke, say) before the run fails.
RETRIES = 2
_CHUNK = 1024 * 1024


class RegistryError(ValueError):
    """A registry run that cannot start or finish: where (a file, a folder, the scheduler) and why, in one line."""

    def __init__(self, place: str, message: str) -> None:
        super().__init__(f"{place}: {message}")
        self.place, self.message = place, message


class MissingExtra(RegistryError):
    """Dask or distributed is not installed."""


@dataclass(frozen=True)
class Block:
    """Bytes ``start``–``end`` of one input file: it holds the lines that begin there."""

    index: int
    fs: Any  # the file's fsspec file system (picklable: workers open the file with it)
    path: str  # as the file system names it
    shown: str  # as messages name it: the path for local files, else the URL
    start: int
    end: int
    size: int  # of the whole file
    first_line: int = 1  # the number of the first line that begins in the block

    @property
    def name(self) -> str:
        """The part's file name: ``part-NNNNN.jsonl``."""
        return f"part-{self.index:05d}.jsonl"


@dataclass
class Part:
    """What one block gave: its counts of outcomes and its first failure (to show; the report has all)."""

    name: str
    source: str
    first_line: int
    lines: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    first_failure: Outcome | None = None

    def manifest_line(self) -> str:
        """The part's line of ``parts.jsonl``."""
        entry = {"part": self.name, "source": self.source, "firstLine": self.first_line, "lines": self.lines,
                 **{status: self.counts.get(status, 0) for status in ("changed", "unchanged", "failed")}}
        return json.dumps(entry, ensure_ascii=False) + "\n"


@dataclass
class RegistryRun:
    """A finished run: its parts in order, and where they were written."""

    output: str
    parts: list[Part]

    @property
    def counts(self) -> Counter[str]:
        """Outcomes of every line: ``changed``, ``unchanged``, ``failed``."""
        total: Counter[str] = Counter()
        for part in self.parts:
            total.update(part.counts)
        return total


def migrate_registry(inputs: str | Sequence[str], output: str, job: Job, scheduler: str | Client | None = None,
                     *, block_size: int = BLOCK_SIZE, pause: Callable[[Line], None] | None = None) -> RegistryRun:
    """Migrate every line of the JSONL files ``inputs`` on a Dask cluster, writing parts under ``output``.

    ``inputs``: paths or fsspec URLs, globs allowed. ``job``: the direction and
    options, as for :func:`a2a_migrate.jsonl.migrate_lines` (the reports are
    those of ``--report``: patches recorded, every note given its line and column). ``scheduler``: a ``distributed.Client``, a
    scheduler address (``tcp://host:8786``), ``local:N`` (a ``LocalCluster`` of
    N worker processes, started and stopped here) or None (``local`` with one
    worker per CPU). ``pause`` is called in the worker before each line (tests
    hold a block mid-run with it). Raises :class:`RegistryError` (one line)
    when the inputs, the output folder or the cluster cannot be used.
    """
    _require_extra()
    import fsspec

    job = replace(job, record=True, keep_text=True, locate=SEVERITIES)  # the reports are --report's: every note placed
    with _storage(output):
        out_fs, root = fsspec.core.url_to_fs(output)
        root = root.rstrip("/")
        _refuse_used_output(out_fs, root, output)
    blocks = plan_blocks(inputs, block_size)
    with _client(scheduler) as client:
        blocks = _numbered(blocks, client)
        with _storage(output):
            for folder in ("results", "reports"):
                out_fs.makedirs(f"{root}/{folder}", exist_ok=True)
        parts = _run(client, blocks, job, out_fs, root, pause)
    _write_manifest(out_fs, root, parts)
    return RegistryRun(output, parts)


@contextmanager
def _storage(place: str) -> Iterator[None]:
    """fsspec's errors as one :class:`RegistryError` line: an unknown protocol, a missing filesystem library
    (``s3fs``, ``gcsfs``), a refused or failed access."""
    try:
        yield
    except RegistryError:
        raise
    except (ImportError, ValueError, OSError) as error:
        raise RegistryError(place, str(error) or type(error).__name__) from None


def _require_extra() -> None:
    try:
        import dask.bag  # noqa: F401
        import distributed  # noqa: F401
    except ImportError as error:
        missing = (error.name or "dask").split(".")[0]
        raise MissingExtra(__name__, f"the Dask engine needs {missing}, which is not installed: {INSTALL_HINT}") \
            from None


# -- planning: files, blocks, line numbers -----------------------------------------------------------


def plan_blocks(inputs: str | Sequence[str], block_size: int = BLOCK_SIZE) -> list[Block]:
    """The blocks of every input file, in order (line numbers not known yet: see :func:`migrate_registry`)."""
    if block_size < 1:
        raise RegistryError(f"block size {block_size}", "must be at least 1 byte")
    blocks: list[Block] = []
    for fs, path, shown in _files([inputs] if isinstance(inputs, str) else list(inputs)):
        try:
            size = int(fs.size(path))
        except OSError as error:
            raise RegistryError(shown, f"cannot read: {error.strerror or error}") from None
        for start in range(0, max(size, 1), block_size):  # an empty file is one empty part
            blocks.append(Block(len(blocks), fs, path, shown, start, min(start + block_size, size), size))
    return blocks


def _files(patterns: list[str]) -> Iterator[tuple[Any, str, str]]:
    """``(fs, path, shown)`` of each file the patterns name, each once, in the patterns' order."""
    import fsspec

    if not patterns:
        raise RegistryError("inputs", "no input files named")
    seen: set[tuple[str, str]] = set()
    for pattern in patterns:
        with _storage(pattern):
            fs, path = fsspec.core.url_to_fs(pattern)
            paths = sorted(fs.glob(path)) if fsspec.core.has_magic(path) else [path] if fs.isfile(path) else []
            paths = [found for found in paths if fs.isfile(found)]
        if not paths:
            raise RegistryError(pattern, "no file matches" if fsspec.core.has_magic(path) else "no such file")
        for found in paths:
            key = (str(fs.protocol), found)
            if key not in seen:
                seen.add(key)
                yield fs, found, _shown(fs, found, pattern)


def _shown(fs: Any, path: str, pattern: str) -> str:
    """How messages name a file: as the user would (relative if the pattern was), a URL when not local."""
    import os

    if "file" not in (fs.protocol if isinstance(fs.protocol, tuple) else (fs.protocol,)):
        return str(fs.unstrip_protocol(path))
    return path if os.path.isabs(pattern) or "://" in pattern else os.path.relpath(path)


def _numbered(blocks: list[Block], client: Client) -> list[Block]:
    """The blocks with the number of their first line, from the newlines counted before each."""
    needed = [block for block in blocks if block.end < block.size]  # the last block's count is never needed
    counts = _compute(client, [_bag(needed).map(count_newlines)], "counting lines")[0] if needed else []
    counted = dict(zip((block.index for block in needed), counts))
    numbered, before = [], 0
    for block in blocks:
        if block.start == 0:
            before = 0
        # Lines begun before ``start``: the first (at 0), and one after each newline up to start - 1.
        numbered.append(replace(block, first_line=1 if block.start == 0 else before + 2))
        before += counted.get(block.index, 0)
    return numbered


def count_newlines(block: Block) -> int:
    """Newlines in bytes ``start - 1`` to ``end - 1`` of the block's file (the blocks' spans tile the file)."""
    start = max(block.start - 1, 0)
    with block.fs.open(block.path, "rb") as raw:
        return sum(chunk.count(b"\n") for chunk in _chunks(raw, start, block.end - 1))


def line_start(raw: Any, offset: int, size: int) -> int:
    """The first line start at or after ``offset``: 0, or just after the first newline at ``offset - 1`` on."""
    if offset == 0:
        return 0
    position = offset - 1
    for chunk in _chunks(raw, position, size):
        found = chunk.find(b"\n")
        if found >= 0:
            return position + found + 1
        position += len(chunk)
    return size


def _chunks(raw: Any, start: int, end: int) -> Iterator[bytes]:
    """Bytes ``start`` to ``end`` of an open file, a chunk at a time."""
    raw.seek(start)
    left = end - start
    while left > 0:
        chunk = raw.read(min(_CHUNK, left))
        if not chunk:
            return
        left -= len(chunk)
        yield chunk


# -- running ----------------------------------------------------------------------------------------


def _bag(blocks: list[Block]) -> Any:
    """A bag of blocks, one per partition: a block is a task, run again as a whole if its worker is lost."""
    import dask.bag

    return dask.bag.from_sequence(blocks, partition_size=1)


def _compute(client: Client, collections: list[Any], doing: str) -> list[Any]:
    """Compute on the cluster; a block that failed after its retries is a :class:`RegistryError`."""
    try:
        return list(client.gather(client.compute(collections, retries=RETRIES)))
    except RegistryError:
        raise
    except BlockFailed as error:  # it names its block already
        raise RegistryError(doing, str(error)) from None
    except Exception as error:  # noqa: BLE001 - whatever a worker raised comes back here: one line, not a traceback
        raise RegistryError(doing, f"{type(error).__name__}: {error}") from None


def _run(client: Client, blocks: list[Block], job: Job, out_fs: Any, root: str,
         pause: Callable[[Line], None] | None) -> list[Part]:
    bag = _bag(blocks).map(migrate_block, job, out_fs, root, pause)
    try:
        return list(_compute(client, [bag], "migrating")[0])
    finally:
        _remove_temporary(out_fs, root)  # left by workers lost mid-write


def migrate_block(block: Block, job: Job, out_fs: Any, root: str,
                  pause: Callable[[Line], None] | None = None) -> Part:
    """Migrate the lines that begin in ``block`` and write its result and report parts (a worker's task).

    Whatever fails is raised naming the block (Dask runs it again; a run that gives up says which)."""
    try:
        return _migrate_block(block, job, out_fs, root, pause)
    except ReadFailed:
        raise
    except Exception as error:  # noqa: BLE001 - one line naming the block, not the worker's traceback
        raise BlockFailed(f"{block.shown} ({block.name}): {type(error).__name__}: {error}") from None


def _migrate_block(block: Block, job: Job, out_fs: Any, root: str, pause: Callable[[Line], None] | None) -> Part:
    part = Part(block.name, block.shown, block.first_line)
    results, reports = (f"{root}/{folder}/{block.name}" for folder in ("results", "reports"))
    with block.fs.open(block.path, "rb") as raw, _temporary(out_fs, results) as result_file, \
            _temporary(out_fs, reports) as report_file:
        start = line_start(raw, block.start, block.size)
        end = line_start(raw, block.end, block.size) if block.end < block.size else block.size
        window = io.BufferedReader(_Window(raw, start, end, block.shown), _CHUNK)
        lines: Iterator[Line] = read_lines(window, job.max_bytes, block.first_line)
        for result in migrate_lines(_paused(lines, pause), job, 1, block.shown):
            part.lines += 1
            part.counts[result.outcome.status] += 1
            if result.outcome.status == "failed" and part.first_failure is None:
                part.first_failure = result.outcome
            output = result.output_bytes()
            if output is not None:
                result_file.write(output)
            report_file.write(result.report_line().encode("utf-8"))
    return part


def _paused(lines: Iterator[Line], pause: Callable[[Line], None] | None) -> Iterator[Line]:
    for line in lines:
        if pause is not None:
            pause(line)
        yield line


class BlockFailed(RuntimeError):
    """A block's task failed; the message names the block (a plain one-argument exception: it crosses processes)."""


class ReadFailed(BlockFailed):
    """A block's file could not be read: the task fails (and Dask runs it again), no line is lost."""


class _Window(io.RawIOBase):
    """Bytes ``start`` to ``end`` of an open file, as a stream of their own.

    A read that fails raises :class:`ReadFailed`, not ``OSError``: a stream's
    reader ends the stream at an ``OSError``, a block must be run again instead.
    """

    def __init__(self, raw: Any, start: int, end: int, shown: str) -> None:
        super().__init__()
        self.raw, self.position, self.end, self.shown = raw, start, end, shown
        raw.seek(start)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        wanted = min(len(buffer), self.end - self.position)
        if wanted <= 0:
            return 0
        try:
            data = self.raw.read(wanted)
        except OSError as error:
            raise ReadFailed(f"{self.shown}: cannot read at byte {self.position}: {error.strerror or error}") from None
        buffer[:len(data)] = data
        self.position += len(data)
        return len(data)


@contextmanager
def _temporary(fs: Any, path: str) -> Iterator[Any]:
    """A file written under a temporary name beside ``path`` and renamed to it when complete."""
    folder, name = path.rsplit("/", 1)
    temporary = f"{folder}/.{name}.{uuid.uuid4().hex}.tmp"
    try:
        with fs.open(temporary, "wb") as stream:
            yield stream
        fs.mv(temporary, path)
    finally:
        if fs.exists(temporary):
            fs.rm(temporary)


def _remove_temporary(fs: Any, root: str) -> None:
    for folder in ("results", "reports"):
        for leftover in fs.glob(f"{root}/{folder}/.part-*.tmp"):
            fs.rm(leftover)


def _refuse_used_output(fs: Any, root: str, output: str) -> None:
    """Parts of another run would mix with this run's: refuse a folder that has them."""
    used = fs.exists(f"{root}/parts.jsonl") or any(fs.glob(f"{root}/{folder}/part-*.jsonl")
                                                  for folder in ("results", "reports"))
    if used:
        raise RegistryError(output, "already holds the parts of a run; remove them or choose another folder")


def _write_manifest(fs: Any, root: str, parts: list[Part]) -> None:
    with _temporary(fs, f"{root}/parts.jsonl") as stream:
        for part in parts:
            stream.write(part.manifest_line().encode("utf-8"))


# -- the cluster ------------------------------------------------------------------------------------


def local_workers(scheduler: str) -> int | None:
    """N of ``local:N`` (``local``: one per CPU), None for any other scheduler; raises :class:`RegistryError`."""
    from a2a_migrate.batch import default_jobs

    if scheduler == "local":
        return default_jobs()
    if not scheduler.startswith("local:"):
        return None
    count = scheduler.removeprefix("local:")
    if not count.isdigit() or int(count) < 1:
        raise RegistryError(scheduler, "local:N needs N, a number of workers of at least 1")
    return int(count)


@contextmanager
def _client(scheduler: str | Client | None) -> Iterator[Client]:
    """The client of the scheduler asked for; a local cluster started here is stopped at the end."""
    from distributed import Client, LocalCluster

    if isinstance(scheduler, Client):
        yield scheduler
        return
    workers = local_workers("local" if scheduler is None else str(scheduler))
    if workers is not None:
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
                Client(cluster) as client:
            yield client
        return
    try:
        client = Client(str(scheduler), timeout="30s")
    except (OSError, TimeoutError, ValueError) as error:
        raise RegistryError(str(scheduler), f"cannot reach the Dask scheduler: {error}") from None
    with client:
        yield client
