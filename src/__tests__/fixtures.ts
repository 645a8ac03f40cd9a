/** Result and response builders for the rendering tests. */
import { IQueryResponse, IQueryResult, Mode } from '../types';

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
    ...fields
  };
}
