/**
 * The panel's state and the calls that change it, free of any widget code so
 * the commands, the settings and the React view all drive the same object.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { Poll } from '@lumino/polling';
import { ISignal, Signal } from '@lumino/signaling';

import { ApiError, BrainAPI, SERVER_EXTENSION_MISSING } from './api';
import { DEFAULT_SETTINGS } from './settings';
import { NULL_TRANS } from './trans';
import {
  IJob,
  IQueryRequest,
  IQueryResponse,
  IStatus,
  isTerminal,
  Mode,
  SourceType
} from './types';

/** How the model reports failures to the user (a Notification in the app). */
export interface IReporter {
  error(message: string): void;
  info(message: string): void;
}

/** Search options the user can change; saved with the layout state. */
export interface ISearchOptions {
  query: string;
  mode: Mode;
  topK: number;
  alpha: number;
  sourceTypes: SourceType[];
  languages: string[];
  /** Comma-separated globs relative to the workspace root. */
  paths: string;
}

export const DEFAULT_OPTIONS: ISearchOptions = {
  query: '',
  mode: DEFAULT_SETTINGS.defaultMode,
  topK: DEFAULT_SETTINGS.topK,
  alpha: DEFAULT_SETTINGS.alpha,
  sourceTypes: [],
  languages: [],
  paths: ''
};

/** Job polling: quick while a job runs, backing off up to `max` when the server errs. */
export const JOB_POLL = { interval: 500, backoff: true, max: 10_000 };

/** While a job runs, the status (what is searchable now) is re-read at most this often. */
export const STATUS_DURING_JOB_MS = 2000;

/** Without a job of ours, the status is re-read this often (jobs of the CLI, kernels, saves). */
export const STATUS_POLL = { interval: 15_000, backoff: true, max: 120_000 };

/** The request fields a person sets in the panel, in their words (for error messages). */
export function fieldLabel(
  field: string,
  trans: TranslationBundle = NULL_TRANS
): string {
  switch (field) {
    case 'file_paths':
      return trans.__('Paths filter');
    case 'languages':
      return trans.__('Languages filter');
    case 'source_types':
      return trans.__('Source types filter');
    case 'query':
      return trans.__('Search text');
    case 'top_k':
      return trans.__('Number of results');
    case 'alpha':
      return trans.__('Hybrid alpha');
    default:
      return field;
  }
}

/**
 * A request error as a person reads it: the engine's "file_paths: '/x' must be
 * relative" becomes "Paths filter: '/x' must be relative".
 */
export function fieldMessage(
  field: string,
  message: string,
  trans: TranslationBundle = NULL_TRANS
): string {
  const detail = message.startsWith(`${field}: `)
    ? message.slice(field.length + 2)
    : message;
  return `${fieldLabel(field, trans)}: ${detail}`;
}

/** Why the last search shows no results: shown in the panel, not as a toast. */
export interface ISearchNotice {
  kind: 'not_indexed' | 'invalid';
  /** The request field at fault (`file_paths`, …) for `invalid`. */
  field?: string;
  message: string;
}

export class BrainModel {
  constructor(
    readonly api: BrainAPI,
    private readonly reporter: IReporter,
    readonly trans: TranslationBundle = NULL_TRANS
  ) {}

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  /** Emitted when a job ends, with its final state. */
  get jobFinished(): ISignal<this, IJob> {
    return this._jobFinished;
  }

  get options(): ISearchOptions {
    return this._options;
  }
  get response(): IQueryResponse | null {
    return this._response;
  }
  get searching(): boolean {
    return this._searching;
  }
  get status(): IStatus | null {
    return this._status;
  }
  get job(): IJob | null {
    return this._job;
  }
  /** The last watched job that ended (kept while the panel follows the next one). */
  get lastEnded(): IJob | null {
    return this._lastEnded;
  }
  /**
   * Why the last search has no results to show, if it failed in a way the user fixes.
   * "Nothing indexed yet" is worded from the state now, not when the search failed: once
   * an index run goes (the button clicked, or a run another client or process started), it says that
   * run is building the first index instead of asking for the click already made.
   */
  get notice(): ISearchNotice | null {
    if (this._notice?.kind === 'not_indexed') {
      const running =
        (this._job !== null && !isTerminal(this._job.status)) ||
        this._status?.state === 'indexing'; // a run of a kernel or the CLI
      return {
        kind: 'not_indexed',
        message: running
          ? this.trans.__(
              'Nothing is searchable yet: the first index is being built. Search answers when it publishes: a large workspace its keyword and graph search as soon as the files are analysed, semantic search as they are embedded; a small one all at once.'
            )
          : this.trans.__(
              'Nothing is indexed yet. Click Index workspace: keyword and graph search answer as soon as the files are analysed, semantic search once they are embedded.'
            )
      };
    }
    return this._notice;
  }
  /** Set when the server extension does not answer at all (not installed / not enabled). */
  get unavailable(): boolean {
    return this._unavailable;
  }

  /**
   * Re-read the status now and then while no job of ours is watched, so the
   * status bar follows runs other clients start. Stops while the page is hidden.
   */
  startStatusPoll(): void {
    if (this._statusPoll) {
      return;
    }
    this._statusPoll = new Poll({
      auto: true,
      factory: async () => {
        if (!this._poll && !this._unavailable) {
          await this.refreshStatus();
        }
      },
      frequency: STATUS_POLL,
      standby: 'when-hidden',
      name: 'agent-brain-lab:status'
    });
  }

  /** Change some search options (the view, the settings and restored state call this). */
  setOptions(options: Partial<ISearchOptions>): void {
    this._options = { ...this._options, ...options };
    this._changed.emit();
  }

  /** The request the current options describe, in the server's field names. */
  request(): IQueryRequest {
    const o = this._options;
    const request: IQueryRequest = {
      query: o.query.trim(),
      mode: o.mode,
      top_k: o.topK,
      source_types: o.sourceTypes,
      languages: o.languages,
      file_paths: o.paths
        .split(',')
        .map(p => p.trim())
        .filter(p => p)
    };
    if (o.mode === 'hybrid') {
      request.alpha = o.alpha;
    }
    return request;
  }

  /**
   * Run the current query; failures are reported, the previous results stay.
   * Only the latest search counts: a response (or error) to an older one that
   * arrives late is dropped.
   */
  async search(): Promise<void> {
    const request = this.request();
    if (!request.query) {
      this.reporter.info(this.trans.__('Type something to search for.'));
      return;
    }
    const seq = ++this._searchSeq;
    this._searching = true;
    this._changed.emit();
    try {
      const response = await this.api.query(request);
      if (seq === this._searchSeq) {
        this._response = response;
        this._notice = null;
      }
    } catch (error) {
      if (seq === this._searchSeq) {
        this._searchFailed(error);
      }
    } finally {
      if (seq === this._searchSeq) {
        this._searching = false;
        this._changed.emit();
      }
    }
  }

  /** Load the index status; picks up a job another client started. */
  async refreshStatus(): Promise<void> {
    try {
      this._status = await this.api.status();
    } catch (error) {
      this._report(error);
      return;
    }
    this._statusRead = Date.now();
    this._unavailable = false;
    if (this._notice?.kind === 'not_indexed' && this._status.generation > 0) {
      this._notice = null; // searches answer now
    }
    this._changed.emit();
    const running = this._status.job;
    if (running && !isTerminal(running.status) && !this._poll) {
      this._watch(running);
    }
  }

  /**
   * Start indexing `path` (relative to the workspace root; "" = everything).
   * If another job already runs, follow that one instead.
   */
  async index(path = '', force = false): Promise<void> {
    if (this._poll) {
      this.reporter.info(this.trans.__('An index job is already running.'));
      return;
    }
    try {
      this._watch(await this.api.index({ path, force }));
    } catch (error) {
      if (error instanceof ApiError && error.code === 'workspace_busy') {
        this.reporter.info(error.message);
        if (error.jobId) {
          await this._follow(error.jobId);
        }
        return;
      }
      this._report(error);
    }
  }

  /** Watch a job another client started; a failed look-up is reported, not thrown. */
  private async _follow(jobId: string): Promise<void> {
    try {
      this._watch(await this.api.job(jobId));
    } catch (error) {
      this._report(error);
    }
  }

  /** Ask the server to cancel the running job; polling sees it stop. */
  async cancel(): Promise<void> {
    if (!this._job) {
      return;
    }
    try {
      this._setJob(await this.api.cancel(this._job.id));
    } catch (error) {
      this._report(error);
    }
  }

  dispose(): void {
    this._poll?.dispose();
    this._poll = null;
    this._statusPoll?.dispose();
    this._statusPoll = null;
    Signal.clearData(this);
  }

  private _watch(job: IJob): void {
    this._setJob(job);
    if (isTerminal(job.status)) {
      void this._finish(job);
      return;
    }
    const poll = new Poll({
      auto: true,
      factory: async () => {
        const current = await this.api.job(job.id);
        this._setJob(current);
        if (isTerminal(current.status)) {
          poll.dispose();
          await this._finish(current);
        } else if (Date.now() - this._statusRead >= STATUS_DURING_JOB_MS) {
          // What is searchable changes during a run (a generation is published before
          // embedding ends, then more vectors): the status says so, the job does not.
          await this.refreshStatus();
        }
      },
      frequency: JOB_POLL,
      name: 'agent-brain-lab:job'
    });
    this._poll = poll;
  }

  private async _finish(job: IJob): Promise<void> {
    this._poll = null;
    this._lastEnded = job;
    if (job.status === 'failed') {
      this.reporter.error(
        this.trans.__(
          'Indexing failed: %1',
          job.error ?? this.trans.__('unknown error')
        )
      );
    }
    await this.refreshStatus();
    this._jobFinished.emit(job);
  }

  private _setJob(job: IJob): void {
    this._job = job;
    this._changed.emit();
  }

  /** A failed search: what the user can fix is said in the panel (stale results cleared). */
  private _searchFailed(error: unknown): void {
    if (error instanceof ApiError && error.code === 'not_indexed') {
      this._response = null;
      this._notice = { kind: 'not_indexed', message: '' }; // worded by `notice`
    } else if (error instanceof ApiError && error.field) {
      this._response = null; // the old results would read as if this filter applied
      this._notice = {
        kind: 'invalid',
        field: error.field,
        message: fieldMessage(error.field, error.message, this.trans)
      };
    } else {
      this._report(error);
    }
  }

  private _report(error: unknown): void {
    if (error instanceof ApiError && error.code === SERVER_EXTENSION_MISSING) {
      this._unavailable = true; // one message in the panel, not a toast per request
      this._changed.emit();
      return;
    }
    this.reporter.error(error instanceof Error ? error.message : String(error));
  }

  private _options: ISearchOptions = { ...DEFAULT_OPTIONS };
  private _response: IQueryResponse | null = null;
  private _searching = false;
  private _searchSeq = 0;
  private _status: IStatus | null = null;
  private _job: IJob | null = null;
  private _lastEnded: IJob | null = null;
  private _poll: Poll | null = null;
  private _statusPoll: Poll | null = null;
  private _statusRead = 0;
  private _notice: ISearchNotice | null = null;
  private _unavailable = false;
  private _changed = new Signal<this, void>(this);
  private _jobFinished = new Signal<this, IJob>(this);
}
