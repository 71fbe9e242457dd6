"""URL sources on the command line (issue 12): every command that reads cards takes an http(s) PATH.

The cards are served by a server on 127.0.0.1 (tests/http_support.py), which
the commands reach only with --allow-private (and --allow-http: it speaks no
TLS). Nothing goes beyond the loopback address.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from http_support import LocalServer, endless, server, slow, status, text  # noqa: F401 (server: a fixture)

from a2a_migrate import cli, fetch

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
SIGNED = GOLDEN / "signed"
LOCAL = ("--allow-http", "--allow-private")


def invoke(*args: Any, stdin: str | None = None) -> Any:
    return CliRunner().invoke(cli.main, [str(arg) for arg in args], input=stdin)


def serve(server: LocalServer, path: str, golden: Path) -> str:
    server.routes[path] = text(golden.read_bytes())
    return server.url(path)


# -- reading a URL --------------------------------------------------------------------------

def test_a_bare_origin_is_read_at_the_0_2_name_when_agent_card_json_is_missing(server: LocalServer) -> None:
    serve(server, "/.well-known/agent.json", GOLDEN / "capabilities-missing.0.3.json")
    result = invoke("detect", *LOCAL, server.url("/"))
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{server.url('/.well-known/agent.json')}: 0.3\n"  # the URL that answered
    assert server.hits["/.well-known/agent-card.json"] == 1


def test_upgrade_writes_a_fetched_card_to_stdout_never_in_place(server: LocalServer, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    url = serve(server, "/agent-card.json", GOLDEN / "capabilities-missing.0.3.json")
    result = invoke("upgrade", *LOCAL, url)
    assert result.exit_code == 0, result.output
    assert result.stdout == (GOLDEN / "capabilities-missing.1.0.json").read_text()
    assert result.stderr.endswith("1 card upgraded, 0 already 1.0\n")
    assert list(tmp_path.iterdir()) == []


def test_upgrade_o_writes_a_fetched_card_under_a_name_from_the_host(server: LocalServer, tmp_path: Path) -> None:
    url = serve(server, "/cards/x.json", GOLDEN / "capabilities-missing.0.3.json")
    out = tmp_path / "out"
    check = invoke("upgrade", *LOCAL, "--check", "-o", out, url)
    assert check.exit_code == 1 and not out.exists()
    result = invoke("upgrade", *LOCAL, "-o", out, url)
    assert result.exit_code == 0, result.output
    port = server.httpd.server_address[1]
    assert [path.name for path in out.iterdir()] == [f"127.0.0.1_{port}_cards_x.agent-card.json"]
    assert (out / f"127.0.0.1_{port}_cards_x.agent-card.json").read_text() == \
        (GOLDEN / "capabilities-missing.1.0.json").read_text()


def test_files_and_urls_together_keep_their_order(server: LocalServer, tmp_path: Path) -> None:
    """Worker processes for the files, threads for the URLs: the outcomes still come in argument order."""
    cards = tmp_path / "cards"
    for name in ("a", "b", "c"):
        (cards / name).mkdir(parents=True)
        (cards / name / "agent-card.json").write_bytes((GOLDEN / "capabilities-missing.0.3.json").read_bytes())
    url = serve(server, "/agent-card.json", GOLDEN / "default-modes-missing.0.3.json")
    report = tmp_path / "report.json"
    result = invoke("upgrade", *LOCAL, "-j", "2", "--check", "--report", report, cards / "a", url, cards / "b", cards / "c")
    assert result.exit_code == 1, result.output
    assert [card["path"] for card in json.loads(report.read_text())["cards"]] == [
        str(cards / "a" / "agent-card.json"), url, str(cards / "b" / "agent-card.json"), str(cards / "c" / "agent-card.json")]


def test_a_fetched_yaml_card_keeps_its_comments_and_is_written_as_yaml(server: LocalServer, tmp_path: Path) -> None:
    url = serve(server, "/agent-card.yaml", GOLDEN / "yaml-comments.0.3.yaml")
    result = invoke("upgrade", *LOCAL, "-o", tmp_path, url)
    assert result.exit_code == 0, result.output
    (written,) = tmp_path.iterdir()
    assert written.name == f"127.0.0.1_{server.httpd.server_address[1]}.agent-card.yaml"
    assert written.read_text() == (GOLDEN / "yaml-comments.1.0.yaml").read_text()


def test_two_fetched_cards_would_share_stdout_or_a_file_and_are_refused(server: LocalServer, tmp_path: Path) -> None:
    second = serve(server, "/.well-known/agent-card.json", GOLDEN / "capabilities-missing.0.3.json")
    first = server.url("/")  # the same card, and the same file name: the host's
    shared = invoke("upgrade", *LOCAL, first, second)
    assert shared.exit_code == 2
    assert f"Error: {first} and {second} would both be written to stdout; give -o DIR" in shared.stderr
    clash = invoke("upgrade", *LOCAL, "-o", tmp_path, first, second)
    assert clash.exit_code == 123
    assert f"{second}: error: its result would overwrite that of {first} in {tmp_path}" in clash.stderr
    assert server.hits["/.well-known/agent-card.json"] == 1  # fetched once, for the first


def test_a_redirected_card_is_named_by_the_url_that_answered(server: LocalServer) -> None:
    target = serve(server, "/v2/agent-card.json", GOLDEN / "capabilities-missing.0.3.json")
    server.routes["/agent-card.json"] = status(301, "/v2/agent-card.json")
    result = invoke("upgrade", *LOCAL, "-v", "--check", server.url("/agent-card.json"))
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0].startswith(f"{target}:1:1: ")


# -- what a fetch may not do ----------------------------------------------------------------

def test_without_the_flags_this_machine_and_plain_http_are_refused(server: LocalServer) -> None:
    url = serve(server, "/agent-card.json", GOLDEN / "capabilities-missing.0.3.json")
    private = invoke("validate", "--allow-http", url)
    assert private.exit_code == 123
    assert private.stderr.splitlines()[0] == f"{url}: error: 127.0.0.1 is a loopback address: refused (use --allow-private)"
    plain = invoke("validate", "--allow-private", url)
    assert plain.stderr.splitlines()[0] == f"{url}: error: plain http refused (use --allow-http)"
    assert server.hits["/agent-card.json"] == 0


def test_slow_oversized_missing_and_non_json_answers_are_one_line_each(server: LocalServer) -> None:
    server.routes["/slow"] = slow(10, server.stop)
    server.routes["/endless"] = endless(server.stop)
    server.routes["/page"] = text(b"<html>hello</html>", "text/html")
    urls = [server.url(path) for path in ("/slow", "/endless", "/missing", "/page")]
    result = invoke("validate", *LOCAL, "--fetch-timeout", "1", "--max-fetch-size", "1k", *urls)
    assert result.exit_code == 123
    assert result.stderr.splitlines() == [
        f"{urls[0]}: error: no complete answer within 1 s (--fetch-timeout)",
        f"{urls[1]}: error: sends more than the limit of 1024 bytes (1 KiB; --max-fetch-size)",
        f"{urls[2]}: error: answered HTTP 404 Not Found",
        f"{urls[3]}: error: the top level is a string, not an object",  # the card parser's word on HTML
        "0 valid, 0 invalid, 4 failed",
    ]


# -- many URLs ------------------------------------------------------------------------------

def test_urls_from_a_file_come_out_in_input_order_and_one_failure_fails_only_itself(server: LocalServer,
                                                                                   tmp_path: Path) -> None:
    names = ["capabilities-missing.0.3.json", "already-1-0.1.0.json", "default-modes-missing.0.3.json"]
    urls = [serve(server, f"/{number}.json", GOLDEN / name) for number, name in enumerate(names)]
    listed = tmp_path / "agents.txt"
    listed.write_text(f"# a survey\n{urls[0]}\n\n  {server.url('/gone.json')}  \n{urls[1]}\n# done\n{urls[2]}\n"
                      f"{urls[1]}\n")  # named twice: fetched once
    result = invoke("detect", *LOCAL, "--urls", listed)
    assert result.exit_code == 123
    assert result.stdout == f"{urls[0]}: 0.3\n{urls[1]}: 1.0\n{urls[2]}: 0.3\n"
    assert result.stderr.splitlines() == [f"{server.url('/gone.json')}: error: answered HTTP 404 Not Found",
                                          "3 cards detected, 2 0.3, 1 1.0, 1 failed"]
    assert server.hits["/1.json"] == 1
    piped = invoke("detect", *LOCAL, "--urls", "-", stdin=f"{urls[1]}\n")
    assert (piped.exit_code, piped.stdout) == (0, f"{urls[1]}: 1.0\n")
    out = tmp_path / "out"
    upgraded = invoke("upgrade", *LOCAL, "--urls", listed, "-o", out, "--report", tmp_path / "report.json")
    assert upgraded.exit_code == 123
    report = json.loads((tmp_path / "report.json").read_text())
    assert [(card["path"], card["status"]) for card in report["cards"]] == [
        (urls[0], "changed"), (server.url("/gone.json"), "failed"), (urls[1], "unchanged"), (urls[2], "changed")]


@pytest.mark.parametrize("line", ["cards/agent.json", "https://a.example/\x00", "https://a.example/a b"])
def test_a_url_list_with_something_else_in_it_is_a_usage_error(tmp_path: Path, line: str) -> None:
    listed = tmp_path / "agents.txt"
    listed.write_text(f"https://a.example\n\n{line}\n")
    result = invoke("validate", "--urls", listed)
    assert result.exit_code == 2
    assert f"{listed}: line 3: {json.dumps(line)} is not an http(s) URL" in result.stderr
    both = invoke("validate", "--urls", "-", "-", stdin="https://a.example\n")
    assert both.exit_code == 2 and "--urls - reads the URLs from stdin: a card cannot come from it too" in both.stderr
    nothing = invoke("validate")
    assert nothing.exit_code == 2 and "Missing argument 'PATH...' (or --urls FILE" in nothing.stderr


def test_the_help_shows_the_fetcher_s_defaults() -> None:
    from a2a_migrate.cli.common import FETCH_DEFAULTS_SHOWN, ByteSize

    limits = fetch.FetchLimits()
    assert float(FETCH_DEFAULTS_SHOWN["fetch_timeout"]) == limits.timeout
    assert ByteSize().convert(FETCH_DEFAULTS_SHOWN["max_fetch_size"], None, None) == limits.max_bytes
    assert int(FETCH_DEFAULTS_SHOWN["workers"]) == fetch.WORKERS
    shown = " ".join(invoke("validate", "--help").stdout.split())
    assert f"fetched {fetch.WORKERS} at a time" in shown and "[default: (10); x>=0.01]" in shown
    assert "[default: (1MiB)]" in shown


# -- the other commands ---------------------------------------------------------------------

def test_verify_and_sign_read_urls(server: LocalServer, tmp_path: Path) -> None:
    url = serve(server, "/agent-card.json", SIGNED / "weather.0.3.json")
    verified = invoke("verify", *LOCAL, "--jwks", SIGNED / "test-key.jwks.json", url)
    assert verified.exit_code == 0, verified.output
    assert verified.stdout.startswith(f"{url}: /signatures/0: verified (EdDSA, ")
    signed = invoke("sign", *LOCAL, "--key", SIGNED / "TEST-ONLY-private-key.jwk.json", "--replace", url)
    assert signed.exit_code == 0, signed.output
    assert json.loads(signed.stdout) == json.loads((SIGNED / "weather.0.3.json").read_text())  # Ed25519: the same


def test_diff_reads_urls(server: LocalServer) -> None:
    old = serve(server, "/old.json", GOLDEN / "capabilities-missing.0.3.json")
    result = invoke("diff", *LOCAL, old, GOLDEN / "capabilities-missing.1.0.json")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"--- {old} (0.3)\n")
    missing = invoke("diff", *LOCAL, server.url("/gone.json"), old)
    assert missing.exit_code == 123 and missing.stderr == f"{server.url('/gone.json')}: error: answered HTTP 404 Not Found\n"


def test_a_malformed_url_is_one_line(tmp_path: Path) -> None:
    result = invoke("upgrade", "-o", tmp_path, "https://[::1", "https://a.example:99999/")
    assert result.exit_code == 123
    assert result.stderr.splitlines() == ["https://[::1: error: not a valid URL: Invalid IPv6 URL",
                                          "https://a.example:99999/: error: not a valid URL: Port out of range 0-65535",
                                          "0 cards upgraded, 0 already 1.0, 2 failed"]


def test_transform_reads_a_url(server: LocalServer, tmp_path: Path) -> None:
    url = serve(server, "/agent-card.json", GOLDEN / "capabilities-missing.1.0.json")
    recipe = tmp_path / "docs.yaml"
    recipe.write_text("- step: set_documentation_url\n  url: https://docs.example.com\n")
    result = invoke("transform", *LOCAL, "--recipe", recipe, url)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["documentationUrl"] == "https://docs.example.com"


@pytest.mark.parametrize("args, words", [
    (["plan", "https://a.example/"], "plan needs card files: a card fetched from a URL could not be applied later"),
    (["upgrade", "--jsonl", "https://a.example/"], "--jsonl reads files or stdin (-), not URLs"),
])
def test_commands_that_cannot_take_a_url_say_so(args: list[str], words: str) -> None:
    result = invoke(*args)
    assert result.exit_code == 2 and words in result.stderr
