"""URL sources (issue 12): the fetcher's limits, against a server on 127.0.0.1 (tests/http_support.py).

No test reaches beyond the loopback address: other names are resolved by a
resolver the test injects, and a "public" address is connected to the local
server by an injected connector.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from pathlib import Path
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpcore
import pytest
from http_support import LocalServer, drip, endless, server, sized, slow, status, text  # noqa: F401 (server: a fixture)

from a2a_migrate import discover, fetch
from a2a_migrate.fetch import FetchError, FetchLimits, Network

LOCAL = FetchLimits(allow_http=True, allow_private=True)
CARD = {"name": "Weather", "url": "https://weather.example.com/a2a"}
PUBLIC = "93.184.216.34"  # stands for an address on the internet: the injected connector sends it to 127.0.0.1


def card_route() -> Callable[[BaseHTTPRequestHandler], None]:
    return text(json.dumps(CARD).encode())


# -- which URL answers -----------------------------------------------------------------------

@pytest.mark.parametrize("suffix", ["", "/"])
def test_a_bare_origin_falls_back_to_the_0_2_well_known_name(server: LocalServer, suffix: str) -> None:
    server.routes["/.well-known/agent.json"] = card_route()
    answer = fetch.fetch_card(server.url("") + suffix, LOCAL)
    assert answer.url == server.url("/.well-known/agent.json")
    assert json.loads(answer.body) == CARD
    assert server.hits["/.well-known/agent-card.json"] == 1


def test_a_bare_origin_prefers_agent_card_json(server: LocalServer) -> None:
    server.routes["/.well-known/agent-card.json"] = card_route()
    server.routes["/.well-known/agent.json"] = text(b"{}")
    assert fetch.fetch_card(server.url("/"), LOCAL).url == server.url("/.well-known/agent-card.json")
    assert server.hits["/.well-known/agent.json"] == 0


def test_a_bare_origin_with_neither_name_says_both(server: LocalServer) -> None:
    with pytest.raises(FetchError) as raised:
        fetch.fetch_card(server.url("/"), LOCAL)
    assert str(raised.value) == (f"{server.url('/.well-known/agent-card.json')}: answered HTTP 404 Not Found; "
                                 f"{server.url('/.well-known/agent.json')}: answered HTTP 404 Not Found")


def test_a_server_error_is_no_reason_to_try_the_other_name(server: LocalServer) -> None:
    server.routes["/.well-known/agent-card.json"] = status(500)
    server.routes["/.well-known/agent.json"] = card_route()
    with pytest.raises(FetchError, match=r"agent-card\.json: answered HTTP 500"):
        fetch.fetch_card(server.url(""), LOCAL)
    assert server.hits["/.well-known/agent.json"] == 0


def test_a_url_with_a_path_is_fetched_as_it_is(server: LocalServer) -> None:
    with pytest.raises(FetchError) as raised:
        fetch.fetch_card(server.url("/cards/weather.json"), LOCAL)
    assert str(raised.value) == f"{server.url('/cards/weather.json')}: answered HTTP 404 Not Found"
    assert raised.value.said_of(server.url("/cards/weather.json")) == "answered HTTP 404 Not Found"
    assert fetch.card_urls("https://a.example/x?y=1") == ["https://a.example/x?y=1"]
    assert fetch.card_urls("https://a.example:8443") == ["https://a.example:8443/.well-known/agent-card.json",
                                                         "https://a.example:8443/.well-known/agent.json"]


# -- redirects --------------------------------------------------------------------------------

def chain(server: LocalServer, hops: int) -> str:
    """``/hop{hops}`` redirects (relative and absolute locations, alternately) down to the card."""
    server.routes["/card.json"] = card_route()
    for hop in range(1, hops + 1):
        target = "/card.json" if hop == 1 else f"/hop{hop - 1}"
        server.routes[f"/hop{hop}"] = status(302 if hop % 2 else 301, target if hop % 2 else server.url(target))
    return server.url(f"/hop{hops}")


def test_redirects_are_followed_up_to_five(server: LocalServer) -> None:
    answer = fetch.fetch_card(chain(server, 5), LOCAL)
    assert answer.url == server.url("/card.json") and json.loads(answer.body) == CARD


def test_a_sixth_redirect_is_refused(server: LocalServer) -> None:
    with pytest.raises(FetchError) as raised:
        fetch.fetch_card(chain(server, 6), LOCAL)
    assert str(raised.value) == f"{server.url('/hop6')}: more than 5 redirects (the last to {server.url('/card.json')})"
    assert server.hits["/card.json"] == 0


def test_no_redirect_at_all_when_none_is_allowed(server: LocalServer) -> None:
    with pytest.raises(FetchError, match=r"/hop1: redirects \(HTTP 302\) to .*/card\.json: redirects are not followed"):
        fetch.fetch(chain(server, 1), FetchLimits(allow_http=True, allow_private=True, max_redirects=0))


# -- size and time ----------------------------------------------------------------------------

def test_an_endless_body_stops_at_the_cap(server: LocalServer) -> None:
    server.routes["/endless"] = endless(server.stop)
    with pytest.raises(FetchError) as raised:
        fetch.fetch(server.url("/endless"), FetchLimits(allow_http=True, allow_private=True, max_bytes=1024 * 1024))
    assert str(raised.value) == (f"{server.url('/endless')}: sends more than the limit of 1048576 bytes "
                                 "(1 MiB; --max-fetch-size)")


def test_a_declared_length_over_the_cap_is_refused_unread(server: LocalServer) -> None:
    server.routes["/declared"] = sized(200_000, declare=True)
    with pytest.raises(FetchError, match=r"sends 200000 bytes, more than the limit of 1000 bytes \(--max-fetch-size\)"):
        fetch.fetch(server.url("/declared"), FetchLimits(allow_http=True, allow_private=True, max_bytes=1000))


def test_a_body_at_the_cap_is_whole(server: LocalServer) -> None:
    server.routes["/exact"] = sized(3000, declare=False)
    body = fetch.fetch(server.url("/exact"), FetchLimits(allow_http=True, allow_private=True, max_bytes=3000)).body
    assert body == b" " * 3000


@pytest.mark.parametrize("route", ["slow", "drip"])
def test_the_time_limit_covers_the_whole_fetch(server: LocalServer, route: str) -> None:
    server.routes["/x"] = slow(10, server.stop) if route == "slow" else drip(server.stop)
    with pytest.raises(FetchError) as raised:
        fetch.fetch_card(server.url("/x"), FetchLimits(allow_http=True, allow_private=True, timeout=0.3))
    assert str(raised.value) == f"{server.url('/x')}: no complete answer within 0.3 s (--fetch-timeout)"


def test_a_time_limit_over_httpx_default_of_5_s_reaches_the_connection(server: LocalServer) -> None:
    server.routes["/card.json"] = card_route()
    timeouts: list[float | None] = []

    def connect(address: str, port: int, timeout: float | None) -> Any:
        timeouts.append(timeout)
        return httpcore.SyncBackend().connect_tcp(address, port, timeout)

    fetch.fetch(server.url("/card.json"), FetchLimits(allow_http=True, allow_private=True, timeout=30),
                Network(connect=connect))
    assert len(timeouts) == 1 and timeouts[0] is not None and 25 < timeouts[0] <= 30


def test_a_compressed_answer_is_refused_and_none_is_asked_for(server: LocalServer) -> None:
    import gzip

    seen: list[str | None] = []
    inflated = gzip.compress(b" " * 5_000_000)  # 5 MB behind a few KB: the cap must not be passed unseen

    def answer(request: BaseHTTPRequestHandler) -> None:
        seen.append(request.headers.get("Accept-Encoding"))
        request.send_response(200)
        request.send_header("Content-Encoding", "gzip")
        request.send_header("Content-Length", str(len(inflated)))
        request.end_headers()
        request.wfile.write(inflated)

    server.routes["/card.json"] = answer
    with pytest.raises(FetchError) as raised:
        fetch.fetch(server.url("/card.json"), LOCAL)
    assert str(raised.value) == f"{server.url('/card.json')}: sends a compressed answer (gzip), which is refused"
    assert seen == ["identity"]


def test_the_time_limit_covers_resolving_the_name(server: LocalServer) -> None:
    def hanging(host: str, port: int) -> list[str]:
        server.stop.wait(10)  # a resolver that does not answer (ends with the test)
        return [PUBLIC]

    with pytest.raises(FetchError) as raised:
        fetch.fetch("https://slow-dns.test/card.json", FetchLimits(timeout=0.3), Network(hanging, nowhere().connect))
    assert str(raised.value) == "https://slow-dns.test/card.json: no complete answer within 0.3 s (--fetch-timeout)"


def test_a_body_that_is_no_json_is_the_card_parser_s_business(server: LocalServer) -> None:
    server.routes["/page"] = text(b"<html>hello</html>", "text/html")
    answer = fetch.fetch(server.url("/page"), LOCAL)
    assert (answer.body, answer.content_type) == (b"<html>hello</html>", "text/html")


def test_a_closed_port_is_one_line() -> None:
    with pytest.raises(FetchError, match=r"^http://127\.0\.0\.1:1/x: cannot connect to 127\.0\.0\.1: "):
        fetch.fetch("http://127.0.0.1:1/x", LOCAL)


def nowhere() -> Network:
    """A network no test may use: a malformed URL is refused before any name is resolved."""
    def refuse(*args: Any) -> Any:
        raise AssertionError(f"the network was used: {args}")
    return Network(refuse, refuse)


@pytest.mark.parametrize("url, words", [
    ("https://[::1", "not a valid URL: Invalid IPv6 URL"),
    ("https://a.example:99999/x", "not a valid URL: Port out of range 0-65535"),
    ("https://a..b/x", "not a valid URL: encoding with 'idna' codec failed"),
    ("https://", "not an http(s) URL with a host"),
    ("http://:80/x", "not an http(s) URL with a host"),
])
def test_a_malformed_url_is_one_line_and_no_traceback(url: str, words: str) -> None:
    with pytest.raises(FetchError, match="^" + re.escape(words)):
        try:
            fetch.fetch_card(url, LOCAL, nowhere())
        except FetchError as error:
            raise FetchError(error.reason) from None
    assert fetch.output_name(url).endswith(".agent-card.json")


def test_a_redirect_to_no_valid_url_is_one_line(server: LocalServer) -> None:
    server.routes["/start"] = status(302, "http://[::1/x")
    with pytest.raises(FetchError, match=r"/start: Invalid URL in location header: "):
        fetch.fetch(server.url("/start"), LOCAL)


# -- what may be fetched ----------------------------------------------------------------------

def test_plain_http_is_refused_without_allow_http(server: LocalServer) -> None:
    server.routes["/card.json"] = card_route()
    with pytest.raises(FetchError) as raised:
        fetch.fetch(server.url("/card.json"), FetchLimits(allow_private=True))
    assert str(raised.value) == f"{server.url('/card.json')}: plain http refused (use --allow-http)"
    assert server.hits["/card.json"] == 0
    for url in ("ftp://a.example/card.json", "https:///card.json"):
        with pytest.raises(FetchError, match="not an http"):
            fetch.fetch(url, LOCAL, nowhere())


def test_the_loopback_server_is_refused_without_allow_private(server: LocalServer) -> None:
    server.routes["/card.json"] = card_route()
    with pytest.raises(FetchError) as raised:
        fetch.fetch(server.url("/card.json"), FetchLimits(allow_http=True))
    assert str(raised.value) == f"{server.url('/card.json')}: 127.0.0.1 is a loopback address: refused (use --allow-private)"
    assert server.hits["/card.json"] == 0


@pytest.mark.parametrize("address, kind", [
    ("127.0.0.1", "loopback"), ("127.8.9.10", "loopback"), ("::1", "loopback"),
    ("10.1.2.3", "private"), ("172.16.0.1", "private"), ("192.168.1.1", "private"), ("fc00::1", "private"),
    ("169.254.169.254", "link-local"), ("fe80::1%eth0", "link-local"),
    ("224.0.0.1", "multicast"), ("239.1.2.3", "multicast"), ("ff02::1", "multicast"),
    ("0.0.0.0", "unspecified"), ("::", "unspecified"), ("240.0.0.1", "reserved"),
    ("::ffff:10.0.0.1", "private"), ("::ffff:127.0.0.1", "loopback"), ("100.64.0.1", "non-public"),
    ("8.8.8.8", ""), ("2001:4860:4860::8888", ""), (PUBLIC, ""),
])
def test_addresses_refused_without_allow_private(address: str, kind: str) -> None:
    assert fetch.refused_kind(address) == kind


def test_one_inward_address_refuses_the_host() -> None:
    def resolve(host: str, port: int) -> list[str]:
        return {"split.test": [PUBLIC, "10.0.0.7"], "public.test": [PUBLIC, PUBLIC]}[host]

    with pytest.raises(FetchError, match=r"^split\.test \(10\.0\.0\.7\) is a private address: refused"):
        fetch.checked_addresses("split.test", 443, FetchLimits(), resolve)
    assert fetch.checked_addresses("public.test", 443, FetchLimits(), resolve) == [PUBLIC]
    assert fetch.checked_addresses("split.test", 443, FetchLimits(allow_private=True), resolve) == [PUBLIC, "10.0.0.7"]

    def unknown(host: str, port: int) -> list[str]:
        raise OSError("Name or service not known")

    with pytest.raises(FetchError, match="^cannot resolve nowhere.test: Name or service not known$"):
        fetch.checked_addresses("nowhere.test", 443, FetchLimits(), unknown)


class Internet:
    """An injected network: ``public.test`` is a public address, served by the loopback server;
    every other name resolves to what ``names`` says, and nothing else is ever connected to."""

    def __init__(self, server: LocalServer, names: dict[str, list[str]]) -> None:
        self.port = server.httpd.server_address[1]
        self.names = {"public.test": [PUBLIC], **names}
        self.resolved: list[str] = []
        self.connected: list[str] = []

    def resolve(self, host: str, port: int) -> list[str]:
        self.resolved.append(host)
        return self.names[host]

    def connect(self, address: str, port: int, timeout: float | None) -> Any:
        self.connected.append(address)
        assert address == PUBLIC, f"a connection to {address} was attempted"
        return httpcore.SyncBackend().connect_tcp("127.0.0.1", self.port, timeout)

    def network(self) -> Network:
        return Network(self.resolve, self.connect)


@pytest.mark.parametrize("target, words", [
    ("http://127.0.0.1:{port}/card.json", "127.0.0.1 is a loopback address"),
    ("http://inner.test:{port}/card.json", "inner.test (10.0.0.5) is a private address"),
    ("http://metadata.test/latest", "metadata.test (169.254.169.254) is a link-local address"),
])
def test_a_redirect_to_an_inward_address_is_refused(server: LocalServer, target: str, words: str) -> None:
    internet = Internet(server, {"inner.test": ["10.0.0.5"], "metadata.test": ["169.254.169.254"]})
    server.routes["/card.json"] = card_route()
    server.routes["/start"] = status(302, target.format(port=internet.port))
    limits = FetchLimits(allow_http=True)
    answer = fetch.fetch(f"http://public.test:{internet.port}/card.json", limits, internet.network())
    assert json.loads(answer.body) == CARD  # the public hop itself is fine
    with pytest.raises(FetchError) as raised:
        fetch.fetch(f"http://public.test:{internet.port}/start", limits, internet.network())
    assert str(raised.value) == f"{target.format(port=internet.port)}: {words}: refused (use --allow-private)"
    assert server.hits["/card.json"] == 1 and set(internet.connected) == {PUBLIC}


def test_the_connection_goes_to_the_address_that_was_checked(server: LocalServer) -> None:
    """DNS rebinding: a name that answers differently the second time is not asked again."""
    internet = Internet(server, {})
    answers = iter([[PUBLIC], ["127.0.0.1"]])
    internet.names = {}
    internet.resolve = lambda host, port: next(answers)  # type: ignore[method-assign]
    server.routes["/card.json"] = card_route()
    answer = fetch.fetch(f"http://rebind.test:{internet.port}/card.json", FetchLimits(allow_http=True),
                         internet.network())
    assert json.loads(answer.body) == CARD and internet.connected == [PUBLIC]


def test_every_hop_s_scheme_is_checked() -> None:
    """The loopback server speaks no TLS, so an https first hop cannot be served here: the check
    :func:`fetch.fetch` runs before each hop, redirects included, is tested on its own."""
    with pytest.raises(FetchError, match=r"^http://a\.example/card\.json: plain http refused \(use --allow-http\)$"):
        fetch.check_scheme("http://a.example/card.json", FetchLimits())
    fetch.check_scheme("https://a.example/card.json", FetchLimits())
    fetch.check_scheme("http://a.example/card.json", FetchLimits(allow_http=True))


# -- many URLs --------------------------------------------------------------------------------

def test_many_urls_come_back_in_input_order_fetched_together(server: LocalServer) -> None:
    together = threading.Barrier(3, timeout=10)

    def meeting(request: BaseHTTPRequestHandler) -> None:
        together.wait()  # breaks (and the fetch fails) unless three fetches are in flight at once
        card_route()(request)

    for name in ("a", "b", "c"):
        server.routes[f"/{name}.json"] = meeting
    urls = [server.url(f"/{name}.json") for name in ("a", "missing", "b", "c")]
    results = list(fetch.fetch_cards(urls, LOCAL, workers=3))
    assert [url for url, _ in results] == urls
    assert [isinstance(answer, FetchError) for _, answer in results] == [False, True, False, False]
    assert str(results[1][1]) == f"{urls[1]}: answered HTTP 404 Not Found"


def test_output_names_come_from_the_host() -> None:
    assert fetch.output_name("https://weather.example.com/.well-known/agent-card.json") == \
        "weather.example.com.agent-card.json"
    assert fetch.output_name("http://127.0.0.1:8080/") == "127.0.0.1_8080.agent-card.json"
    assert fetch.output_name("https://[::1]:8443/") == "_1_8443.agent-card.json"
    assert fetch.output_name("https://a.example/.well-known/agent.json") == "a.example.agent-card.json"
    assert fetch.output_name("https://a.example/agents/weather/.well-known/agent-card.json?v=2") == \
        "a.example_agents_weather.agent-card.json"
    assert fetch.output_name("https://a.example/cards/Weather Agent.YAML") == "a.example_cards_Weather_Agent.agent-card.json"
    assert fetch.output_name("https://a.example/weather/agent_card.yaml") == "a.example_weather.agent-card.json"


def test_urls_are_told_from_paths() -> None:
    assert [discover.is_url(text) for text in ("https://a.example", "HTTP://a.example/x", "http:/a", "a.json",
                                            "-", "httpsx://a")] == [True, True, False, False, False, False]


# -- TLS: the connection is pinned to the checked address, the certificate checked against the name ----

@pytest.fixture
def tls(tmp_path: Path) -> Any:
    """A :class:`LocalServer` speaking TLS with a certificate for ``localhost`` only, and a client
    context that trusts it (``trusted``)."""
    import datetime
    import ssl

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
                   .not_valid_after(now + datetime.timedelta(hours=1))
                   .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
                   .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                   .sign(key, hashes.SHA256()))
    (tmp_path / "cert.pem").write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "key.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                         serialization.NoEncryption()))
    served = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    served.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    local = LocalServer()
    local.httpd.socket = served.wrap_socket(local.httpd.socket, server_side=True)
    local.thread.start()
    local.trusted = ssl.create_default_context(cafile=str(tmp_path / "cert.pem"))
    yield local
    local.stop.set()
    local.httpd.shutdown()
    local.httpd.server_close()


def test_https_is_checked_against_the_host_name(tls: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    tls.routes["/card.json"] = card_route()
    url = f"https://localhost:{tls.httpd.server_address[1]}/card.json"
    with pytest.raises(FetchError, match=r"^https://localhost:\d+/card\.json: .*certificate verify failed"):
        fetch.fetch(url, FetchLimits(allow_private=True))  # a certificate no authority signed
    monkeypatch.setattr(fetch, "_ssl_context", lambda: tls.trusted)
    answer = fetch.fetch(url, FetchLimits(allow_private=True))
    assert (answer.url, json.loads(answer.body)) == (url, CARD)
    with pytest.raises(FetchError, match=r"certificate verify failed: IP address mismatch"):
        fetch.fetch(url.replace("localhost", "127.0.0.1"), FetchLimits(allow_private=True))
    with pytest.raises(FetchError, match=r"localhost \([0-9a-f.:]+\) is a loopback address: refused"):
        fetch.fetch(url, FetchLimits())


def test_an_https_redirect_to_plain_http_is_refused(tls: Any, server: LocalServer,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fetch, "_ssl_context", lambda: tls.trusted)
    server.routes["/card.json"] = card_route()
    tls.routes["/start"] = status(302, server.url("/card.json"))
    with pytest.raises(FetchError) as raised:
        fetch.fetch(f"https://localhost:{tls.httpd.server_address[1]}/start", FetchLimits(allow_private=True))
    assert str(raised.value) == f"{server.url('/card.json')}: plain http refused (use --allow-http)"
    assert server.hits["/card.json"] == 0
