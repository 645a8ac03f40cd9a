import {
  formatEta,
  jobPhases,
  lastJobLabel,
  semanticLine,
  statusBarText
} from '../progress';
import { scrollDelta } from '../open';
import { IJob, IStatus } from '../types';
import { jobOf, statusOf } from './fixtures';

function job(fields: Partial<IJob>): IJob {
  return jobOf({
    status: 'running',
    phase: 'indexing',
    files_total: 253,
    ...fields
  });
}

function status(fields: Partial<IStatus>): IStatus {
  return statusOf({
    state: 'indexing',
    files: { total: 253, by_source_type: {}, by_language: { python: 200 } },
    chunks: { total: 4074, by_source_type: {}, by_language: {} },
    graph: { entities: 1, relations: 1, by_relation: {} },
    coverage: 0.13,
    ...fields
  });
}

describe('job phases', () => {
  it('gives each phase its own counts: the bar never falls back when embedding starts', () => {
    const analysing = jobPhases(job({ files_done: 253 }));
    expect(analysing.map(p => [p.key, p.percent, p.detail])).toEqual([
      ['analysis', 100, '253/253 files']
    ]);
    const embedding = jobPhases(
      job({
        phase: 'embedding',
        files_done: 253,
        chunks: 4074,
        embedded: 530,
        percent: 13
      })
    );
    expect(embedding.map(p => [p.key, p.percent, p.done])).toEqual([
      ['analysis', 100, true],
      ['embedding', 13, false]
    ]);
    expect(embedding[1].detail).toBe('530/4,074 chunks'); // no ETA until the server has one
  });

  it('shows the ETA the server computed, in words', () => {
    const phases = jobPhases(
      job({ phase: 'embedding', chunks: 100, embedded: 50, eta_s: 4000 })
    );
    expect(phases[1].detail).toBe('50/100 chunks · about 1 h 7 min left');
    expect(formatEta(30)).toBe('less than a minute');
    expect(formatEta(150)).toBe('3 min');
  });
});

describe('what is searchable', () => {
  it('counts embedded chunks from the running job, the share from the status otherwise', () => {
    const running = job({ phase: 'embedding', chunks: 4074, embedded: 2566 });
    expect(semanticLine(status({}), running)).toBe(
      'semantic search: 63% (2,566 of 4,074 chunks embedded)'
    );
    expect(semanticLine(status({}), null)).toBe(
      'semantic search: 13% of the workspace; Index workspace embeds the rest'
    );
    const analysing = job({ phase: 'indexing' });
    expect(semanticLine(status({}), analysing)).toBe(
      'semantic search: 13% of the workspace'
    );
    expect(semanticLine(status({ coverage: 1 }), null)).toBeNull();
  });

  it('fits the status bar in one line', () => {
    const running = job({ phase: 'embedding', chunks: 4074, embedded: 2566 });
    expect(statusBarText(status({}), running)).toBe(
      'Brain: 253 files · semantic 63% · embedding 63%'
    );
    expect(statusBarText(status({ coverage: 1, state: 'ready' }), null)).toBe(
      'Brain: 253 files'
    );
    expect(statusBarText(status({ generation: 0, state: 'empty' }), null)).toBe(
      'Brain: not indexed'
    );
    expect(
      statusBarText(
        status({ generation: 0 }),
        job({ files_done: 10, files_total: 100 })
      )
    ).toBe('Brain: first index · indexing 10%');
  });

  it('says an up-to-date workspace is up to date', () => {
    const report = {
      generation: 3,
      files_total: 42,
      files_indexed: 0,
      files_unchanged: 42,
      files_deleted: 0,
      chunks_total: 100,
      chunks_added: 0,
      chunks_removed: 0,
      chunks_embedded: 0,
      skipped: [],
      duration_s: 0.2,
      warnings: []
    };
    expect(lastJobLabel(job({ status: 'done', report }))).toBe(
      'Up to date: 42 files unchanged'
    );
    expect(
      lastJobLabel(
        job({ status: 'done', report: { ...report, files_indexed: 2 } })
      )
    ).toBe('Indexed 2 files (42 unchanged, 0 removed)');
    expect(lastJobLabel(job({ status: 'cancelled' }))).toBe(
      'Last job cancelled'
    );
  });
});

describe('opening a result', () => {
  it('scrolls a line to the top third of the view', () => {
    // a line at 700 px in a 600 px view starting at 100: scroll 400 px to put it at 300 (100 + 600/3)
    expect(scrollDelta(700, 100, 600)).toBe(400);
  });
});
