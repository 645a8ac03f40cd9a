// Helpers shared by results.js and graph.js. widgets.py prepends this file to each of them,
// because anywidget loads a single ES module per widget. All text goes in as text nodes.

/** Create an element; string children become text nodes (never HTML). */
function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** Text with its bidi controls and line separators as `\u202e` escapes: they reorder or break
 * the lines drawn around them (Trojan Source). The engine's `printable` escapes the same set. */
function visible(text) {
  return text.replace(
    /[\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g,
    c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
  );
}

/** The Jupyter server's base URL from the page config, "/" outside JupyterLab. */
function baseUrl() {
  const config = document.getElementById('jupyter-config-data');
  if (config) {
    try {
      const url = JSON.parse(config.textContent).baseUrl;
      if (url) return url.endsWith('/') ? url : `${url}/`;
    } catch {
      // unreadable page config: fall back to the server root
    }
  }
  return '/';
}

/** `lab/tree/<path>` under the base URL; each path segment is URL-encoded. */
function fileHref(path) {
  const encoded = String(path).split('/').map(encodeURIComponent).join('/');
  return new URL(`${baseUrl()}lab/tree/${encoded}`, window.location.origin)
    .href;
}

/**
 * A link that opens a workspace file. A plain click asks the lab extension first through the
 * cancelable `agent-brain:open` event; when a listener calls preventDefault() the href is not
 * followed, otherwise (or on modified clicks) the browser opens lab/tree/<path>.
 */
function openLink(text, path, line = null, cellIndex = null) {
  const detail = { path, line, cell_index: cellIndex };
  const onclick = event => {
    if (
      event.button !== 0 ||
      event.ctrlKey ||
      event.metaKey ||
      event.shiftKey ||
      event.altKey
    )
      return;
    const open = new CustomEvent('agent-brain:open', {
      detail,
      cancelable: true
    });
    if (!window.dispatchEvent(open)) event.preventDefault();
  };
  return h(
    'a',
    {
      class: 'abl-open',
      href: fileHref(path),
      target: '_blank',
      rel: 'noopener',
      title: `Open ${path}`,
      onclick
    },
    text
  );
}

/** Small pill showing a value such as a language or source type. */
function badge(text, kind) {
  return text === null || text === undefined || text === ''
    ? null
    : h('span', { class: `abl-badge abl-badge-${kind}` }, text);
}

/** Subscribe to model events and return one function that unsubscribes them all. */
function listen(model, events, callback) {
  for (const name of events) model.on(name, callback);
  return () => {
    for (const name of events) model.off(name, callback);
  };
}
