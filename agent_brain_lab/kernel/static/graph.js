// Graph explorer: an entity's neighbourhood as a node-link view in SVG, laid out like a mind map
// so labels never overlap: the queried entity in the middle (marked), what points at it (callers,
// subclasses, importers, mentions) on the left, what it points at on the right, one captioned
// block per relation group of the engine; a block of more than MAX_ROWS leaves wraps into
// columns. A group the engine capped ends in a "+42 more callers" pill: a click shows them.
// Click a node to expand it (the kernel merges its neighbours into the synced state); wheel
// zooms, dragging pans. Long names are shortened (see shortName); hovering shows the full name.

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
const ROW = 18; // pixels per node row
const COL = 200; // pixels per column: a circle and a label of MAX_LABEL characters
const CAPTION = 18; // a block's relation caption
const GAP = 10; // between blocks
const INNER = 70; // from the queried entity to its first column
const MAX_ROWS = 36; // leaves per column before a block wraps into another column
const MAX_LABEL = 28; // characters of a name drawn; the title shows all of it
const MIN_HEIGHT = 260;
const MAX_HEIGHT = 900; // the view grows with the drawing up to this, then it scales or scrolls
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

function fullName(node) {
  return node.qualname || node.name || node.id;
}

/**
 * A name that fits MAX_LABEL characters: the qualified name, else the bare name (a method without
 * its class), else cut in the middle, since siblings often differ only at the end
 * (test_pool_for_tls_verify_True / _False). The node's title holds the full name.
 */
function shortName(node, limit = MAX_LABEL) {
  const full = fullName(node);
  if (full.length <= limit) return full;
  const text = node.name && node.name.length < full.length ? node.name : full;
  if (text.length <= limit) return text;
  const head = Math.ceil((limit - 1) / 2);
  return `${text.slice(0, head)}…${text.slice(text.length - (limit - 1 - head))}`;
}

/**
 * Who hangs where: every shown node gets a parent (the node whose group shows it; the queried
 * entities are roots) and a side (-1 left: it points at its parent; +1 right). Returns
 * `{roots, blocks}`, blocks by parent id: `[{group, side, items}]`, an item being a node id
 * or `{pill: group}` for what the group still holds back.
 */
function arrange(nodes, edges, groups, matches) {
  const byId = new Map(nodes.map(n => [n.id, n]));
  let roots = matches.filter(id => byId.has(id));
  if (!roots.length) roots = nodes.filter(n => n.hop === 0).map(n => n.id);
  const side = new Map(roots.map(id => [id, 0]));
  const blocks = new Map();
  const add = (parent, block) => {
    if (!blocks.has(parent)) blocks.set(parent, []);
    blocks.get(parent).push(block);
  };
  const left = new Set(groups);
  for (let moved = true; moved;) {
    moved = false;
    for (const group of left) {
      if (!side.has(group.parent)) continue;
      left.delete(group);
      moved = true;
      const where =
        side.get(group.parent) || (group.direction === 'in' ? -1 : 1);
      const items = group.shown.filter(id => byId.has(id) && !side.has(id));
      items.forEach(id => side.set(id, where));
      if (group.more.length) items.push({ pill: group });
      if (items.length) add(group.parent, { group, side: where, items });
    }
  }
  // Nodes no group placed (state from an older engine, or reached by an expansion): beside a
  // placed neighbour (pointing at it: left of a root), else as roots of their own.
  for (let moved = true; moved;) {
    moved = false;
    for (const node of nodes) {
      if (side.has(node.id)) continue;
      const edge = edges.find(
        e =>
          (e.source === node.id && side.has(e.target)) ||
          (e.target === node.id && side.has(e.source))
      );
      if (!edge) continue;
      const parent = edge.source === node.id ? edge.target : edge.source;
      const where = side.get(parent) || (edge.source === node.id ? -1 : 1);
      side.set(node.id, where);
      add(parent, { group: null, side: where, items: [node.id] });
      moved = true;
    }
  }
  for (const node of nodes) if (!side.has(node.id)) roots.push(node.id);
  return { roots, blocks };
}

/**
 * Positions of nodes, pills and captions: `{pos: Map(id -> {x, y, side, depth}), captions, bundles}`;
 * a block wrapped into columns is one bundle: a bracket beside it and one edge to its parent.
 */
function layout(nodes, edges, groups, matches) {
  const { roots, blocks } = arrange(nodes, edges, groups, matches);
  const kids = id => blocks.get(id) ?? [];
  const isLeaf = item => typeof item !== 'string' || !kids(item).length;
  const shape = new Map(); // block -> {cols, rows} when it is a grid of leaves
  const height = new Map();
  const widths = { '-1': [], 1: [] }; // columns per depth and side
  const measure = (id, depth, only) => {
    let total = 0;
    for (const block of kids(id)) {
      if (only && block.side !== only) continue;
      let h;
      if (block.items.every(isLeaf)) {
        const cols = Math.ceil(block.items.length / MAX_ROWS);
        const rows = Math.ceil(block.items.length / cols);
        shape.set(block, { cols, rows });
        h = rows * ROW;
      } else {
        h = block.items.reduce(
          (sum, item) => sum + (isLeaf(item) ? ROW : measure(item, depth + 1)),
          0
        );
      }
      const cols = shape.get(block)?.cols ?? 1;
      const w = widths[block.side];
      w[depth] = Math.max(w[depth] ?? 0, cols);
      total += CAPTION + h + GAP;
    }
    if (!only) height.set(id, Math.max(ROW, total - GAP));
    return Math.max(ROW, total - GAP);
  };
  const heights = roots.map(id => [measure(id, 0, -1), measure(id, 0, 1)]);
  const columnX = (side, depth, col) => {
    let x = INNER;
    for (let d = 0; d < depth; d++) x += (widths[side][d] ?? 1) * COL;
    return side * (x + col * COL);
  };
  const pos = new Map();
  const captions = [];
  const bundles = [];
  const place = (id, top, depth, only) => {
    let y = top;
    const ys = [];
    for (const block of kids(id)) {
      if (only && block.side !== only) continue;
      const x0 = columnX(block.side, depth, 0);
      const { group } = block;
      if (group)
        captions.push({
          x: x0,
          y: y + CAPTION - 6,
          side: block.side,
          text: `${group.phrase} · ${group.total}`
        });
      y += CAPTION;
      const grid = shape.get(block);
      block.items.forEach((item, i) => {
        const key = typeof item === 'string' ? item : item.pill.id;
        let at;
        if (grid) {
          const col = Math.floor(i / grid.rows);
          at = {
            x: columnX(block.side, depth, col),
            y: y + (i % grid.rows) * ROW + ROW / 2
          };
        } else {
          const h = typeof item === 'string' ? (height.get(item) ?? ROW) : ROW;
          const cy =
            typeof item === 'string' && kids(item).length
              ? place(item, y, depth + 1)
              : y + ROW / 2;
          at = { x: x0, y: cy };
          y += h;
        }
        pos.set(key, {
          ...at,
          side: block.side,
          depth: depth + 1,
          parent: typeof item === 'string' && kids(item).length > 0
        });
        ys.push(at.y);
      });
      if (grid && grid.cols > 1)
        bundles.push({
          parent: id,
          group,
          members: new Set(block.items.filter(i => typeof i === 'string')),
          x: x0 - block.side * 10,
          top: y + 2,
          bottom: y + grid.rows * ROW - 2
        });
      if (grid) y += grid.rows * ROW;
      y += GAP;
    }
    return ys.length ? (Math.min(...ys) + Math.max(...ys)) / 2 : top + ROW / 2;
  };
  let top = 0;
  roots.forEach((id, i) => {
    const [hl, hr] = heights[i];
    const h = Math.max(hl, hr, ROW * 2);
    place(id, top + (h - hl) / 2, 0, -1);
    place(id, top + (h - hr) / 2, 0, 1);
    pos.set(id, { x: 0, y: top + h / 2, side: 0, depth: 0 });
    top += h + 3 * ROW;
  });
  return { pos, captions, bundles };
}

/** The SVG scene: a zoom/pan group holding edges, captions, nodes and pills. */
class Scene {
  constructor(onNodeClick, onGroupClick) {
    this.onNodeClick = onNodeClick;
    this.onGroupClick = onGroupClick;
    this.view = { k: 1, tx: 0, ty: 0 };
    this.userMoved = false;
    this.nodeEls = new Map();
    this.markerId = `abl-arrow-${Math.random().toString(36).slice(2)}`;
    this.root = svg('svg', { class: 'abl-graph-svg', height: MIN_HEIGHT });
    const defs = svg('defs');
    const marker = svg('marker', {
      id: this.markerId,
      viewBox: '0 0 10 10',
      refX: 10,
      refY: 5,
      markerWidth: 6,
      markerHeight: 6,
      orient: 'auto-start-reverse'
    });
    marker.append(svg('path', { d: 'M0,0 L10,5 L0,10 z', class: 'abl-arrow' }));
    defs.append(marker);
    this.group = svg('g');
    this.edgeLayer = svg('g', { class: 'abl-edges' });
    this.captionLayer = svg('g', { class: 'abl-captions' });
    this.nodeLayer = svg('g', { class: 'abl-nodes' });
    this.group.append(this.edgeLayer, this.captionLayer, this.nodeLayer);
    this.root.append(defs, this.group);
    this.bindPointer();
  }

  update(nodes, edges, groups, matches, state) {
    const { pos, captions, bundles } = layout(nodes, edges, groups, matches);
    const focused = this.root.contains(document.activeElement)
      ? document.activeElement.dataset?.id
      : undefined;
    this.nodeEls.clear();
    const roots = new Set(matches);
    const nodeEls = nodes
      .filter(node => pos.has(node.id))
      .map(node =>
        this.nodeEl(
          node,
          pos.get(node.id),
          roots.has(node.id) || node.hop === 0,
          state
        )
      );
    const pills = groups
      .filter(g => g.more.length && pos.has(g.id))
      .map(g => this.pillEl(g, pos.get(g.id), state));
    this.nodeLayer.replaceChildren(...nodeEls, ...pills);
    this.fitLabels(nodes);
    this.captionLayer.replaceChildren(
      ...captions.map(c => {
        const text = svg('text', {
          class: 'abl-caption',
          x: c.x + (c.side < 0 ? 6 : -6),
          y: c.y,
          'text-anchor': c.side < 0 ? 'end' : 'start'
        });
        text.textContent = c.text;
        return text;
      })
    );
    const curve = (p, q, r) => {
      // a horizontal S-curve from p to q, stopped at q's rim (r) so the arrow shows
      const dir = Math.sign(q.x - p.x) || 1;
      const x1 = p.x + dir * 6;
      const x2 = q.x - dir * (r + 2);
      const mid = (x1 + x2) / 2;
      return `M${x1},${p.y} C${mid},${p.y} ${mid},${q.y} ${x2},${q.y}`;
    };
    const bundled = edge =>
      bundles.some(
        b =>
          b.group &&
          edge.relation === b.group.relation &&
          ((edge.source === b.parent && b.members.has(edge.target)) ||
            (edge.target === b.parent && b.members.has(edge.source)))
      );
    const lines = edges
      .filter(
        e => pos.has(e.source) && pos.has(e.target) && e.source !== e.target
      )
      .filter(e => !bundled(e))
      .map(edge => {
        const r = roots.has(edge.target) ? 10 : 6;
        const path = svg('path', {
          class: 'abl-edge',
          d: curve(pos.get(edge.source), pos.get(edge.target), r),
          'marker-end': `url(#${this.markerId})`
        });
        const title = svg('title');
        title.textContent = `${edge.source} -${edge.relation}-> ${edge.target}`;
        path.append(title);
        return path;
      });
    const stubs = groups
      .filter(g => g.more.length && pos.has(g.id) && pos.has(g.parent))
      .map(g =>
        svg('path', {
          class: 'abl-edge abl-edge-more',
          d: curve(pos.get(g.parent), pos.get(g.id), 0)
        })
      );
    const brackets = bundles.flatMap(b => {
      const mid = { x: b.x, y: (b.top + b.bottom) / 2 };
      const parent = pos.get(b.parent);
      const inward = b.group?.direction !== 'out'; // the members point at the parent
      const edge = svg('path', {
        class: 'abl-edge abl-bundle',
        d: inward ? curve(mid, parent, 10) : curve(parent, mid, 0),
        'marker-end': `url(#${this.markerId})`
      });
      const title = svg('title');
      title.textContent = `${b.members.size} ${b.group?.phrase ?? ''}`;
      edge.append(title);
      return [
        svg('path', {
          class: 'abl-edge abl-bracket',
          d: `M${b.x},${b.top} L${b.x},${b.bottom}`
        }),
        edge
      ];
    });
    this.edgeLayer.replaceChildren(...lines, ...stubs, ...brackets);
    this.nodeEls.get(focused)?.focus(); // keep keyboard focus across redraws
    if (!this.userMoved) this.fit();
    this.draw();
  }

  nodeEl(node, at, root, state) {
    const g = svg('g', {
      class: 'abl-node',
      'data-id': node.id,
      tabindex: 0,
      role: 'button',
      'aria-label': `${node.kind} ${fullName(node)}`,
      transform: `translate(${at.x},${at.y})`
    });
    g.classList.toggle('abl-match', root);
    g.classList.toggle('abl-expanded', state.expanded.has(node.id));
    g.classList.toggle('abl-pending', state.pending.has(node.id));
    g.classList.toggle('abl-selected', state.selected === node.id);
    if (root) g.append(svg('circle', { r: 15, class: 'abl-halo' }));
    g.append(svg('circle', { r: root ? 10 : 6, fill: kindColour(node.kind) }));
    const name = fullName(node);
    // the queried entity, and a node with neighbours further out, carry their label above:
    // beside them it would sit where their edges run
    const above = root || at.parent;
    const label = above
      ? svg('text', {
          y: root ? -18 : -10,
          'text-anchor': 'middle',
          class: root ? 'abl-root-label' : 'abl-label-above'
        })
      : svg('text', {
          x: at.side < 0 ? -10 : 10,
          y: 4,
          'text-anchor': at.side < 0 ? 'end' : 'start'
        });
    label.textContent = shortName(node, root ? 48 : MAX_LABEL);
    const title = svg('title');
    title.textContent = `${name} (${node.kind})\n${node.location ?? ''}\nhop ${node.hop}${state.expanded.has(node.id) ? '' : ' · click to expand'}`;
    g.append(label, title);
    this.keyboard(g, () => this.onNodeClick(node.id));
    this.nodeEls.set(node.id, g);
    return g;
  }

  /** Shorten labels wider than their column (wide letters: MAX_LABEL is a guess until drawn). */
  fitLabels(nodes) {
    const room = COL - 24;
    for (const node of nodes) {
      const g = this.nodeEls.get(node.id);
      const label = g?.querySelector(
        'text:not(.abl-root-label):not(.abl-label-above)'
      );
      if (!label || !label.isConnected) continue;
      for (
        let limit = label.textContent.length - 2;
        limit > 8 && label.getComputedTextLength() > room;
        limit -= 2
      )
        label.textContent = shortName(node, limit);
    }
  }

  pillEl(group, at, state) {
    const g = svg('g', {
      class: 'abl-pill',
      'data-group': group.id,
      tabindex: 0,
      role: 'button',
      'aria-label': `show ${group.more.length} more ${group.phrase}`,
      transform: `translate(${at.x},${at.y})`
    });
    g.classList.toggle('abl-pending', state.pending.has(group.id));
    const label = svg('text', {
      x: at.side < 0 ? -10 : 10,
      y: 4,
      'text-anchor': at.side < 0 ? 'end' : 'start'
    });
    label.textContent = group.label;
    const width = 6.4 * group.label.length + 16;
    g.append(
      svg('rect', {
        x: at.side < 0 ? -width - 2 : 2,
        y: -8,
        width,
        height: 16,
        rx: 8
      }),
      label
    );
    const title = svg('title');
    const names = group.more.map(fullName);
    title.textContent = `${group.label} (click to show):\n${names.slice(0, 40).join('\n')}${names.length > 40 ? '\n…' : ''}`;
    g.append(title);
    this.keyboard(g, () => this.onGroupClick(group.id));
    this.nodeEls.set(group.id, g);
    return g;
  }

  keyboard(el, action) {
    el.addEventListener('keydown', event => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        action();
      }
    });
  }

  draw() {
    const { k, tx, ty } = this.view;
    this.group.setAttribute('transform', `translate(${tx},${ty}) scale(${k})`);
  }

  /** Fit the drawing: the view grows with it up to MAX_HEIGHT, then the drawing scales down. */
  fit() {
    const width = this.root.clientWidth || 600;
    let box;
    try {
      box = this.group.getBBox();
    } catch {
      box = { x: -1, y: -1, width: 2, height: 2 };
    }
    const height = Math.min(Math.max(box.height + 40, MIN_HEIGHT), MAX_HEIGHT);
    this.root.setAttribute('height', height);
    const k = Math.min(
      (width - 20) / Math.max(box.width, 1),
      (height - 20) / Math.max(box.height, 1),
      1.25
    );
    const ty = height / 2 - k * (box.y + box.height / 2);
    // The queried entity in the middle, unless that would shrink the drawing much.
    const reach = Math.max(-box.x, box.x + box.width, 1);
    const centred = Math.min((width / 2 - 10) / reach, k);
    this.view =
      centred >= 0.85 * k
        ? {
            k: centred,
            tx: width / 2,
            ty: height / 2 - centred * (box.y + box.height / 2)
          }
        : { k, tx: width / 2 - k * (box.x + box.width / 2), ty };
  }

  resetView() {
    this.userMoved = false;
    this.view = { k: 1, tx: 0, ty: 0 };
    this.draw();
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
    let drag = null; // {id?, group?, start, last, moved}
    this.root.addEventListener('pointerdown', event => {
      if (event.button !== 0) return;
      const nodeEl = event.target.closest?.('.abl-node');
      const pillEl = event.target.closest?.('.abl-pill');
      const start = this.toScreen(event);
      drag = {
        id: nodeEl?.dataset.id ?? null,
        group: pillEl?.dataset.group ?? null,
        start,
        last: start,
        moved: false
      };
      this.root.setPointerCapture?.(event.pointerId);
    });
    this.root.addEventListener('pointermove', event => {
      if (!drag) return;
      const point = this.toScreen(event);
      drag.moved ||=
        Math.hypot(point.x - drag.start.x, point.y - drag.start.y) > CLICK_SLOP;
      if (!drag.moved) return;
      this.userMoved = true;
      this.view.tx += point.x - drag.last.x;
      this.view.ty += point.y - drag.last.y;
      drag.last = point;
      this.draw();
    });
    const end = event => {
      if (drag && !drag.moved && event.type === 'pointerup') {
        if (drag.id) this.onNodeClick(drag.id);
        else if (drag.group) this.onGroupClick(drag.group);
      }
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
        openLink(c.location, c.source, c.focus_line, c.cell_index),
        c.anchor ? h('span', { class: 'abl-symbol' }, c.anchor) : null,
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
      'Click a node to expand it, a "+N more" group to show it; drag to pan; wheel to zoom.'
    );
  return h(
    'span',
    {},
    h('strong', {}, fullName(node)),
    badge(node.kind, 'kind'),
    ' ',
    node.source
      ? openLink(node.location, node.source, node.start_line || null)
      : null
  );
}

/** The heading's counts: nodes and edges drawn, what groups hold back, what structure is hidden. */
function summary(model) {
  const nodes = model.get('nodes');
  const matches = model.get('matches');
  const shown = new Set(nodes.map(n => n.id));
  const held = new Set(
    model
      .get('groups')
      .flatMap(g => g.more.map(m => m.id))
      .filter(id => !shown.has(id))
  ).size;
  const hidden = Object.entries(model.get('hidden_relations') ?? {});
  const parts = [
    `${matches.length} match${matches.length === 1 ? '' : 'es'}`,
    `${nodes.length} nodes`,
    `${model.get('edges').length} edges`
  ];
  if (held) parts.push(`${held} more in groups`);
  if (hidden.length)
    parts.push(
      `structure hidden: ${hidden.map(([rel, n]) => `${rel} ${n}`).join(', ')}`
    );
  return ` · ${parts.join(' · ')} `;
}

export default {
  render({ model, el }) {
    const state = { expanded: new Set(), pending: new Set(), selected: null };
    const scene = new Scene(
      id => {
        state.selected = id;
        if (!state.expanded.has(id)) {
          state.pending.add(id);
          model.send({ type: 'expand', id });
        }
        refresh();
      },
      id => {
        state.pending.add(id);
        model.send({ type: 'expand_group', id });
        refresh();
      }
    );
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
    const chunksBox = h('details', { class: 'abl-graph-chunks' });
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
      state.expanded = new Set(model.get('expanded'));
      heading.replaceChildren(
        h('strong', {}, model.get('query')),
        h('span', { class: 'abl-muted' }, summary(model)),
        fitButton
      );
      info.replaceChildren(
        selectedInfo(nodes.find(n => n.id === state.selected))
      );
      legendBox.replaceChildren(...legend(nodes));
      notice.textContent = model.get('message');
      notice.hidden = !model.get('message');
      const chunks = model.get('chunks');
      chunksBox.replaceChildren(
        h(
          'summary',
          { class: 'abl-muted' },
          `Source chunks (${chunks.length})`
        ),
        chunkList(chunks)
      );
      scene.update(
        nodes,
        model.get('edges'),
        model.get('groups') ?? [],
        model.get('matches'),
        state
      );
    }

    const onCustom = msg => {
      if (msg?.type === 'expanded') {
        state.pending.delete(msg.id);
        refresh();
      }
    };
    refresh();
    // Drawn before the output was attached or resized: fit again once it has a size.
    const resized = new ResizeObserver(() => {
      if (!scene.userMoved) {
        scene.fit();
        scene.draw();
      }
    });
    resized.observe(scene.root);
    const events = [
      'nodes',
      'edges',
      'chunks',
      'groups',
      'hidden_relations',
      'expanded',
      'message',
      'matches',
      'query'
    ].map(name => `change:${name}`);
    const unlisten = listen(model, events, refresh);
    model.on('msg:custom', onCustom);
    return () => {
      unlisten();
      resized.disconnect();
      model.off('msg:custom', onCustom);
      root.remove();
    };
  }
};
