/**
 * The notebook graph explorer on a 100-neighbour entity, in JupyterLab with a real kernel:
 * `dispatch` of tests/hub_workspace.py has 124 callers. The explorer draws a few per relation
 * and a "+116 more callers" group; a click shows them all; no two labels overlap, before or after.
 */
import { expect, test } from '@jupyterlab/galata';
import { Page } from '@playwright/test';
import * as path from 'path';

const SCREENSHOTS = path.resolve(__dirname, '..', 'screenshots');
const HUB_SCRIPT = path.resolve(
  __dirname,
  '..',
  '..',
  'tests',
  'hub_workspace.py'
);

/** Labels drawn, how many overlap, and how many leave the drawing. */
async function look(page: Page) {
  return page.evaluate(() => {
    const el = document.querySelector('.abl-graph') as HTMLElement;
    const labels = [
      ...el.querySelectorAll('.abl-node text, .abl-pill text, .abl-caption')
    ];
    const boxes = labels
      .map(t => t.getBoundingClientRect())
      .filter(b => b.width > 0);
    let overlaps = 0;
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i];
        const b = boxes[j];
        if (
          a.left < b.right - 1 &&
          b.left < a.right - 1 &&
          a.top < b.bottom - 1 &&
          b.top < a.bottom - 1
        ) {
          overlaps++;
        }
      }
    }
    const svg = el.querySelector('svg')!.getBoundingClientRect();
    const outside = boxes.filter(
      b =>
        b.left < svg.left - 1 ||
        b.right > svg.right + 1 ||
        b.top < svg.top - 1 ||
        b.bottom > svg.bottom + 1
    ).length;
    const smallest = Math.min(...boxes.map(b => b.height));
    return { labels: boxes.length, overlaps, outside, smallest };
  });
}

test('the graph explorer on a 100-neighbour entity', async ({ page }) => {
  test.setTimeout(300 * 1000);
  await page.notebook.createNew('graph-explorer.ipynb');
  await page.notebook.setCell(
    0,
    'code',
    `%run ${JSON.stringify(HUB_SCRIPT)} hubws\n%load_ext agent_brain_lab\n%brain index --workspace hubws --json`
  );
  await page.notebook.addCell(
    'code',
    '%brain graph dispatch --workspace hubws'
  );
  await page.notebook.run();

  const explorer = page.locator('.jp-OutputArea-output .abl-graph');
  await expect(explorer).toBeVisible({ timeout: 240 * 1000 });
  const match = explorer.locator('.abl-node.abl-match');
  await expect(match).toHaveAttribute('data-id', 'hub/core.py::dispatch');
  await expect(explorer.locator('.abl-node')).toHaveCount(11); // dispatch, 8 callers, 2 docs
  const pill = explorer.locator('.abl-pill text');
  await expect(pill).toHaveText('+116 more callers');
  await expect(explorer.locator('.abl-graph-head')).toContainText(
    '116 more in groups'
  );
  const first = await look(page);
  expect(first.overlaps).toBe(0);
  expect(first.outside).toBe(0);
  expect(first.smallest).toBeGreaterThanOrEqual(11);
  await explorer.scrollIntoViewIfNeeded();
  await explorer.screenshot({
    path: path.join(SCREENSHOTS, 'graph-explorer.png')
  });

  await page.setViewportSize({ width: 1280, height: 1100 }); // room for the opened group
  await pill.click();
  await expect(explorer.locator('.abl-node')).toHaveCount(127);
  await expect(explorer.locator('.abl-pill')).toHaveCount(0);
  await expect(explorer.locator('.abl-graph-message')).toContainText(
    '116 more callers shown.'
  );
  const then = await look(page);
  expect(then.labels).toBeGreaterThanOrEqual(127);
  expect(then.overlaps).toBe(0);
  expect(then.outside).toBe(0);
  expect(then.smallest).toBeGreaterThanOrEqual(10);
  await explorer.screenshot({
    path: path.join(SCREENSHOTS, 'graph-explorer-expanded.png')
  });
});
