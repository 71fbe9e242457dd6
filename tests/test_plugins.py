"""Plugins (issue 13): a third-party transform package, built, installed, found by its entry point.

The test builds a wheel of a small plugin package (a wheel is a zip archive
with a ``.dist-info``: made here with ``zipfile``, since the ``wheel`` package
need not be installed) and installs it with pip (``pip install --target``),
then puts that folder on ``sys.path``: a real installed distribution that
``importlib.metadata`` finds, with nothing patched.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from a2a_migrate import chain, cli

PLUGIN = '''\
"""Documentation URL: the provider's site plus /docs, where the card names none.

Written against the public transform interface: ``up``/``down`` mutate the
card in place, ``ctx.note`` reports, ``a2a_migrate.edit`` keeps order and
YAML comments.
"""

from a2a_migrate import edit

SPEC = "ACME card policy 4.2"
EXAMPLE = {"name": "Echo", "provider": {"organization": "ACME", "url": "https://acme.example"}}


def up(card, ctx):
    """Add documentationUrl after provider."""
    provider = card.get("provider")
    if "documentationUrl" in card or not isinstance(provider, dict) or not provider.get("url"):
        return
    url = provider["url"].rstrip("/") + "/docs"
    edit.insert_at(card, edit.position(card, "provider") + 1, "documentationUrl", url)
    ctx.note("/documentationUrl", "assumed", f"set to {url} from the provider's url")


def down(card, ctx):
    """The same towards 0.3."""
    up(card, ctx)
'''
CARD = {
    "name": "Echo", "description": "Echoes.", "version": "1.0.0",
    "supportedInterfaces": [{"url": "https://echo.example/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
    "provider": {"organization": "ACME", "url": "https://acme.example"},
    "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "echo", "name": "Echo", "description": "Echoes.", "tags": ["echo"]}],
}


def _wheel(folder: Path) -> Path:
    """A wheel of the plugin package ``acme-a2a-docs`` 1.0, as a build backend would write it."""
    import base64
    import hashlib
    import zipfile

    info = "acme_a2a_docs-1.0.dist-info"
    files = {
        "acme_docs.py": PLUGIN,
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: acme-a2a-docs\nVersion: 1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test_plugins\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/entry_points.txt": "[a2a_migrate.transforms]\nacme_docs = acme_docs\n",
    }

    def digest(text: str) -> str:
        raw = hashlib.sha256(text.encode("utf-8")).digest()
        return "sha256=" + base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    record = "".join(f"{name},{digest(text)},{len(text.encode())}\n" for name, text in files.items()) + f"{info}/RECORD,,\n"
    wheel = folder / "acme_a2a_docs-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in {**files, f"{info}/RECORD": record}.items():
            archive.writestr(name, text)
    return wheel


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder pip installed the built plugin wheel into."""
    build = tmp_path_factory.mktemp("build")
    target = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet",
                           "--disable-pip-version-check", "--target", str(target), str(_wheel(build))],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return target


@pytest.fixture()
def site(installed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the installed plugin (tests may break it), on sys.path."""
    import shutil

    folder = tmp_path / "site"
    shutil.copytree(installed, folder)
    assert (folder / "acme_a2a_docs-1.0.dist-info" / "entry_points.txt").exists()  # pip laid it out
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.delitem(sys.modules, "acme_docs", raising=False)  # each test imports its own copy
    return folder


def card_file(tmp_path: Path) -> Path:
    path = tmp_path / "agent-card.json"
    path.write_text(json.dumps(CARD, indent=2) + "\n", "utf-8")
    return path


def test_an_installed_plugin_is_listed_and_documented(site: Path) -> None:
    listing = CliRunner().invoke(cli.main, ["transforms"])
    assert listing.exit_code == 0
    assert "Plugins (run only with --plugin NAME):" in listing.output
    assert "acme_docs" in listing.output and "(from acme-a2a-docs)" in listing.output
    shown = CliRunner().invoke(cli.main, ["transforms", "acme_docs"])
    assert "Spec: ACME card policy 4.2" in shown.output and '"documentationUrl": "https://acme.example/docs"' in shown.output


def test_a_plugin_runs_only_when_named_and_labels_its_operations(site: Path, tmp_path: Path) -> None:
    path = card_file(tmp_path)
    plain = CliRunner().invoke(cli.main, ["transform", "--check", "--recipe", str(_noop_recipe(tmp_path)), str(path)])
    assert plain.exit_code == 0  # installed, not named: not run
    report = tmp_path / "report.json"
    result = CliRunner().invoke(cli.main, ["upgrade", "--plugin", "acme_docs", "--report", str(report), str(path)])
    assert result.exit_code == 0, result.output
    written = json.loads(path.read_text("utf-8"))
    assert list(written)[list(written).index("provider") + 1] == "documentationUrl"  # placed by edit.insert_at
    entry = json.loads(report.read_text("utf-8"))["cards"][0]
    assert entry["patch"] == [{"op": "add", "path": "/documentationUrl", "value": "https://acme.example/docs"}]
    assert entry["transforms"] == ["acme_docs"]
    assert entry["notes"][-1]["transform"] == "acme_docs"


def test_the_plugin_works_from_a_separate_process(site: Path, tmp_path: Path) -> None:
    path = card_file(tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "a2a_migrate", "upgrade", "--plugin", "acme_docs", "--patch", str(path)],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [{"op": "add", "path": "/documentationUrl", "value": "https://acme.example/docs"}]


def test_a_broken_plugin_is_a_clear_error(site: Path, tmp_path: Path) -> None:
    (site / "acme_docs.py").write_text("raise ImportError('needs acme-core')\n", "utf-8")
    result = CliRunner().invoke(cli.main, ["upgrade", "--plugin", "acme_docs", str(card_file(tmp_path))])
    assert result.exit_code == 2
    assert "plugin 'acme_docs' cannot be loaded: ImportError: needs acme-core" in result.output
    assert "Traceback" not in result.output
    with pytest.raises(chain.ChainError):
        chain.plugin("acme_docs")


def _noop_recipe(folder: Path) -> Path:
    recipe = folder / "noop.yaml"
    recipe.write_text("- step: remove\n  pointer: /nothing-here\n", "utf-8")
    return recipe
