/**
 * Shapes of the REST API under `{base_url}agent-brain/`: the types generated
 * into `contract.ts` from the engine's types (`python -m
 * agent_brain_lab.server.contract --write`; a Python test fails when they
 * drift), under the names the panel uses.
 */
export {
  INDEX_STATES,
  JOB_STATUSES,
  MODES,
  PHASES,
  SOURCE_TYPES
} from './contract';
export type {
  ICounts,
  IError,
  IGraphEntity,
  IIndexReport,
  IIndexRequest,
  IJob,
  ILeg,
  IModelInfo,
  IQueryRequest,
  IQueryResponse,
  IQueryResult,
  ISkippedFile,
  IStartedJob,
  IStatus,
  IWatchState,
  IndexState,
  JobStatus,
  Mode,
  Phase,
  SourceType
} from './contract';
import type { JobStatus } from './contract';

/** The engine's limit on a query's length (engine/types.py MAX_QUERY_CHARS). */
export const MAX_QUERY_CHARS = 1000;

/** Where to open a file: what results and the kernel widgets' links carry. */
export interface ILocation {
  path: string;
  line?: number | null;
  cell_index?: number | null;
}

export function isTerminal(status: JobStatus): boolean {
  return status === 'done' || status === 'failed' || status === 'cancelled';
}
