/**
 * The Agent Brain side panel plugin: panel, commands, settings, state, and the
 * `agent-brain:open` window event the kernel widgets dispatch.
 */
import {
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette, Notification } from '@jupyterlab/apputils';
import { IDocumentManager } from '@jupyterlab/docmanager';
import { IDefaultFileBrowser } from '@jupyterlab/filebrowser';
import { IEditorTracker } from '@jupyterlab/fileeditor';
import { INotebookTracker } from '@jupyterlab/notebook';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IStateDB } from '@jupyterlab/statedb';
import { IStatusBar } from '@jupyterlab/statusbar';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { BrainAPI } from './api';
import { addCommands, CommandIDs } from './commands';
import { brainIcon } from './icon';
import { BrainModel, ISearchOptions } from './model';
import { OPEN_EVENT, parseLocation } from './location';
import { openLocation } from './open';
import { BrainPanel } from './panel/BrainPanel';
import { followSaves } from './saves';
import { applySettings, IPanelSettings, readSettings } from './settings';
import { BrainStatusItem } from './statusbar';
import { DOMAIN } from './trans';
import { ILocation } from './types';

const PLUGIN_ID = 'agent-brain-lab:plugin';
const STATE_KEY = 'agent-brain-lab:panel';

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: 'Search the workspace by meaning, keywords and code relations.',
  autoStart: true,
  requires: [IDocumentManager],
  optional: [
    ILayoutRestorer,
    ISettingRegistry,
    IStateDB,
    ICommandPalette,
    IEditorTracker,
    INotebookTracker,
    IDefaultFileBrowser,
    ITranslator,
    IStatusBar
  ],
  activate: (
    app: JupyterFrontEnd,
    docManager: IDocumentManager,
    restorer: ILayoutRestorer | null,
    settingRegistry: ISettingRegistry | null,
    state: IStateDB | null,
    palette: ICommandPalette | null,
    editors: IEditorTracker | null,
    notebooks: INotebookTracker | null,
    fileBrowser: IDefaultFileBrowser | null,
    translator: ITranslator | null,
    statusBar: IStatusBar | null
  ) => {
    const trans = (translator ?? nullTranslator).load(DOMAIN);
    const model = new BrainModel(
      new BrainAPI(app.serviceManager.serverSettings, trans),
      {
        error: message => Notification.error(message, { autoClose: 8000 }),
        info: message => Notification.info(message, { autoClose: 4000 })
      },
      trans
    );
    const open = (location: ILocation) =>
      openLocation(docManager, location).catch(error =>
        Notification.error(
          trans.__(
            'Cannot open %1: %2',
            location.path,
            error.message ?? String(error)
          )
        )
      );

    const panel = new BrainPanel(
      model,
      result =>
        void open({
          path: result.source,
          line: result.focus_line,
          cell_index: result.cell_index
        })
    );
    panel.id = 'agent-brain-lab-panel';
    panel.title.icon = brainIcon;
    panel.title.caption = trans.__('Agent Brain');
    app.shell.add(panel, 'left', { rank: 600 });
    restorer?.add(panel, 'agent-brain-lab');

    addCommands(app, {
      model,
      panel,
      editors,
      notebooks,
      fileBrowser,
      palette,
      open,
      trans
    });

    statusBar?.registerStatusItem('agent-brain-lab:status', {
      item: new BrainStatusItem(
        model,
        () => void app.commands.execute(CommandIDs.openPanel)
      ),
      align: 'left',
      rank: 50
    });

    window.addEventListener(OPEN_EVENT, event => {
      const location = parseLocation((event as CustomEvent).detail);
      if (location) {
        event.preventDefault(); // the widget then skips its lab/tree href fallback
        void open(location);
      } else {
        console.warn(
          `agent-brain-lab: ignored ${OPEN_EVENT} event without a valid path`
        );
      }
    });

    let settings: IPanelSettings | null = null;
    followSaves(
      app.serviceManager.contents,
      model,
      () => settings?.autoReindexOnSave ?? true
    );

    // Settings, then the saved panel state (which wins over the default mode), load in the
    // background: waiting for them in activate() would hold up the application start.
    const loadSettings = async () => {
      if (!settingRegistry) {
        return;
      }
      const loaded = await settingRegistry.load(PLUGIN_ID);
      settings = readSettings(loaded.composite);
      applySettings(model, settings);
      loaded.changed.connect(() => {
        settings = readSettings(loaded.composite);
        applySettings(model, settings);
      });
    };
    const restoreState = async () => {
      if (!state) {
        return;
      }
      const saved = (await state.fetch(STATE_KEY)) as
        Partial<ISearchOptions> | undefined;
      if (saved) {
        model.setOptions(saved);
      }
      let last = model.options;
      model.changed.connect(() => {
        if (model.options !== last) {
          last = model.options;
          void state.save(STATE_KEY, { ...last } as any);
        }
      });
    };
    void app.restored
      .then(loadSettings)
      .catch(error =>
        console.warn('agent-brain-lab: settings not loaded', error)
      )
      .then(restoreState)
      .catch(error =>
        console.warn('agent-brain-lab: panel state not restored', error)
      )
      .then(() => model.refreshStatus())
      .then(() => model.startStatusPoll());
  }
};

export default plugin;
