import * as React from 'react';
import { act } from 'react';
import { createRoot, Root } from 'react-dom/client';

import { IndexSection } from '../panel/IndexSection';
import { ResultList } from '../panel/ResultList';
import { IJob, IQueryResponse, IQueryResult, IStatus } from '../types';
import presentation from '../../tests/fixtures/presentation.json';
import { response, result, statusOf } from './fixtures';

// Tell React this is a test environment that uses act().
(globalThis as any).IS_REACT_ACT_ENVIRONMENT = true;

let host: HTMLDivElement;
let root: Root;

beforeEach(() => {
  host = document.createElement('div');
  document.body.appendChild(host);
  root = createRoot(host);
});

afterEach(() => {
  act(() => root.unmount());
  host.remove();
});

function render(
  resp: IQueryResponse,
  onOpen: (r: IQueryResult) => void = () => undefined
) {
  act(() => root.render(<ResultList response={resp} onOpen={onOpen} />));
}

describe('result rendering', () => {
  it('escapes result text: markup in a chunk stays text', () => {
    const evil = result({
      text: '<img src=x onerror="alert(1)"> <script>steal()</script> header',
      source: 'docs/<b>x</b>.md',
      section_path: '<i>Intro</i>',
      symbol_name: null,
      qualified_symbol: null,
      location: 'docs/<b>x</b>.md:10-12',
      anchor: '<i>Intro</i>'
    });
    render(response('header', 'bm25', [evil]));
    expect(host.querySelector('img')).toBeNull();
    expect(host.querySelector('script')).toBeNull();
    expect(host.querySelector('b')).toBeNull();
    expect(host.querySelector('i')).toBeNull();
    const snippet = host.querySelector('.jp-AgentBrain-snippet')!;
    expect(snippet.textContent).toContain('<script>steal()</script>');
    expect(host.querySelector('.jp-AgentBrain-location')!.textContent).toBe(
      'docs/<b>x</b>.md:10-12'
    );
    expect(host.querySelector('.jp-AgentBrain-anchor')!.textContent).toBe(
      '<i>Intro</i>'
    );
  });

  it('says which filter left no result, in the engine words', () => {
    const note =
      'no chunk of this index passes the filters: languages toml (this index holds: markdown, python)';
    render(response('x', 'multi', [], { filter_note: note }));
    expect(host.querySelector('.jp-AgentBrain-filters')!.textContent).toBe(
      note
    );
    render(response('x', 'multi', []));
    expect(host.querySelector('.jp-AgentBrain-filters')).toBeNull();
  });

  it('shows control characters in file names as text, never as markup', () => {
    const odd = 'docs/a\nb\u001b[31mc\td.md';
    render(
      response('x', 'bm25', [
        result({ source: odd, start_line: 1, location: `${odd}:1-12` })
      ])
    );
    const where = host.querySelector('.jp-AgentBrain-location')!;
    expect(where.textContent).toBe(`${odd}:1-12`);
    // only the line-break opportunities the panel puts after each "/"
    expect([...where.querySelectorAll('*')].map(e => e.tagName)).toEqual([
      'WBR'
    ]);
  });

  it('marks what the engine marked, the same words as the widget and HTML repr', () => {
    // tests/fixtures/presentation.json: one engine answer all three front doors draw
    // (tests/test_widgets.py renders it in the widget and the HTML repr).
    render(presentation.response as IQueryResponse);
    const marks = [...host.querySelectorAll('.jp-AgentBrain-snippet mark')].map(
      m => m.textContent
    );
    expect(marks).toEqual(presentation.marks);
    // the engine's strings (engine/labels.py), shown as they are
    expect(host.querySelector('.jp-AgentBrain-anchor')!.textContent).toBe(
      'method Parser.parseHTTPHeader'
    );
    expect(host.querySelector('.jp-AgentBrain-location')!.textContent).toBe(
      'src/my file.py:3-16'
    );
    expect(
      [...host.querySelectorAll('.jp-AgentBrain-leg')].map(l => l.textContent)
    ).toEqual(['vector 0.700 #1', 'bm25 3.00 #1']);
    expect(host.querySelector('.jp-AgentBrain-summary')!.textContent).toMatch(
      /^1 result · multi ·/
    );
    expect(host.querySelector('.jp-AgentBrain-fusion')!.textContent).toBe(
      'Read as: names to look up. Weighed: meaning and keywords 1.00 · symbol names 0.10 · code relations 0.00'
    );
    expect(host.querySelector('.jp-AgentBrain-coverage')!.textContent).toBe(
      'semantic search: 43% of the workspace'
    );
  });

  it('shows no coverage notice or fusion note for a fully embedded single-leg search', () => {
    render(response('parse', 'bm25', [result()], { coverage: 1 }));
    expect(host.querySelector('.jp-AgentBrain-coverage')).toBeNull();
    expect(host.querySelector('.jp-AgentBrain-fusion')).toBeNull();
    expect(host.querySelector('.jp-AgentBrain-snippet mark')).toBeNull();
  });

  it("shows each leg's label as the engine wrote it, marking a chunk with no vector", () => {
    const legs = [
      {
        leg: 'vector',
        score: null,
        rank: null,
        label: 'vector not embedded yet',
        missing: true
      },
      {
        leg: 'bm25',
        score: 7.5,
        rank: 1,
        label: 'bm25 7.50 #1',
        missing: false
      }
    ];
    render(response('cart', 'hybrid', [result({ score: 0.75, legs })]));
    const shown = [...host.querySelectorAll('.jp-AgentBrain-leg')];
    expect(shown.map(l => l.textContent)).toEqual([
      'vector not embedded yet',
      'bm25 7.50 #1'
    ]);
    expect(shown.map(l => l.getAttribute('data-missing'))).toEqual([
      'true',
      null
    ]);
    expect(host.querySelector('.jp-AgentBrain-score')!.textContent).toBe(
      '0.750'
    );
  });

  it('shows the relationship path of graph hits and the fallback notice', () => {
    render(
      response(
        'Cart',
        'graph',
        [
          result({
            relationship_path: ['Cart', '-calls->', 'parse_header'],
            graph_score: 0.5
          })
        ],
        { query_entities: ['Cart'] }
      )
    );
    expect(host.querySelector('.jp-AgentBrain-relpath')!.textContent).toBe(
      'Cart -calls-> parse_header'
    );
    expect(host.querySelector('.jp-AgentBrain-summary')!.textContent).toContain(
      'entities: Cart'
    );
    expect(host.querySelector('.jp-AgentBrain-fallback')).toBeNull();

    render(
      response('nothing known', 'graph', [result()], {
        fallback: 'vector: no known entity in the query'
      })
    );
    expect(host.querySelector('.jp-AgentBrain-fallback')!.textContent).toBe(
      'Fell back to vector: no known entity in the query'
    );
  });

  it('says so when there are no results', () => {
    render(response('zzz', 'vector', []));
    expect(host.querySelector('.jp-AgentBrain-resultList')).toBeNull();
    expect(host.querySelector('.jp-AgentBrain-empty')!.textContent).toMatch(
      /No results/
    );
  });

  it('moves the selection with the arrow keys and opens with Enter or a click', () => {
    const opened: string[] = [];
    const results = ['a.py', 'b.py', 'c.py'].map((source, i) =>
      result({ chunk_id: `c${i}`, source })
    );
    render(response('parse', 'bm25', results), r => opened.push(r.source));
    const list = host.querySelector('.jp-AgentBrain-resultList')!;
    const selected = () =>
      host
        .querySelector('.jp-AgentBrain-result.jp-mod-selected')!
        .getAttribute('data-path');
    const key = (k: string) =>
      act(() => {
        list.dispatchEvent(
          new KeyboardEvent('keydown', { key: k, bubbles: true })
        );
      });

    expect(selected()).toBe('a.py');
    key('ArrowDown');
    key('ArrowDown');
    key('ArrowDown'); // stays on the last one
    expect(selected()).toBe('c.py');
    expect(document.activeElement?.getAttribute('data-path')).toBe('c.py');
    key('ArrowUp');
    key('Enter');
    expect(opened).toEqual(['b.py']);

    act(() =>
      (host.querySelectorAll('.jp-AgentBrain-result')[0] as HTMLElement).click()
    );
    expect(opened).toEqual(['b.py', 'a.py']);
    expect(selected()).toBe('a.py');
  });
});

describe('index section', () => {
  const status = (fields: Partial<IStatus>): IStatus =>
    statusOf({
      root: '/home/me/shop',
      generation: 2,
      files: {
        total: 5,
        by_source_type: { code: 4, doc: 1 },
        by_language: { python: 4, markdown: 1 }
      },
      chunks: { total: 17, by_source_type: {}, by_language: {} },
      graph: { entities: 9, relations: 12, by_relation: {} },
      index_bytes: 1000,
      last_indexed: '2026-01-01T00:00:00+00:00',
      ...fields
    });
  const running = {
    id: 'j1',
    status: 'running',
    phase: 'indexing',
    files_done: 2,
    files_total: 5,
    chunks: 8,
    current_file: 'shop/cart.py',
    percent: 40
  } as IJob;

  function renderIndex(
    st: IStatus | null,
    job: IJob | null,
    calls: string[] = [],
    lastEnded: IJob | null = null
  ) {
    act(() =>
      root.render(
        <IndexSection
          status={st}
          job={job}
          lastEnded={lastEnded}
          onIndex={() => calls.push('index')}
          onCancel={() => calls.push('cancel')}
        />
      )
    );
  }

  it('tells an empty workspace what to do', () => {
    renderIndex(
      status({
        state: 'empty',
        files: { total: 0, by_source_type: {}, by_language: {} }
      }),
      null
    );
    expect(
      host.querySelector('.jp-AgentBrain-emptyState')!.textContent
    ).toContain('Index workspace');
    expect(host.querySelector('.jp-AgentBrain-status')).toBeNull();
  });

  it('counts every skipped file while listing the first ones', () => {
    renderIndex(
      status({
        skipped: [{ path: 'a.bin', reason: 'binary file' }],
        skipped_total: 51234,
        skipped_by_reason: { 'unsupported file type': 51200, 'binary file': 34 }
      }),
      null
    );
    expect(
      host.querySelector('.jp-AgentBrain-skipped summary')!.textContent
    ).toBe('51234 skipped files');
    expect(
      host.querySelector('.jp-AgentBrain-skippedReasons')!.textContent
    ).toBe('unsupported file type 51200, binary file 34');
    expect(
      host.querySelector('.jp-AgentBrain-skippedMore')!.textContent
    ).toContain('51233 more');
  });

  it('summarises a ready index, skipped files expandable', () => {
    renderIndex(
      status({
        skipped: [{ path: 'big.bin', reason: 'binary' }],
        skipped_total: 1,
        skipped_by_reason: { binary: 1 }
      }),
      null
    );
    expect(
      host.querySelector('.jp-AgentBrain-statusDetails summary')!.textContent
    ).toBe('5 files · 17 chunks');
    const text = host.querySelector('.jp-AgentBrain-status')!.textContent;
    expect(text).toContain('python 4, markdown 1');
    expect(text).toContain('9 entities, 12 relations');
    expect(
      host.querySelector('.jp-AgentBrain-skipped summary')!.textContent
    ).toBe('1 skipped file');
    expect(host.querySelector('.jp-AgentBrain-skipped li')!.textContent).toBe(
      'big.bin — binary'
    );
  });

  it('shows the share of the workspace semantic search can see', () => {
    renderIndex(status({ coverage: 0.43 }), null);
    expect(
      host.querySelector('.jp-AgentBrain-statusDetails summary')!.textContent
    ).toBe('5 files · 17 chunks');
    expect(
      [...host.querySelectorAll('.jp-AgentBrain-searchable li')].map(
        l => l.textContent
      )
    ).toEqual([
      'keyword and graph search ready',
      'semantic search: 43% of the workspace; Index workspace embeds the rest'
    ]);
    expect(host.querySelector('dd.jp-AgentBrain-coverage')!.textContent).toBe(
      'semantic search: 43% of the workspace; Index workspace embeds the rest'
    );
  });

  it('says what is searchable while a first index embeds, never "nothing indexed"', () => {
    const embedding = {
      ...running,
      phase: 'embedding',
      files_done: 5,
      chunks: 4074,
      embedded: 530,
      eta_s: 200
    } as IJob;
    renderIndex(status({ state: 'indexing', coverage: 0.1 }), embedding);
    expect(host.querySelector('.jp-AgentBrain-emptyState')).toBeNull();
    expect(
      [...host.querySelectorAll('.jp-AgentBrain-searchable li')].map(
        l => l.textContent
      )
    ).toEqual([
      'keyword and graph search ready',
      'semantic search: 13% (530 of 4,074 chunks embedded, about 3 min left)'
    ]);
    // Each phase has its own bar: the analysis stays full, embedding fills on its own.
    const bars = [...host.querySelectorAll('progress')].map(b => b.value);
    expect(bars).toEqual([100, 13]);
    expect(
      [...host.querySelectorAll('.jp-AgentBrain-jobText')].map(
        t => t.textContent
      )
    ).toEqual([
      'Analysing files: 5/5 files',
      'Embedding for semantic search: 530/4,074 chunks · about 3 min left'
    ]);

    // Before the first generation is published: a first index, not an empty workspace.
    renderIndex(
      status({
        state: 'indexing',
        generation: 0,
        files: { total: 0, by_source_type: {}, by_language: {} }
      }),
      { ...running, phase: 'indexing' } as IJob
    );
    expect(
      host.querySelector('.jp-AgentBrain-emptyState')!.textContent
    ).toContain('Indexing for the first time');
  });

  it('shows progress, the current file and Cancel while a job runs', () => {
    const calls: string[] = [];
    renderIndex(status({ state: 'indexing' }), running, calls);
    const bar = host.querySelector('progress')!;
    expect(bar.value).toBe(40);
    expect(host.querySelector('.jp-AgentBrain-jobText')!.textContent).toBe(
      'Analysing files: 2/5 files'
    );
    expect(host.querySelector('.jp-AgentBrain-current')!.textContent).toBe(
      'shop/cart.py'
    );
    const indexButton = host.querySelector<HTMLButtonElement>(
      '.jp-AgentBrain-indexButton'
    )!;
    expect(indexButton.disabled).toBe(true);
    act(() =>
      host
        .querySelector<HTMLButtonElement>('.jp-AgentBrain-job button')!
        .click()
    );
    expect(calls).toEqual(['cancel']);

    renderIndex(status({}), { ...running, status: 'cancelled' }, calls);
    expect(host.querySelector('progress')).toBeNull();
    act(() =>
      host
        .querySelector<HTMLButtonElement>('.jp-AgentBrain-indexButton')!
        .click()
    );
    expect(calls).toEqual(['cancel', 'index']);
  });

  it('keeps a cancelled run said while a save it had not served runs on its own', () => {
    const cancelled = { ...running, status: 'cancelled' } as IJob;
    const save = {
      ...running,
      id: 'save1',
      path: 'notes/a.md',
      paths: ['notes/a.md'],
      merged_into: running.id
    } as IJob;
    renderIndex(status({ state: 'indexing' }), save, [], cancelled);
    expect(
      host.querySelector('.jp-AgentBrain-lastJob[data-status="cancelled"]')!
        .textContent
    ).toBe('Last job cancelled');
    expect(host.querySelector('.jp-AgentBrain-handedBack')!.textContent).toBe(
      'Saved or changed during the run that ended, now indexed on their own: notes/a.md'
    );
    expect(host.querySelector('.jp-AgentBrain-job')).not.toBeNull();

    // Another job running after some unrelated one ended: only its progress.
    renderIndex(status({ state: 'indexing' }), running, [], {
      ...cancelled,
      id: 'other'
    });
    expect(host.querySelector('.jp-AgentBrain-lastJob')).toBeNull();
    expect(host.querySelector('.jp-AgentBrain-handedBack')).toBeNull();
  });
});
