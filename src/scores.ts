/**
 * What each result shows about how it was found: its location label and the
 * per-leg score breakdown (vector / bm25 / graph scores, and ranks in multi).
 */
import { IQueryResponse, IQueryResult, Mode } from './types';

export interface ILeg {
  leg: 'vector' | 'bm25' | 'graph';
  /** "0.812" for a score, "#3" for a rank in multi mode. */
  value: string;
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
export function legBreakdown(result: IQueryResult, mode: Mode): ILeg[] {
  if (mode === 'multi') {
    return LEGS.filter(leg => result.ranks?.[leg] !== undefined).map(leg => ({
      leg,
      value: `#${result.ranks[leg]}`
    }));
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

/** `path:start-end`, or `path:line` for a one-line chunk, plus the cell for notebooks. */
export function locationLabel(result: IQueryResult): string {
  const lines =
    result.start_line === result.end_line
      ? `${result.start_line}`
      : `${result.start_line}-${result.end_line}`;
  const cell =
    result.cell_index !== null && result.cell_index !== undefined
      ? ` [cell ${result.cell_index}]`
      : '';
  return `${result.source}:${lines}${cell}`;
}

/** The engine's qualified symbol or the doc section a result belongs to, if any. */
export function anchorLabel(result: IQueryResult): string | null {
  const name = result.qualified_symbol;
  if (name) {
    return result.symbol_type ? `${result.symbol_type} ${name}` : name;
  }
  return result.section_path || null;
}

/** "semantic search: 43% of the workspace" while embedding is unfinished, else null. */
export function coverageNote(coverage: number | undefined): string | null {
  return coverage === undefined || coverage >= 1
    ? null
    : `semantic search: ${Math.round(coverage * 100)}% of the workspace`;
}

/** multi: the intent and each leg's weight, e.g. "intent: symbol · vector 0.40 · bm25 0.60". */
export function fusionNote(response: IQueryResponse): string | null {
  const parts = response.intent ? [`intent: ${response.intent}`] : [];
  for (const [leg, weight] of Object.entries(response.weights ?? {})) {
    parts.push(`${leg} ${weight.toFixed(2)}`);
  }
  return parts.length ? parts.join(' · ') : null;
}
