/**
 * Index controls: start / cancel, progress of the running job (each phase with
 * its own counts), and what is searchable now.
 */
import * as React from 'react';

import {
  count,
  handedBackLabel,
  hasIndex,
  jobPhases,
  lastJobLabel,
  searchableLines,
  semanticLine
} from '../progress';
import { useTrans } from '../trans';
import { IJob, IStatus, isTerminal } from '../types';

export interface IIndexSectionProps {
  status: IStatus | null;
  job: IJob | null;
  /** The last job the panel watched that ended (see BrainModel.lastEnded). */
  lastEnded?: IJob | null;
  onIndex: () => void;
  onCancel: () => void;
}

function top(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');
}

export function JobProgress(props: {
  job: IJob;
  onCancel: () => void;
}): JSX.Element {
  const trans = useTrans();
  const { job } = props;
  const handedBack = handedBackLabel(job, trans);
  return (
    <div className="jp-AgentBrain-job" data-status={job.status}>
      {handedBack && (
        <div className="jp-AgentBrain-handedBack">{handedBack}</div>
      )}
      {jobPhases(job, trans).map(phase => (
        <div
          key={phase.key}
          className="jp-AgentBrain-phase"
          data-phase={phase.key}
          data-done={phase.done}
        >
          <progress
            className="jp-AgentBrain-progress"
            max={100}
            value={phase.percent}
            aria-label={phase.label}
          />
          <div className="jp-AgentBrain-jobText">
            {phase.label}: {phase.detail}
          </div>
        </div>
      ))}
      {job.current_file && (
        <div className="jp-AgentBrain-current" title={job.current_file}>
          {job.current_file}
        </div>
      )}
      <button className="jp-mod-styled jp-mod-warn" onClick={props.onCancel}>
        {trans.__('Cancel')}
      </button>
    </div>
  );
}

export function StatusSummary(props: {
  status: IStatus;
  job: IJob | null;
}): JSX.Element {
  const trans = useTrans();
  const { status, job } = props;
  const running = job !== null && !isTerminal(job.status);
  if (!hasIndex(status)) {
    return (
      <div className="jp-AgentBrain-emptyState">
        {running
          ? trans.__(
              'Indexing for the first time: keyword and graph search answer as soon as the files are analysed, semantic search as they are embedded.'
            )
          : trans.__(
              'Nothing indexed yet. Click Index workspace to build the brain of the folder JupyterLab serves, then search it.'
            )}
      </div>
    );
  }
  const skippedTotal = status.skipped_total ?? status.skipped.length;
  const searchable = searchableLines(status, job, trans);
  const semantic = semanticLine(status, job, trans);
  return (
    <>
      <ul className="jp-AgentBrain-searchable" role="status">
        {searchable.map(line => (
          <li key={line}>{line}</li>
        ))}
      </ul>
      <details className="jp-AgentBrain-statusDetails">
        <summary>
          {trans.__(
            '%1 files · %2 chunks',
            count(status.files.total),
            count(status.chunks.total)
          )}
          {status.state === 'indexing' ? trans.__(' · indexing') : ''}
        </summary>
        <dl className="jp-AgentBrain-status">
          <dt>{trans.__('Files')}</dt>
          <dd>
            {status.files.total} ({top(status.files.by_source_type)})
          </dd>
          <dt>{trans.__('Chunks')}</dt>
          <dd>{status.chunks.total}</dd>
          <dt>{trans.__('Languages')}</dt>
          <dd>{top(status.files.by_language) || '–'}</dd>
          <dt>{trans.__('Graph')}</dt>
          <dd>
            {trans.__(
              '%1 entities, %2 relations',
              status.graph.entities,
              status.graph.relations
            )}
          </dd>
          <dt>{trans.__('Semantic search')}</dt>
          <dd className="jp-AgentBrain-coverage">
            {semantic ?? trans.__('every chunk embedded')}
          </dd>
          <dt>{trans.__('Last indexed')}</dt>
          <dd>
            {status.last_indexed
              ? new Date(status.last_indexed).toLocaleString()
              : '–'}
          </dd>
        </dl>
        {skippedTotal > 0 && (
          <details className="jp-AgentBrain-skipped">
            <summary>
              {trans._n('%1 skipped file', '%1 skipped files', skippedTotal)}
            </summary>
            {status.skipped_by_reason && (
              <p className="jp-AgentBrain-skippedReasons">
                {top(status.skipped_by_reason)}
              </p>
            )}
            <ul>
              {status.skipped.map(s => (
                <li key={s.path}>
                  <code>{s.path}</code> — {s.reason}
                </li>
              ))}
            </ul>
            {skippedTotal > status.skipped.length && (
              <p className="jp-AgentBrain-skippedMore">
                {trans.__(
                  '… and %1 more (',
                  skippedTotal - status.skipped.length
                )}
                <code>agent-brain-lab status --all-skipped</code>)
              </p>
            )}
          </details>
        )}
      </details>
    </>
  );
}

export function IndexSection(props: IIndexSectionProps): JSX.Element {
  const trans = useTrans();
  const running = props.job !== null && !isTerminal(props.job.status);
  // Once a job ended its outcome stays said, also while the saves it was handed
  // and did not serve (a cancelled run) are indexed as their own job.
  const handedBackBy =
    running && props.lastEnded && props.job?.merged_into === props.lastEnded.id
      ? props.lastEnded
      : null;
  const ended = running ? handedBackBy : props.job;
  return (
    <section className="jp-AgentBrain-index">
      <div className="jp-AgentBrain-row">
        <button
          className="jp-mod-styled jp-mod-accept jp-AgentBrain-indexButton"
          disabled={running}
          onClick={props.onIndex}
        >
          {running ? trans.__('Indexing…') : trans.__('Index workspace')}
        </button>
        {ended && (
          <span
            className="jp-AgentBrain-muted jp-AgentBrain-lastJob"
            data-status={ended.status}
          >
            {lastJobLabel(ended, trans)}
          </span>
        )}
      </div>
      {running && props.job && (
        <JobProgress job={props.job} onCancel={props.onCancel} />
      )}
      {props.status && <StatusSummary status={props.status} job={props.job} />}
    </section>
  );
}
