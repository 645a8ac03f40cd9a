/**
 * Open a workspace file at a line (editors) or a cell (notebooks).
 */
import { IDocumentManager } from '@jupyterlab/docmanager';
import { IDocumentWidget } from '@jupyterlab/docregistry';
import { FileEditor } from '@jupyterlab/fileeditor';
import { Notebook } from '@jupyterlab/notebook';

import { ILocation } from './types';

function isNotebookPath(path: string): boolean {
  return path.toLowerCase().endsWith('.ipynb');
}

/**
 * Open `location.path` with the text editor (or the notebook panel for
 * .ipynb) and put the cursor on `line` (1-based) / activate `cell_index`.
 */
export async function openLocation(
  docManager: IDocumentManager,
  location: ILocation
): Promise<IDocumentWidget | undefined> {
  const notebook = isNotebookPath(location.path);
  const widget = docManager.openOrReveal(
    location.path,
    notebook ? 'Notebook' : 'Editor'
  );
  if (!widget) {
    return undefined;
  }
  await widget.context.ready;
  await widget.revealed;
  if (widget.content instanceof Notebook) {
    await showCell(
      widget.content,
      location.cell_index ?? null,
      location.line ?? null
    );
  } else if (widget.content instanceof FileEditor) {
    showLine(widget.content, location.line ?? null);
  }
  return widget;
}

function showLine(editor: FileEditor, line: number | null): void {
  const target = editor.editor;
  if (line !== null && line > 0) {
    const position = {
      line: Math.min(line - 1, Math.max(target.lineCount - 1, 0)),
      column: 0
    };
    target.setCursorPosition(position);
    target.revealPosition(position);
  }
  target.focus();
}

/** Activate a cell; `line` counts from the start of the cell's source, as in the index. */
async function showCell(
  notebook: Notebook,
  cellIndex: number | null,
  line: number | null
): Promise<void> {
  if (cellIndex === null || cellIndex >= notebook.widgets.length) {
    return;
  }
  notebook.activeCellIndex = cellIndex;
  await notebook.scrollToItem(cellIndex, 'start');
  const editor = notebook.widgets[cellIndex].editor;
  if (editor && line !== null && line > 0) {
    editor.setCursorPosition({
      line: Math.min(line - 1, Math.max(editor.lineCount - 1, 0)),
      column: 0
    });
  }
}
