"""Fetching cards (and JWK Sets) over HTTP(S), within limits: the only module that opens a connection.

Nothing here runs, nor is this module (or httpx) imported, unless a URL is
given (or a jku is to be fetched). Every fetch is bounded: one time limit for
the whole fetch of a URL (resolving names, connecting, every redirect, every
read), a size cap on the body (read as a stream, so a larger answer is never
held), a number of redirects, HTTPS only unless plain HTTP is allowed, and no
connection to a loopback, private, link-local, multicast, unspecified or
reserved address unless private addresses are allowed.

What is guaranteed about addresses: each hop's host is resolved here, every
address it resolves to is checked (one refused address refuses the host), and
the connection is made to an address that was checked, not by resolving the
name again, so a name that changes its answer between the check and the
connection (DNS rebinding) cannot slip through. TLS still checks the
certificate against the host's name. Proxies from the environment are not
used: a proxy would make the connection, and its address is not the card's.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpcore

#: Defaults of the command line's --fetch-timeout and --max-fetch-size, and the redirects followed.
TIMEOUT = 10.0
MAX_BYTES = 1024 * 1024
MAX_REDIRECTS = 5
#: Where a card is published (A2A 1.0), then the 0.2 name, tried in that order for a bare origin.
WELL_KNOWN = ("/.well-known/agent-card.json", "/.well-known/agent.json")
#: Fetches of ``--urls`` in flight at once.
WORKERS = 8
_CHUNK = 65536

#: ``(host, port) -> addresses``: how names are resolved (tests inject their own).
Resolver = Callable[[str, int], Sequence[str]]
#: ``(address, port, timeout) -> stream``: how a checked address is connected to.
Connector = Callable[[str, int, "float | None"], "httpcore.NetworkStream"]


class FetchError(Exception):
    """A URL could not be fetched: one line, ``URL: reason`` (``reason`` alone where no URL is known)."""

    def __init__(self, reason: str, url: str = "") -> None:
        super().__init__(f"{url}: {reason}" if url else reason)
        self.reason, self.url = reason, url

    def said_of(self, url: str) -> str:
        """The message for a line that already names ``url``: without the URL when it is that one."""
        return self.reason if self.url == url else str(self)


@dataclass(frozen=True)
class FetchLimits:
    """The bounds of one fetch; the ``*_option`` fields name the options a message cures with."""

    timeout: float = TIMEOUT  # seconds for the whole fetch of one URL, redirects and body included
    max_bytes: int = MAX_BYTES
    max_redirects: int = MAX_REDIRECTS
    allow_http: bool = False
    allow_private: bool = False
    accept: str = "application/json, application/yaml;q=0.9, */*;q=0.1"
    timeout_option: str = "--fetch-timeout"
    size_option: str = "--max-fetch-size"


def _system_resolve(host: str, port: int) -> list[str]:
    import socket

    return [str(info[4][0]) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]


def _system_connect(address: str, port: int, timeout: float | None) -> httpcore.NetworkStream:
    import httpcore

    return httpcore.SyncBackend().connect_tcp(address, port, timeout)  # an address: nothing is resolved again


@dataclass(frozen=True)
class Network:
    """How names are resolved and addresses connected to: the system's, unless a test injects its own."""

    resolve: Resolver = _system_resolve
    connect: Connector = _system_connect


@dataclass(frozen=True)
class Fetched:
    """An answer: the URL that answered (after redirects), its body and its media type."""

    url: str
    body: bytes
    content_type: str = ""


def fetch(url: str, limits: FetchLimits = FetchLimits(), network: Network | None = None) -> Fetched:
    """Fetch ``url``, following at most ``limits.max_redirects`` redirects, each hop checked.

    Raises :class:`FetchError` (one line, naming the URL) on any refusal or
    failure, including an HTTP status other than 2xx. The body is not parsed.
    """
    import httpx

    backend = _Backend(network or Network(), limits, 0.0)
    transport = _transport(backend)
    # The time limit starts now: building the client is this machine's time, not the server's.
    deadline = backend.deadline = time.monotonic() + limits.timeout
    # timeout=None: the deadline bounds the whole fetch (httpx's own 5 s per step would cap --fetch-timeout);
    # identity: a compressed body would be inflated whole, past the size cap, before it could be counted.
    with httpx.Client(transport=transport, trust_env=False, follow_redirects=False, timeout=None,
                      headers={"Accept": limits.accept, "Accept-Encoding": "identity",
                               "User-Agent": "a2a-migrate"}) as client:
        current = url
        for _ in range(limits.max_redirects + 1):
            check_scheme(current, limits)
            answer = _get(client, current, limits, deadline)
            if isinstance(answer, Fetched):
                return answer
            target = str(httpx.URL(current).join(answer[1]))  # httpx has refused a malformed location
            if limits.max_redirects == 0:
                raise FetchError(f"redirects (HTTP {answer[0]}) to {target}: redirects are not followed", current)
            current = target
        raise FetchError(f"more than {limits.max_redirects} redirects (the last to {current})", url)


def fetch_card(url: str, limits: FetchLimits = FetchLimits(), network: Network | None = None) -> Fetched:
    """Fetch the card at ``url``; a bare origin (``https://host``, ``https://host/``) is tried at
    ``/.well-known/agent-card.json``, then, when that answers 4xx, at the 0.2 name ``/.well-known/agent.json``.

    ``Fetched.url`` says which URL answered.
    """
    candidates = card_urls(url)
    failures: list[FetchError] = []
    for candidate in candidates:
        try:
            return fetch(candidate, limits, network)
        except _ClientError as error:  # not there: the next well-known name may be
            failures.append(error)
    if len(failures) == 1:
        raise failures[0]
    raise FetchError("; ".join(map(str, failures)))  # each names its URL


def fetch_cards(urls: Iterable[str], limits: FetchLimits = FetchLimits(), network: Network | None = None,
                workers: int = WORKERS) -> Iterator[tuple[str, Fetched | FetchError]]:
    """``(url, answer or error)`` for each URL, in input order, fetched ``workers`` at a time.

    At most twice ``workers`` answers are held ahead of the consumer, so a
    survey of many agents takes memory for a few cards, not for all of them.
    """
    from collections import deque
    from concurrent.futures import Future, ThreadPoolExecutor

    def one(url: str) -> Fetched | FetchError:
        try:
            return fetch_card(url, limits, network)
        except FetchError as error:
            return error

    pending: deque[tuple[str, Future[Fetched | FetchError]]] = deque()
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="a2a-migrate-fetch") as pool:
        for url in urls:
            pending.append((url, pool.submit(one, url)))
            if len(pending) >= 2 * workers:
                done, future = pending.popleft()
                yield done, future.result()
        while pending:
            done, future = pending.popleft()
            yield done, future.result()


def card_urls(url: str) -> list[str]:
    """The URLs tried for a card: the well-known names for a bare origin, else ``url`` itself."""
    parts = _split(url)
    if parts.path in ("", "/") and not parts.query and not parts.fragment:
        origin = f"{parts.scheme}://{parts.netloc}"
        return [origin + path for path in WELL_KNOWN]
    return [url]


def output_name(url: str) -> str:
    """The file name a fetched card gets in an output folder: ``host[_port][_path].agent-card.json``.

    The path is left out when it is a well-known name (or none), and so is a
    card's file name, so ``https://a.example`` gives ``a.example.agent-card.json``;
    several agents on one host (``https://a.example/agents/weather/``) keep
    apart by the rest of the path.
    """
    import re
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # fetching it will say what is wrong; a name of its own is still owed
        return re.sub(r"[^A-Za-z0-9.-]+", "_", url).strip("_.") + ".agent-card.json"
    host = re.sub(r"[^A-Za-z0-9.-]+", "_", parts.hostname or "card")
    path = parts.path.strip("/")
    for known in WELL_KNOWN:
        path = path.removesuffix(known.strip("/")).strip("/")
    path = re.sub(r"(^|/)(agent[-_]?card|agent)\.(json|ya?ml)$|\.(json|ya?ml)$", "", path, flags=re.IGNORECASE)
    pieces = [host, str(port) if port else "", re.sub(r"[^A-Za-z0-9.-]+", "_", path).strip("_.")]
    return "_".join(piece for piece in pieces if piece) + ".agent-card.json"


def check_scheme(url: str, limits: FetchLimits) -> None:
    """Refuse a URL that is not https (or http with ``allow_http``), or has no host."""
    parts = _split(url)
    scheme = parts.scheme.lower()
    if scheme == "http" and not limits.allow_http:
        raise FetchError("plain http refused (use --allow-http)", url)
    if scheme not in ("http", "https") or not parts.hostname:
        raise FetchError("not an http(s) URL with a host", url)


def _split(url: str) -> Any:
    """``urlsplit(url)``, its host and port read once so that a malformed one is a :class:`FetchError`."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        _ = parts.port  # raises ValueError when malformed
        if parts.hostname:
            parts.hostname.encode("idna")  # UnicodeError (a ValueError) for a name no DNS can hold, like a..b
    except ValueError as error:
        raise FetchError(f"not a valid URL: {error}", url) from None
    return parts


def checked_addresses(host: str, port: int, limits: FetchLimits, resolve: Resolver) -> list[str]:
    """The addresses ``host`` resolves to, all of them allowed by ``limits``, or :class:`FetchError`.

    One refused address refuses the host: a name that also points inward must
    not be reached by whichever address a connection happens to try.
    """
    import ipaddress

    try:
        ipaddress.ip_address(host)
        addresses = [host]  # an address is its own answer: no resolver is asked
    except ValueError:
        addresses = []
    try:
        addresses = addresses or list(dict.fromkeys(resolve(host, port)))
    except OSError as error:
        raise FetchError(f"cannot resolve {host}: {getattr(error, 'strerror', None) or error}") from None
    if not addresses:
        raise FetchError(f"cannot resolve {host}: no address")
    if not limits.allow_private:
        for address in addresses:
            kind = refused_kind(address)
            if kind:
                shown = host if host == address else f"{host} ({address})"
                raise FetchError(f"{shown} is a {kind} address: refused (use --allow-private)")
    return addresses


def refused_kind(address: str) -> str:
    """What makes ``address`` one not to fetch from without ``--allow-private`` ("" for a public one)."""
    import ipaddress

    ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone (fe80::1%eth0) names no other address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # ::ffff:127.0.0.1 is 127.0.0.1
    for kind in ("loopback", "link_local", "multicast", "unspecified", "reserved", "private"):
        if getattr(ip, f"is_{kind}"):
            return kind.replace("_", "-")
    return "" if ip.is_global else "non-public"


# -- one hop --------------------------------------------------------------------------------

class _Unreached(FetchError):
    """A hop's host refused or not resolved; :func:`_get` adds the URL."""


class _ClientError(FetchError):
    """An HTTP 4xx answer: the card is not at this URL (a bare origin tries the next well-known name)."""


def _get(client: Any, url: str, limits: FetchLimits, deadline: float) -> Fetched | tuple[int, str]:
    """The answer of one hop, or ``(status, location)`` for a redirect."""
    import httpx

    try:
        with client.stream("GET", url) as response:
            location = response.headers.get("location")
            if response.is_redirect and location:
                return response.status_code, location
            if response.status_code >= 300:
                words = f"answered HTTP {response.status_code} {response.reason_phrase}".rstrip()
                raise (_ClientError if 400 <= response.status_code < 500 else FetchError)(words, url)
            encoding = response.headers.get("content-encoding", "identity").strip().lower()
            if encoding not in ("", "identity"):  # asked for none: inflating it could pass the cap unseen
                raise FetchError(f"sends a compressed answer ({encoding}), which is refused", url)
            body = _read(response, url, limits, deadline)
            return Fetched(url, body, response.headers.get("content-type", ""))
    except _Unreached as error:
        raise FetchError(error.reason, url) from None
    except httpx.TimeoutException:
        raise FetchError(_too_slow(limits), url) from None
    except httpx.HTTPError as error:
        raise FetchError(_reason(error), url) from None
    except (httpx.InvalidURL, ValueError) as error:  # ValueError: a host IDNA cannot encode (UnicodeError)
        raise FetchError(f"not a valid URL: {error}", url) from None


def _read(response: Any, url: str, limits: FetchLimits, deadline: float) -> bytes:
    """The body, streamed: refused as soon as it passes the cap, and by a declared length over it."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limits.max_bytes:
        raise FetchError(f"sends {declared} bytes, more than the limit of {_size(limits.max_bytes, limits.size_option)}",
                         url)
    body = bytearray()
    for chunk in response.iter_bytes(_CHUNK):
        body += chunk
        if len(body) > limits.max_bytes:
            raise FetchError(f"sends more than the limit of {_size(limits.max_bytes, limits.size_option)}", url)
        if time.monotonic() > deadline:
            raise FetchError(_too_slow(limits), url)
    return bytes(body)


def _too_slow(limits: FetchLimits) -> str:
    return f"no complete answer within {limits.timeout:g} s ({limits.timeout_option})"


def _size(count: int, option: str) -> str:
    """``1048576 bytes (1 MiB; --max-fetch-size)``: exact, readable when round, and the option that sets it."""
    for unit, power in (("GiB", 3), ("MiB", 2), ("KiB", 1)):
        if count % 1024 ** power == 0:
            return f"{count} bytes ({count // 1024 ** power} {unit}; {option})"
    return f"{count} bytes ({option})"


def _reason(error: BaseException) -> str:
    """The innermost cause's words: an SSL or socket error says more than httpx's wrapper."""
    while True:
        inner = error.__cause__ or (None if error.__suppress_context__ else error.__context__)
        if inner is None:
            break
        if isinstance(inner, FetchError):
            return str(inner)
        error = inner
    return str(error).splitlines()[0] if str(error) else type(error).__name__


# -- the connection: resolve, check, connect to a checked address, within the deadline ------------

class _Backend:
    """An httpcore network backend that connects only to checked addresses and keeps the deadline."""

    def __init__(self, network: Network, limits: FetchLimits, deadline: float) -> None:
        self.network, self.limits, self.deadline = network, limits, deadline

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        import httpcore

        try:
            addresses = checked_addresses(host, port, self.limits, self._resolve)
        except FetchError as error:  # _get names the URL
            raise _Unreached(str(error)) from None
        failures: list[str] = []
        for address in addresses:  # in the resolver's order, as a connection by name would try them
            try:
                return _stream(self.network.connect(address, port, _within(timeout, self.deadline)), self.deadline)
            except httpcore.ConnectError as error:
                failures.append(str(error) or type(error).__name__)
        raise httpcore.ConnectError(f"cannot connect to {host}: {'; '.join(dict.fromkeys(failures))}")

    def _resolve(self, host: str, port: int) -> Sequence[str]:
        """The resolver's answer by the deadline: getaddrinfo has no time limit of its own.

        It runs in a daemon thread; one that never answers is left behind
        (it ends with the process) rather than holding the fetch past its limit.
        """
        import threading

        import httpcore

        box: dict[str, Any] = {}

        def run() -> None:
            try:
                box["addresses"] = self.network.resolve(host, port)
            except BaseException as error:  # handed to the fetching thread
                box["error"] = error

        worker = threading.Thread(target=run, name="a2a-migrate-resolve", daemon=True)
        worker.start()
        worker.join(max(0.0, self.deadline - time.monotonic()))
        if worker.is_alive():
            raise httpcore.ConnectTimeout(f"{host} not resolved within the time limit")
        if "error" in box:
            raise box["error"]
        return box["addresses"]

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


def _within(timeout: float | None, deadline: float) -> float:
    """A socket timeout that ends by the deadline (a timeout of 0 would make the socket non-blocking)."""
    remaining = deadline - time.monotonic()
    return max(0.001, min(remaining, timeout) if timeout is not None else remaining)


def _stream(inner: httpcore.NetworkStream, deadline: float) -> httpcore.NetworkStream:
    """``inner`` whose every read and write (and TLS handshake) ends by ``deadline``."""
    deadline_stream, _ = _classes()
    return deadline_stream(inner, deadline)


def _transport(backend: _Backend) -> Any:
    """An httpx transport over an httpcore pool with ``backend``: no proxy, checked addresses."""
    _, transport = _classes()
    return transport(backend)


@functools.lru_cache(maxsize=1)
def _classes() -> tuple[Any, Any]:
    """The stream and transport classes, made once httpx is imported (only when a URL is fetched).

    httpx's own transport builds its pool without a way to pass a network
    backend, so the transport here is the few lines of it that are needed, on
    public API.
    """
    import httpcore
    import httpx

    class DeadlineStream(httpcore.NetworkStream):
        def __init__(self, inner: httpcore.NetworkStream, deadline: float) -> None:
            self.inner, self.deadline = inner, deadline

        def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            return self.inner.read(max_bytes, _within(timeout, self.deadline))

        def write(self, buffer: bytes, timeout: float | None = None) -> None:
            self.inner.write(buffer, _within(timeout, self.deadline))

        def close(self) -> None:
            self.inner.close()

        def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                      timeout: float | None = None) -> httpcore.NetworkStream:
            tls = self.inner.start_tls(ssl_context, server_hostname, _within(timeout, self.deadline))
            return DeadlineStream(tls, self.deadline)

        def get_extra_info(self, info: str) -> Any:
            return self.inner.get_extra_info(info)

    class Body(httpx.SyncByteStream):
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def __iter__(self) -> Iterator[bytes]:
            with _as_httpx_errors():
                yield from self.inner

        def close(self) -> None:
            self.inner.close()

    class Transport(httpx.BaseTransport):
        def __init__(self, backend: _Backend) -> None:
            # _Backend has the methods of httpcore.NetworkBackend that a pool calls, not its base class
            self.pool = httpcore.ConnectionPool(ssl_context=_ssl_context(), network_backend=backend)  # type: ignore[arg-type]

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            url = httpcore.URL(scheme=request.url.raw_scheme, host=request.url.raw_host, port=request.url.port,
                               target=request.url.raw_path)
            core = httpcore.Request(request.method, url, headers=request.headers.raw, content=request.stream,
                                    extensions=request.extensions)
            with _as_httpx_errors():
                answer = self.pool.handle_request(core)
            return httpx.Response(answer.status, headers=answer.headers, stream=Body(answer.stream),
                                  extensions=answer.extensions)

        def close(self) -> None:
            self.pool.close()

    return DeadlineStream, Transport


@functools.lru_cache(maxsize=1)
def _ssl_context() -> Any:
    """One TLS context for every fetch of the run: loading the CA certificates takes longer than a card's fetch."""
    import httpx

    return httpx.create_ssl_context(trust_env=False)


@contextlib.contextmanager
def _as_httpx_errors() -> Iterator[None]:
    """httpcore's errors as httpx's, as httpx's own transport maps them (a :class:`FetchError` passes)."""
    import httpcore
    import httpx

    try:
        yield
    except httpcore.TimeoutException as error:
        raise httpx.TimeoutException(str(error)) from error
    except (httpcore.NetworkError, httpcore.ProtocolError, httpcore.UnsupportedProtocol) as error:
        raise httpx.TransportError(str(error)) from error
