/**
 * Index controls: start / cancel, progress of the running job, status summary.
 */
import * as React from 'react';

import { coverageNote } from '../scores';
import { IJob, IStatus, isTerminal } from '../types';

export interface IIndexSectionProps {
  status: IStatus | null;
  job: IJob | null;
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
  const { job } = props;
  const percent = Math.round(job.percent ?? 0);
  return (
    <div className="jp-AgentBrain-job" data-status={job.status}>
      <progress
        className="jp-AgentBrain-progress"
        max={100}
        value={percent}
        aria-label="Indexing progress"
      />
      <div className="jp-AgentBrain-jobText">
        {job.phase ?? job.status}: {job.files_done}/{job.files_total} files
        {job.chunks ? `, ${job.chunks} chunks` : ''}
      </div>
      {job.current_file && (
        <div className="jp-AgentBrain-current" title={job.current_file}>
          {job.current_file}
        </div>
      )}
      <button className="jp-mod-styled jp-mod-warn" onClick={props.onCancel}>
        Cancel
      </button>
    </div>
  );
}

export function StatusSummary(props: { status: IStatus }): JSX.Element {
  const { status } = props;
  if (status.state === 'empty') {
    return (
      <div className="jp-AgentBrain-emptyState">
        Nothing indexed yet. Click <b>Index workspace</b> to build the brain of{' '}
        <code>{status.root}</code>, then search it.
      </div>
    );
  }
  const coverage = coverageNote(status.coverage);
  const skippedTotal = status.skipped_total ?? status.skipped.length;
  return (
    <details className="jp-AgentBrain-statusDetails">
      <summary>
        {status.files.total} files · {status.chunks.total} chunks
        {status.state === 'indexing' ? ' · indexing' : ''}
        {coverage && <> · {coverage}</>}
      </summary>
      <dl className="jp-AgentBrain-status">
        <dt>Files</dt>
        <dd>
          {status.files.total} ({top(status.files.by_source_type)})
        </dd>
        <dt>Chunks</dt>
        <dd>{status.chunks.total}</dd>
        <dt>Languages</dt>
        <dd>{top(status.files.by_language) || '–'}</dd>
        <dt>Graph</dt>
        <dd>
          {status.graph.entities} entities, {status.graph.relations} relations
        </dd>
        {status.coverage !== undefined && (
          <>
            <dt>Semantic search</dt>
            <dd className="jp-AgentBrain-coverage">
              {Math.round(status.coverage * 100)}% of the workspace
            </dd>
          </>
        )}
        <dt>Last indexed</dt>
        <dd>
          {status.last_indexed
            ? new Date(status.last_indexed).toLocaleString()
            : '–'}
        </dd>
      </dl>
      {skippedTotal > 0 && (
        <details className="jp-AgentBrain-skipped">
          <summary>{skippedTotal} skipped files</summary>
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
              … and {skippedTotal - status.skipped.length} more (
              <code>agent-brain-lab status --all-skipped</code>)
            </p>
          )}
        </details>
      )}
    </details>
  );
}

export function IndexSection(props: IIndexSectionProps): JSX.Element {
  const running = props.job !== null && !isTerminal(props.job.status);
  return (
    <section className="jp-AgentBrain-index">
      <div className="jp-AgentBrain-row">
        <button
          className="jp-mod-styled jp-mod-accept jp-AgentBrain-indexButton"
          disabled={running}
          onClick={props.onIndex}
        >
          {running ? 'Indexing…' : 'Index workspace'}
        </button>
        {props.job && !running && (
          <span className="jp-AgentBrain-muted" data-status={props.job.status}>
            Last job {props.job.status}
          </span>
        )}
      </div>
      {running && props.job && (
        <JobProgress job={props.job} onCancel={props.onCancel} />
      )}
      {props.status && <StatusSummary status={props.status} />}
    </section>
  );
}
