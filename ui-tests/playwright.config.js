/**
 * Playwright configuration: Galata defaults, Debian's chromium (no browser
 * download), and a JupyterLab server on a copy of the fixture workspace.
 */
const baseConfig = require('@jupyterlab/galata/lib/playwright-config');

const port = process.env.AGENT_BRAIN_UI_PORT || '8891';
// A second server without the Agent Brain server extension (the missing-extension test).
const barePort =
  process.env.AGENT_BRAIN_UI_BARE_PORT || String(Number(port) + 100);
// The Python that has agent_brain_lab installed (.ci/ui-tests.sh passes its venv's).
const python = process.env.AGENT_BRAIN_UI_PYTHON || 'python';

module.exports = {
  ...baseConfig,
  reporter: [['list'], ['html', { open: 'never' }]],
  // The tests share one server and one index; they run in order.
  workers: 1,
  timeout: 180 * 1000,
  expect: { timeout: 20 * 1000 },
  use: {
    ...baseConfig.use,
    baseURL: `http://localhost:${port}`,
    viewport: { width: 1280, height: 800 },
    video: 'off',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run'
      ]
    }
  },
  webServer: [
    {
      command: `${python} -m jupyterlab --config jupyter_server_test_config.py`,
      url: `http://localhost:${port}/lab`,
      timeout: 180 * 1000,
      reuseExistingServer: !process.env.CI,
      env: { ...process.env, AGENT_BRAIN_UI_PORT: port }
    },
    {
      command: `${python} -m jupyterlab --config jupyter_server_bare_config.py`,
      url: `http://localhost:${barePort}/lab`,
      timeout: 180 * 1000,
      reuseExistingServer: !process.env.CI,
      env: { ...process.env, AGENT_BRAIN_UI_BARE_PORT: barePort }
    }
  ]
};
