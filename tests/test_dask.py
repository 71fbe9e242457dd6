"""Issue 12, the Dask engine for registries: the single-process results, part for part, whatever happens to a worker.

One ``LocalCluster`` of two worker processes serves the module. The registry
is a few thousand lines drawn from ``golden/`` (0.3, 1.0 and hybrid cards,
fragments that fail) with malformed, blank, non-UTF-8 and oversized lines; it
is cut into small blocks so that blocks end mid-file and mid-line.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from a2a_migrate import cli
from a2a_migrate.batch import Job
from a2a_migrate.jsonl import Line
from transform_helpers import base_card

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
BLOCK = 48 * 1024  # small blocks: many parts per file, blocks that begin and end mid-line
MAX_BYTES = 20_000  # a few golden cards are longer: those lines are over the limit


def registry(folder: Path, lines_per_file: tuple[int, ...] = (1000, 600, 400)) -> list[Path]:
    """JSONL files of golden cards (compact and indented-on-one-line), with lines that must fail."""
    cards = [json.loads(path.read_text("utf-8")) for path in sorted(GOLDEN.glob("*.json"))]
    shapes = [json.dumps(card) for card in cards] + [json.dumps(card, separators=(",", ":")) for card in cards]
    odd = ["{oops", "", "   ", "[1, 2]", "\"a string\"", json.dumps({"name": "x" * (MAX_BYTES + 10)})]
    rng = random.Random(12)
    folder.mkdir()
    files = []
    for index, count in enumerate(lines_per_file):
        path = folder / f"registry-{index}.jsonl"
        with path.open("wb") as out:
            for _ in range(count):
                line = rng.choice(odd) if rng.random() < 0.05 else rng.choice(shapes)
                out.write(line.encode("utf-8") + (b"\r\n" if rng.random() < 0.1 else b"\n"))
            out.write(b'{"name": "\xff"}\n' + shapes[0].encode("utf-8"))  # not UTF-8, then no final newline
        files.append(path)
    return files


def single_process(files: list[Path], tmp: Path, direction: str = "upgrade") -> tuple[bytes, bytes]:
    """What ``--jsonl`` writes in one process: the results and the report, the files one after another."""
    results, reports = [], []
    for path in files:
        report = tmp / f"{path.name}.report"
        done = CliRunner().invoke(cli.main, [direction, "--jsonl", "-q", "-j", "1", "--max-file-size", str(MAX_BYTES),
                                             "--report", str(report), str(path)])
        assert done.exit_code == 123, done.output  # some lines fail, by design
        results.append(done.stdout_bytes)
        reports.append(report.read_bytes())
    return b"".join(results), b"".join(reports)


def joined(out: Path, folder: str) -> bytes:
    return b"".join(path.read_bytes() for path in sorted((out / folder).glob("part-*.jsonl")))


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    distributed = pytest.importorskip("distributed", reason="the dask extra is not installed: pip install '.[test]'")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return registry(tmp_path_factory.mktemp("dask") / "registry")


@pytest.fixture(scope="module")
def expected(files: list[Path], tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, bytes]:
    return single_process(files, tmp_path_factory.mktemp("single"))


def job(direction: str = "up") -> Job:
    return Job(direction, max_bytes=MAX_BYTES)  # type: ignore[arg-type]


def test_parts_are_the_single_process_results_record_for_record(client: Any, files: list[Path], tmp_path: Path,
                                                                 expected: tuple[bytes, bytes]) -> None:
    from a2a_migrate.dask import migrate_registry, plan_blocks

    run = migrate_registry(str(files[0].parent / "*.jsonl"), str(tmp_path / "out"), job(), client, block_size=BLOCK)
    assert len(run.parts) == len(plan_blocks([str(path) for path in files], BLOCK)) > 2 * len(files)
    assert (joined(tmp_path / "out", "results"), joined(tmp_path / "out", "reports")) == expected
    reports = [json.loads(line) for line in expected[1].splitlines()]
    assert sum(run.counts.values()) == len(reports)
    assert run.counts["changed"] == sum(report["changed"] for report in reports) > 0
    assert run.counts["failed"] >= sum(bool(report["error"]) for report in reports) > 0
    assert run.counts["unchanged"] > 0
    assert {report["sourceVersion"] for report in reports} >= {"0.3", "1.0", "hybrid"}


@pytest.mark.parametrize("block_size", [3, 7, 64])
def test_line_numbers_hold_whatever_the_blocks(client: Any, tmp_path: Path, block_size: int) -> None:
    """Blocks end anywhere: inside a line, on a newline, between CR and LF, inside an oversized line."""
    from a2a_migrate.dask import migrate_registry

    card = json.dumps({"name": "A", "url": "https://a.example", "version": "1", "description": "d"})
    source = tmp_path / "small.jsonl"
    source.write_bytes(f"\n{card}\r\n{{\n\n{'x' * 90}\n{card}".encode())
    report = tmp_path / "single.report"
    single = CliRunner().invoke(cli.main, ["upgrade", "--jsonl", "-q", "--max-file-size", "80", "--report",
                                           str(report), str(source)])
    run = migrate_registry(str(source), str(tmp_path / "out"), Job("up", max_bytes=80), client, block_size=block_size)
    assert len(run.parts) == -(-source.stat().st_size // block_size)
    assert joined(tmp_path / "out", "results") == single.stdout_bytes
    assert joined(tmp_path / "out", "reports") == report.read_bytes()
    assert [json.loads(line)["line"] for line in report.read_text().splitlines()] == [2, 3, 5, 6]


def test_part_names_are_stable(client: Any, files: list[Path], tmp_path: Path) -> None:
    """The same inputs and block size give the same names and bytes; names follow the files' order, not the cluster's."""
    from a2a_migrate.dask import migrate_registry, plan_blocks

    inputs = [str(path) for path in files]
    migrate_registry(inputs, str(tmp_path / "a"), job(), client, block_size=BLOCK)
    # fsspec URLs name the same files and folder
    migrate_registry([path.as_uri() for path in files], (tmp_path / "b").as_uri(), job(), client, block_size=BLOCK)
    names = [path.name for path in sorted((tmp_path / "a" / "results").iterdir())]
    assert names == [f"part-{index:05d}.jsonl" for index in range(len(plan_blocks(inputs, BLOCK)))]
    for folder in ("results", "reports"):
        assert sorted(p.name for p in (tmp_path / "b" / folder).iterdir()) == names  # no temporary file left either
        assert joined(tmp_path / "a", folder) == joined(tmp_path / "b", folder)
    assert (tmp_path / "a" / "parts.jsonl").read_bytes() == (tmp_path / "b" / "parts.jsonl").read_bytes()
    manifest = [json.loads(line) for line in (tmp_path / "a" / "parts.jsonl").read_text("utf-8").splitlines()]
    assert [entry["part"] for entry in manifest] == names
    assert [entry["source"] for entry in manifest] == sorted(entry["source"] for entry in manifest)  # files in order
    for entry in manifest:  # each part: one file's lines from firstLine on, and its counts
        report = (tmp_path / "a" / "reports" / entry["part"]).read_text("utf-8").splitlines()
        assert len(report) == entry["lines"] == entry["changed"] + entry["unchanged"] + entry["failed"]
        assert not report or json.loads(report[0])["line"] >= entry["firstLine"]
        assert entry["source"] in inputs


class Gate:
    """Holds every block at its first line until ``go`` exists, saying which worker process holds one."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def __call__(self, line: Line) -> None:
        go = self.folder / "go"
        if go.exists():
            return
        (self.folder / f"held-{os.getpid()}").touch()
        deadline = time.monotonic() + 120  # never forever, should the test die first
        while not go.exists() and time.monotonic() < deadline:
            time.sleep(0.02)


def test_a_worker_killed_mid_run_loses_no_record(client: Any, files: list[Path], tmp_path: Path,
                                                 expected: tuple[bytes, bytes]) -> None:
    from a2a_migrate.dask import migrate_registry

    flags = tmp_path / "flags"
    flags.mkdir()
    workers = set(client.run(os.getpid).values())
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(migrate_registry, [str(path) for path in files], str(tmp_path / "out"), job(), client,
                              block_size=BLOCK, pause=Gate(flags))
        held = _first_holder(flags, running)
        assert held in workers
        os.kill(held, signal.SIGKILL)  # the worker dies holding a block half written
        (flags / "go").touch()
        run = running.result(timeout=300)
    assert (joined(tmp_path / "out", "results"), joined(tmp_path / "out", "reports")) == expected
    assert sum(run.counts.values()) == len(expected[1].splitlines())
    assert not [path for path in (tmp_path / "out").rglob("*") if path.name.endswith(".tmp")]


def _first_holder(flags: Path, running: Any) -> int:
    """The pid of the first worker process seen holding a block."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not running.done():
        held = sorted(flags.glob("held-*"))
        if held:
            return int(held[0].name.removeprefix("held-"))
        time.sleep(0.02)
    running.result()  # the run ended (or failed) without holding a block: say why
    raise AssertionError("no worker held a block")


def test_a_folder_with_parts_of_another_run_is_refused(client: Any, tmp_path: Path) -> None:
    from a2a_migrate.dask import RegistryError, migrate_registry

    source = tmp_path / "one.jsonl"
    source.write_text("{}\n")
    migrate_registry(str(source), str(tmp_path / "out"), Job("up"), client)
    with pytest.raises(RegistryError, match=r"out: already holds the parts of a run"):
        migrate_registry(str(source), str(tmp_path / "out"), Job("up"), client)


def test_a_block_that_keeps_failing_stops_the_run_in_one_line(client: Any, tmp_path: Path) -> None:
    from a2a_migrate.dask import RegistryError, migrate_registry

    source = tmp_path / "one.jsonl"
    source.write_text("{}\n")
    with pytest.raises(RegistryError, match=r"^migrating: .*one\.jsonl \(part-00000\.jsonl\): OSError: the disk went away$"):
        migrate_registry(str(source), str(tmp_path / "out"), Job("up"), client, pause=broken_disk)
    assert not [path for path in (tmp_path / "out").rglob("*") if path.is_file()]  # no part, no temporary file


@pytest.mark.parametrize("inputs, output, message", [
    ("foo://x/a.jsonl", "OUT", "foo://x/a.jsonl: Protocol not known: foo"),
    ("IN", "foo://x/out", "foo://x/out: Protocol not known: foo"),
])
def test_storage_fsspec_cannot_use_is_one_line(tmp_path: Path, inputs: str, output: str, message: str) -> None:
    from a2a_migrate.dask import RegistryError, migrate_registry

    source = tmp_path / "in.jsonl"
    source.write_text("{}\n")
    inputs, output = inputs.replace("IN", str(source)), output.replace("OUT", str(tmp_path / "out"))
    with pytest.raises(RegistryError) as raised:  # before any cluster starts
        migrate_registry(inputs, output, Job("up"), "local:1")
    assert str(raised.value) == message


def broken_disk(line: Line) -> None:
    raise OSError("the disk went away")


@pytest.mark.parametrize("pattern, message", [("missing.jsonl", "missing.jsonl: no such file"),
                                              ("none-*.jsonl", "none-*.jsonl: no file matches")])
def test_inputs_that_name_no_file_are_refused_in_one_line(tmp_path: Path, pattern: str, message: str) -> None:
    from a2a_migrate.dask import RegistryError, plan_blocks

    with pytest.raises(RegistryError, match=message.replace("*", r"\*")):
        plan_blocks(str(tmp_path / pattern))


def test_without_dask_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from a2a_migrate.dask import MissingExtra, migrate_registry

    for name in ("dask", "dask.bag", "distributed"):
        monkeypatch.setitem(sys.modules, name, None)  # import dask raises ImportError
    with pytest.raises(MissingExtra, match=r"needs dask, which is not installed: pip install 'a2a-migrate\[dask\]'"):
        migrate_registry("registry.jsonl", str(tmp_path / "out"), Job("up"))


# -- the command line --------------------------------------------------------------------------------


def invoke(*args: str) -> Any:
    return CliRunner().invoke(cli.main, list(args))


def test_the_command_line_runs_on_the_cluster_at_an_address(client: Any, files: list[Path], tmp_path: Path,
                                                              expected: tuple[bytes, bytes]) -> None:
    out = tmp_path / "out"
    done = invoke("upgrade", "--jsonl", str(files[0].parent / "registry-*.jsonl"), "-o", out.as_uri(),  # a URL
                  "--max-file-size", str(MAX_BYTES), "--scheduler", client.scheduler.address)
    assert done.exit_code == 123, done.output  # some lines fail, by design
    assert (joined(out, "results"), joined(out, "reports")) == expected
    reports = [json.loads(line) for line in expected[1].splitlines()]
    changed = sum(report["changed"] for report in reports)
    assert done.stderr.splitlines()[-1].startswith(f"{changed} cards upgraded, ")
    assert f"{files[0]}:" in done.stderr and "Traceback" not in done.output  # a failed line is shown, file:line


def test_local_n_starts_a_cluster_of_its_own(tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason="the dask extra is not installed: pip install '.[test]'")
    source = tmp_path / "cards.jsonl"
    source.write_text(json.dumps(base_card(name="A")) + "\n")
    done = invoke("upgrade", "--jsonl", str(source), "-o", str(tmp_path / "out"), "--scheduler", "local:1")
    assert done.exit_code == 0, done.output
    result = json.loads((tmp_path / "out" / "results" / "part-00000.jsonl").read_text())
    assert result["name"] == "A" and "supportedInterfaces" in result
    assert done.stderr.splitlines()[-1] == "1 card upgraded, 0 already 1.0"


@pytest.mark.parametrize("args", [
    ["--scheduler", "local:2", "CARDS"],  # no -o
    ["--scheduler", "local:2", "-o", "OUT", "--check", "CARDS"],
    ["--scheduler", "local:2", "-o", "OUT", "--report", "r.jsonl", "CARDS"],
    ["--scheduler", "local:2", "-o", "OUT", "-j", "2", "CARDS"],
    ["--scheduler", "local:2", "-o", "OUT", "-"],
    ["--scheduler", "local:0", "-o", "OUT", "CARDS"],
    ["--scheduler", "local:two", "-o", "OUT", "CARDS"],
    ["--scheduler", "local:2", "-o", "OUT", "--sign-key", "KEY", "--kid", "k1", "CARDS"],
], ids=["no-o", "check", "report", "jobs", "stdin", "local-0", "local-two", "sign"])
def test_what_a_cluster_run_cannot_do_is_a_usage_error(tmp_path: Path, args: list[str]) -> None:
    cards = tmp_path / "cards.jsonl"
    cards.write_text("{}\n")
    key = tmp_path / "key.pem"
    key.write_bytes(ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    places = {"CARDS": str(cards), "OUT": str(tmp_path / "out"), "KEY": str(key)}
    args = [places.get(arg, arg) for arg in args]
    done = invoke("upgrade", "--jsonl", *args)
    assert done.exit_code == 2 and "Traceback" not in done.output and "--scheduler" in done.stderr
    assert not (tmp_path / "out").exists()


def test_scheduler_without_jsonl_is_a_usage_error(tmp_path: Path) -> None:
    done = invoke("upgrade", str(tmp_path), "-o", str(tmp_path / "out"), "--scheduler", "local:1")
    assert done.exit_code == 2 and "--scheduler goes with --jsonl and -o DIR" in done.stderr


def test_without_dask_the_command_says_which_extra_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("dask", "dask.bag", "distributed"):
        monkeypatch.setitem(sys.modules, name, None)
    cards = tmp_path / "cards.jsonl"
    cards.write_text("{}\n")
    done = invoke("upgrade", "--jsonl", str(cards), "-o", str(tmp_path / "out"), "--scheduler", "local:1")
    assert done.exit_code == 2
    assert done.stderr == "Error: the Dask engine needs dask, which is not installed: pip install 'a2a-migrate[dask]'\n"
