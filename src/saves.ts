/**
 * Follow the re-index job the server starts after a file is saved.
 *
 * The server's post-save hook (c.AgentBrain.auto_reindex_on_save) queues the
 * job about `reindex_delay` (1 s by default) after the last save; the panel
 * asks for the status a little later, which picks the job up and shows it.
 */
import { Contents } from '@jupyterlab/services';

import { BrainModel } from './model';

export const FOLLOW_DELAY_MS = 1500;

export function followSaves(
  contents: Contents.IManager,
  model: BrainModel,
  enabled: () => boolean,
  delay = FOLLOW_DELAY_MS
): void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  contents.fileChanged.connect((_, change) => {
    if (change.type !== 'save' || !enabled() || !model.status) {
      return;
    }
    if (timer !== null) {
      clearTimeout(timer);
    }
    timer = setTimeout(() => {
      timer = null;
      void model.refreshStatus();
    }, delay);
  });
}
