/**
 * What the panel and the status bar say about the index and the running job,
 * worked out from the server's status and job (never computed anew: counts,
 * coverage and the ETA are the server's).
 */
import { TranslationBundle } from '@jupyterlab/translation';

import { NULL_TRANS } from './trans';
import { IJob, IStatus, isTerminal } from './types';

/** One phase of a run, with its own counts and its own bar (0–100). */
export interface IPhase {
  key: 'analysis' | 'embedding';
  label: string;
  /** e.g. "120/253 files", "530/4,074 chunks · about 3 min left". */
  detail: string;
  percent: number;
  done: boolean;
}

const ANALYSIS_PHASES = ['pending', 'scanning', 'indexing'];

/** A count as the panel prints it: 4,074. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

function percentOf(done: number, total: number): number {
  return total > 0 ? Math.min(100, Math.round((100 * done) / total)) : 0;
}

/** "less than a minute", "3 min", "1 h 20 min": the server's `eta_s` for a person. */
export function formatEta(
  seconds: number,
  trans: TranslationBundle = NULL_TRANS
): string {
  if (seconds < 60) {
    return trans.__('less than a minute');
  }
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) {
    return trans.__('%1 min', minutes);
  }
  return trans.__('%1 h %2 min', Math.floor(minutes / 60), minutes % 60);
}

/** The ETA sentence part, or '' while the server has no rate yet. */
function etaPart(job: IJob, trans: TranslationBundle): string {
  return typeof job.eta_s === 'number'
    ? trans.__('about %1 left', formatEta(job.eta_s, trans))
    : '';
}

/**
 * The phases of a running job, each with its own counts: the analysis (files)
 * stays full once it is over, the embedding (chunks) fills on its own bar.
 */
export function jobPhases(
  job: IJob,
  trans: TranslationBundle = NULL_TRANS
): IPhase[] {
  const phase = job.phase ?? 'pending';
  const analysing = ANALYSIS_PHASES.includes(phase);
  const phases: IPhase[] = [
    {
      key: 'analysis',
      label:
        phase === 'scanning' || phase === 'pending'
          ? trans.__('Scanning the workspace')
          : trans.__('Analysing files'),
      detail: trans.__(
        '%1/%2 files',
        count(job.files_done),
        count(job.files_total)
      ),
      percent: analysing ? percentOf(job.files_done, job.files_total) : 100,
      done: !analysing
    }
  ];
  if (phase === 'embedding') {
    const embedded = job.embedded ?? 0;
    const detail = trans.__('%1/%2 chunks', count(embedded), count(job.chunks));
    const eta = etaPart(job, trans);
    phases.push({
      key: 'embedding',
      label: trans.__('Embedding for semantic search'),
      detail: eta ? `${detail} · ${eta}` : detail,
      percent: percentOf(embedded, job.chunks),
      done: false
    });
  } else if (phase === 'writing') {
    phases.push({
      key: 'embedding',
      label: trans.__('Publishing'),
      detail: trans.__('%1 chunks', count(job.chunks)),
      percent: 100,
      done: false
    });
  }
  return phases;
}

function runningJob(job: IJob | null): IJob | null {
  return job && !isTerminal(job.status) ? job : null;
}

/** Whether a published generation answers searches (also while a run goes on). */
export function hasIndex(status: IStatus | null): boolean {
  return !!status && status.generation > 0 && status.state !== 'empty';
}

/**
 * "semantic search: 63% (2,566 of 4,074 chunks embedded, about 3 min left)"
 * while vectors are missing; null once every chunk is embedded. The counts
 * come from the running job when it is embedding, the share from the status.
 */
export function semanticLine(
  status: IStatus,
  job: IJob | null,
  trans: TranslationBundle = NULL_TRANS
): string | null {
  const coverage = status.coverage ?? 1;
  const running = runningJob(job);
  const embedding = running?.phase === 'embedding' ? running : null;
  if (coverage >= 1 && !embedding) {
    return null;
  }
  const share = embedding
    ? percentOf(embedding.embedded ?? 0, embedding.chunks)
    : Math.round(100 * coverage);
  if (!embedding) {
    // a cancelled or killed run's unfinished embedding is resumed only by an
    // index of the whole workspace (a save embeds only its own chunks)
    return running
      ? trans.__('semantic search: %1% of the workspace', share)
      : trans.__(
          'semantic search: %1% of the workspace; Index workspace embeds the rest',
          share
        );
  }
  const eta = etaPart(embedding, trans);
  const counts = trans.__(
    '%1 of %2 chunks embedded',
    count(embedding.embedded ?? 0),
    count(embedding.chunks)
  );
  return trans.__(
    'semantic search: %1% (%2)',
    share,
    eta ? `${counts}, ${eta}` : counts
  );
}

/** What the summary says can be searched right now. */
export function searchableLines(
  status: IStatus,
  job: IJob | null,
  trans: TranslationBundle = NULL_TRANS
): string[] {
  if (!hasIndex(status)) {
    return [];
  }
  const semantic = semanticLine(status, job, trans);
  return semantic
    ? [trans.__('keyword and graph search ready'), semantic]
    : [trans.__('all search modes ready')];
}

/** The status bar's one line: what is indexed, how much semantic search sees, the job. */
export function statusBarText(
  status: IStatus | null,
  job: IJob | null,
  trans: TranslationBundle = NULL_TRANS
): string {
  const parts: string[] = [];
  const running = runningJob(job);
  if (!status) {
    parts.push(trans.__('Brain: …'));
  } else if (hasIndex(status)) {
    parts.push(trans.__('Brain: %1 files', count(status.files.total)));
    const coverage = status.coverage ?? 1;
    const embedding = running?.phase === 'embedding' ? running : null;
    if (coverage < 1 || embedding) {
      const share = embedding
        ? percentOf(embedding.embedded ?? 0, embedding.chunks)
        : Math.round(100 * coverage);
      parts.push(trans.__('semantic %1%', share));
    }
  } else {
    parts.push(
      running ? trans.__('Brain: first index') : trans.__('Brain: not indexed')
    );
  }
  if (running) {
    const phases = jobPhases(running, trans);
    const current = phases[phases.length - 1];
    parts.push(
      current.key === 'embedding'
        ? trans.__('embedding %1%', current.percent)
        : trans.__('indexing %1%', current.percent)
    );
  }
  return parts.join(' · ');
}

/** The line under the Index button once a job ended: "Up to date: 42 files unchanged" etc. */
export function lastJobLabel(
  job: IJob,
  trans: TranslationBundle = NULL_TRANS
): string {
  if (job.status === 'done' && job.report) {
    const r = job.report;
    if (r.files_indexed === 0 && r.files_deleted === 0) {
      return trans.__(
        'Up to date: %1 files unchanged',
        count(r.files_unchanged)
      );
    }
    return trans.__(
      'Indexed %1 files (%2 unchanged, %3 removed)',
      count(r.files_indexed),
      count(r.files_unchanged),
      count(r.files_deleted)
    );
  }
  switch (job.status) {
    case 'done':
      return trans.__('Last job done');
    case 'failed':
      return trans.__('Last job failed');
    case 'cancelled':
      return trans.__('Last job cancelled');
    default:
      return trans.__('Job %1', job.status);
  }
}

/**
 * A running save job whose run ended before serving it (a cancel): it runs on
 * its own, and says which files and why, next to that run's own outcome.
 */
export function handedBackLabel(
  job: IJob,
  trans: TranslationBundle = NULL_TRANS
): string | null {
  if (isTerminal(job.status) || !job.merged_into) {
    return null;
  }
  const paths = job.paths ?? [job.path];
  const named = paths.slice(0, 3).join(', ');
  const more =
    paths.length > 3 ? trans.__(' and %1 more', paths.length - 3) : '';
  return trans.__(
    'Saved or changed during the run that ended, now indexed on their own: %1%2',
    named,
    more
  );
}
