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
 * Write `count` distinct small documents into BULK of the server's root, on disk:
 * through the contents API every file would queue its own save-triggered job.
 */
async function writeBulkFiles(
  page: IJupyterLabPageFixture,
  count: number
): Promise<string> {
  const status = await (await page.request.get('/agent-brain/status')).json();
  const dir = path.join(status.root, BULK);
  fs.mkdirSync(dir);
  for (let i = 0; i < count; i++) {
    const content = `# Note ${i}\n\nMeasurement ${i * 7919} of batch ${i % 13}: the ${i}th sample.\n`;
    fs.writeFileSync(path.join(dir, `note-${i}.md`), content);
  }
  return dir;
}

async function openPanel(page: IJupyterLabPageFixture): Promise<Locator> {
  await page.sidebar.openTab(PANEL_ID);
  const panel = page.locator(`#${PANEL_ID}`);
  await expect(panel).toBeVisible();
  return panel;
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
  const bulk = await writeBulkFiles(page, 300);
  const indexButton = panel.locator('.jp-AgentBrain-indexButton');
  await indexButton.click();
  await panel.getByRole('button', { name: 'Cancel' }).click();
  await expect(panel.locator('[data-status="cancelled"]')).toContainText(
    'Last job cancelled',
    {
      timeout: 60 * 1000
    }
  );
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
    'skipped files'
  );
  await expect(panel.locator('[data-status="done"]')).toContainText(
    'Last job done'
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
  await expect(panel.locator('[data-status="done"]')).toContainText(
    'Last job done',
    {
      timeout: 120 * 1000
    }
  );
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
      await expect(
        results.first().locator('.jp-AgentBrain-leg').first()
      ).toHaveText(/#\d+$/);
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
  await page.evaluate(() =>
    (window as any).jupyterapp.commands.execute('docmanager:open', {
      path: 'shop/pricing.py',
      factory: 'Editor'
    })
  );
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
