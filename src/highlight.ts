/**
 * The engine's highlights, cut into what the panel draws.
 *
 * The engine marks the matching words (`highlights`: [start, end) code-point
 * ranges of `text`, by the keyword index's own rules); this module only
 * slices. Nothing here produces HTML: the panel renders the segments as React
 * text nodes, so result text is always escaped.
 */

export interface ISegment {
  text: string;
  match: boolean;
}

// Bidi controls and line separators reorder or break the lines drawn around
// them (Trojan Source): drawn as escapes, as the engine's `printable` does.
const INVISIBLE = /[\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** `text` with its bidi controls and line separators as `\u202e` escapes. */
export function visible(text: string): string {
  return text.replace(
    INVISIBLE,
    c => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')
  );
}

/**
 * `text` split into plain and marked segments by the engine's ranges. Ranges
 * index code points (as Python does), not UTF-16 units, hence `Array.from`;
 * each segment is then made `visible`.
 */
export function segments(text: string, ranges: number[][]): ISegment[] {
  const chars = Array.from(text);
  const out: ISegment[] = [];
  const push = (from: number, to: number, match: boolean) =>
    out.push({ text: visible(chars.slice(from, to).join('')), match });
  let at = 0;
  for (const [start, end] of ranges) {
    const a = Math.max(start, at);
    const b = Math.min(end, chars.length);
    if (a >= b) {
      continue;
    }
    if (a > at) {
      push(at, a, false);
    }
    push(a, b, true);
    at = b;
  }
  if (at < chars.length) {
    push(at, chars.length, false);
  }
  return out;
}

/**
 * A window of at most `maxLines` lines of `text`, from a line above the first
 * marked line (or the top when nothing is marked), with the ranges moved into
 * it; `…` lines stand for what was cut.
 */
export function snippet(
  text: string,
  ranges: number[][],
  maxLines = 8
): { text: string; ranges: number[][] } {
  const lines = text.replace(/\s+$/, '').split('\n');
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += Array.from(line).length + 1;
  }
  const first = ranges.length ? ranges[0][0] : 0;
  const hit = starts.findIndex(
    (s, i) => first >= s && (i + 1 === starts.length || first < starts[i + 1])
  );
  const start = Math.max(0, Math.min(hit - 1, lines.length - maxLines));
  const stop = Math.min(lines.length, start + maxLines);
  const before = start > 0 ? '…\n' : '';
  const after = stop < lines.length ? '\n…' : '';
  const shift = starts[start] - before.length;
  const end = stop < lines.length ? starts[stop] - 1 : offset - 1;
  return {
    text: before + lines.slice(start, stop).join('\n') + after,
    ranges: ranges
      .filter(([a, b]) => b > starts[start] && a < end)
      .map(([a, b]) => [
        Math.max(a, starts[start]) - shift,
        Math.min(b, end) - shift
      ])
  };
}
