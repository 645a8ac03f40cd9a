import schema from '../../schema/plugin.json';
import { BrainAPI } from '../api';
import { BrainModel, IReporter } from '../model';
import { parseLocation } from '../location';
import { DEFAULT_SETTINGS, readSettings } from '../settings';
import { IJob, IndexState } from '../types';
import { fakeSettings, IRecorded, Route } from './fakeServer';
import { jobOf, statusOf } from './fixtures';

function job(fields: Partial<IJob>): IJob {
  return jobOf({
    phase: 'indexing',
    files_total: 3,
    started: '2026-01-01T00:00:00+00:00',
    ...fields
  });
}

const status = (state: IndexState, files: number) =>
  statusOf({
    state,
    files: { total: files, by_source_type: {}, by_language: { python: files } },
    chunks: { total: files * 2, by_source_type: {}, by_language: {} },
    graph: { entities: 0, relations: 0, by_relation: {} }
  });

function setup(route: Route) {
  const { settings, requests } = fakeSettings(route);
  const messages: string[] = [];
  const reporter: IReporter = {
    error: m => messages.push(`error: ${m}`),
    info: m => messages.push(`info: ${m}`)
  };
  const model = new BrainModel(new BrainAPI(settings), reporter);
  const finished = new Promise<IJob>(resolve =>
    model.jobFinished.connect((_, j) => resolve(j))
  );
  return { model, requests, messages, finished };
}

function emptyResponse(query: string) {
  return {
    query,
    mode: 'bm25',
    results: [],
    total_results: 0,
    query_time_ms: 1,
    query_entities: [],
    fallback: null,
    generation: 1
  };
}

/** A server whose job advances one file per poll, then is done. */
function indexingServer(): Route {
  let polls = 0;
  return (r: IRecorded) => {
    if (r.method === 'POST' && r.path === 'index') {
      return {
        status: 202,
        body: { job_id: 'j1', ...job({ status: 'pending', path: r.body.path }) }
      };
    }
    if (r.path === 'jobs/j1') {
      polls += 1;
      const done = polls >= 3;
      return {
        status: 200,
        body: job({
          status: done ? 'done' : 'running',
          files_done: polls,
          percent: (100 * polls) / 3,
          current_file: `f${polls}.py`
        })
      };
    }
    if (r.path === 'status') {
      return { status: 200, body: status('ready', 3) };
    }
    return { status: 404, body: { error: 'not_found', message: 'no route' } };
  };
}

describe('BrainModel indexing', () => {
  it('starts a job, polls its progress until done, then refreshes the status', async () => {
    const { model, requests, finished } = setup(indexingServer());
    const seen: number[] = [];
    model.changed.connect(() => model.job && seen.push(model.job.files_done));
    await model.index('shop');
    const last = await finished;
    expect(last.status).toBe('done');
    expect(requests[0].body).toEqual({ path: 'shop', force: false });
    expect(requests.filter(r => r.path === 'jobs/j1')).toHaveLength(3);
    expect(seen).toEqual(expect.arrayContaining([1, 2, 3]));
    expect(model.status?.files.total).toBe(3);
    expect(requests[requests.length - 1].path).toBe('status');
    // What is searchable changes during a run: the status is read while the job runs too.
    const lastPoll = requests.map(r => r.path).lastIndexOf('jobs/j1');
    expect(requests.slice(1, lastPoll).map(r => r.path)).toContain('status');
  });

  it('follows the running job when the workspace is busy', async () => {
    const { model, requests, messages, finished } = setup(r => {
      if (r.path === 'index') {
        return {
          status: 409,
          body: {
            error: 'workspace_busy',
            message: 'an index job is already running',
            job_id: 'other'
          }
        };
      }
      if (r.path === 'jobs/other') {
        return {
          status: 200,
          body: job({ id: 'other', status: 'done', files_done: 3 })
        };
      }
      return { status: 200, body: status('ready', 3) };
    });
    await model.index();
    expect((await finished).id).toBe('other');
    expect(messages).toEqual(['info: an index job is already running']);
    expect(requests.map(r => r.path)).toContain('jobs/other');
  });

  it('reports a failed look-up of the busy job instead of rejecting', async () => {
    const { model, messages } = setup(r =>
      r.path === 'index'
        ? {
            status: 409,
            body: {
              error: 'workspace_busy',
              message: 'an index job is already running',
              job_id: 'gone'
            }
          }
        : { status: 404, body: { error: 'not_found', message: 'no job gone' } }
    );
    await expect(model.index()).resolves.toBeUndefined();
    expect(messages).toEqual([
      'info: an index job is already running',
      'error: no job gone'
    ]);
    expect(model.job).toBeNull();
  });

  it('reports a failed job with its error', async () => {
    const { model, messages, finished } = setup(r =>
      r.path === 'index'
        ? {
            status: 202,
            body: job({ status: 'failed', error: 'model missing' })
          }
        : { status: 200, body: status('empty', 0) }
    );
    await model.index();
    await finished;
    expect(messages).toEqual(['error: Indexing failed: model missing']);
  });

  it('reports a rejected path with the server message and starts nothing', async () => {
    const { model, messages } = setup(() => ({
      status: 400,
      body: {
        error: 'invalid_request',
        message: "path: '../x' is outside the workspace",
        field: 'path'
      }
    }));
    await model.index('../x');
    expect(messages).toEqual(["error: path: '../x' is outside the workspace"]);
    expect(model.job).toBeNull();
  });
});

describe('BrainModel search', () => {
  it('sends alpha only in hybrid mode and splits path globs', () => {
    const { model } = setup(() => ({ status: 500 }));
    model.setOptions({
      query: '  cart ',
      mode: 'bm25',
      paths: 'src/**, ,docs/*.md',
      sourceTypes: ['code']
    });
    expect(model.request()).toEqual({
      query: 'cart',
      mode: 'bm25',
      top_k: 10,
      source_types: ['code'],
      languages: [],
      file_paths: ['src/**', 'docs/*.md']
    });
    model.setOptions({ mode: 'hybrid', alpha: 0.3 });
    expect(model.request().alpha).toBe(0.3);
  });

  it('keeps the previous results and reports the server message on error', async () => {
    let fail = false;
    const { model, messages } = setup(r =>
      fail
        ? {
            status: 503,
            body: {
              error: 'model_unavailable',
              message: 'the embedding model cannot be loaded'
            }
          }
        : { status: 200, body: emptyResponse(r.body.query) }
    );
    model.setOptions({ query: 'cart' });
    await model.search();
    const first = model.response;
    expect(first?.query).toBe('cart');
    fail = true;
    await model.search();
    expect(model.response).toBe(first);
    expect(model.searching).toBe(false);
    expect(messages).toEqual(['error: the embedding model cannot be loaded']);
  });

  it('says in the panel, not in a toast, that nothing is indexed yet', async () => {
    const { model, messages } = setup(() => ({
      status: 503,
      body: { error: 'not_indexed', message: '/w has no index yet' }
    }));
    model.setOptions({ query: 'cart' });
    await model.search();
    expect(messages).toEqual([]);
    expect(model.notice?.kind).toBe('not_indexed');
    expect(model.notice?.message).toContain('Index workspace');
  });

  it('does not ask for the click already made while the first index runs', async () => {
    // Field sweep: a search before the first index, then Index workspace: the panel
    // showed "Indexing…" above "Nothing is indexed yet. Click Index workspace" for
    // the whole analysis (the notice was worded when the search failed).
    let running = true;
    const { model, finished } = setup(r => {
      if (r.path === 'query') {
        return {
          status: 503,
          body: { error: 'not_indexed', message: '/w has no index yet' }
        };
      }
      if (r.method === 'POST' && r.path === 'index') {
        return {
          status: 202,
          body: { job_id: 'j1', ...job({ status: 'running', path: '' }) }
        };
      }
      if (r.path === 'jobs/j1') {
        return {
          status: 200,
          body: job({ status: running ? 'running' : 'cancelled' })
        };
      }
      return {
        status: 200,
        body: statusOf({ state: 'empty', generation: 0 })
      };
    });
    model.setOptions({ query: 'cart' });
    await model.search();
    expect(model.notice?.message).toContain('Click Index workspace');
    await model.index();
    expect(model.notice?.kind).toBe('not_indexed');
    expect(model.notice?.message).not.toContain('Click Index workspace');
    expect(model.notice?.message).toContain('the first index is being built');
    running = false; // cancelled before it published anything: the click is asked for again
    await finished;
    expect(model.notice?.message).toContain('Click Index workspace');
    model.dispose();
  });

  it('says the first index is being built when another process builds it', async () => {
    const { model } = setup(r =>
      r.path === 'query'
        ? {
            status: 503,
            body: { error: 'not_indexed', message: '/w has no index yet' }
          }
        : {
            status: 200,
            body: statusOf({ state: 'indexing', generation: 0 })
          }
    );
    model.setOptions({ query: 'cart' });
    await model.search();
    await model.refreshStatus(); // the CLI's run holds the writer lock: state indexing
    expect(model.notice?.message).toContain('the first index is being built');
    model.dispose();
  });

  it('clears stale results and names the filter a bad glob came from', async () => {
    let fail = false;
    const { model, messages } = setup(r =>
      fail
        ? {
            status: 400,
            body: {
              error: 'invalid_request',
              field: 'file_paths',
              message:
                "file_paths: '/abs/**' must be relative to the workspace root"
            }
          }
        : { status: 200, body: emptyResponse(r.body.query) }
    );
    model.setOptions({ query: 'cart' });
    await model.search();
    expect(model.response).not.toBeNull();
    fail = true;
    model.setOptions({ paths: '/abs/**' });
    await model.search();
    expect(model.response).toBeNull(); // the old results would read as filtered
    expect(messages).toEqual([]);
    expect(model.notice).toEqual({
      kind: 'invalid',
      field: 'file_paths',
      message: "Paths filter: '/abs/**' must be relative to the workspace root"
    });
    fail = false;
    await model.search();
    expect(model.notice).toBeNull();
  });

  it('says once that the server extension is missing: no toast per request', async () => {
    const { model, messages } = setup(() => ({
      status: 404,
      raw: '<html><title>404: Not Found</title></html>'
    }));
    await model.refreshStatus();
    model.setOptions({ query: 'cart' });
    await model.search();
    await model.index();
    expect(messages).toEqual([]);
    expect(model.unavailable).toBe(true);
  });

  it('drops the response to an older search that arrives late', async () => {
    let releaseFirst: () => void = () => undefined;
    const held = new Promise<void>(resolve => (releaseFirst = resolve));
    const answer = (query: string) => ({
      status: 200,
      body: {
        query,
        mode: 'bm25',
        results: [],
        total_results: 0,
        query_time_ms: 1,
        query_entities: [],
        fallback: null,
        generation: 1
      }
    });
    const { model } = setup(async r => {
      if (r.body.query === 'old') {
        await held;
      }
      return answer(r.body.query);
    });
    model.setOptions({ query: 'old' });
    const first = model.search();
    model.setOptions({ query: 'new' });
    await model.search();
    expect(model.response?.query).toBe('new');
    expect(model.searching).toBe(false);
    releaseFirst();
    await first;
    expect(model.response?.query).toBe('new');
    expect(model.searching).toBe(false);
  });

  it('does not send a blank query', async () => {
    const { model, requests, messages } = setup(() => ({
      status: 200,
      body: {}
    }));
    model.setOptions({ query: '   ' });
    await model.search();
    expect(requests).toHaveLength(0);
    expect(messages).toEqual(['info: Type something to search for.']);
  });
});

describe('parseLocation', () => {
  it('accepts relative paths and non-negative integer positions', () => {
    expect(parseLocation({ path: './src/a.py', line: 12 })).toEqual({
      path: 'src/a.py',
      line: 12,
      cell_index: null
    });
    expect(
      parseLocation({ path: 'nb.ipynb', cell_index: 0, line: -1 })
    ).toEqual({ path: 'nb.ipynb', line: null, cell_index: 0 });
  });

  it('rejects absolute, escaping or missing paths', () => {
    for (const detail of [
      null,
      'a.py',
      {},
      { path: '' },
      { path: '/etc/passwd' },
      { path: 'a/../../b' },
      { path: 3 }
    ]) {
      expect(parseLocation(detail)).toBeNull();
    }
  });
});

describe('default shortcuts', () => {
  it('open the panel anywhere and search the selection in editors and cells', () => {
    const shortcuts = (schema as any)['jupyter.lab.shortcuts'] as {
      command: string;
      keys: string[];
      selector: string;
    }[];
    const byCommand = (command: string) =>
      shortcuts.filter(s => s.command === command);
    expect(byCommand('agent-brain-lab:open-panel')).toEqual([
      {
        command: 'agent-brain-lab:open-panel',
        keys: ['Alt Shift B'],
        selector: 'body'
      }
    ]);
    expect(
      byCommand('agent-brain-lab:search-selection').map(s => s.selector)
    ).toEqual(['.jp-FileEditor', '.jp-Notebook .jp-Cell .jp-InputArea-editor']);
    // each selector is a single selector (Lumino rejects comma lists)
    expect(shortcuts.every(s => !s.selector.includes(','))).toBe(true);
  });
});

describe('readSettings', () => {
  it('has the defaults of schema/plugin.json', () => {
    const defaults = Object.fromEntries(
      Object.entries(schema.properties).map(([k, v]) => [
        k,
        (v as { default: unknown }).default
      ])
    );
    expect(defaults).toEqual(DEFAULT_SETTINGS);
  });

  it('keeps valid values and replaces invalid ones by defaults', () => {
    expect(
      readSettings({
        defaultMode: 'graph',
        topK: 7,
        alpha: 0.2,
        autoReindexOnSave: false
      })
    ).toEqual({
      defaultMode: 'graph',
      topK: 7,
      alpha: 0.2,
      autoReindexOnSave: false
    });
    expect(
      readSettings({
        defaultMode: 'magic',
        topK: 0,
        alpha: 3,
        autoReindexOnSave: 'yes'
      })
    ).toEqual(DEFAULT_SETTINGS);
    expect(readSettings({ topK: 2.5, alpha: -0.1 })).toEqual(DEFAULT_SETTINGS);
  });
});
