"""Multi mode on a real index: classes of configuration question whose answer ranked below the top 3
on two packages nobody had tuned on (field probe 8: httpx, axios) — a question asking a setting's
default finding the code that reads the setting and the docs naming it, not the line giving it its
value."""

from __future__ import annotations

from workspace_fixture import indexed_files, top10

DEFAULTS_JS = """import transitionalDefaults from './transitional.js';
import platform from '../platform/index.js';

function stringifySafely(rawValue, parser, encoder) {
  if (typeof rawValue === 'string') {
    try {
      (parser || JSON.parse)(rawValue);
      return rawValue.trim();
    } catch (e) {
      if (e.name !== 'SyntaxError') {
        throw e;
      }
    }
  }
  return (encoder || JSON.stringify)(rawValue);
}

const defaults = {
  transitional: transitionalDefaults,
  adapter: ['xhr', 'http', 'fetch'],
  transformResponse: [function transformResponse(data) {
    if (data && typeof data === 'string') {
      try {
        return JSON.parse(data);
      } catch (e) {
        return data;
      }
    }
    return data;
  }],
  timeout: 0,
  xsrfCookieName: 'XSRF-TOKEN',
  xsrfHeaderName: 'X-XSRF-TOKEN',
  maxContentLength: -1,
  maxBodyLength: -1,
  env: {
    FormData: platform.classes.FormData,
    Blob: platform.classes.Blob
  },
  headers: {
    common: {
      'Accept': 'application/json, text/plain, */*',
      'Content-Type': undefined
    }
  }
};

export default defaults;
"""

XHR_JS = """import AxiosError from '../core/AxiosError.js';

export default function xhrAdapter(config) {
  return new Promise(function dispatchXhrRequest(resolve, reject) {
    let request = new XMLHttpRequest();
    request.open(config.method.toUpperCase(), config.url, true);
    // Set the request timeout in MS
    request.timeout = config.timeout;

    // Handle a request timeout
    request.ontimeout = function handleTimeout() {
      let timeoutErrorMessage = config.timeout ? 'timeout of ' + config.timeout + 'ms exceeded' : 'timeout exceeded';
      if (config.timeoutErrorMessage) {
        timeoutErrorMessage = config.timeoutErrorMessage;
      }
      reject(new AxiosError(timeoutErrorMessage, AxiosError.ECONNABORTED, config, request));
      // Clean up request
      request = null;
    };
    request.send(config.data || null);
  });
}
"""

HTTP_JS = """export default function httpAdapter(config) {
  return new Promise(function dispatchHttpRequest(resolve, reject) {
    const req = transport.request(options);
    if (config.timeout) {
      // a request timeout: parse the timeout to an int
      const timeout = parseInt(config.timeout, 10);
      req.setTimeout(timeout, function handleRequestTimeout() {
        reject(new Error('timeout of ' + config.timeout + 'ms exceeded'));
      });
    }
  });
}
"""

README = """# client

## Request config

### timeout

`timeout` specifies the number of milliseconds before the request times out.
If the request takes longer than `timeout`, the request will be aborted.

```js
client.get('/user', { timeout: 1000 })
```

### xsrfCookieName

The name of the cookie to use as a value for the xsrf token.
"""

LIMITS_PY = '''class Limits:
    """
    Configuration for limits to various client behaviors.

    * **max_connections** - The maximum number of concurrent connections.
    * **keepalive_expiry** - Time limit on idle keep-alive connections in seconds.
    """

    def __init__(
        self,
        *,
        max_connections: int | None = None,
        max_keepalive_connections: int | None = None,
        keepalive_expiry: float | None = 5.0,
    ) -> None:
        self.max_connections = max_connections
        self.max_keepalive_connections = max_keepalive_connections
        self.keepalive_expiry = keepalive_expiry

    def __repr__(self) -> str:
        return f"Limits(max_connections={self.max_connections}, keepalive_expiry={self.keepalive_expiry})"
'''

POOL_PY = '''class ConnectionPool:
    """A pool of connections; idle keep-alive connections expire after the keepalive expiry."""

    def __init__(self, limits):
        self._keepalive_expiry = limits.keepalive_expiry
        self._max_connections = limits.max_connections

    def _expire_idle(self, now):
        """Close the pooled connections idle longer than the keepalive expiry."""
        for connection in list(self._idle):
            if now - connection.idle_since > self._keepalive_expiry:
                connection.close()
                self._idle.remove(connection)

    def keepalive_expiry_for(self, connection):
        """The keepalive expiry of a pooled connection: the pool's own."""
        return self._keepalive_expiry
'''


def test_a_question_asking_a_default_finds_the_value_given_to_the_setting(tmp_path):
    files = {"lib/defaults.js": DEFAULTS_JS, "lib/xhr.js": XHR_JS, "lib/http.js": HTTP_JS, "README.md": README}
    brain = indexed_files(tmp_path, files)
    for query in ("what is the default timeout of a request", "what is the default name of the xsrf cookie"):
        first = top10(brain, query, "multi")[0]
        assert (first.source, first.symbol_type) == ("lib/defaults.js", "module"), (query, first)
    # a question not naming the setting after "default", or a pasted message, is left to the blend
    first = top10(brain, "Error: timeout of 1000ms exceeded", "multi")[0]
    assert first.source != "lib/defaults.js"


def test_a_keyword_default_in_a_signature_answers_the_default(tmp_path):
    brain = indexed_files(tmp_path, {"pkg/_config.py": LIMITS_PY, "pkg/_pool.py": POOL_PY})
    first = top10(brain, "what is the default keepalive expiry for pooled connections", "multi")[0]
    assert first.source == "pkg/_config.py" and first.start_line <= 14 <= first.end_line, first  # `= 5.0`


CLIENT_PY = '''class Client:
    """An HTTP client with connection pooling and redirects."""

    def __init__(self, *, follow_redirects: bool = False, max_redirects: int = 20) -> None:
        self.follow_redirects = follow_redirects
        self.max_redirects = max_redirects

    def request(self, method: str, url: str, **kwargs):
        """Build and send a request."""
        return self.send(self.build_request(method, url, **kwargs))

    def options(self, url: str, *, params=None, headers=None, follow_redirects=None):
        """Send an `OPTIONS` request. **Parameters**: See `httpx.request`."""
        return self.request("OPTIONS", url, params=params, headers=headers, follow_redirects=follow_redirects)

    def head(self, url: str, *, params=None, headers=None, follow_redirects=None):
        """Send a `HEAD` request. **Parameters**: See `httpx.request`."""
        return self.request("HEAD", url, params=params, headers=headers, follow_redirects=follow_redirects)

    def _send_handling_redirects(self, request, follow_redirects, history):
        while True:
            if len(history) > self.max_redirects:
                raise TooManyRedirects("Exceeded maximum allowed redirects.", request=request)
            response = self._send_single_request(request)
            if not response.has_redirect_location:
                return response
            request = self._build_redirect_request(request, response)
            history = history + [response]
            if not follow_redirects:
                response.next_request = request
                return response
'''


def test_the_kind_a_question_asks_for_is_not_a_name_it_says(tmp_path):
    brain = indexed_files(tmp_path, {"pkg/_client.py": CLIENT_PY})
    names = [r.symbol_name for r in top10(brain, "which option sets how many redirects the client will follow")]
    assert names.index("_send_handling_redirects") < names.index("options"), names


EXCEPTIONS_PY = '''class TransportError(Exception):
    """Base class for all exceptions that occur at the level of the Transport API."""


class TimeoutException(TransportError):
    """The base class for timeout errors. An operation has timed out."""


class ConnectTimeout(TimeoutException):
    """Timed out while connecting to the host."""


class ReadTimeout(TimeoutException):
    """Timed out while receiving data from the host."""
'''

TIMEOUT_PY = '''class Timeout:
    """
    Timeout configuration.

    Timeout(5.0)                # 5s timeout on all operations.
    Timeout(5.0, connect=10.0)  # 10s timeout on connect. 5s timeout elsewhere.
    """

    def __init__(self, timeout=None, *, connect=None, read=None, write=None, pool=None):
        self.connect = timeout if connect is None else connect
        self.read = timeout if read is None else read
        self.write = timeout if write is None else write
        self.pool = timeout if pool is None else pool
'''


def test_an_exception_named_by_a_question_not_about_errors_gains_no_name_cover(tmp_path):
    brain = indexed_files(tmp_path, {"pkg/_exceptions.py": EXCEPTIONS_PY, "pkg/_config.py": TIMEOUT_PY})
    names = [r.symbol_name for r in top10(brain, "how do I set a different connect timeout and read timeout")]
    # Timeout and its __init__ setting connect and read first, the exceptions after
    assert set(names[:2]) == {"Timeout", "__init__"}, names
    # asked about the error, or named as code, the exception keeps its name's evidence
    names = [r.symbol_name for r in top10(brain, "which error is raised when a read timeout happens")]
    assert names[0] == "ReadTimeout", names


HTTP_ADAPTER_JS = """import http from 'http';
import https from 'https';
import followRedirects from 'follow-redirects';

const {http: httpFollow, https: httpsFollow} = followRedirects;

function dispatchBeforeRedirect(options, responseDetails) {
  // redirects: call the proxy and config hooks before each redirect is followed
  if (options.beforeRedirects.proxy) {
    options.beforeRedirects.proxy(options);
  }
  if (options.beforeRedirects.config) {
    options.beforeRedirects.config(options, responseDetails);
  }
}

export default function httpAdapter(config) {
  return new Promise(function dispatchHttpRequest(resolve, reject) {
    const options = {path: config.url, method: config.method, headers: config.headers};
    let transport;
    const isHttpsRequest = /https:?/.test(options.protocol);
    options.agent = isHttpsRequest ? config.httpsAgent : config.httpAgent;
    if (config.transport) {
      transport = config.transport;
    } else if (config.maxRedirects === 0) {
      transport = isHttpsRequest ? https : http;
    } else {
      if (config.maxRedirects) {
        options.maxRedirects = config.maxRedirects;
      }
      transport = isHttpsRequest ? httpsFollow : httpFollow;
    }
    const req = transport.request(options, resolve);
    req.on('error', reject);
  });
}
"""

REDIRECTS_README = """# client

## Redirects

In node the client follows redirects for you. The client will follow up to 21 redirects by
default; each redirect the client follows calls your hook before it is followed, and a response
that redirects too often fails.

```js
client.get('/moved', { beforeRedirect: (options) => log(options.href) })
```
"""


def test_which_option_does_something_finds_the_code_reading_the_option_the_words_spell(tmp_path):
    brain = indexed_files(tmp_path, {"lib/http.js": HTTP_ADAPTER_JS, "README.md": REDIRECTS_README})
    first = top10(brain, "which option limits how many redirects the client follows in node")[0]
    assert first.source == "lib/http.js" and first.start_line <= 26 <= first.end_line, first
