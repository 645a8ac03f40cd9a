// Results widget: ranked hits of one query. State comes ready-made from the engine (locations,
// anchors, leg labels, fusion and coverage notes, highlight ranges: engine/labels.py) and
// widgets.py (bar fractions, snippet windows); this file only draws it.

/** Text with the given [start, end) code-point ranges wrapped in <mark>, made `visible`. */
function highlighted(text, ranges) {
  const chars = Array.from(text); // Python indexes code points, JS strings index UTF-16 units
  const parts = [];
  let at = 0;
  for (const [start, end] of ranges) {
    if (start > at) parts.push(visible(chars.slice(at, start).join('')));
    parts.push(h('mark', {}, visible(chars.slice(start, end).join(''))));
    at = end;
  }
  parts.push(visible(chars.slice(at).join('')));
  return parts;
}

/** One leg's label as the engine wrote it ("vector 0.812 #1") and its bar. */
function legRow(leg) {
  const bar = h('span', { class: 'abl-bar-fill' });
  bar.style.width = `${Math.round((leg.fraction ?? 0) * 100)}%`;
  return h(
    'div',
    { class: `abl-leg abl-leg-${leg.leg}` },
    h('span', { class: 'abl-leg-name' }, leg.label),
    h(
      'span',
      {
        class: 'abl-bar',
        title: leg.fraction === null ? 'ranked, no score' : ''
      },
      bar
    )
  );
}

/** The hit's window (widgets.py: from the line above the first marked one, which for a graph hit
 * is where the relation is written), or its whole text once "Show more" is clicked. */
function snippet(hit) {
  const window = hit.snippet;
  const view = full =>
    h(
      'code',
      {},
      full
        ? highlighted(hit.text, hit.highlights)
        : highlighted(window.text, window.highlights)
    );
  const code = h('pre', { class: 'abl-snippet' }, view(!window.cut));
  if (!window.cut) {
    return [code];
  }
  const toggle = h(
    'button',
    { class: 'abl-toggle', type: 'button' },
    'Show more'
  );
  let full = false;
  toggle.addEventListener('click', () => {
    full = !full;
    code.replaceChildren(view(full));
    toggle.textContent = full ? 'Show less' : 'Show more';
  });
  return [code, toggle];
}

/** One step of a relationship path: an entity, or a relation such as `-calls->` / `<-calls-`. */
function pathStep(step) {
  const relation = step.startsWith('-') || step.startsWith('<-');
  return h('span', { class: relation ? 'abl-relation' : 'abl-entity' }, step);
}

function hitCard(hit) {
  const head = h(
    'div',
    { class: 'abl-hit-head' },
    h('span', { class: 'abl-rank' }, String(hit.rank)),
    openLink(hit.location, hit.source, hit.focus_line, hit.cell_index),
    hit.anchor ? h('span', { class: 'abl-symbol' }, hit.anchor) : null,
    badge(hit.source_type, 'source_type'),
    badge(hit.language, 'language'),
    h(
      'span',
      { class: 'abl-score', title: 'fused score' },
      hit.score.toFixed(3)
    )
  );
  const path = hit.relationship_path.length
    ? h(
        'div',
        { class: 'abl-relpath' },
        h('span', { class: 'abl-muted' }, 'graph path:'),
        hit.relationship_path.map(pathStep)
      )
    : null;
  const related = hit.related_entities.length
    ? h(
        'div',
        { class: 'abl-related' },
        h('span', { class: 'abl-muted' }, 'related: '),
        hit.related_entities.map(name => badge(name, 'entity'))
      )
    : null;
  return h(
    'div',
    { class: 'abl-hit' },
    head,
    h('div', { class: 'abl-legs' }, hit.legs.map(legRow)),
    path,
    related,
    snippet(hit)
  );
}

/** Why results rank where they do: multi's reading of the query and its weights, in words. */
function fusion(model) {
  const note = model.get('fusion_note');
  return note ? h('div', { class: 'abl-muted abl-fusion' }, note) : null;
}

/** How much of the workspace vector search saw, while embedding is unfinished. */
function coverage(model) {
  const note = model.get('coverage_note');
  return note ? h('div', { class: 'abl-notice abl-coverage' }, note) : null;
}

function summary(model) {
  const results = model.get('results');
  return h(
    'div',
    { class: 'abl-summary' },
    h('strong', {}, model.get('query')),
    h(
      'span',
      { class: 'abl-muted' },
      ` · ${model.get('mode')} · ${results.length} result${results.length === 1 ? '' : 's'} · ` +
        `${model.get('query_time_ms').toFixed(1)} ms · generation ${model.get('generation')}`
    ),
    fusion(model)
  );
}

function draw(model) {
  const fallback = model.get('fallback');
  const results = model.get('results');
  return [
    summary(model),
    coverage(model),
    fallback
      ? h(
          'div',
          { class: 'abl-notice abl-fallback' },
          `Fell back to ${fallback}`
        )
      : null,
    results.length
      ? results.map(hitCard)
      : h('div', { class: 'abl-muted abl-empty' }, 'No results.')
  ]
    .flat()
    .filter(Boolean);
}

export default {
  render({ model, el }) {
    const root = h('div', { class: 'abl-widget abl-results' });
    el.append(root);
    const redraw = () => root.replaceChildren(...draw(model));
    redraw();
    const events = [
      'results',
      'fallback',
      'query',
      'mode',
      'fusion_note',
      'coverage_note'
    ].map(name => `change:${name}`);
    const unlisten = listen(model, events, redraw);
    return () => {
      unlisten();
      root.remove();
    };
  }
};
