"""In-place batches that are interrupted or meet files they may not write.

A card is replaced atomically (a temporary file renamed over it), so a batch
killed at any moment leaves every card whole: the old text or the new one.
A card or folder the user made read-only is not written: that card fails with
a one-line error and the batch goes on (exit 123).
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from a2a_migrate import cli, discover
from a2a_migrate.batch import Job, migrate_text

TEMP_SUFFIX = ".a2a-migrate.tmp"


def card_text(i: int) -> str:
    """A small 0.3 card, different for every ``i``, that upgrades with info notes only."""
    return json.dumps({
        "name": f"Agent {i}", "description": f"Card number {i}", "url": f"https://a{i}.example.com/a2a",
        "preferredTransport": "JSONRPC", "protocolVersion": "0.3.0", "version": f"1.0.{i}",
        "capabilities": {"streaming": i % 2 == 0}, "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": f"skill-{i}", "name": "Skill", "description": f"Skill of agent {i}", "tags": ["t"]}],
    }, indent=2) + "\n"


def expected_text(text: str, path: Path) -> str:
    outcome = migrate_text(text, str(path), Job("up"))
    assert outcome.status == "changed", outcome
    return outcome.new_text


def write_tree(root: Path, count: int) -> dict[Path, str]:
    cards = {}
    for i in range(count):
        path = root / f"{i // 100:03d}" / str(i) / "agent-card.json"
        path.parent.mkdir(parents=True)
        path.write_text(card_text(i))
        cards[path] = card_text(i)
    return cards


def temporary_files(root: Path) -> list[Path]:
    return sorted(Path(folder) / name for folder, _, files in os.walk(root) for name in files if name.endswith(TEMP_SUFFIX))


# -- (a) SIGKILL in the middle of a large in-place batch -------------------------------------------


@dataclass
class KilledBatch:
    root: Path
    old: dict[Path, str]  # every card's text before the run
    order: list[Path]  # the order the tool processes them in
    attempts: int


def _kill_mid_batch(root: Path, count: int, deadline: float) -> KilledBatch | None:
    old = write_tree(root, count)
    order = [path for path, chosen in discover.walk(root) if chosen]
    assert sorted(order) == sorted(old)
    trigger, last = order[len(order) // 4], order[-1]
    trigger_inode, last_inode = trigger.stat().st_ino, last.stat().st_ino
    process = subprocess.Popen([sys.executable, "-m", "a2a_migrate", "upgrade", "-q", "-j", "1", str(root)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=root)  # cwd: conftest.py
    try:
        # A rename over the trigger card gives it a new inode: the batch is a quarter done.
        while process.poll() is None and time.monotonic() < deadline:
            try:
                if os.stat(trigger).st_ino != trigger_inode:
                    break
            except FileNotFoundError:  # never expected: a rename leaves no gap
                break
            time.sleep(0.0005)
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait()
    if process.returncode != -signal.SIGKILL or last.stat().st_ino != last_inode:
        return None  # finished (or nearly) before the kill: try a larger batch
    return KilledBatch(root, old, order, 0)


@pytest.fixture(scope="module")
def killed_batch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KilledBatch]:
    deadline = time.monotonic() + 10
    count = 3000
    for attempt in range(1, 4):
        root = tmp_path_factory.mktemp(f"killed-{attempt}")
        batch = _kill_mid_batch(root, count, deadline)
        if batch is not None:
            batch.attempts = attempt
            yield batch
            return
        count *= 2
    pytest.fail("the batch always finished before it could be killed mid-way")


def test_sigkill_leaves_every_card_whole(killed_batch: KilledBatch) -> None:
    old_cards, new_cards, partial = [], [], []
    for path in killed_batch.order:
        text = path.read_text()
        if text == killed_batch.old[path]:
            old_cards.append(path)
        elif text == expected_text(killed_batch.old[path], path):
            new_cards.append(path)
        else:
            partial.append(f"{path.relative_to(killed_batch.root)}: {len(text)} characters: {text[:80]!r}")
    assert not partial, "cards neither old nor new after SIGKILL:\n" + "\n".join(partial)
    assert new_cards and old_cards, "the kill should land mid-batch"
    # Cards are done in order: the new ones are a prefix of the order.
    assert killed_batch.order[: len(new_cards)] == new_cards


def test_sigkill_leaves_no_temporary_file(killed_batch: KilledBatch) -> None:
    leftovers = temporary_files(killed_batch.root)
    details = []
    for temporary in leftovers:
        card = next(p for p in killed_batch.old if p.parent == temporary.parent
                    and temporary.name.startswith(f".{p.name}."))
        text = temporary.read_text()
        expected = expected_text(killed_batch.old[card], card)
        state = "complete new text" if text == expected else f"{len(text)} of {len(expected)} characters"
        card_state = "old" if card.read_text() == killed_batch.old[card] else "new"
        details.append(f"{temporary.relative_to(killed_batch.root)} ({state}; the card beside it is {card_state})")
    # The card is written unnamed (O_TMPFILE), named when complete, then renamed over the card:
    # only a kill between those last two system calls can leave a named file, and then a
    # complete one. No writer can close that window (link cannot replace a file), so the
    # next run removes such files; what must never exist is a partial one.
    assert all("complete new text" in detail and "card beside it is old" in detail for detail in details), details
    rerun = subprocess.run([sys.executable, "-m", "a2a_migrate", "upgrade", "-q", "-j", "1", str(killed_batch.root)],
                           capture_output=True, text=True, timeout=120, cwd=killed_batch.root)
    assert rerun.returncode == 0, rerun.stderr
    assert not temporary_files(killed_batch.root), "the next run must remove what a killed run left"
    assert all(card.read_text() == expected_text(text, card) for card, text in killed_batch.old.items())


def test_workers_die_with_a_killed_parent(tmp_path: Path) -> None:
    """-j 2: killing the batch's process ends its workers too, instead of orphans writing on."""
    write_tree(tmp_path, 3000)
    process = subprocess.Popen([sys.executable, "-m", "a2a_migrate", "upgrade", "-q", "-j", "2", str(tmp_path)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)
    children: list[int] = []
    deadline = time.monotonic() + 20
    while len(children) < 2 and process.poll() is None and time.monotonic() < deadline:
        with open(f"/proc/{process.pid}/task/{process.pid}/children") as listing:
            children = [int(pid) for pid in listing.read().split()]
        time.sleep(0.01)
    assert len(children) >= 2, "the workers should have started"
    process.send_signal(signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() and _alive(pid) for pid in children):
        time.sleep(0.05)
    assert not [pid for pid in children if Path(f"/proc/{pid}").exists() and _alive(pid)]


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"  # a zombie has ended
    except (FileNotFoundError, ProcessLookupError):
        return False


def test_only_our_temporary_files_count_as_stale(tmp_path: Path) -> None:
    from a2a_migrate import io

    ours = tmp_path / ".agent-card.json.0a1b2c3d.a2a-migrate.tmp"
    theirs = tmp_path / ".agent-card.json.swp"
    ours.write_text("{}")
    theirs.write_text("x")
    assert io.remove_stale_temporary(ours) and not ours.exists()
    assert not io.remove_stale_temporary(theirs) and theirs.exists()


# -- (c) group commit: no rename before its data is on disk ----------------------------------------


@pytest.fixture
def recorded_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """The writer's system calls in order, as (call, file name or folder): writes, syncs, renames."""
    from a2a_migrate import io

    calls: list[tuple[str, str]] = []
    names: dict[int, str] = {}

    def record(name: str, real, describe):  # type: ignore[no-untyped-def]
        def wrapper(*args):  # type: ignore[no-untyped-def]
            result = real(*args)
            calls.append((name, describe(*args)))
            return result
        return wrapper

    real_open = io._open_temporary

    def opened(temporary: Path) -> tuple[int, bool]:
        handle, named = real_open(temporary)
        names[handle] = temporary.name.split(".")[1]
        return handle, named

    monkeypatch.setattr(io, "_open_temporary", opened)
    monkeypatch.setattr(io, "_fill", record("write", io._fill, lambda handle, *_: names[handle]))
    def folder_or_file(handle: int) -> str:  # handles are reused: a folder is told by its type
        return "folder" if stat.S_ISDIR(os.fstat(handle).st_mode) else names[handle]

    monkeypatch.setattr(io, "_syncfs", record("syncfs", io._syncfs, folder_or_file))
    monkeypatch.setattr(io.os, "fdatasync", record("fdatasync", os.fdatasync, folder_or_file))
    monkeypatch.setattr(io.os, "fsync", record("fsync", os.fsync, folder_or_file))
    monkeypatch.setattr(io.os, "replace", record("rename", os.replace, lambda _, target: Path(target).parent.name))
    return calls


def _check_order(calls: list[tuple[str, str]], cards: int) -> None:
    renames = [i for i, (kind, _) in enumerate(calls) if kind == "rename"]
    assert len(renames) == cards, calls
    writes = [i for i, (kind, _) in enumerate(calls) if kind == "write"]
    syncs = [i for i, (kind, _) in enumerate(calls) if kind in ("syncfs", "fdatasync", "fsync")]
    # Every byte is written, then synced, before the first rename; the renames are synced after the last.
    assert any(max(writes) < i < min(renames) for i in syncs), calls
    assert any(i > max(renames) for i in syncs), calls
    # Paid once per group, not once per card.
    assert len(syncs) < cards, calls


def test_group_commit_syncs_every_card_before_any_rename(tmp_path: Path, recorded_calls: list[tuple[str, str]]) -> None:
    cards = write_tree(tmp_path, 5)
    result = CliRunner().invoke(cli.main, ["upgrade", "-q", "-j", "1", str(tmp_path)])
    assert result.exit_code == 0, result.output
    _check_order(recorded_calls, 5)
    assert all(path.read_text() == expected_text(text, path) for path, text in cards.items())


def test_without_syncfs_each_card_is_fdatasynced_before_any_rename(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   recorded_calls: list[tuple[str, str]]) -> None:
    from a2a_migrate import io

    monkeypatch.setattr(io, "_syncfs", lambda handle: False)  # a system with no syncfs
    write_tree(tmp_path, 5)
    assert CliRunner().invoke(cli.main, ["upgrade", "-q", "-j", "1", str(tmp_path)]).exit_code == 0
    kinds = [kind for kind, _ in recorded_calls]
    assert kinds.count("fdatasync") == 5 and kinds.count("fsync") == 5  # five cards, five folders
    assert max(i for i, kind in enumerate(kinds) if kind == "fdatasync") < kinds.index("rename")
    assert min(i for i, kind in enumerate(kinds) if kind == "fsync") > max(i for i, k in enumerate(kinds) if k == "rename")


def test_a_failed_sync_renames_nothing_and_leaves_no_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from a2a_migrate import io

    def broken(handles: list[int]) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(io, "sync_files", broken)
    cards = write_tree(tmp_path, 3)
    result = CliRunner().invoke(cli.main, ["upgrade", "-j", "1", str(tmp_path)])
    assert result.exit_code == 123
    assert result.stderr.count("error: cannot write: Input/output error") == 3, result.stderr
    assert all(path.read_text() == text for path, text in cards.items())
    assert not temporary_files(tmp_path)


# -- (b) read-only file and read-only folder -------------------------------------------------------


@pytest.fixture
def read_only_tree(tmp_path: Path) -> Iterator[dict[str, Path]]:
    paths = {
        "before": tmp_path / "0" / "agent-card.json",
        "file": tmp_path / "a" / "agent-card.json",
        "folder": tmp_path / "b" / "agent-card.json",
        "after": tmp_path / "c" / "agent-card.json",
    }
    for i, path in enumerate(paths.values()):
        path.parent.mkdir()
        path.write_text(card_text(i))
    paths["file"].chmod(0o444)
    paths["folder"].parent.chmod(0o555)
    yield paths
    paths["folder"].parent.chmod(0o755)
    paths["file"].chmod(0o644)


def test_read_only_file_and_folder_fail_alone_and_the_batch_goes_on(read_only_tree: dict[str, Path],
                                                                     tmp_path: Path) -> None:
    # In CI this runs as root, for whom permission bits do not stop a write: the tool must
    # look at them itself.
    old = {key: path.read_text() for key, path in read_only_tree.items()}
    result = CliRunner().invoke(cli.main, ["upgrade", "-j", "1", str(tmp_path)])

    assert result.exit_code == 123, result.output
    for key in ("file", "folder"):
        path = read_only_tree[key]
        assert path.read_text() == old[key], f"the read-only {key}'s card was written"
        errors = [line for line in result.stderr.splitlines() if ": error:" in line and str(path) in line]
        assert len(errors) == 1, result.stderr
        assert errors[0].startswith(f"{path}: error: "), errors[0]
    for key in ("before", "after"):
        path = read_only_tree[key]
        assert path.read_text() == expected_text(old[key], path)
    assert stat.S_IMODE(read_only_tree["file"].stat().st_mode) == 0o444
    assert result.stderr.splitlines()[-1] == "2 cards upgraded, 0 already 1.0, 2 failed"
    assert not temporary_files(tmp_path)


def test_read_only_card_in_parallel_batch(read_only_tree: dict[str, Path], tmp_path: Path) -> None:
    result = CliRunner().invoke(cli.main, ["upgrade", "-j", "2", str(tmp_path)])
    assert result.exit_code == 123, result.output
    assert result.stderr.splitlines()[-1] == "2 cards upgraded, 0 already 1.0, 2 failed"
