/**
 * What each result shows about how it was found: its location label and the
 * per-leg score breakdown (vector / bm25 / graph scores, and ranks in multi).
 */
import { TranslationBundle } from '@jupyterlab/translation';

import { NULL_TRANS } from './trans';
import { IQueryResponse, IQueryResult, Mode } from './types';

export interface ILeg {
  leg: 'vector' | 'bm25' | 'graph';
  /** "0.812" for a score, "#3" for a rank in multi mode, "not embedded yet". */
  value: string;
  /** The chunk has no vector yet (hybrid ranked it by its keywords alone). */
  missing?: boolean;
}

const LEGS = ['vector', 'bm25', 'graph'] as const;

export function formatScore(value: number): string {
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toPrecision(3);
}

/**
 * The legs that contributed to a result. In multi mode these are the ranks
 * fused by RRF; otherwise the scores each leg reported (single-leg modes only
 * have their own leg, so nothing is shown there beyond the main score).
 */
export function legBreakdown(
  result: IQueryResult,
  mode: Mode,
  trans: TranslationBundle = NULL_TRANS
): ILeg[] {
  if (mode === 'multi') {
    return LEGS.filter(leg => result.ranks?.[leg] !== undefined).map(leg => ({
      leg,
      value: `#${result.ranks[leg]}`
    }));
  }
  if (mode === 'hybrid' && result.vector_score === null) {
    // The engine reports no vector score for a chunk that is not embedded yet.
    const legs: ILeg[] = [
      { leg: 'vector', value: trans.__('not embedded yet'), missing: true }
    ];
    if (result.bm25_score !== null && result.bm25_score !== undefined) {
      legs.push({ leg: 'bm25', value: formatScore(result.bm25_score) });
    }
    return legs;
  }
  const scores = {
    vector: result.vector_score,
    bm25: result.bm25_score,
    graph: result.graph_score
  };
  const legs = LEGS.filter(
    leg => scores[leg] !== null && scores[leg] !== undefined
  ).map(leg => ({ leg, value: formatScore(scores[leg] as number) }));
  return legs.length > 1 ? legs : [];
}

/** The notebook cell as JupyterLab numbers it ("cell 9" is the ninth, as in its status bar). */
export function cellLabel(
  cellIndex: number,
  trans: TranslationBundle = NULL_TRANS
): string {
  return trans.__('cell %1', cellIndex + 1);
}

/** `path:start-end`, or `path:line` for a one-line chunk, plus the cell (1-based) for notebooks. */
export function locationLabel(
  result: IQueryResult,
  trans: TranslationBundle = NULL_TRANS
): string {
  const lines =
    result.start_line === result.end_line
      ? `${result.start_line}`
      : `${result.start_line}-${result.end_line}`;
  const cell =
    result.cell_index !== null && result.cell_index !== undefined
      ? ` [${cellLabel(result.cell_index, trans)}]`
      : '';
  return `${result.source}:${lines}${cell}`;
}

/**
 * The line that matters in a result (1-based, in the file or the notebook
 * cell): the line of the first highlight — for a graph hit the engine shows
 * the chunk where the relation is written and marks the entity there — else
 * the chunk's first line. The panel's snippet centres on the same line.
 */
export function focusLine(result: IQueryResult): number {
  const first = result.highlights?.[0]?.[0];
  if (first === undefined) {
    return result.start_line;
  }
  const before = Array.from(result.text).slice(0, first).join('');
  const line = result.start_line + before.split('\n').length - 1;
  return Math.min(line, Math.max(result.end_line, result.start_line));
}

/** The engine's qualified symbol or the doc section a result belongs to, if any. */
export function anchorLabel(result: IQueryResult): string | null {
  const name = result.qualified_symbol;
  if (name) {
    return result.symbol_type ? `${result.symbol_type} ${name}` : name;
  }
  return result.section_path || null;
}

/**
 * "semantic search: 43% of the workspace" while embedding is unfinished, else
 * null; also null for bm25, which uses no vectors.
 */
export function coverageNote(
  coverage: number | undefined,
  mode: Mode | null = null,
  trans: TranslationBundle = NULL_TRANS
): string | null {
  return coverage === undefined || coverage >= 1 || mode === 'bm25'
    ? null
    : trans.__(
        'semantic search: %1% of the workspace',
        Math.round(coverage * 100)
      );
}

/** multi's intents in words (README: the multi row). */
function intentWords(intent: string, trans: TranslationBundle): string {
  switch (intent) {
    case 'callers':
      return trans.__('who calls a symbol');
    case 'callees':
      return trans.__('what a symbol calls');
    case 'subclasses':
      return trans.__('subclasses of a class');
    case 'bases':
      return trans.__('base classes of a class');
    case 'importers':
      return trans.__('modules importing something');
    case 'imports':
      return trans.__('what a module imports');
    case 'implementations':
      return trans.__('implementations of an interface');
    case 'members':
      return trans.__('members of a class or module');
    case 'mentions':
      return trans.__('where a name is mentioned');
    case 'lookup':
      return trans.__('names to look up');
    case 'prose':
      return trans.__('a question in words');
    default:
      return intent;
  }
}

/** multi's legs in words. */
function legWords(leg: string, trans: TranslationBundle): string {
  switch (leg) {
    case 'hybrid':
      return trans.__('meaning and keywords');
    case 'graph':
      return trans.__('code relations');
    case 'names':
      return trans.__('symbol names');
    case 'vector':
      return trans.__('meaning');
    case 'bm25':
      return trans.__('keywords');
    default:
      return leg;
  }
}

/**
 * multi: how it read the query and what it weighed, in plain words, e.g.
 * "Read as: who calls a symbol. Weighed: code relations 1.00 · meaning and keywords 0.01".
 */
export function fusionNote(
  response: IQueryResponse,
  trans: TranslationBundle = NULL_TRANS
): string | null {
  const parts: string[] = [];
  if (response.intent) {
    parts.push(trans.__('Read as: %1.', intentWords(response.intent, trans)));
  }
  const weights = Object.entries(response.weights ?? {})
    .sort((a, b) => b[1] - a[1])
    .map(([leg, weight]) => `${legWords(leg, trans)} ${weight.toFixed(2)}`);
  if (weights.length) {
    parts.push(trans.__('Weighed: %1', weights.join(' · ')));
  }
  return parts.length ? parts.join(' ') : null;
}

/** The tooltip explaining fusionNote. */
export function fusionHelp(trans: TranslationBundle = NULL_TRANS): string {
  return trans.__(
    'multi first works out what kind of question this is, then fuses three rankings: meaning and keywords (the hybrid blend), code relations (the graph) and symbol names the query spells out. The weights say how much each counted for this query: 0 means ignored.'
  );
}
