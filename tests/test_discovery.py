"""Which files a folder argument makes the tool process.

In folders, files named like cards are processed; other ``.json``/``.yaml``/``.yml``
files are processed only if their content is a card, and counted as skipped
otherwise; ``--include``/``--exclude`` add and remove files; tool and dependency
folders are not searched, nor links that lead out of the tree. Files named on
the command line are always processed.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from a2a_migrate import cli
from a2a_migrate.discover import is_card_name

CARD: dict[str, Any] = {
    "name": "Echo", "description": "Echoes messages", "url": "https://echo.example.com/a2a",
    "protocolVersion": "0.3.0", "version": "1.0.0", "capabilities": {},
    "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "echo", "name": "Echo", "description": "Echo back", "tags": ["echo"]}],
}
CARD_JSON = json.dumps(CARD, indent=2) + "\n"
CARD_YAML = """\
name: Echo
description: Echoes messages
url: https://echo.example.com/a2a
protocolVersion: "0.3.0"
version: "1.0.0"
capabilities: {}
defaultInputModes: [text/plain]
defaultOutputModes: [text/plain]
skills:
  - id: echo
    name: Echo
    description: Echo back
    tags: [echo]
"""
#: Names under which real repositories publish cards (shared/docs/corpus-notes.md).
WILD_NAMES = [
    "agent-card.json", "agent.json", "agent_card.json", "AgentCard.json", "x.agent-card.json",
    "agent-card.yaml", "agent.yaml", "agent_card.yaml", "AgentCard.yaml", "x.agent-card.yaml",
    "agent-card.yml", "agent.yml", "agent_card.yml", "AgentCard.yml", "x.agent-card.yml",
]


def card_text(name: str) -> str:
    return CARD_YAML if name.endswith((".yaml", ".yml")) else CARD_JSON


def put(root: Path, relative: str, text: str | None = None) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(card_text(relative) if text is None else text)
    return path


def check(*args: str) -> tuple[Result, dict[str, str]]:
    """``upgrade --check --report`` (writes nothing): the result and each input's status by path."""
    with tempfile.TemporaryDirectory() as folder:
        report_file = Path(folder) / "report.json"
        result = CliRunner().invoke(cli.main, ["upgrade", "--check", "-j", "1", "--report", str(report_file), *args])
        report = json.loads(report_file.read_text())
    return result, {card["path"]: card["status"] for card in report["cards"]}


def statuses_under(root: Path, statuses: dict[str, str]) -> dict[str, str]:
    return {Path(path).relative_to(root).as_posix(): status for path, status in statuses.items()}


def summary(result: Result) -> str:
    return result.stderr.splitlines()[-1]


# -- names ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", WILD_NAMES)
def test_card_names_seen_in_the_wild_are_recognised(name: str) -> None:
    assert is_card_name(name)


def test_cards_under_every_wild_name_are_found(tmp_path: Path) -> None:
    for i, name in enumerate(WILD_NAMES):
        put(tmp_path, f"{i:02d}/{name}")
    put(tmp_path, "site/.well-known/agent-card.json")
    result, statuses = check(str(tmp_path))
    expected = {f"{i:02d}/{name}": "changed" for i, name in enumerate(WILD_NAMES)}
    expected["site/.well-known/agent-card.json"] = "changed"
    assert statuses_under(tmp_path, statuses) == expected
    assert result.exit_code == 1
    assert summary(result) == f"{len(expected)} cards would be upgraded, 0 already 1.0"


def test_a_file_named_like_a_card_is_processed_whatever_its_content(tmp_path: Path) -> None:
    # Not sniffed: a broken card under a card's name is an error, not something to skip.
    put(tmp_path, "a/agent-card.json", '{"name": "Echo", "version": "1.0.0"}\n')
    put(tmp_path, "b/agent.yaml", "name: Echo\nversion: 1.0.0\n")
    result, statuses = check(str(tmp_path))
    assert statuses_under(tmp_path, statuses) == {"a/agent-card.json": "failed", "b/agent.yaml": "failed"}
    assert result.exit_code == 123


@pytest.mark.parametrize("name", ["agent-card.txt", "my-agent-card.json", "agents.json", "agent-card.json.bak",
                                  "agent-card.json5", "card.md"])
def test_other_names_are_not_cards(name: str) -> None:
    assert not is_card_name(name)


# -- content sniffing ----------------------------------------------------------------------------


def test_json_and_yaml_files_are_processed_when_their_content_is_a_card(tmp_path: Path) -> None:
    put(tmp_path, "config/echo-service.json", CARD_JSON)
    put(tmp_path, "deploy/echo.yaml", CARD_YAML)
    put(tmp_path, "package.json", '{"name": "web", "version": "1.0.0", "scripts": {}}\n')
    put(tmp_path, "deploy/values.yml", "replicaCount: 2\nimage:\n  repository: echo\n")
    put(tmp_path, "data/skills.json", '{"name": "not a card", "tags": ["no skills, url or interfaces"]}\n')
    put(tmp_path, "notes.txt", CARD_JSON)  # neither named like a card nor JSON/YAML: never looked at
    result, statuses = check(str(tmp_path))
    assert statuses_under(tmp_path, statuses) == {
        "config/echo-service.json": "changed", "data/skills.json": "skipped", "deploy/echo.yaml": "changed",
        "deploy/values.yml": "skipped", "package.json": "skipped",
    }
    assert result.exit_code == 1
    assert summary(result) == "2 cards would be upgraded, 0 already 1.0, 3 skipped"
    assert "skills.json" not in result.stderr.replace(summary(result), ""), "skipped files need no message"


@pytest.mark.parametrize("relative, text", [pytest.param(relative, text, id=relative) for relative, text in [
    ("tsconfig.json", '{\n  // editors allow comments here\n  "compilerOptions": {"strict": true}\n}\n'),
    ("data/list.json", '["not", "a", "card"]\n'),
    ("empty.json", ""),
    ("k8s/deployment.yaml", "apiVersion: v1\nkind: Service\n---\napiVersion: v1\nkind: Pod\n"),
    ("chart/templates/service.yaml", "metadata:\n  name: {{ .Release.Name }}\n{{- if .Values.x }}\n"),
    ("legacy/latin1.json", '{"name": "Caf\xe9"}'),
]])
def test_json_and_yaml_files_that_are_not_cards_are_skipped_even_when_they_do_not_parse(
        tmp_path: Path, relative: str, text: str) -> None:
    # Repositories of cards hold other JSON and YAML too (tsconfig with comments, manifests,
    # Helm templates): not being a card is not an error.
    path = tmp_path / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("latin-1" if "latin1" in relative else "utf-8"))
    put(tmp_path, "agent-card.json")
    result, statuses = check(str(tmp_path))
    assert statuses_under(tmp_path, statuses) == {"agent-card.json": "changed", relative: "skipped"}, result.stderr
    assert result.exit_code == 1, result.stderr
    assert summary(result) == "1 card would be upgraded, 0 already 1.0, 1 skipped"


# -- --include and --exclude ---------------------------------------------------------------------


def test_include_adds_files_that_would_not_be_looked_at(tmp_path: Path) -> None:
    put(tmp_path, "cards/echo.card.txt", CARD_JSON)
    put(tmp_path, "cards/readme.txt", "hello\n")
    assert statuses_under(tmp_path, check(str(tmp_path))[1]) == {}
    result, statuses = check("--include", "*.card.txt", str(tmp_path))
    assert statuses_under(tmp_path, statuses) == {"cards/echo.card.txt": "changed"}
    assert result.exit_code == 1


def test_include_makes_a_json_file_a_card_without_sniffing(tmp_path: Path) -> None:
    put(tmp_path, "registry/echo.json", '{"name": "Echo", "version": "1.0.0"}\n')
    assert statuses_under(tmp_path, check(str(tmp_path))[1]) == {"registry/echo.json": "skipped"}
    result, statuses = check("--include", "registry/*.json", str(tmp_path))
    assert statuses_under(tmp_path, statuses) == {"registry/echo.json": "failed"}
    assert f"{tmp_path / 'registry' / 'echo.json'}:1:1: error:" in result.stderr


def test_include_in_place_writes_the_included_card(tmp_path: Path) -> None:
    path = put(tmp_path, "cards/echo.card.txt", CARD_JSON)
    result = CliRunner().invoke(cli.main, ["upgrade", "-j", "1", "--include", "*.card.txt", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "supportedInterfaces" in json.loads(path.read_text())


@pytest.mark.parametrize("pattern, gone", [
    ("legacy", ["legacy/agent-card.json", "legacy/old/agent.json"]),
    ("legacy/*", ["legacy/agent-card.json", "legacy/old/agent.json"]),
    ("*.yml", ["deploy/agent.yml"]),
    ("team-b/agent-card.json", ["team-b/agent-card.json"]),
    ("agent.json", ["legacy/old/agent.json"]),
    ("*.json", ["legacy/agent-card.json", "legacy/old/agent.json", "team-a/agent-card.json",
                "team-b/agent-card.json", "team-a/service.json"]),
])
def test_exclude_removes_files_and_folders(tmp_path: Path, pattern: str, gone: list[str]) -> None:
    every = ["deploy/agent.yml", "legacy/agent-card.json", "legacy/old/agent.json", "team-a/agent-card.json",
             "team-a/service.json", "team-b/agent-card.json"]
    for relative in every:
        put(tmp_path, relative)
    _, statuses = check("--exclude", pattern, str(tmp_path))
    assert sorted(statuses_under(tmp_path, statuses)) == sorted(set(every) - set(gone))


def test_exclude_wins_over_include(tmp_path: Path) -> None:
    put(tmp_path, "cards/echo.card.txt", CARD_JSON)
    _, statuses = check("--include", "*.txt", "--exclude", "echo.*", str(tmp_path))
    assert statuses == {}


def test_excluded_card_is_not_written_in_place(tmp_path: Path) -> None:
    kept = put(tmp_path, "legacy/agent-card.json")
    done = put(tmp_path, "current/agent-card.json")
    result = CliRunner().invoke(cli.main, ["upgrade", "-j", "1", "--exclude", "legacy", "--exclude", "*.bak",
                                           str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert kept.read_text() == CARD_JSON
    assert done.read_text() != CARD_JSON


# -- folders that are not searched ---------------------------------------------------------------


@pytest.mark.parametrize("folder", [".git", "node_modules", ".venv", "build", "venv", "dist", "__pycache__", ".tox"])
def test_tool_and_dependency_folders_are_not_searched(tmp_path: Path, folder: str) -> None:
    put(tmp_path, f"{folder}/agent-card.json")
    put(tmp_path, f"{folder}/pkg/deep/agent.json")
    put(tmp_path, f"src/{folder}/agent_card.yaml")  # at any depth
    put(tmp_path, f"{folder}/service.json", CARD_JSON)  # not even sniffed
    put(tmp_path, "src/agent-card.json")
    result, statuses = check(str(tmp_path))
    assert statuses_under(tmp_path, statuses) == {"src/agent-card.json": "changed"}
    assert summary(result) == "1 card would be upgraded, 0 already 1.0"


def test_a_skipped_folder_named_on_the_command_line_is_searched(tmp_path: Path) -> None:
    put(tmp_path, "build/agent-card.json")
    _, statuses = check(str(tmp_path / "build"))
    assert statuses_under(tmp_path, statuses) == {"build/agent-card.json": "changed"}


# -- links ---------------------------------------------------------------------------------------


@pytest.fixture
def linked_tree(tmp_path: Path) -> tuple[Path, Path]:
    outside = tmp_path / "outside"
    tree = tmp_path / "tree"
    put(outside, "agent-card.json")
    put(outside, "nested/agent.json")
    put(tree, "own/agent-card.json")
    (tree / "linked-folder").symlink_to(outside, target_is_directory=True)
    (tree / "agent.json").symlink_to(outside / "agent-card.json")
    (tree / "own" / "x.agent-card.json").symlink_to(Path("..") / ".." / "outside" / "nested" / "agent.json")
    return tree, outside


def test_links_leading_out_of_the_tree_are_not_followed(linked_tree: tuple[Path, Path]) -> None:
    tree, _ = linked_tree
    _, statuses = check(str(tree))
    assert statuses_under(tree, statuses) == {"own/agent-card.json": "changed"}


def test_in_place_run_does_not_write_through_links_out_of_the_tree(linked_tree: tuple[Path, Path]) -> None:
    tree, outside = linked_tree
    result = CliRunner().invoke(cli.main, ["upgrade", "-j", "1", str(tree)])
    assert result.exit_code == 0, result.output
    assert (outside / "agent-card.json").read_text() == CARD_JSON
    assert (outside / "nested" / "agent.json").read_text() == CARD_JSON
    assert (tree / "agent.json").is_symlink() and (tree / "own" / "x.agent-card.json").is_symlink()
    assert (tree / "own" / "agent-card.json").read_text() != CARD_JSON


def test_a_link_named_on_the_command_line_is_processed(linked_tree: tuple[Path, Path]) -> None:
    tree, _ = linked_tree
    _, statuses = check(str(tree / "agent.json"))
    assert list(statuses.values()) == ["changed"]


# -- files named on the command line -------------------------------------------------------------


def test_named_files_are_always_processed(tmp_path: Path) -> None:
    odd = put(tmp_path, "notes/echo.txt", CARD_JSON)  # no card name, no card suffix
    hidden = put(tmp_path, "node_modules/pkg/agent-card.json")  # in a folder never searched
    yaml_card = put(tmp_path, "deploy/echo.conf", CARD_YAML)  # YAML by content
    result, statuses = check("--exclude", "*.txt", "--exclude", "node_modules", str(odd), str(hidden), str(yaml_card))
    assert statuses == {str(odd): "changed", str(hidden): "changed", str(yaml_card): "changed"}
    assert result.exit_code == 1


def test_a_named_file_that_is_not_a_card_is_an_error_not_a_skip(tmp_path: Path) -> None:
    package = put(tmp_path, "package.json", '{"name": "web", "version": "1.0.0"}\n')
    result, statuses = check(str(package))
    assert statuses == {str(package): "failed"}
    assert result.exit_code == 123
    assert result.stderr.startswith(f"{package}:1:1: error: ")
    assert summary(result) == "0 cards would be upgraded, 0 already 1.0, 1 failed"


def test_missing_path_is_reported_and_the_others_still_run(tmp_path: Path) -> None:
    card = put(tmp_path, "agent-card.json")
    result, statuses = check(str(tmp_path / "nope.json"), str(card))
    assert statuses == {str(tmp_path / "nope.json"): "failed", str(card): "changed"}
    assert result.exit_code == 123
    assert f"{tmp_path / 'nope.json'}: error: no such file or folder" in result.stderr


def test_in_tree_link_to_a_card_stays_a_link(tmp_path: Path) -> None:
    # ``agent.json -> agent-card.json`` (the old name kept for old clients): the card is upgraded
    # once, through its real name, and the link still points at it.
    real = put(tmp_path, "site/agent-card.json")
    alias = tmp_path / "site" / "agent.json"
    alias.symlink_to("agent-card.json")
    result = CliRunner().invoke(cli.main, ["upgrade", "-j", "2", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert alias.is_symlink() and os.readlink(alias) == "agent-card.json"
    assert "supportedInterfaces" in json.loads(real.read_text())
    assert summary(result) == "1 card upgraded, 0 already 1.0"


# -- one discovery for every command -------------------------------------------------------------

SIGNED = Path(__file__).resolve().parents[1] / "golden" / "signed"
NOT_A_CARD = {"package.json": '{"name": "web", "version": "1.0.0", "scripts": {}}\n',
              "tsconfig.json": '{\n  // comments are allowed here\n  "compilerOptions": {}\n}\n',
              "deploy/values.yml": "replicaCount: 2\n"}
#: Folder layouts (relative path -> text; None: a card) and the cards every command must find in them.
LAYOUTS: dict[str, tuple[dict[str, str | None], list[str], set[str]]] = {
    "names, content and skipped folders": ({
        "agent-card.json": None, "site/.well-known/agent.json": None, "deploy/agent.yaml": None,
        "config/echo-service.json": CARD_JSON, "deploy/echo.yaml": CARD_YAML, "mycard.json": CARD_JSON,
        **NOT_A_CARD, "notes.txt": CARD_JSON, "node_modules/pkg/agent-card.json": None, "build/agent.json": None,
    }, [], {"agent-card.json", "site/.well-known/agent.json", "deploy/agent.yaml", "config/echo-service.json",
            "deploy/echo.yaml", "mycard.json"}),
    "include and exclude": ({
        "cards/echo.card.txt": CARD_JSON, "legacy/agent-card.json": None, "current/agent-card.json": None,
        "current/agent-card.yml": None,
    }, ["--include", "*.card.txt", "--exclude", "legacy", "--exclude", "*.yml"],
        {"cards/echo.card.txt", "current/agent-card.json"}),
    "only files that are not cards": (dict(NOT_A_CARD), [], set()),
    "empty": ({}, [], set()),
}


def _from_report(result: Result, report: Path) -> list[str]:
    return [card["path"] for card in json.loads(report.read_text())["cards"] if card["status"] != "skipped"]


def _from_cards_json(result: Result, report: Path) -> list[str]:
    return [card["path"] for card in json.loads(result.stdout)["cards"]]


def _from_lines(marker: str) -> Any:
    def names(result: Result, report: Path) -> list[str]:
        stream = result.stderr if marker else result.stdout
        return [line.split(": ")[0] for line in stream.splitlines() if ": " in line and marker in line]
    return names


#: Each command that takes PATH, its arguments, and how to read which cards it processed.
COMMANDS: dict[str, tuple[list[str], Any]] = {
    "upgrade": (["upgrade", "--check", "-j", "2", "--report", "{report}"], _from_report),
    "downgrade": (["downgrade", "--check", "-j", "1", "--report", "{report}"], _from_report),
    "plan": (["plan", "-j", "1"], _from_cards_json),
    "validate": (["validate", "--format", "json"], _from_cards_json),
    "detect": (["detect"], _from_lines("")),
    "sign": (["sign", "--key", str(SIGNED / "TEST-ONLY-private-key.jwk.json")], _from_lines(": signed (")),
    "verify": (["verify", "--format", "json", "--jwks", str(SIGNED / "test-key.jwks.json")], _from_cards_json),
}
#: A check that checked nothing must not pass.
EMPTY_EXIT = {"validate": 123, "verify": 123}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_finds_the_same_cards(tmp_path: Path, command: str, layout: str) -> None:
    files, options, expected = LAYOUTS[layout]
    root = tmp_path / "tree"
    root.mkdir()
    for relative, text in files.items():
        put(root, relative, text)
    report = tmp_path / "report.json"
    args, processed = COMMANDS[command]
    arguments = [arg.replace("{report}", str(report)) for arg in args] + options + [str(root)]
    result = CliRunner().invoke(cli.main, arguments)
    assert "Traceback" not in result.output
    assert {Path(name).relative_to(root).as_posix() for name in processed(result, report)} == expected, result.stderr
    assert summary(result) and "no cards found" not in summary(result)
    if not expected:
        assert f"no cards found in {root}\n" in result.stderr
        assert result.exit_code == EMPTY_EXIT.get(command, 0), result.stderr
    else:
        assert "no cards found" not in result.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_a_path_with_no_card_is_named_even_beside_one_with_cards(tmp_path: Path, command: str) -> None:
    put(tmp_path, "cards/agent-card.json")
    (tmp_path / "empty").mkdir()
    args, _ = COMMANDS[command]
    arguments = [arg.replace("{report}", str(tmp_path / "report.json")) for arg in args]
    result = CliRunner().invoke(cli.main, [*arguments, str(tmp_path / "cards"), str(tmp_path / "empty")])
    assert f"no cards found in {tmp_path / 'empty'}\n" in result.stderr
    assert f"no cards found in {tmp_path / 'cards'}" not in result.stderr
    if command in EMPTY_EXIT:
        assert result.exit_code == EMPTY_EXIT[command], result.stderr
