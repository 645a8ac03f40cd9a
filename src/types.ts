/**
 * Shapes of the REST API under `{base_url}agent-brain/`.
 *
 * They mirror `agent_brain_lab/engine/types.py` (QueryRequest, QueryResult,
 * QueryResponse, IndexReport) and the job dict of the server extension.
 */

export const MODES = ['vector', 'bm25', 'hybrid', 'graph', 'multi'] as const;
export type Mode = (typeof MODES)[number];

/** The engine's limit on a query's length (engine/types.py MAX_QUERY_CHARS). */
export const MAX_QUERY_CHARS = 1000;

export const SOURCE_TYPES = ['doc', 'code', 'test', 'notebook'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

export interface IQueryRequest {
  query: string;
  mode?: Mode;
  top_k?: number;
  similarity_threshold?: number;
  alpha?: number;
  rrf_k?: number;
  traversal_depth?: number;
  source_types?: string[];
  languages?: string[];
  file_paths?: string[];
}

export interface IQueryResult {
  chunk_id: string;
  text: string;
  source: string;
  source_type: string;
  language: string;
  start_line: number;
  end_line: number;
  score: number;
  vector_score: number | null;
  bm25_score: number | null;
  graph_score: number | null;
  ranks: Record<string, number>;
  symbol_name: string | null;
  symbol_type: string | null;
  parent_symbol: string | null;
  section_path: string | null;
  cell_index: number | null;
  related_entities: string[];
  relationship_path: string[];
  /** `parent.symbol` or the symbol alone, as the engine names the chunk. */
  qualified_symbol: string | null;
  /** [start, end) code-point ranges of `text` that match the query's keyword tokens. */
  highlights: number[][];
  /** "path:7", "path:7-9", "nb.ipynb:1-4 [cell 9]" (cells counted from 1). */
  location: string;
  /** "method Cart.total" (kind, qualified name) or the doc section. */
  anchor: string | null;
  /** The line that matters: the first marked one (a relation's line for a graph hit). */
  focus_line: number;
  /** Each leg that scored or ranked the result, with its label. */
  legs: ILeg[];
}

/** One retrieval leg's part in a result (engine/labels.py Leg). */
export interface ILeg {
  /** vector, bm25, graph, hybrid or names. */
  leg: string;
  /** The leg's own score; null when it ranks without one or the chunk has no vector yet. */
  score: number | null;
  /** 1-based place in the leg's own ranking. */
  rank: number | null;
  /** "vector 0.812 #1", "bm25 12.3", "hybrid #2", "vector not embedded yet". */
  label: string;
  /** The chunk has no vector yet: the blend ranked it by its keywords alone. */
  missing: boolean;
}

export interface IQueryResponse {
  query: string;
  mode: Mode;
  results: IQueryResult[];
  /** The number of results returned (`results.length`). */
  total_results: number;
  query_time_ms: number;
  query_entities: string[];
  fallback: string | null;
  generation: number;
  /** multi: the kind of question the query analysis saw. */
  intent?: string | null;
  /** multi: each leg's weight in the fusion. */
  weights?: Record<string, number>;
  /** Share (0..1) of the workspace's chunks that vector search can see. */
  coverage?: number;
  /** multi's intent and weights in words ("Read as: …"). */
  fusion_note: string | null;
  /** "semantic search: 43% of the workspace" while embedding is unfinished. */
  coverage_note: string | null;
}

export interface ISkippedFile {
  path: string;
  reason: string;
}

export interface IIndexReport {
  generation: number;
  files_total: number;
  files_indexed: number;
  files_unchanged: number;
  files_deleted: number;
  chunks_total: number;
  chunks_added: number;
  chunks_removed: number;
  chunks_embedded: number;
  skipped: ISkippedFile[];
  duration_s: number;
}

export type JobStatus = 'pending' | 'running' | 'done' | 'failed' | 'cancelled';

export interface IJob {
  id: string;
  status: JobStatus;
  path: string;
  force: boolean;
  phase: string | null;
  files_done: number;
  files_total: number;
  chunks: number;
  /** Embedding phase: how many of `chunks` have a vector. */
  embedded?: number;
  /** Embedding phase: seconds left at this run's rate (the server's estimate), null until known. */
  eta_s?: number | null;
  current_file: string | null;
  percent: number;
  started: string | null;
  finished: string | null;
  error: string | null;
  skipped: ISkippedFile[];
  report: IIndexReport | null;
}

export interface IIndexRequest {
  path?: string;
  force?: boolean;
  include?: string[];
  exclude?: string[];
  chunk_size?: number;
  chunk_overlap?: number;
}

export interface ICounts {
  total: number;
  by_source_type: Record<string, number>;
  by_language: Record<string, number>;
}

export interface IStatus {
  state: 'empty' | 'ready' | 'indexing';
  root: string;
  generation: number;
  files: ICounts;
  chunks: ICounts;
  /** The first 50 skipped files (all with `?skipped=all`). */
  skipped: ISkippedFile[];
  /** How many files are skipped, and how many for each reason. */
  skipped_total?: number;
  skipped_by_reason?: Record<string, number>;
  graph: {
    entities: number;
    relations: number;
    by_relation: Record<string, number>;
  };
  model: { name: string | null; path: string | null; dim: number | null };
  index_bytes: number;
  last_indexed: string | null;
  format_version: number;
  job: IJob | null;
  /** Share (0..1) of the chunks that are embedded, when the server reports it. */
  coverage?: number;
}

/** Where to open a file: what results and the kernel widgets' links carry. */
export interface ILocation {
  path: string;
  line?: number | null;
  cell_index?: number | null;
}

export function isTerminal(status: JobStatus): boolean {
  return status === 'done' || status === 'failed' || status === 'cancelled';
}
