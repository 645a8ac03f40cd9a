/**
 * The text selected in the current editor (file editor or notebook cell).
 */
import { CodeEditor } from '@jupyterlab/codeeditor';

/** Selected text, or the word under the cursor when nothing is selected. */
export function selectedText(editor: CodeEditor.IEditor): string {
  const range = editor.getSelection();
  const start = editor.getOffsetAt(range.start);
  const end = editor.getOffsetAt(range.end);
  if (start !== end) {
    const source = editor.model.sharedModel.getSource();
    return source.slice(Math.min(start, end), Math.max(start, end)).trim();
  }
  return editor.getTokenAtCursor().value.trim();
}
