/**
 * Shapes of the REST API under `{base_url}agent-brain/`, generated from
 * `agent_brain_lab/server/openapi.json` (itself generated from the engine's types):
 * do not edit; run `python -m agent_brain_lab.server.contract --write`.
 */

export interface ICounts {
  /** how many */
  total: number;
  /** counted by source type */
  by_source_type: Record<string, number>;
  /** counted by language */
  by_language: Record<string, number>;
}

/** Every error of these routes (BrainError.to_dict, or an HTTP error of the server). */
export interface IError {
  /** a code: invalid_request, not_indexed, workspace_busy, ... */
  error: string;
  /** what went wrong, for a person */
  message: string;
  /** invalid_request: the field at fault (or body) */
  field?: string;
  /** workspace_busy: the job in the way */
  job_id?: string;
  /** index_corrupt, index_newer, disk_full, read_only, no_access, io_error, not_a_folder: what is wrong */
  problem?: string;
  /** what repairs it (index_corrupt: the command) */
  fix?: string;
}

export interface IGraphEdge {
  /** the node id the edge leaves */
  source: string;
  /** the node id it reaches */
  target: string;
  /** calls, imports, inherits, mentions, contains, defined_in, ... */
  relation: string;
  /** the chunks the edge was seen in */
  chunk_ids: string[];
}

/** What ``Brain.graph_entity()`` returns: the entities matching ``query`` and their neighbourhood up to the asked depth, grouped by relation and capped (``engine/explore.py``): the nodes shown (each with its ``hop``, the matches at 0, and its ``location`` label), the edges among them, the chunks behind them (results with their labels), one group per relation of each node walked (``total``, the ids ``shown``, the rest in ``more`` with ``more_edges``, a ``label`` such as "+42 more callers"), the structural edges left out by relation, and the options used. */
export interface IGraphEntity {
  /** the name asked for */
  query: string;
  /** ids of the nodes the name matched (hop 0) */
  matches: string[];
  /** the nodes shown, each with its hop */
  nodes: IGraphNode[];
  /** the edges among the nodes shown */
  edges: IGraphEdge[];
  /** the chunks behind the nodes and edges */
  chunks: IQueryResult[];
  /** one per relation and direction of each node walked */
  groups: IGraphGroup[];
  /** structural edges not followed, by relation */
  hidden_relations: Record<string, number>;
  /** neighbours shown per relation of a node (0: all) */
  per_relation: number;
  /** whether contains/defined_in were followed */
  all_relations: boolean;
  /** when nothing matched: that, the nearest names the graph holds, and what else to try */
  note: string | null;
}

export interface IGraphGroup {
  /** starts with //more/, never a node id */
  id: string;
  /** the node whose neighbours these are */
  parent: string;
  /** the relation */
  relation: string;
  /** out: parent -relation-> neighbour */
  direction: 'in' | 'out';
  /** e.g. callers, calls, subclasses, mentioned in */
  phrase: string;
  /** len(shown) + len(more) */
  total: number;
  /** ids of the neighbours among nodes */
  shown: string[];
  /** e.g. '+42 more callers', or the phrase when nothing is held back */
  label: string;
  /** the neighbours held back, as nodes */
  more: IGraphNode[];
  /** their edges to parent */
  more_edges: IGraphEdge[];
}

/** A node of the knowledge graph as ``graph/entity`` shows it; the other keys are the node's own attributes (its kind, name, source file, lines, ...), which vary by kind. */
export interface IGraphNode {
  /** the node id */
  id: string;
  /** hops from the matches (0: a match) */
  hop: number;
  [key: string]: unknown;
}

export interface IGraphStats {
  /** nodes of the knowledge graph */
  entities: number;
  /** edges of the knowledge graph */
  relations: number;
  /** edges counted by relation */
  by_relation: Record<string, number>;
}

export interface IIndexReport {
  /** the generation the run published */
  generation: number;
  /** files the run looked at */
  files_total: number;
  /** files (re)chunked: new or changed */
  files_indexed: number;
  /** files left as they were */
  files_unchanged: number;
  /** files gone from disk, removed from the index */
  files_deleted: number;
  /** chunks in the published generation */
  chunks_total: number;
  /** chunks the run added */
  chunks_added: number;
  /** chunks the run removed */
  chunks_removed: number;
  /** chunks the run embedded (the rest came from the cache) */
  chunks_embedded: number;
  /** files the run left out, with why */
  skipped: ISkippedFile[];
  /** the run's wall time, in seconds */
  duration_s: number;
  /** what went wrong after the run published (a full disk during clean-up, while embedding the rest): the generation reported answers; each warning says what to do */
  warnings: string[];
}

export interface IIndexRequest {
  /** what to index, relative to the root ('' is everything; REST: a folder), or a list of them */
  path?: string | string[];
  /** more of them (adds to path) */
  paths?: string[];
  /** re-index every file, not only the changed ones (needed after a model change) */
  force?: boolean;
  /** only files matching one of these gitignore-style globs */
  include?: string[] | string;
  /** leave out files matching these globs (on top of the workspace rules) */
  exclude?: string[] | string;
  /** characters per chunk */
  chunk_size?: number | string;
  /** characters of overlap between chunks, below chunk_size */
  chunk_overlap?: number | string;
}

export const INDEX_STATES = [
  'empty',
  'ready',
  'indexing',
  'corrupt',
  'newer_format',
  'disk_full',
  'read_only',
  'no_access',
  'io_error',
  'not_a_folder'
] as const;
export type IndexState = (typeof INDEX_STATES)[number];

/** A job as the REST routes return it (``Job.to_dict``). */
export interface IJob {
  /** the job's id */
  id: string;
  /** pending, running, then done, failed or cancelled */
  status: JobStatus;
  /** the folder or file indexed, relative to the root ('' is everything) */
  path: string;
  /** path and the paths of the saves merged into this job */
  paths: string[];
  /** whether every file is re-indexed */
  force: boolean;
  /** the running job whose embedding phase serves this save: started at once, done once its files are published for keyword and graph search (their embedding joins that job's queue); if that run ends before serving it, the save runs as its own job, which the status names */
  merged_into: string | null;
  /** what the run is doing now */
  phase: Phase;
  /** files the run has chunked */
  files_done: number;
  /** files the run will look at */
  files_total: number;
  /** chunks the run holds so far */
  chunks: number;
  /** embedding phase: how many of chunks have a vector */
  embedded: number;
  /** embedding phase: seconds left at this run's embedding rate so far (null until known) */
  eta_s: number | null;
  /** the file being chunked */
  current_file: string | null;
  /** 0..100: files done, or in the embedding phase chunks embedded */
  percent: number;
  /** when the run started (ISO 8601, UTC) */
  started: string | null;
  /** when the job ended (ISO 8601, UTC) */
  finished: string | null;
  /** failed: the error code and what went wrong */
  error: string | null;
  /** the report's skipped files (empty until done) */
  skipped: ISkippedFile[];
  /** done: what the run did */
  report: IIndexReport | null;
}

export interface IJobList {
  /** newest first */
  jobs: IJob[];
}

export const JOB_STATUSES = [
  'pending',
  'running',
  'done',
  'failed',
  'cancelled'
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** One retrieval leg's part in a result. */
export interface ILeg {
  /** vector, bm25, graph, hybrid or names */
  leg: string;
  /** the leg's own score; null when it ranks without one or the chunk has no vector yet */
  score: number | null;
  /** 1-based place in the leg's own ranking; null when it scored the chunk outside it */
  rank: number | null;
  /** what a person reads: 'vector 0.812 #1', 'bm25 12.3', 'hybrid #2' */
  label: string;
  /** the chunk has no vector yet: the blend ranked it by its keywords alone */
  missing: boolean;
}

export const MODES = ['vector', 'bm25', 'hybrid', 'graph', 'multi'] as const;
export type Mode = (typeof MODES)[number];

export interface IModelInfo {
  /** the fastembed model name */
  name: string;
  /** the local model folder, or null for a model fetched by name */
  path: string | null;
  /** the model as configured: name and variant (or model folder) */
  identity: string;
  /** the sha256 of the model's ONNX file */
  sha256: string | null;
  /** what the index records and keys its embedding cache by: identity and file hash */
  key: string;
  /** the vectors' dimension */
  dim: number | null;
}

/** this document, with this server's base URL in servers */
export interface IOpenAPI {
  /** the OpenAPI version (3.0.3) */
  openapi: string;
  /** title, version and what the routes share */
  info: Record<string, unknown>;
  /** this server's base URL */
  servers: Record<string, unknown>[];
  /** every route */
  paths: Record<string, unknown>;
  /** the shapes of requests, answers and errors */
  components: Record<string, unknown>;
}

export const PHASES = [
  'pending',
  'scanning',
  'indexing',
  'embedding',
  'writing',
  'done'
] as const;
export type Phase = (typeof PHASES)[number];

export interface IQueryRequest {
  /** what to search for */
  query: string;
  /** vector, bm25, hybrid (alpha blend), graph or multi (RRF over the other three) */
  mode?: 'vector' | 'bm25' | 'hybrid' | 'graph' | 'multi';
  /** results to return */
  top_k?: number | string;
  /** vector and hybrid: the lowest cosine similarity kept */
  similarity_threshold?: number;
  /** hybrid: the weight of the vector score (1 - alpha: bm25) */
  alpha?: number;
  /** the RRF constant of multi */
  rrf_k?: number | string;
  /** graph: hops from the query's entities */
  traversal_depth?: number | string;
  /** only chunks of these source types */
  source_types?: ('doc' | 'code' | 'test' | 'notebook')[] | string;
  /** only chunks in these languages */
  languages?: string[] | string;
  /** only files matching one of these root-relative globs */
  file_paths?: string[] | string;
}

export interface IQueryResponse {
  /** the query, as searched (trimmed) */
  query: string;
  /** the mode that answered */
  mode: Mode;
  /** best first */
  results: IQueryResult[];
  /** len(results): how many were returned (no count of matches past top_k) */
  total_results: number;
  /** time the engine spent answering, in milliseconds */
  query_time_ms: number;
  /** graph, multi: the known entities the query names */
  query_entities: string[];
  /** why another mode answered instead, e.g. 'vector: no known entity in the query' */
  fallback: string | null;
  /** the index generation that answered */
  generation: number;
  /** multi: the kind of question the query analysis saw */
  intent: string | null;
  /** multi: each leg's weight in the fusion */
  weights: Record<string, number>;
  /** share (0..1) of the generation's chunks that are embedded (what the vector leg saw); left out when no vector leg answered (bm25, graph that found its entities) */
  coverage?: number;
  /** when the filters leave no chunk of the index: which filter value matches nothing and what the index holds ('no chunk of this index passes the filters: languages rust (this index holds: python)') */
  filter_note: string | null;
  /** multi: its reading of the query and the legs' weights in words ('Read as: ...') */
  fusion_note: string | null;
  /** when not every chunk is embedded: what semantic search saw, in words */
  coverage_note: string | null;
}

/** A chunk as one search ranked it: the chunk's own fields, plus its scores and what to mark. */
export interface IQueryResult {
  /** the file, as a POSIX path relative to the workspace root */
  source: string;
  /** what kind of file the chunk comes from */
  source_type: SourceType;
  /** the file's language (python, markdown, ...) */
  language: string;
  /** the chunk's first line, 1-based (notebooks: within its cell) */
  start_line: number;
  /** the chunk's last line, 1-based and inclusive */
  end_line: number;
  /** the chunk's text */
  text: string;
  /** code: the function, class or method the chunk holds */
  symbol_name: string | null;
  /** code: what kind of symbol (function, class, method, ...) */
  symbol_type: string | null;
  /** code: the class a method belongs to */
  parent_symbol: string | null;
  /** docs: the chunk's headings, outermost first, joined by ' > ' */
  section_path: string | null;
  /** notebooks: the cell's index, 0-based */
  cell_index: number | null;
  /** stable across re-index while the chunk's file, place and text stay */
  chunk_id: string;
  /** the score the mode ranked by (multi: the fused RRF score) */
  score: number;
  /** cosine similarity to the query; null when no vector leg saw it */
  vector_score: number | null;
  /** BM25 score; null when no keyword leg saw it */
  bm25_score: number | null;
  /** graph score; null when no graph leg saw it */
  graph_score: number | null;
  /** its rank, 1-based, in each leg that found it (multi, hybrid) */
  ranks: Record<string, number>;
  /** graph: the query's entities this chunk is linked to */
  related_entities: string[];
  /** graph: the path of entities and relations that led here */
  relationship_path: string[];
  /** [start, end) code-point ranges of text that match the query's keyword tokens */
  highlights: number[][];
  /** where it is, as people read it: 'path:7', 'path:7-9', 'nb.ipynb:1-4 [cell 9]' (cells from 1) */
  location: string;
  /** the symbol as kind and qualified name ('method Cart.total') or the doc section */
  anchor: string | null;
  /** the line that matters: the first marked one (a relation's line), else the first */
  focus_line: number;
  /** each leg that scored or ranked it, with the label people read */
  legs: ILeg[];
  /** `parent.symbol`, or the symbol alone: how the engine names the chunk's symbol. */
  qualified_symbol: string | null;
}

export interface IReset {
  /** the index is deleted */
  status: 'reset';
  /** what became of the embedding cache */
  cache: 'kept' | 'dropped' | 'none';
  /** why the cache could not be kept, or null */
  note: string | null;
}

export interface IResetRequest {
  /** also delete the embedding cache (re-indexing then embeds every chunk again) */
  drop_cache?: boolean;
}

export interface ISkippedFile {
  /** the file, relative to the root */
  path: string;
  /** why it is not indexed, e.g. 'larger than 1.0 MB limit (3.2 MB)' */
  reason: string;
}

export const SOURCE_TYPES = ['doc', 'code', 'test', 'notebook'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

/** What ``POST index`` answers: the job queued. */
export interface IStartedJob extends IJob {
  /** the same as id */
  job_id: string;
}

/** What ``Brain.status()`` reports. ``state`` is one of ``INDEX_STATES`` (see :class:`IndexProblem`); in every state but ready, indexing and empty, ``problem`` says what is wrong and ``fix`` what repairs it. ``writable``: whether this process can write the index (a read-only index still answers queries). ``skipped`` lists the first ``MAX_SKIPPED_LISTED`` skipped files (all of them when asked: :class:`StatusRequest`); ``skipped_total`` and ``skipped_by_reason`` count every one. */
export interface IStatus {
  /** ready, indexing or empty; read_only and disk_full still answer queries; corrupt, newer_format, no_access, io_error and not_a_folder cannot be read. Every state but ready, indexing and empty carries problem and fix */
  state: IndexState;
  /** the workspace folder indexed */
  root: string;
  /** the generation queries answer from (0: none yet) */
  generation: number;
  /** indexed files, counted */
  files: ICounts;
  /** chunks, counted */
  chunks: ICounts;
  /** the first 50 skipped files by path; all of them when asked */
  skipped: ISkippedFile[];
  /** the knowledge graph's size */
  graph: IGraphStats;
  /** the embedding model the index was built with */
  model: IModelInfo;
  /** size of .agent-brain/ on disk */
  index_bytes: number;
  /** when the generation was published (ISO 8601, UTC) */
  last_indexed: string | null;
  /** the on-disk format this engine writes */
  format_version: number;
  /** the index's identity: changes when it is reset and built again */
  index_id: string | null;
  /** what is wrong (states other than ready, indexing, empty) */
  problem: string | null;
  /** what repairs it (corrupt: the command) */
  fix: string | null;
  /** share (0..1) of the chunks that are embedded (below 1 while a large run embeds) */
  coverage: number;
  /** how many files are skipped */
  skipped_total: number;
  /** skipped files counted by reason (without its particulars in parentheses), largest first */
  skipped_by_reason: Record<string, number>;
  /** whether this process can write the index (a read-only index still answers queries) */
  writable: boolean;
  /** the running job, else the oldest pending one, else the failed job of changed files that wait to be retried (its error says what went wrong and the fix), else null */
  job: IJob | null;
  /** how the server follows changes made outside Jupyter */
  watch: IWatchState;
}

/** How the disk is followed: ``events`` (inotify & co), ``polling`` (a walk every few seconds) or ``off``. */
export interface IWatchState {
  /** events (inotify & co), polling or off */
  mode: 'events' | 'polling' | 'off';
  /** why this mode: why not events, or why off */
  reason: string | null;
}
