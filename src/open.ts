/**
 * Open a workspace file at a line (editors) or a cell (notebooks).
 */
import { CodeEditor } from '@jupyterlab/codeeditor';
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
    await showLine(widget.content, location.line ?? null);
  }
  return widget;
}

/** Where the line that matters goes: this share of the view's height from its top. */
export const TOP_THIRD = 1 / 3;

/** How far (px) to scroll `container` so that a line at `lineTop` sits at `share` of its height. */
export function scrollDelta(
  lineTop: number,
  containerTop: number,
  containerHeight: number,
  share = TOP_THIRD
): number {
  return lineTop - containerTop - containerHeight * share;
}

function nextFrame(): Promise<void> {
  return new Promise(resolve => requestAnimationFrame(() => resolve()));
}

/** The element that scrolls `host`: its own CodeMirror scroller, else the nearest scrolling ancestor. */
function scrollerOf(host: HTMLElement): HTMLElement | null {
  const own = host.querySelector<HTMLElement>('.cm-scroller');
  const candidates: HTMLElement[] = own ? [own] : [];
  for (let el = host.parentElement; el; el = el.parentElement) {
    candidates.push(el);
  }
  return (
    candidates.find(el => {
      const overflow = getComputedStyle(el).overflowY;
      return (
        (overflow === 'auto' || overflow === 'scroll') &&
        el.scrollHeight > el.clientHeight
      );
    }) ?? null
  );
}

/**
 * Put the cursor on `line` (0-based) and scroll so that it sits near the top
 * third of what scrolls the editor (the file editor's own scroller, the
 * notebook's for a cell), where the eye goes, not on the bottom edge.
 */
async function placeLine(
  editor: CodeEditor.IEditor,
  line: number
): Promise<void> {
  const position = { line, column: 0 };
  editor.setCursorPosition(position);
  editor.revealPosition(position);
  await nextFrame(); // let the editor render the line it just scrolled to
  const coordinate = editor.getCoordinateForPosition(position);
  const scroller = scrollerOf(editor.host);
  if (!coordinate || !scroller) {
    return;
  }
  const box = scroller.getBoundingClientRect();
  scroller.scrollTop += scrollDelta(coordinate.top, box.top, box.height);
}

function clampLine(editor: CodeEditor.IEditor, line: number): number {
  return Math.min(line - 1, Math.max(editor.lineCount - 1, 0));
}

async function showLine(
  editor: FileEditor,
  line: number | null
): Promise<void> {
  const target = editor.editor;
  target.focus();
  if (line !== null && line > 0) {
    await placeLine(target, clampLine(target, line));
  }
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
    await nextFrame(); // the cell's editor exists once it was scrolled into the window
    await placeLine(editor, clampLine(editor, line));
  }
}
