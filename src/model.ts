/**
 * The panel's state and the calls that change it, free of any widget code so
 * the commands, the settings and the React view all drive the same object.
 */
import { Poll } from '@lumino/polling';
import { ISignal, Signal } from '@lumino/signaling';

import { ApiError, BrainAPI } from './api';
import { DEFAULT_SETTINGS } from './settings';
import {
  IJob,
  IQueryRequest,
  IQueryResponse,
  IStatus,
  isTerminal,
  Mode
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
  sourceTypes: string[];
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

export class BrainModel {
  constructor(
    readonly api: BrainAPI,
    private readonly reporter: IReporter
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
      this.reporter.info('Type something to search for.');
      return;
    }
    const seq = ++this._searchSeq;
    this._searching = true;
    this._changed.emit();
    try {
      const response = await this.api.query(request);
      if (seq === this._searchSeq) {
        this._response = response;
      }
    } catch (error) {
      if (seq === this._searchSeq) {
        this._report(error);
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
      this.reporter.info('An index job is already running.');
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
        }
      },
      frequency: JOB_POLL,
      name: 'agent-brain-lab:job'
    });
    this._poll = poll;
  }

  private async _finish(job: IJob): Promise<void> {
    this._poll = null;
    if (job.status === 'failed') {
      this.reporter.error(`Indexing failed: ${job.error ?? 'unknown error'}`);
    }
    await this.refreshStatus();
    this._jobFinished.emit(job);
  }

  private _setJob(job: IJob): void {
    this._job = job;
    this._changed.emit();
  }

  private _report(error: unknown): void {
    this.reporter.error(error instanceof Error ? error.message : String(error));
  }

  private _options: ISearchOptions = { ...DEFAULT_OPTIONS };
  private _response: IQueryResponse | null = null;
  private _searching = false;
  private _searchSeq = 0;
  private _status: IStatus | null = null;
  private _job: IJob | null = null;
  private _poll: Poll | null = null;
  private _changed = new Signal<this, void>(this);
  private _jobFinished = new Signal<this, IJob>(this);
}
