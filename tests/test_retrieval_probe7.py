"""Multi mode on a real index: classes of natural question whose answer ranked below the first place on
two packages nobody had tuned on (field probe 7: urllib3, ix) — a Python exception raised with several
arguments, pasted as the tuple it prints; a raised message that prints its cause's error value inside
it (``Max retries exceeded ... (Caused by NewConnectionError('...'))``), where the cause's raise site
came first and a docstring naming the exception counted as raising it."""

from __future__ import annotations

from workspace_fixture import indexed_files, top10

RESPONSE = '''from .exceptions import IncompleteRead, ProtocolError


class HTTPResponse:
    def _error_catcher(self):
        """Catch low-level python exceptions, instead re-raising urllib3
        variants, so that low-level exceptions are not leaked in the
        high-level api."""
        try:
            yield
        except (HTTPException, OSError) as e:
            if isinstance(e, IncompleteRead):
                arg = f"Connection broken: {e!r}"
            raise ProtocolError(f"Connection broken: {e!r}", e) from e

    def read_chunked(self, amt=None):
        """Read the response body chunk by chunk; an incomplete read is an error."""
        if self.length_remaining:
            raise IncompleteRead(self._fp_bytes_read, self.length_remaining)
'''

EXCEPTIONS = '''class HTTPError(Exception):
    """Base exception used by this module."""


class ProtocolError(HTTPError):
    """Raised when something unexpected happens mid-request/response."""


class IncompleteRead(HTTPError):
    """Response length doesn't match expected Content-Length"""

    def __init__(self, partial, expected):
        self.partial = partial
        self.expected = expected

    def __repr__(self):
        return "IncompleteRead(%i bytes read, %i more expected)" % (self.partial, self.expected)


class MaxRetryError(HTTPError):
    """Raised when the maximum number of retries is exceeded."""

    def __init__(self, pool, url, reason=None):
        self.reason = reason
        message = f"Max retries exceeded with url: {url} (Caused by {reason!r})"
        super().__init__(pool, url, message)


class NewConnectionError(HTTPError):
    """Raised when we fail to establish a new connection."""

    def __init__(self, conn, message):
        super().__init__(conn, message)


class ResponseError(HTTPError):
    """Used as a container for an error reason supplied in a MaxRetryError."""

    GENERIC_ERROR = "too many error responses"
'''

RETRY = '''from .exceptions import MaxRetryError


class Retry:
    def increment(self, method=None, url=None, error=None, _pool=None):
        """Return a new Retry object with incremented retry counters."""
        new_retry = self.new(total=self.total - 1)
        if new_retry.is_exhausted():
            raise MaxRetryError(_pool, url, error)
        return new_retry
'''

CONNECTION = '''import socket

from .exceptions import NewConnectionError


class HTTPConnection:
    def _new_conn(self):
        """Establish a socket connection and set nodelay settings on it."""
        try:
            return socket.create_connection((self.host, self.port), self.timeout)
        except OSError as e:
            raise NewConnectionError(self, f"Failed to establish a new connection: {e}") from e
'''

POOL = '''class HTTPConnectionPool:
    def urlopen(self, method, url, retries=None):
        """Get a connection from the pool and perform an HTTP request.

        :param retries:
            Configure the number of retries to allow before raising a
            :class:`~urllib3.exceptions.MaxRetryError` exception.

            If ``False``, then retries are disabled and any exception is raised
            immediately. Also, instead of raising a MaxRetryError on redirects,
            the redirect response will be returned.
        """
        conn = self._get_conn()
        return conn.request(method, url)
'''


def test_an_exception_raised_with_several_arguments_is_pasted_as_its_tuple(tmp_path):
    brain = indexed_files(tmp_path, {"src/response.py": RESPONSE, "src/exceptions.py": EXCEPTIONS})
    query = (
        "urllib3.exceptions.ProtocolError: ('Connection broken: IncompleteRead(0 bytes read, 512 more expected)', "
        "IncompleteRead(0 bytes read, 512 more expected))"
    )
    names = [r.symbol_name for r in top10(brain, query)]
    assert names[0] == "_error_catcher", names


def test_a_cause_printed_inside_the_raised_message_comes_after_it(tmp_path):
    brain = indexed_files(
        tmp_path,
        {
            "src/exceptions.py": EXCEPTIONS,
            "src/retry.py": RETRY,
            "src/connection.py": CONNECTION,
            "src/connectionpool.py": POOL,
        },
    )
    query = (
        "urllib3.exceptions.MaxRetryError: HTTPConnectionPool(host='localhost', port=8080): Max retries exceeded "
        "with url: /v1/items (Caused by NewConnectionError('<urllib3.connection.HTTPConnection object at 0x7f3a>: "
        "Failed to establish a new connection: [Errno 111] Connection refused'))"
    )
    results = top10(brain, query)
    names = [r.symbol_name for r in results]
    # where MaxRetryError is raised, then the constructor making its message; the cause's raise site after
    assert names[:2] == ["increment", "__init__"], names
    assert results[1].source == "src/exceptions.py"
    assert names.index("_new_conn") > 1
    # a docstring saying "raising a MaxRetryError" names the class, it does not raise it
    assert "urlopen" not in names[:3] and "ResponseError" not in names[:3], names


# urllib3 2.8.0's poolmanager.py (MIT), PoolManager's head and ProxyManager's: the subclass's docstring is
# long enough that its header line is a chunk of its own, all name
POOLMANAGER = r'''class PoolManager(RequestMethods):
    """
    Allows for arbitrary requests while transparently keeping track of
    necessary connection pools for you.

    :param num_pools:
        Number of connection pools to cache before discarding the least
        recently used pool.

    :param headers:
        Headers to include with all requests, unless other headers are given
        explicitly.

    :param \\**connection_pool_kw:
        Additional parameters are used to create fresh
        :class:`urllib3.connectionpool.ConnectionPool` instances.

    Example:

    .. code-block:: python

        import urllib3

        http = urllib3.PoolManager(num_pools=2)

        resp1 = http.request("GET", "https://google.com/")
        resp2 = http.request("GET", "https://google.com/mail")
        resp3 = http.request("GET", "https://yahoo.com/")

        print(len(http.pools))
        # 2

    """

    proxy: Url | None = None
    proxy_config: ProxyConfig | None = None

    def __init__(
        self,
        num_pools: int = 10,
        headers: typing.Mapping[str, str] | None = None,
        **connection_pool_kw: typing.Any,
    ) -> None:
        super().__init__(headers)
        # PoolManager handles redirects itself in PoolManager.urlopen().
        # It always passes redirect=False to the underlying connection pool to
        # suppress per-pool redirect handling. If the user supplied a non-Retry
        # value (int/bool/etc) for retries and we let the pool normalize it
        # while redirect=False, the resulting Retry object would have redirect
        # handling disabled, which can interfere with PoolManager's own
        # redirect logic. Normalize here so redirects remain governed solely by
        # PoolManager logic.
        if "retries" in connection_pool_kw:
            retries = connection_pool_kw["retries"]
            if not isinstance(retries, Retry):
                retries = Retry.from_int(retries)
                connection_pool_kw = connection_pool_kw.copy()
                connection_pool_kw["retries"] = retries
        self.connection_pool_kw = connection_pool_kw

        self.pools: RecentlyUsedContainer[PoolKey, HTTPConnectionPool]
        self.pools = RecentlyUsedContainer(num_pools)

        # Locally set the pool classes and keys so other PoolManagers can
        # override them.
        self.pool_classes_by_scheme = pool_classes_by_scheme
        self.key_fn_by_scheme = key_fn_by_scheme.copy()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> typing.Literal[False]:
        self.clear()
        # Return False to re-raise any potential exceptions
        return False

    def _new_pool(
        self,
        scheme: str,
        host: str,
        port: int,
        request_context: dict[str, typing.Any] | None = None,
    ) -> HTTPConnectionPool:
        """
        Create a new :class:`urllib3.connectionpool.ConnectionPool` based on host, port, scheme, and
        any additional pool keyword arguments.

        If ``request_context`` is provided, it is provided as keyword arguments
        to the pool class used. This method is used to actually create the
        connection pools handed out by :meth:`connection_from_url` and
        companion methods. It is intended to be overridden for customization.
        """
        pool_cls: type[HTTPConnectionPool] = self.pool_classes_by_scheme[scheme]
        if request_context is None:
            request_context = self.connection_pool_kw.copy()

        # Default blocksize to _DEFAULT_BLOCKSIZE if missing or explicitly
        # set to 'None' in the request_context.
        if request_context.get("blocksize") is None:
            request_context["blocksize"] = _DEFAULT_BLOCKSIZE

        # Although the context has everything necessary to create the pool,
        # this function has historically only used the scheme, host, and port
        # in the positional args. When an API change is acceptable these can
        # be removed.
        for key in ("scheme", "host", "port"):
            request_context.pop(key, None)

        if scheme == "http":
            for kw in SSL_KEYWORDS:
                request_context.pop(kw, None)

        return pool_cls(host, port, **request_context)

    def clear(self) -> None:
        """
        Empty our store of pools and direct them all to close.

        This will not affect in-flight connections, but they will not be
        re-used after completion.
        """
        self.pools.clear()

class ProxyManager(PoolManager):
    """
    Behaves just like :class:`PoolManager`, but sends all requests through
    the defined proxy, using the CONNECT method for HTTPS URLs.

    :param proxy_url:
        The URL of the proxy to be used.

    :param proxy_headers:
        A dictionary containing headers that will be sent to the proxy. In case
        of HTTP they are being sent with each request, while in the
        HTTPS/CONNECT case they are sent only once. Could be used for proxy
        authentication.

    :param proxy_ssl_context:
        The proxy SSL context is used to establish the TLS connection to the
        proxy when using HTTPS proxies.

    :param use_forwarding_for_https:
        (Defaults to False) If set to True will forward requests to the HTTPS
        proxy to be made on behalf of the client instead of creating a TLS
        tunnel via the CONNECT method. **Enabling this flag means that request
        and response headers and content will be visible from the HTTPS proxy**
        whereas tunneling keeps request and response headers and content
        private.  IP address, target hostname, SNI, and port are always visible
        to an HTTPS proxy even when this flag is disabled.

    :param proxy_assert_hostname:
        The hostname of the certificate to verify against.

    :param proxy_assert_fingerprint:
        The fingerprint of the certificate to verify against.

    Example:

    .. code-block:: python

        import urllib3

        proxy = urllib3.ProxyManager("https://localhost:3128/")

        resp1 = proxy.request("GET", "http://google.com/")
        resp2 = proxy.request("GET", "http://httpbin.org/")

        # One pool was shared by both plain HTTP requests.
        print(len(proxy.pools))
        # 1

        resp3 = proxy.request("GET", "https://httpbin.org/")
        resp4 = proxy.request("GET", "https://twitter.com/")

        # A separate pool was added for each HTTPS target.
        print(len(proxy.pools))
        # 3

    """

    def __init__(
        self,
        proxy_url: str,
        num_pools: int = 10,
        headers: typing.Mapping[str, str] | None = None,
        proxy_headers: typing.Mapping[str, str] | None = None,
        proxy_ssl_context: ssl.SSLContext | None = None,
        use_forwarding_for_https: bool = False,
        proxy_assert_hostname: None | str | typing.Literal[False] = None,
        proxy_assert_fingerprint: str | None = None,
        **connection_pool_kw: typing.Any,
    ) -> None:
        if isinstance(proxy_url, HTTPConnectionPool):
            str_proxy_url = f"{proxy_url.scheme}://{proxy_url.host}:{proxy_url.port}"
        else:
            str_proxy_url = proxy_url
        proxy = parse_url(str_proxy_url)

        if proxy.scheme not in ("http", "https"):
            raise ProxySchemeUnknown(proxy.scheme)

        # Keep the deprecated ssl_context fallback on the manager for
        # compatibility, while passing only explicit proxy policy to connections.
        self.proxy_ssl_context = proxy_ssl_context
        if (
            use_forwarding_for_https
            and proxy.scheme == "https"
            and connection_pool_kw.get("ssl_context") is not None
        ):
            warnings.warn(
                "Passing ssl_context when use_forwarding_for_https=True is deprecated "
                "and will raise an error in urllib3 v3.0. "
                "Use proxy_ssl_context to configure the TLS connection to the proxy.",
                FutureWarning,
                stacklevel=2,
            )
            if self.proxy_ssl_context is None:
                self.proxy_ssl_context = connection_pool_kw.get("ssl_context")

        if proxy.port is None:
            port = port_by_scheme.get(proxy.scheme, 80)
            proxy = proxy._replace(port=port)

'''


def test_what_a_class_is_finds_its_definition_first(tmp_path):
    brain = indexed_files(tmp_path, {"src/poolmanager.py": POOLMANAGER})
    results = top10(brain, "what is a PoolManager")
    assert (results[0].symbol_name, results[0].start_line) == ("PoolManager", 1), [
        (r.symbol_name, r.start_line) for r in results
    ]


# ix 7.0.0 (Apache-2.0): its type guards, and the head of fromNodeStream's file
IS_ITERABLE = r"""/* eslint-disable @typescript-eslint/ban-types */

import { Observable } from '../observer.js';

/** @ignore */
const isNumber = (x: any) => typeof x === 'number';
/** @ignore */
const isBoolean = (x: any) => typeof x === 'boolean';
/** @ignore */
export const isFunction = (x: any): x is Function => typeof x === 'function';
/** @ignore */
export const isObject = (x: any): x is Object => x != null && Object(x) === x;

/** @ignore */
export const isPromise = (x: any): x is PromiseLike<any> => {
  return isObject(x) && isFunction(x.then);
};

/** @ignore */
export function isArrayLike(x: any): x is ArrayLike<any> {
  return isObject(x) && isNumber(x['length']);
}

/** @ignore */
export function isIterable(x: any): x is Iterable<any> {
  return x != null && isFunction(x[Symbol.iterator]);
}

/** @ignore */
export function isIterator(x: any): x is Iterable<any> {
  return isObject(x) && !isFunction(x[Symbol.iterator]) && isFunction(x['next']);
}

/** @ignore */
export function isAsyncIterable(x: any): x is AsyncIterable<any> {
  return isObject(x) && isFunction(x[Symbol.asyncIterator]);
}

/** @ignore */
export function isObservable(x: any): x is Observable<any> {
  return x != null && Object(x) === x && typeof x['subscribe'] === 'function';
}

/** @ignore */
export const isReadableNodeStream = (x: any): x is NodeJS.ReadableStream => {
  return (
    isObject(x) &&
    isFunction(x['pipe']) &&
    isFunction(x['_read']) &&
    isBoolean(x['readable']) &&
    isObject(x['_readableState'])
  );
};

/** @ignore */
"""

FROM_NODE_STREAM = r"""import { AsyncIterableX } from './asynciterablex.js';
import { safeRace } from '../util/safeRace.js';

const NON_FLOWING = 0;
const READABLE = 1;
const ENDED = 2;
const ERRORED = 3;

/** @ignore */
/** @ignore */
export class ReadableStreamAsyncIterable extends AsyncIterableX<string | Buffer>
  implements AsyncIterator<string | Buffer> {
  private _stream: NodeJS.ReadableStream;
  private _defaultSize?: number;
  private _state: number;
  private _error: any;
  private _rejectFns: Set<(err: any) => void>;
  private _endPromise: Promise<void> | undefined;

  constructor(stream: NodeJS.ReadableStream, size?: number) {
    super();
    this._stream = stream;
    this._defaultSize = size;
    this._state = NON_FLOWING;
    this._error = null;
    this._rejectFns = new Set<(err: any) => void>();

    const onError = (err: any) => {
      this._state = ERRORED;
      this._error = err;
      for (const rejectFn of this._rejectFns) {
        rejectFn(err);
      }
    };

    const onEnd = () => {
      this._state = ENDED;
    };

    this._stream['once']('error', onError);
  }
}

/**
 * Creates a new async-iterable from a Node.js stream.
 *
 * @param {NodeJS.ReadableStream} stream The Node.js stream to convert to an async-iterable.
 * @param {number} [size] The size of the buffers for the stream.
 * @returns {(AsyncIterableX<string | Buffer>)} An async-iterable containing data from the stream
 * either in string or Buffer format.
 */
export function fromNodeStream(
  stream: NodeJS.ReadableStream,
  size?: number
): AsyncIterableX<string | Buffer> {
  return new ReadableStreamAsyncIterable(stream, size);
}
"""


def test_a_predicate_is_not_spelled_out_by_a_question_about_what_it_tests(tmp_path):
    brain = indexed_files(tmp_path, {"src/util/isiterable.ts": IS_ITERABLE, "src/fromnodestream.ts": FROM_NODE_STREAM})
    results = top10(brain, "how do I read a Node.js readable stream as an async iterable")
    names = [r.symbol_name for r in results]
    assert set(names[:2]) == {"fromNodeStream", "ReadableStreamAsyncIterable"}, names
    guard = next(r for r in results if r.symbol_name == "isReadableNodeStream")
    assert "names" not in guard.ranks, guard.ranks  # ``is`` is a stop word: "readable node stream" is not its name
    # a question asking whether something holds spells the predicate out
    results = top10(brain, "check whether a value is a readable node stream")
    assert results[0].symbol_name == "isReadableNodeStream", [r.symbol_name for r in results]
    assert "names" in results[0].ranks, results[0].ranks


HTTPS_POOL = '''import warnings

from .exceptions import InsecureRequestWarning


class HTTPSConnectionPool(HTTPConnectionPool):
    def _validate_conn(self, conn):
        """
        Called right before a request is made, after the socket is created.
        """
        super()._validate_conn(conn)
        if conn.is_closed:
            conn.connect()
        if not conn.is_verified and not conn.proxy_is_verified:
            warnings.warn(
                (
                    f"Unverified HTTPS request is being made to host '{conn.host}'. "
                    "Adding certificate verification is strongly advised. See: "
                    "https://urllib3.readthedocs.io/en/latest/advanced-usage.html"
                    "#tls-warnings"
                ),
                InsecureRequestWarning,
            )
'''

WARNINGS = '''class HTTPWarning(Warning):
    """Base warning used by this module."""


class SecurityWarning(HTTPWarning):
    """Warned when performing security reducing actions"""


class InsecureRequestWarning(SecurityWarning):
    """Warned when making an unverified HTTPS request."""
'''


def test_a_message_pasted_without_its_last_sentences_finds_where_it_is_made(tmp_path):
    brain = indexed_files(tmp_path, {"src/connectionpool.py": HTTPS_POOL, "src/exceptions.py": WARNINGS})
    query = (
        "InsecureRequestWarning: Unverified HTTPS request is being made to host 'localhost'. "
        "Adding certificate verification is strongly advised."
    )
    names = [r.symbol_name for r in top10(brain, query)]
    assert names[0] == "_validate_conn", names
