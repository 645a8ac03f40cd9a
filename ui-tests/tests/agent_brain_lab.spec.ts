/**
 * The side panel against the real server extension and engine, on a copy of
 * tests/fixtures/workspace. The tests share one server and run in order: the
 * first one builds the index the others search.
 */
import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import { Locator } from '@playwright/test';
import * as fs from 'fs';
import * as path from 'path';

test.describe.configure({ mode: 'serial' });

const PANEL_ID = 'agent-brain-lab-panel';
const MODES = ['vector', 'bm25', 'hybrid', 'graph', 'multi'];
const SCREENSHOTS = path.resolve(__dirname, '..', 'screenshots');

const BULK = 'bulk-notes';

/**
 * Write `count` distinct documents into `folder` of the server's root, on disk:
 * through the contents API every file would queue its own save-triggered job. `tag`
 * makes every text new to the embedding cache (which would otherwise skip embedding).
 * Each note is a paragraph of ~180 tokens, so embedding it costs about what a chunk of
 * code does (~25 a second on 2 cores): a run over these notes embeds for as long as the
 * steps that cancel it need, on a loaded machine too (one-line notes embedded in seconds,
 * and a busy CI machine reached the cancel after the run had ended).
 */
async function writeBulkFiles(
  page: IJupyterLabPageFixture,
  count: number,
  folder = BULK,
  tag = ''
): Promise<string> {
  const status = await (await page.request.get('/agent-brain/status')).json();
  const dir = path.join(status.root, folder);
  fs.mkdirSync(dir);
  for (let i = 0; i < count; i++) {
    const readings = Array.from(
      { length: 8 },
      (_, k) =>
        `Reading ${k} of series ${(i * 31 + k * 17) % 997} gave ${(i * 7919 + k * 104729) % 100003} units at station ${(i + k) % 41}.`
    );
    const content = `# Note ${i} ${tag}\n\nMeasurement ${i * 7919} of batch ${i % 13}: the ${i}th sample ${tag}.\n${readings.join(' ')}\n`;
    fs.writeFileSync(path.join(dir, `note-${i}.md`), content);
  }
  return dir;
}

/** Index the folder `target` (relative) through the REST API and wait for its job; retries while busy. */
async function indexPath(page: IJupyterLabPageFixture, target: string) {
  let job: any = null;
  await expect
    .poll(
      async () => {
        const answer = await page.request.post('/agent-brain/index', {
          data: { path: target }
        });
        job = answer.status() === 202 ? await answer.json() : null;
        return answer.status();
      },
      { timeout: 120 * 1000 }
    )
    .toBe(202);
  await expect
    .poll(
      async () =>
        (await (await page.request.get(`/agent-brain/jobs/${job.id}`)).json())
          .status,
      { timeout: 120 * 1000 }
    )
    .toBe('done');
}

async function openPanel(page: IJupyterLabPageFixture): Promise<Locator> {
  await page.sidebar.openTab(PANEL_ID);
  const panel = page.locator(`#${PANEL_ID}`);
  await expect(panel).toBeVisible();
  return panel;
}

/**
 * Write 2,500 new notes into `folder`, index from the panel and wait until the run
 * embeds: more than the engine's early-publish threshold (2,000 texts) of new texts,
 * so keyword and graph search are published once the files are analysed and the
 * vectors stream in after (minutes here). The notes carry a per-run `tag` so a warm
 * embedding cache cannot skip the phase. The panel may follow a run the disk watcher
 * started for the same notes: it shows that one.
 */
async function startEmbeddingRun(page: IJupyterLabPageFixture, folder: string) {
  const tag = `tag${Date.now().toString(36)}`;
  const bulk = await writeBulkFiles(page, 2500, folder, tag);
  // The disk watcher turns new notes into jobs of its own, in batches (and an earlier
  // test's files into more): such a job could hold the index button through a run too
  // small to publish before embedding. Let it flush, cancel what it queued (a cancelled
  // job commits nothing), and index everything from the panel on a quiet server.
  await page.waitForTimeout(4000);
  await cancelServerJobs(page);
  const panel = await openPanel(page);
  await panel.locator('.jp-AgentBrain-indexButton').click();
  // The second phase's bar says "Publishing" while a generation is written.
  const embedding = panel.locator(
    '.jp-AgentBrain-phase[data-phase="embedding"]'
  );
  await expect(embedding.locator('.jp-AgentBrain-jobText')).toHaveText(
    /^Embedding for semantic search/,
    { timeout: 300 * 1000 }
  );
  return { tag, bulk, panel, embedding };
}

/**
 * Cancel every pending or running job of the server and wait until none is left:
 * the list, not the status, since the status names one job at a time (a save handed
 * to a run that is then cancelled runs on its own as the next one).
 */
async function cancelServerJobs(page: IJupyterLabPageFixture) {
  await expect
    .poll(
      async () => {
        const { jobs } = await (
          await page.request.get('/agent-brain/jobs')
        ).json();
        const active = jobs.filter((job: any) =>
          ['pending', 'running'].includes(job.status)
        );
        for (const job of active) {
          await page.request.delete(`/agent-brain/jobs/${job.id}`);
        }
        return active.length;
      },
      { timeout: 120 * 1000, intervals: [1000] }
    )
    .toBe(0);
}

/** Cancel the job the panel shows and wait until the panel says it was cancelled. */
async function cancelRun(panel: Locator) {
  await panel.getByRole('button', { name: 'Cancel' }).click();
  await expect(panel.locator('[data-status="cancelled"]')).toContainText(
    'Last job cancelled',
    { timeout: 120 * 1000 }
  );
}

/** Run a search from the panel and wait for its results. */
async function search(
  panel: Locator,
  query: string,
  mode: string
): Promise<Locator> {
  await panel.locator('.jp-AgentBrain-mode', { hasText: mode }).click();
  const box = panel.locator('.jp-AgentBrain-query');
  await box.fill(query);
  await box.press('Enter');
  await expect(panel.locator('.jp-AgentBrain-summary')).toContainText(
    ` ${mode} `
  );
  return panel.locator('.jp-AgentBrain-result');
}

/**
 * Open `path` in the file editor and wait until it is the current document. The command's
 * promise is not awaited in the page: on a loaded machine Chromium once collected it before
 * it settled ("Resulting promise was garbage collected") and failed the test around it.
 */
async function openInEditor(page: IJupyterLabPageFixture, path: string) {
  await page.evaluate(path => {
    void (window as any).jupyterapp.commands.execute('docmanager:open', {
      path,
      factory: 'Editor'
    });
  }, path);
  await page.waitForFunction(
    path =>
      (window as any).jupyterapp.shell.currentWidget?.context?.path === path,
    path,
    { timeout: 60 * 1000 }
  );
  await expect(page.locator('.jp-FileEditor .cm-content')).toBeVisible();
}

/** Path and 1-based cursor line of the active document, as JupyterLab sees them. */
async function activeDocument(page: IJupyterLabPageFixture) {
  return page.evaluate(() => {
    const widget = (window as any).jupyterapp.shell.currentWidget;
    const content = widget?.content;
    if (content?.editor) {
      const { line } = content.editor.getCursorPosition();
      return { path: widget.context.path, line: line + 1, cell: null };
    }
    if (content?.activeCellIndex !== undefined) {
      const cell = content.activeCell;
      const line = cell?.editor
        ? cell.editor.getCursorPosition().line + 1
        : null;
      return { path: widget.context.path, line, cell: content.activeCellIndex };
    }
    return { path: widget?.context?.path ?? null, line: null, cell: null };
  });
}

test('indexes the workspace from the panel and shows progress', async ({
  page
}) => {
  // Start from an unindexed workspace even when a server is reused.
  const reset = await page.request.delete('/agent-brain/index');
  expect(reset.status()).toBe(200);
  await page.reload();
  const panel = await openPanel(page);
  await expect(panel.locator('.jp-AgentBrain-emptyState')).toContainText(
    'Nothing indexed yet'
  );

  // A cancelled job commits nothing. Extra files make the job long enough to cancel
  // (the embedding cache can make the fixture alone index in a second).
  // New texts each run: an embedding cache warm from earlier runs would finish the job at once.
  const bulk = await writeBulkFiles(
    page,
    300,
    BULK,
    `run${Date.now().toString(36)}`
  );
  // Let the server's disk watcher flush its batch of these files first: with nothing indexed
  // and no job running it leaves them to the first index, but once the job below runs it would
  // queue them behind it, and the panel would follow that job after the cancel.
  await page.waitForTimeout(4000);
  const indexButton = panel.locator('.jp-AgentBrain-indexButton');
  await indexButton.click();
  await cancelRun(panel);
  await expect(panel.locator('.jp-AgentBrain-emptyState')).toBeVisible();
  fs.rmSync(bulk, { recursive: true });

  await indexButton.click();
  const progress = panel.locator('.jp-AgentBrain-job');
  await expect(progress).toBeVisible();
  await expect(progress.locator('.jp-AgentBrain-jobText')).toContainText(
    /\d+\/\d+ files/
  );
  await expect(panel.getByRole('button', { name: 'Cancel' })).toBeVisible();

  await expect(progress).toBeHidden({ timeout: 170 * 1000 });
  const summary = panel.locator('.jp-AgentBrain-statusDetails > summary');
  await expect(summary).toHaveText(/^[1-9]\d* files · [1-9]\d* chunks$/);
  await summary.click();
  const status = panel.locator('.jp-AgentBrain-status');
  await expect(status).toContainText('python');
  await expect(status).toContainText(/[1-9]\d* entities/);
  await expect(panel.locator('.jp-AgentBrain-skipped summary')).toContainText(
    /skipped files?/
  );
  await expect(panel.locator('[data-status="done"]')).toContainText(
    /^Indexed [1-9][\d,]* files/
  );
  await expect(panel.locator('.jp-AgentBrain-searchable')).toHaveText(
    'all search modes ready'
  );

  // Again, nothing changed: the panel says the workspace is up to date.
  await indexButton.click();
  await expect(panel.locator('[data-status="done"]')).toContainText(
    /^Up to date: [1-9][\d,]* files unchanged$/,
    { timeout: 120 * 1000 }
  );
});

test('indexes a folder from the file browser context menu', async ({
  page
}) => {
  await page.filebrowser.openDirectory('/');
  await page
    .locator('.jp-DirListing-item[data-isdir="true"]', { hasText: 'shop' })
    .click({
      button: 'right'
    });
  await page
    .getByRole('menuitem', { name: 'Index Folder with Agent Brain' })
    .click();
  const panel = page.locator(`#${PANEL_ID}`);
  await expect(panel.locator('[data-status="done"]')).toBeVisible({
    timeout: 120 * 1000
  });
  const jobs = await (await page.request.get('/agent-brain/jobs')).json();
  expect(jobs.jobs[0]).toMatchObject({ path: 'shop', status: 'done' });
});

test('searches in every mode', async ({ page }) => {
  const panel = await openPanel(page);
  for (const mode of MODES) {
    const results = await search(
      panel,
      'apply discount to the cart total',
      mode
    );
    await expect(results.first()).toBeVisible();
    expect(await results.count()).toBeGreaterThan(0);
    await expect(panel.locator('.jp-AgentBrain-hint')).not.toBeEmpty();
    await expect(panel.locator('.jp-AgentBrain-alpha')).toHaveCount(
      mode === 'hybrid' ? 1 : 0
    );
    await expect(results.first().locator('.jp-AgentBrain-location')).toHaveText(
      /^[^:]+:\d+(-\d+)?/
    );
    if (mode === 'hybrid') {
      await expect(
        results.first().locator('.jp-AgentBrain-leg[data-leg="bm25"]')
      ).toBeVisible();
    }
    if (mode === 'multi') {
      // the engine's leg labels: multi's legs and the blend's, ranked ones ending "#N"
      await expect(
        results.first().locator('.jp-AgentBrain-leg').first()
      ).toHaveText(/^(hybrid|graph|names|vector|bm25) /);
      await expect(
        results
          .first()
          .locator('.jp-AgentBrain-leg', { hasText: /#\d+$/ })
          .first()
      ).toBeVisible();
    }
  }
  // A graph query naming a known symbol follows relations instead of falling back.
  const graph = await search(panel, 'compute_total', 'graph');
  await expect(panel.locator('.jp-AgentBrain-fallback')).toHaveCount(0);
  await expect(panel.locator('.jp-AgentBrain-summary')).toContainText(
    'entities:'
  );
  await expect(graph.locator('.jp-AgentBrain-relpath').first()).toBeVisible();
  await expect(graph.locator('mark').first()).toBeVisible();
  await expect(panel.locator('.jp-AgentBrain-summary')).toHaveText(
    /^\d+ results? · graph · /
  );

  // The panel marks the words the engine marked: the REST answer's highlights.
  const rest = await (
    await page.request.post('/agent-brain/query', {
      data: { query: 'compute_total', mode: 'graph', top_k: 10 }
    })
  ).json();
  const first = rest.results[0];
  const chars = Array.from(first.text as string);
  const engineMarks = (first.highlights as number[][]).map(([a, b]) =>
    chars.slice(a, b).join('')
  );
  const panelMarks = await graph.first().locator('mark').allTextContents();
  expect(panelMarks.length).toBeGreaterThan(0);
  expect(engineMarks.slice(0, panelMarks.length)).toEqual(panelMarks);
  // ... and shows the labels the engine wrote, as they are
  await expect(graph.first().locator('.jp-AgentBrain-location')).toHaveText(
    first.location
  );
  await expect(graph.first().locator('.jp-AgentBrain-leg')).toHaveText(
    first.legs.map((leg: { label: string }) => leg.label)
  );
});

test('opening a graph hit puts the relation line near the top third of the editor', async ({
  page
}) => {
  // A long module whose call of compute_total sits ~170 lines down: without scrolling
  // it is out of view, and a plain reveal would leave it on the bottom edge.
  const status = await (await page.request.get('/agent-brain/status')).json();
  const padding = Array.from(
    { length: 100 },
    (_, i) => `ROW_${i} = ${i}  # padding`
  ).join('\n');
  const steps = Array.from(
    { length: 60 },
    (_, i) => `    step_${i} = len(cart.items) + ${i}`
  ).join('\n');
  const source = `"""Quarterly figures."""\nfrom shop.pricing import compute_total\n\n${padding}\n\n\ndef quarterly_report(cart):\n    """Sum the quarter."""\n${steps}\n    grand = compute_total(cart)\n    return grand\n`;
  fs.writeFileSync(path.join(status.root, 'shop', 'long_report.py'), source);
  await indexPath(page, 'shop');

  const panel = await openPanel(page);
  await search(panel, 'what calls compute_total', 'graph');
  const hit = panel.locator(
    '.jp-AgentBrain-result[data-path="shop/long_report.py"]'
  );
  await expect(hit.first()).toBeVisible();
  const line = Number(await hit.first().getAttribute('data-line'));
  expect(source.split('\n')[line - 1]).toContain('compute_total(cart)');
  await hit.first().click();

  await expect.poll(async () => (await activeDocument(page)).line).toBe(line);
  const view = await page.evaluate(() => {
    const widget = (window as any).jupyterapp.shell.currentWidget;
    const editor = widget.content.editor;
    const cursor = editor.getCursorPosition();
    const at = editor.getCoordinateForPosition(cursor);
    const scroller = widget.node.querySelector('.cm-scroller') as HTMLElement;
    const box = scroller.getBoundingClientRect();
    return {
      text: editor.getLine(cursor.line) as string,
      offset: (at.top - box.top) / box.height,
      scrollTop: scroller.scrollTop
    };
  });
  expect(view.text).toContain('compute_total(cart)');
  expect(view.scrollTop).toBeGreaterThan(0);
  // near the top third: in view, well above the bottom edge
  expect(view.offset).toBeGreaterThan(0.1);
  expect(view.offset).toBeLessThan(0.5);
  await page.evaluate(async () => {
    await (window as any).jupyterapp.commands.execute('application:close-all');
  });
  fs.rmSync(path.join(status.root, 'shop', 'long_report.py'));
  await indexPath(page, 'shop');
});

test('clicking a result opens the file at its line; arrows and Enter too', async ({
  page
}) => {
  const panel = await openPanel(page);
  const results = await search(panel, 'apply_discount', 'bm25');
  const first = results.first();
  const target = {
    path: await first.getAttribute('data-path'),
    line: Number(await first.getAttribute('data-line'))
  };
  expect(target.path).toMatch(/\.\w+$/);
  await first.click();
  await expect
    .poll(() => activeDocument(page))
    .toEqual({ ...target, cell: null });

  await openPanel(page);
  const second = results.nth(1);
  const next = {
    path: await second.getAttribute('data-path'),
    line: Number(await second.getAttribute('data-line')),
    cell: await second.getAttribute('data-cell')
  };
  await panel.locator('.jp-AgentBrain-query').focus();
  await page.keyboard.press('ArrowDown');
  await expect(first).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(second).toBeFocused();
  await page.keyboard.press('Enter');
  await expect
    .poll(async () => (await activeDocument(page)).path)
    .toBe(next.path);
  if (next.cell === null) {
    await expect
      .poll(async () => (await activeDocument(page)).line)
      .toBe(next.line);
  }
});

test('a notebook result activates its cell', async ({ page }) => {
  const panel = await openPanel(page);
  await panel.locator('.jp-AgentBrain-filters summary').click();
  await panel.getByRole('checkbox', { name: 'notebook' }).check();
  const results = await search(panel, 'discount curve', 'bm25');
  const first = results.first();
  const cell = Number(await first.getAttribute('data-cell'));
  const path = await first.getAttribute('data-path');
  expect(path).toMatch(/\.ipynb$/);
  await first.click();
  await expect
    .poll(
      async () => {
        const doc = await activeDocument(page);
        return [doc.path, doc.cell];
      },
      { timeout: 30 * 1000 }
    )
    .toEqual([path, cell]);
  await openPanel(page);
  await panel.getByRole('checkbox', { name: 'notebook' }).uncheck();
});

test('the agent-brain:open window event opens a file at a line', async ({
  page
}) => {
  await page.evaluate(() =>
    window.dispatchEvent(
      new CustomEvent('agent-brain:open', {
        detail: { path: 'shop/pricing.py', line: 19 }
      })
    )
  );
  await expect
    .poll(() => activeDocument(page))
    .toEqual({ path: 'shop/pricing.py', line: 19, cell: null });
});

test('searches the editor selection from the context menu', async ({
  page
}) => {
  await openInEditor(page, 'shop/pricing.py');
  const line = page.locator('.jp-FileEditor .cm-line', {
    hasText: 'def apply_tax('
  });
  await line.click();
  await page.keyboard.press('Home');
  await page.keyboard.press('Shift+End');
  await line.click({ button: 'right' });
  await page
    .getByRole('menuitem', { name: 'Search Agent Brain for Selection' })
    .click();

  const panel = page.locator(`#${PANEL_ID}`);
  await expect(panel).toBeVisible();
  await expect(panel.locator('.jp-AgentBrain-query')).toHaveValue(
    'def apply_tax(amount: int, rate: float = TAX_RATE) -> int:'
  );
  await expect(panel.locator('.jp-AgentBrain-result').first()).toBeVisible();
  await expect(panel.locator('.jp-AgentBrain-result').first()).toContainText(
    'apply_tax'
  );
});

test('screenshots of the panel with results, light and dark', async ({
  page
}) => {
  const panel = await openPanel(page);
  await search(
    panel,
    'how is the cart total computed with tax and discount',
    'hybrid'
  );
  await panel.locator('.jp-AgentBrain-statusDetails > summary').click();
  await page.sidebar.setWidth(420, 'left');
  await panel.screenshot({ path: path.join(SCREENSHOTS, 'panel-light.png') });
  await page.theme.setDarkTheme();
  await expect(page.locator('body')).toHaveAttribute(
    'data-jp-theme-light',
    'false'
  );
  await panel.screenshot({ path: path.join(SCREENSHOTS, 'panel-dark.png') });
  await page.theme.setLightTheme();
});

test('while embedding, the panel and the status bar say what is searchable now', async ({
  page
}) => {
  test.setTimeout(900 * 1000);
  const { tag, bulk, panel, embedding } = await startEmbeddingRun(
    page,
    'bulk-embedding'
  );
  await expect(embedding.locator('.jp-AgentBrain-jobText')).toHaveText(
    /^Embedding for semantic search: [\d,]+\/[\d,]+ chunks/
  );
  // The analysis keeps its own full bar: nothing drops from 100% to a few percent.
  const bars = await panel
    .locator('.jp-AgentBrain-phase progress')
    .evaluateAll(els => els.map(el => (el as HTMLProgressElement).value));
  expect(bars[0]).toBe(100);
  const searchable = panel.locator('.jp-AgentBrain-searchable');
  await expect(searchable).toContainText('keyword and graph search ready');
  await expect(searchable).toContainText(
    /semantic search: \d+% \([\d,]+ of [\d,]+ chunks embedded/
  );
  await expect(panel.locator('.jp-AgentBrain-emptyState')).toHaveCount(0);
  const item = page.locator('.jp-AgentBrain-statusItem');
  await expect(item).toHaveText(
    /^Brain: [\d,]+ files · semantic \d+% · embedding \d+%$/
  );

  // Keyword search already finds the new notes; bm25 carries no coverage notice.
  const results = await search(panel, `${tag} measurement`, 'bm25');
  await expect(results.first()).toHaveAttribute(
    'data-path',
    /^bulk-embedding\//
  );
  await expect(
    panel.locator('.jp-AgentBrain-results .jp-AgentBrain-coverage')
  ).toHaveCount(0);
  // The server's ETA, once it knows the embedding rate; then the screenshot for the README.
  await expect(searchable).toContainText(/left\)$/, { timeout: 120 * 1000 });
  await page.sidebar.setWidth(420, 'left');
  await panel.screenshot({
    path: path.join(SCREENSHOTS, 'panel-indexing.png')
  });
  await page
    .locator('#jp-main-statusbar')
    .screenshot({ path: path.join(SCREENSHOTS, 'statusbar-indexing.png') });

  // A click on the status bar item opens the panel.
  await page.sidebar.close('left');
  await expect(panel).toBeHidden();
  await item.click();
  await expect(panel).toBeVisible();

  // Cancelled mid-embedding, the published generation stays searchable and the panel
  // and the status bar keep saying how much of it semantic search sees, and how to
  // embed the rest. (A batch of the disk follower's that the run had taken over runs
  // on its own once the run ends, embedding its files: cancelled too, to see the end.)
  await cancelRun(panel);
  await cancelServerJobs(page);
  await expect(searchable).toContainText('keyword and graph search ready');
  await expect(searchable).toContainText(
    /semantic search: \d+% of the workspace; Index workspace embeds the rest$/
  );
  await expect(item).toHaveText(/^Brain: [\d,]+ files · semantic \d+%$/);
  fs.rmSync(bulk, { recursive: true });
});

test('a file saved in the editor while the run embeds is found by bm25 before the run ends', async ({
  page
}) => {
  test.setTimeout(900 * 1000);
  // An existing file the run indexes, then edited and saved while that run embeds.
  const status = await (await page.request.get('/agent-brain/status')).json();
  const file = 'saved-while-embedding.md';
  fs.writeFileSync(
    path.join(status.root, file),
    '# Saved while embedding\n\nA note edited during a long run.\n'
  );
  const { bulk, panel, embedding } = await startEmbeddingRun(page, 'bulk-save');
  const job = async () =>
    (await (await page.request.get('/agent-brain/status')).json()).job;
  const run = await job();
  expect(run).toMatchObject({ status: 'running', phase: 'embedding' });
  // The run takes requests from its first embedding batch on (engine/merges.py): wait
  // for a batch to land so the save below meets a run that is embedding.
  await expect
    .poll(async () => (await job()).embedded, { timeout: 120 * 1000 })
    .toBeGreaterThan(run.embedded);

  // Jobs of the file before the save (the disk watcher saw it written).
  const jobsOf = async () =>
    (await (await page.request.get('/agent-brain/jobs')).json()).jobs.filter(
      (job: any) => job.paths.includes(file)
    );
  const before = new Set((await jobsOf()).map((job: any) => job.id));

  // Not in the index before the save: the search below can fail.
  // (bm25 ranks any word it shares, so the check is on the token's text, not on "no results".)
  const token = `zq${Date.now().toString(36)}`;
  const found = panel.locator(`.jp-AgentBrain-result[data-path="${file}"]`, {
    hasText: token
  });
  await search(panel, token, 'bm25');
  await expect(found).toHaveCount(0);

  await openInEditor(page, file);
  const editor = page.locator('.jp-FileEditor .cm-content');
  await editor.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(`\nThe ${token} line was typed and saved here.`);
  await page.keyboard.press('Control+s');
  await expect
    .poll(
      async () =>
        (
          await (
            await page.request.get(`/api/contents/${file}?content=1`)
          ).json()
        ).content,
      { timeout: 60 * 1000 }
    )
    .toContain(token);
  const saved = Date.now();

  // Found by keyword search in the panel while the same run still embeds.
  const hit = found;
  await expect(async () => {
    await search(panel, token, 'bm25');
    await expect(hit).toBeVisible({ timeout: 2000 });
  }).toPass({ timeout: 120 * 1000 });
  console.log(
    `saved -> found by bm25 in the panel: ${((Date.now() - saved) / 1000).toFixed(1)} s`
  );
  await expect(hit).toContainText(token);
  await expect(embedding).toBeVisible();
  const searchable = panel.locator('.jp-AgentBrain-searchable');
  await expect(searchable).toContainText('keyword and graph search ready');
  const percent = Number(
    /semantic search: (\d+)%/.exec((await searchable.textContent()) ?? '')?.[1]
  );
  expect(percent).toBeLessThan(100);
  expect(await job()).toMatchObject({
    id: run.id,
    status: 'running',
    phase: 'embedding'
  });
  // The save's jobs (the editor's and the disk watcher's, which can come a moment later) were
  // handed to the running one (not queued behind it) and are done while it still embeds.
  const saves = async () =>
    (await jobsOf()).filter((job: any) => !before.has(job.id));
  expect((await saves()).length).toBeGreaterThan(0);
  for (const job of await saves()) {
    expect(job.merged_into).toBe(run.id);
  }
  // The jobs not (yet) served, as the server lists them: a failure shows what it saw.
  const unserved = async () =>
    (await saves())
      .filter((job: any) => job.merged_into !== run.id || job.status !== 'done')
      .map(({ id, status, merged_into, error, paths, phase }: any) => ({
        id,
        status,
        merged_into,
        error,
        paths,
        phase
      }));
  await expect.poll(unserved, { timeout: 60 * 1000 }).toEqual([]);
  expect(await job()).toMatchObject({ id: run.id, status: 'running' });

  await page.sidebar.setWidth(420, 'left');
  await page.screenshot({
    path: path.join(SCREENSHOTS, 'save-while-embedding.png')
  });
  await cancelRun(panel);
  await page.evaluate(async () => {
    await (window as any).jupyterapp.commands.execute('application:close-all');
  });
  fs.rmSync(bulk, { recursive: true });
  fs.rmSync(path.join(status.root, file));
});

test('without the server extension the panel says so once, with how to check', async ({
  browser
}) => {
  const port = Number(process.env.AGENT_BRAIN_UI_PORT || '8891');
  const barePort = process.env.AGENT_BRAIN_UI_BARE_PORT || String(port + 100);
  const page = await browser.newPage();
  await page.goto(`http://localhost:${barePort}/lab`);
  const tab = page.locator(`.jp-SideBar .lm-TabBar-tab[data-id="${PANEL_ID}"]`);
  await tab.click({ timeout: 120 * 1000 });
  const panel = page.locator(`#${PANEL_ID}`);
  const missing = panel.locator('.jp-AgentBrain-serverMissing');
  await expect(missing).toContainText(
    'The Agent Brain server extension is not running.'
  );
  await expect(missing).toContainText('jupyter server extension list');
  await expect(page.locator('.jp-AgentBrain-statusItem')).toHaveText(
    'Brain: server extension missing'
  );
  await expect(panel.locator('.jp-AgentBrain-search')).toHaveCount(0);
  // One message in the panel, no "404 Not Found" toasts (JupyterLab's own news prompt aside).
  await expect(
    page.locator('.Toastify__toast', { hasText: /404|Not Found|Brain/ })
  ).toHaveCount(0);
  await panel.screenshot({
    path: path.join(SCREENSHOTS, 'panel-server-missing.png')
  });
  await page.close();
});
