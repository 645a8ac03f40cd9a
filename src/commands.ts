/**
 * Commands: open the panel, index the workspace or a folder, search the
 * editor selection, open a location. Context menus are in schema/plugin.json.
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { ICommandPalette, Notification } from '@jupyterlab/apputils';
import { CodeEditor } from '@jupyterlab/codeeditor';
import { IDefaultFileBrowser } from '@jupyterlab/filebrowser';
import { IEditorTracker } from '@jupyterlab/fileeditor';
import { INotebookTracker } from '@jupyterlab/notebook';
import { TranslationBundle } from '@jupyterlab/translation';

import { brainIcon } from './icon';
import { BrainModel } from './model';
import { parseLocation } from './location';
import { BrainPanel } from './panel/BrainPanel';
import { selectedText } from './selection';
import { ILocation, MAX_QUERY_CHARS } from './types';

export namespace CommandIDs {
  export const openPanel = 'agent-brain-lab:open-panel';
  export const index = 'agent-brain-lab:index';
  export const indexFolder = 'agent-brain-lab:index-folder';
  export const searchSelection = 'agent-brain-lab:search-selection';
  export const openLocation = 'agent-brain-lab:open-location';
}

export interface ICommandContext {
  model: BrainModel;
  panel: BrainPanel;
  editors: IEditorTracker | null;
  notebooks: INotebookTracker | null;
  fileBrowser: IDefaultFileBrowser | null;
  palette: ICommandPalette | null;
  open: (location: ILocation) => Promise<unknown>;
  trans: TranslationBundle;
}

export function addCommands(app: JupyterFrontEnd, ctx: ICommandContext): void {
  const { commands, shell } = app;
  const { model, panel, trans } = ctx;

  /** The editor of the focused file editor or notebook cell, if any. */
  const currentEditor = (): CodeEditor.IEditor | null => {
    const widget = shell.currentWidget;
    if (widget && ctx.editors?.currentWidget === widget) {
      return ctx.editors.currentWidget.content.editor;
    }
    if (widget && ctx.notebooks?.currentWidget === widget) {
      return ctx.notebooks.activeCell?.editor ?? null;
    }
    return null;
  };

  commands.addCommand(CommandIDs.openPanel, {
    label: trans.__('Open Agent Brain'),
    caption: trans.__(
      'Search the workspace by meaning, keywords and code relations'
    ),
    icon: brainIcon,
    execute: () => {
      shell.activateById(panel.id);
      panel.focusQuery();
    }
  });

  commands.addCommand(CommandIDs.index, {
    label: trans.__('Index Workspace with Agent Brain'),
    execute: async () => {
      shell.activateById(panel.id);
      await model.index();
    }
  });

  commands.addCommand(CommandIDs.indexFolder, {
    label: trans.__('Index Folder with Agent Brain'),
    icon: brainIcon,
    isVisible: () => {
      const item = ctx.fileBrowser?.selectedItems().next();
      return !!item && !item.done && item.value.type === 'directory';
    },
    execute: async args => {
      let path = typeof args.path === 'string' ? args.path : null;
      if (path === null) {
        const item = ctx.fileBrowser?.selectedItems().next();
        path =
          item && !item.done && item.value.type === 'directory'
            ? item.value.path
            : null;
      }
      if (path === null) {
        Notification.warning(
          trans.__('Select a folder in the file browser first.')
        );
        return;
      }
      shell.activateById(panel.id);
      await model.index(path);
    }
  });

  commands.addCommand(CommandIDs.searchSelection, {
    label: trans.__('Search Agent Brain for Selection'),
    icon: brainIcon,
    isEnabled: () => currentEditor() !== null,
    execute: async () => {
      const editor = currentEditor();
      const text = editor ? selectedText(editor).slice(0, MAX_QUERY_CHARS) : '';
      if (!text) {
        Notification.info(
          trans.__('Select some text in an editor to search for it.')
        );
        return;
      }
      model.setOptions({ query: text });
      shell.activateById(panel.id);
      await model.search();
    }
  });

  commands.addCommand(CommandIDs.openLocation, {
    label: trans.__('Open File at Location'),
    execute: async args => {
      const location = parseLocation(args);
      if (!location) {
        throw new Error(trans.__('open-location needs a relative "path"'));
      }
      await ctx.open(location);
    }
  });

  for (const command of [
    CommandIDs.openPanel,
    CommandIDs.index,
    CommandIDs.searchSelection
  ]) {
    ctx.palette?.addItem({ command, category: trans.__('Agent Brain') });
  }
}
