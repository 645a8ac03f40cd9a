// Graph explorer: an entity's neighbourhood as a force-directed node-link view in SVG.
// Drag nodes, wheel to zoom, drag the background to pan, click a node to expand it
// (the kernel merges its neighbours into the synced `nodes`/`edges`).

const SVG_NS = 'http://www.w3.org/2000/svg';
const PALETTE = [
  '#1f77b4',
  '#ff7f0e',
  '#2ca02c',
  '#d62728',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#7f7f7f',
  '#bcbd22',
  '#17becf'
];
const HEIGHT = 420;
const CLICK_SLOP = 4; // pixels a pointer may move and still count as a click

function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs))
    node.setAttribute(key, String(value));
  return node;
}

/** A stable colour per node kind. */
function kindColour(kind) {
  let hash = 0;
  for (const ch of String(kind)) hash = (hash * 31 + ch.codePointAt(0)) >>> 0;
  return PALETTE[hash % PALETTE.length];
}

function nodeLines(node) {
  if (!node.source) return '';
  const lines =
    node.start_line === node.end_line
      ? `${node.start_line}`
      : `${node.start_line}-${node.end_line}`;
  return node.start_line ? `${node.source}:${lines}` : node.source;
}

/** Positions and velocities by node id; a few simple forces, cooled by `alpha`. */
class Layout {
  constructor() {
    this.pos = new Map();
    this.alpha = 1;
  }

  sync(nodes, anchorId) {
    const anchor = this.pos.get(anchorId) ?? { x: 0, y: 0 };
    const ids = new Set(nodes.map(n => n.id));
    for (const id of this.pos.keys()) if (!ids.has(id)) this.pos.delete(id);
    nodes.forEach((node, i) => {
      if (this.pos.has(node.id)) return;
      this.alpha = 1; // new nodes: heat the layout up again
      const angle = i * 2.399963; // golden angle: new nodes spread around their anchor
      const radius = 30 + 6 * Math.sqrt(i);
      this.pos.set(node.id, {
        x: anchor.x + radius * Math.cos(angle),
        y: anchor.y + radius * Math.sin(angle),
        vx: 0,
        vy: 0,
        pinned: false
      });
    });
  }

  tick(edges) {
    const points = [...this.pos.values()];
    const a = this.alpha;
    for (let i = 0; i < points.length; i++) {
      const p = points[i];
      for (let j = i + 1; j < points.length; j++) {
        const q = points[j];
        const dx = p.x - q.x;
        const dy = p.y - q.y;
        const d2 = Math.max(dx * dx + dy * dy, 25);
        const f = (4000 * a) / (d2 * Math.sqrt(d2)); // inverse-square push along the unit vector
        p.vx += dx * f;
        p.vy += dy * f;
        q.vx -= dx * f;
        q.vy -= dy * f;
      }
      p.vx -= p.x * 0.015 * a;
      p.vy -= p.y * 0.015 * a;
    }
    for (const edge of edges) {
      const p = this.pos.get(edge.source);
      const q = this.pos.get(edge.target);
      if (!p || !q || p === q) continue;
      const dx = q.x - p.x;
      const dy = q.y - p.y;
      const d = Math.max(Math.hypot(dx, dy), 1);
      const f = ((d - 110) / d) * 0.08 * a;
      p.vx += dx * f;
      p.vy += dy * f;
      q.vx -= dx * f;
      q.vy -= dy * f;
    }
    for (const p of points) {
      if (p.pinned) {
        p.vx = p.vy = 0;
        continue;
      }
      p.vx *= 0.6;
      p.vy *= 0.6;
      p.x += p.vx;
      p.y += p.vy;
    }
    this.alpha *= 0.98;
    return this.alpha > 0.005;
  }

  bounds() {
    const xs = [...this.pos.values()].map(p => p.x);
    const ys = [...this.pos.values()].map(p => p.y);
    if (!xs.length) return { x0: -1, y0: -1, x1: 1, y1: 1 };
    return {
      x0: Math.min(...xs),
      y0: Math.min(...ys),
      x1: Math.max(...xs),
      y1: Math.max(...ys)
    };
  }
}

/** The SVG scene: a zoom/pan group holding edges, edge labels and nodes, redrawn per frame. */
class Scene {
  constructor(onNodeClick) {
    this.onNodeClick = onNodeClick;
    this.layout = new Layout();
    this.view = { k: 1, tx: 0, ty: 0 };
    this.userMoved = false;
    this.frame = 0;
    this.edges = [];
    this.nodeEls = new Map();
    this.edgeEls = [];
    this.markerId = `abl-arrow-${Math.random().toString(36).slice(2)}`;
    this.root = svg('svg', { class: 'abl-graph-svg', height: HEIGHT });
    const defs = svg('defs');
    const marker = svg('marker', {
      id: this.markerId,
      viewBox: '0 0 10 10',
      refX: 10,
      refY: 5,
      markerWidth: 7,
      markerHeight: 7,
      orient: 'auto-start-reverse'
    });
    marker.append(svg('path', { d: 'M0,0 L10,5 L0,10 z', class: 'abl-arrow' }));
    defs.append(marker);
    this.group = svg('g');
    this.edgeLayer = svg('g', { class: 'abl-edges' });
    this.nodeLayer = svg('g', { class: 'abl-nodes' });
    this.group.append(this.edgeLayer, this.nodeLayer);
    this.root.append(defs, this.group);
    this.bindPointer();
  }

  update(nodes, edges, state, anchorId) {
    this.edges = edges;
    this.layout.sync(nodes, anchorId);
    const focused = this.root.contains(document.activeElement)
      ? document.activeElement.dataset?.id
      : undefined;
    this.nodeEls.clear();
    this.nodeLayer.replaceChildren(
      ...nodes.map(node => {
        const radius = node.hop === 0 ? 10 : 7;
        const g = svg('g', {
          class: 'abl-node',
          'data-id': node.id,
          tabindex: 0,
          role: 'button',
          'aria-label': `${node.kind} ${node.name}`
        });
        g.addEventListener('keydown', event => {
          if (event.key === 'Enter' || event.key === ' ') {
            event.preventDefault();
            this.onNodeClick(node.id);
          }
        });
        g.classList.toggle('abl-match', node.hop === 0);
        g.classList.toggle('abl-expanded', state.expanded.has(node.id));
        g.classList.toggle('abl-pending', state.pending.has(node.id));
        g.classList.toggle('abl-selected', state.selected === node.id);
        const circle = svg('circle', {
          r: radius,
          fill: kindColour(node.kind)
        });
        const label = svg('text', { y: radius + 12, 'text-anchor': 'middle' });
        label.textContent = node.name;
        const title = svg('title');
        title.textContent = `${node.name} (${node.kind})\n${nodeLines(node)}\nhop ${node.hop}${state.expanded.has(node.id) ? '' : ' · click to expand'}`;
        g.append(circle, label, title);
        this.nodeEls.set(node.id, { g, radius });
        return g;
      })
    );
    this.edgeEls = edges.map(edge => {
      const line = svg('line', {
        class: 'abl-edge',
        'marker-end': `url(#${this.markerId})`
      });
      const label = svg('text', {
        class: 'abl-edge-label',
        'text-anchor': 'middle'
      });
      label.textContent = edge.relation;
      return { edge, line, label };
    });
    this.edgeLayer.replaceChildren(
      ...this.edgeEls.flatMap(({ line, label }) => [line, label])
    );
    this.nodeEls.get(focused)?.g.focus(); // keep keyboard focus across redraws
    if (!this.userMoved) this.fit();
    this.draw();
    this.start();
  }

  start() {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.step());
  }

  stop() {
    cancelAnimationFrame(this.frame);
    this.frame = 0;
  }

  step() {
    const running = this.layout.tick(this.edges);
    if (!this.userMoved) this.fit();
    this.draw();
    this.frame = running ? requestAnimationFrame(() => this.step()) : 0;
  }

  draw() {
    const { k, tx, ty } = this.view;
    this.group.setAttribute('transform', `translate(${tx},${ty}) scale(${k})`);
    for (const [id, { g }] of this.nodeEls) {
      const p = this.layout.pos.get(id);
      g.setAttribute('transform', `translate(${p.x},${p.y})`);
    }
    for (const { edge, line, label } of this.edgeEls) {
      const p = this.layout.pos.get(edge.source);
      const q = this.layout.pos.get(edge.target);
      const d = Math.max(Math.hypot(q.x - p.x, q.y - p.y), 1);
      const r = this.nodeEls.get(edge.target)?.radius ?? 7;
      const ex = q.x - ((q.x - p.x) * (r + 2)) / d; // stop the arrow at the target's rim
      const ey = q.y - ((q.y - p.y) * (r + 2)) / d;
      line.setAttribute('x1', p.x);
      line.setAttribute('y1', p.y);
      line.setAttribute('x2', ex);
      line.setAttribute('y2', ey);
      // Labels sit 40% along from the source, so the two edges of a reverse pair don't overlap.
      label.setAttribute('x', p.x + (q.x - p.x) * 0.4);
      label.setAttribute('y', p.y + (q.y - p.y) * 0.4 - 3);
    }
  }

  fit() {
    const width = this.root.clientWidth || 600;
    const { x0, y0, x1, y1 } = this.layout.bounds();
    const k = Math.min(width / (x1 - x0 + 120), HEIGHT / (y1 - y0 + 80), 1.5);
    this.view = {
      k,
      tx: width / 2 - (k * (x0 + x1)) / 2,
      ty: HEIGHT / 2 - (k * (y0 + y1)) / 2
    };
  }

  resetView() {
    this.userMoved = false;
    this.fit();
    this.draw();
  }

  toScreen(event) {
    const box = this.root.getBoundingClientRect();
    return { x: event.clientX - box.left, y: event.clientY - box.top };
  }

  toWorld(point) {
    const { k, tx, ty } = this.view;
    return { x: (point.x - tx) / k, y: (point.y - ty) / k };
  }

  bindPointer() {
    let drag = null; // {id?, start, last, moved}
    this.root.addEventListener('pointerdown', event => {
      if (event.button !== 0) return;
      const nodeEl = event.target.closest?.('.abl-node');
      const start = this.toScreen(event);
      drag = {
        id: nodeEl?.dataset.id ?? null,
        start,
        last: start,
        moved: false
      };
      this.root.setPointerCapture(event.pointerId);
    });
    this.root.addEventListener('pointermove', event => {
      if (!drag) return;
      const point = this.toScreen(event);
      drag.moved ||=
        Math.hypot(point.x - drag.start.x, point.y - drag.start.y) > CLICK_SLOP;
      if (!drag.moved) return;
      this.userMoved = true;
      if (drag.id) {
        const p = this.layout.pos.get(drag.id);
        Object.assign(p, this.toWorld(point), { pinned: true });
        this.layout.alpha = Math.max(this.layout.alpha, 0.3);
        this.start();
      } else {
        this.view.tx += point.x - drag.last.x;
        this.view.ty += point.y - drag.last.y;
      }
      drag.last = point;
      this.draw();
    });
    const end = event => {
      if (drag && !drag.moved && drag.id && event.type === 'pointerup')
        this.onNodeClick(drag.id);
      drag = null;
    };
    this.root.addEventListener('pointerup', end);
    this.root.addEventListener('pointercancel', end);
    this.root.addEventListener(
      'wheel',
      event => {
        event.preventDefault();
        const point = this.toScreen(event);
        const world = this.toWorld(point);
        const k = Math.min(
          Math.max(this.view.k * Math.exp(-event.deltaY * 0.0015), 0.1),
          8
        );
        this.view = { k, tx: point.x - k * world.x, ty: point.y - k * world.y };
        this.userMoved = true;
        this.draw();
      },
      { passive: false }
    );
  }
}

function legend(nodes) {
  const kinds = [...new Set(nodes.map(n => n.kind))].sort();
  return kinds.map(kind => {
    const swatch = h('span', { class: 'abl-swatch' });
    swatch.style.background = kindColour(kind);
    return h('span', { class: 'abl-legend-item' }, swatch, kind);
  });
}

function chunkList(chunks) {
  if (!chunks.length)
    return h('div', { class: 'abl-muted' }, 'No source chunks.');
  return h(
    'ul',
    { class: 'abl-chunks' },
    chunks.map(c =>
      h(
        'li',
        {},
        openLink(c.location, c.source, c.start_line, c.cell_index),
        c.label ? h('span', { class: 'abl-symbol' }, c.label) : null,
        badge(c.source_type, 'source_type'),
        badge(c.language, 'language')
      )
    )
  );
}

function selectedInfo(node) {
  if (!node)
    return h(
      'span',
      { class: 'abl-muted' },
      'Click a node to expand it; drag to move; wheel to zoom.'
    );
  return h(
    'span',
    {},
    h('strong', {}, node.name),
    badge(node.kind, 'kind'),
    ' ',
    node.source
      ? openLink(nodeLines(node), node.source, node.start_line || null)
      : null
  );
}

export default {
  render({ model, el }) {
    const state = { expanded: new Set(), pending: new Set(), selected: null };
    let anchor = null;
    const scene = new Scene(id => {
      state.selected = id;
      anchor = id;
      if (!state.expanded.has(id)) {
        state.pending.add(id);
        model.send({ type: 'expand', id });
      }
      refresh();
    });
    const fitButton = h(
      'button',
      {
        type: 'button',
        title: 'Fit the graph into view',
        onclick: () => scene.resetView()
      },
      'Fit'
    );
    const heading = h('div', { class: 'abl-graph-head' });
    const info = h('div', { class: 'abl-graph-info' });
    const legendBox = h('div', { class: 'abl-legend' });
    const notice = h('div', { class: 'abl-graph-message' });
    const chunksBox = h('div', { class: 'abl-graph-chunks' });
    const root = h(
      'div',
      { class: 'abl-widget abl-graph' },
      heading,
      info,
      scene.root,
      legendBox,
      notice,
      chunksBox
    );
    el.append(root);

    function refresh() {
      const nodes = model.get('nodes');
      const matches = model.get('matches');
      state.expanded = new Set(model.get('expanded'));
      heading.replaceChildren(
        h('strong', {}, model.get('query')),
        h(
          'span',
          { class: 'abl-muted' },
          ` · ${matches.length} match${matches.length === 1 ? '' : 'es'} · ${nodes.length} nodes · ${model.get('edges').length} edges `
        ),
        fitButton
      );
      info.replaceChildren(
        selectedInfo(nodes.find(n => n.id === state.selected))
      );
      legendBox.replaceChildren(...legend(nodes));
      notice.textContent = model.get('message');
      notice.hidden = !model.get('message');
      chunksBox.replaceChildren(
        h('div', { class: 'abl-muted' }, 'Source chunks'),
        chunkList(model.get('chunks'))
      );
      scene.update(nodes, model.get('edges'), state, anchor);
    }

    const onCustom = msg => {
      if (msg?.type === 'expanded') {
        state.pending.delete(msg.id);
        refresh();
      }
    };
    refresh();
    const events = [
      'nodes',
      'edges',
      'chunks',
      'expanded',
      'message',
      'matches',
      'query'
    ].map(name => `change:${name}`);
    const unlisten = listen(model, events, refresh);
    model.on('msg:custom', onCustom);
    return () => {
      unlisten();
      model.off('msg:custom', onCustom);
      scene.stop();
      root.remove();
    };
  }
};
