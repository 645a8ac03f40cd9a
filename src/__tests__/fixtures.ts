/** Result and response builders for the rendering tests. */
import { IJob, IQueryResponse, IQueryResult, IStatus, Mode } from '../types';

export function result(fields: Partial<IQueryResult> = {}): IQueryResult {
  return {
    chunk_id: 'c1',
    text: 'def parse_header(line):\n    """Parse one HTTP header line."""\n    return line.split(":", 1)',
    source: 'shop/http.py',
    source_type: 'code',
    language: 'python',
    start_line: 10,
    end_line: 12,
    score: 0.8123,
    vector_score: null,
    bm25_score: null,
    graph_score: null,
    ranks: {},
    symbol_name: 'parse_header',
    symbol_type: 'function',
    parent_symbol: null,
    section_path: null,
    cell_index: null,
    related_entities: [],
    relationship_path: [],
    qualified_symbol: 'parse_header',
    highlights: [],
    location: 'shop/http.py:10-12',
    anchor: 'function parse_header',
    focus_line: 10,
    legs: [],
    ...fields
  };
}

export function response(
  query: string,
  mode: Mode,
  results: IQueryResult[],
  fields: Partial<IQueryResponse> = {}
): IQueryResponse {
  return {
    query,
    mode,
    results,
    total_results: results.length,
    query_time_ms: 12.4,
    query_entities: [],
    fallback: null,
    generation: 1,
    fusion_note: null,
    coverage_note: null,
    filter_note: null,
    intent: null,
    weights: {},
    ...fields
  };
}

/** A job with every field the server sends (a spec's own defaults go in `fields`). */
export function jobOf(fields: Partial<IJob>): IJob {
  return {
    id: 'j1',
    status: 'running',
    path: '',
    paths: [''],
    force: false,
    merged_into: null,
    phase: 'indexing',
    files_done: 0,
    files_total: 0,
    chunks: 0,
    embedded: 0,
    eta_s: null,
    current_file: null,
    percent: 0,
    started: null,
    finished: null,
    error: null,
    skipped: [],
    report: null,
    ...fields
  };
}

/** A status with every field the server sends (a spec's own defaults go in `fields`). */
export function statusOf(fields: Partial<IStatus>): IStatus {
  return {
    state: 'ready',
    root: '/w',
    generation: 1,
    files: { total: 0, by_source_type: {}, by_language: {} },
    chunks: { total: 0, by_source_type: {}, by_language: {} },
    skipped: [],
    graph: { entities: 0, relations: 0, by_relation: {} },
    model: {
      name: 'm',
      path: null,
      identity: 'm',
      sha256: null,
      key: 'm',
      dim: 384
    },
    index_bytes: 0,
    last_indexed: null,
    format_version: 1,
    index_id: null,
    problem: null,
    fix: null,
    coverage: 1,
    skipped_total: 0,
    skipped_by_reason: {},
    writable: true,
    job: null,
    watch: { mode: 'off', reason: null },
    ...fields
  };
}
