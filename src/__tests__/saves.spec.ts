import { Contents } from '@jupyterlab/services';
import { Signal } from '@lumino/signaling';

import { BrainAPI } from '../api';
import { BrainModel } from '../model';
import { followSaves } from '../saves';
import { fakeSettings } from './fakeServer';

const ready = {
  state: 'ready',
  files: { total: 1, by_source_type: {}, by_language: {} },
  job: null
};

function setup(enabled: () => boolean) {
  const { settings, requests } = fakeSettings(() => ({
    status: 200,
    body: ready
  }));
  const model = new BrainModel(new BrainAPI(settings), {
    error: () => undefined,
    info: () => undefined
  });
  const owner = {};
  const fileChanged = new Signal<object, Contents.IChangedArgs>(owner);
  followSaves(
    { fileChanged } as unknown as Contents.IManager,
    model,
    enabled,
    20
  );
  const save = (path: string) =>
    fileChanged.emit({ type: 'save', oldValue: null, newValue: { path } });
  const statusCalls = () => requests.filter(r => r.path === 'status').length;
  return { model, save, fileChanged, statusCalls };
}

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

describe('followSaves', () => {
  it('refreshes the status once after a burst of saves', async () => {
    const { model, save, statusCalls } = setup(() => true);
    await model.refreshStatus();
    expect(statusCalls()).toBe(1);
    save('shop/a.py');
    save('shop/b.py');
    await sleep(80);
    expect(statusCalls()).toBe(2);
  });

  it('ignores other changes, and saves when disabled or before a first status', async () => {
    let enabled = true;
    const { model, save, fileChanged, statusCalls } = setup(() => enabled);
    save('a.py'); // no status loaded yet: the panel has nothing to follow
    await sleep(40);
    await model.refreshStatus();
    enabled = false;
    save('a.py');
    await sleep(40);
    enabled = true;
    fileChanged.emit({
      type: 'rename',
      oldValue: { path: 'a.py' },
      newValue: { path: 'b.py' }
    });
    await sleep(80);
    expect(statusCalls()).toBe(1);
  });
});
