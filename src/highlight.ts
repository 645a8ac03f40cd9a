/**
 * Query-term highlighting and snippet cutting, as plain data.
 *
 * Nothing here produces HTML: the panel renders the segments as React text
 * nodes, so result text is always escaped.
 */

export interface ISegment {
  text: string;
  match: boolean;
}

const STOP_WORDS = new Set([
  'a',
  'an',
  'and',
  'are',
  'for',
  'how',
  'in',
  'is',
  'of',
  'on',
  'or',
  'the',
  'to',
  'what',
  'where',
  'with'
]);

/**
 * The words of a query worth highlighting, longest first so that a longer
 * term wins over its prefix. Identifiers are also split into their parts
 * (`parseHTTPHeader` -> parse, http, header), like the engine's keyword index.
 */
export function queryTerms(query: string): string[] {
  const terms = new Set<string>();
  for (const word of query.match(/[\p{L}\p{N}_]+/gu) ?? []) {
    const parts = word
      .split('_')
      .flatMap(p => p.match(/\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+/gu) ?? []);
    for (const term of [word, ...parts]) {
      const lower = term.toLowerCase();
      if (lower.length > 1 && !STOP_WORDS.has(lower)) {
        terms.add(lower);
      }
    }
  }
  return [...terms].sort((a, b) => b.length - a.length);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function isUpper(c: string): boolean {
  return c !== c.toLowerCase();
}

/**
 * Whether a match at `i` starts a word or an identifier part, so that `total`
 * marks `compute_total` and `cartTotal` but not `subtotal`.
 */
function startsWord(text: string, i: number): boolean {
  const prev = text[i - 1];
  if (i === 0 || !/[\p{L}\p{N}]/u.test(prev)) {
    return true;
  }
  const cur = text[i];
  const next = text[i + 1] ?? '';
  return isUpper(cur) && (!isUpper(prev) || (next !== '' && !isUpper(next)));
}

/**
 * Split `text` into alternating plain and matching segments: case-insensitive
 * matches of the terms that start a word or identifier part.
 */
export function highlight(text: string, terms: string[]): ISegment[] {
  if (!text) {
    return [];
  }
  if (terms.length === 0) {
    return [{ text, match: false }];
  }
  const pattern = new RegExp(terms.map(escapeRegExp).join('|'), 'giu');
  const segments: ISegment[] = [];
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    const start = m.index ?? 0;
    if (!startsWord(text, start)) {
      continue;
    }
    if (start > last) {
      segments.push({ text: text.slice(last, start), match: false });
    }
    segments.push({ text: m[0], match: true });
    last = start + m[0].length;
  }
  if (last < text.length) {
    segments.push({ text: text.slice(last), match: false });
  }
  return segments;
}

/**
 * A window of at most `maxLines` lines of `text`, starting a line above the
 * first line that mentions a term (or at the top when none does).
 */
export function snippet(text: string, terms: string[], maxLines = 8): string {
  const lines = text.replace(/\s+$/, '').split('\n');
  const hit = lines.findIndex(line =>
    terms.some(t => line.toLowerCase().includes(t))
  );
  const start = Math.max(0, Math.min(hit - 1, lines.length - maxLines));
  const window = lines.slice(start, start + maxLines);
  const before = start > 0 ? '…\n' : '';
  const after = start + maxLines < lines.length ? '\n…' : '';
  return before + window.join('\n') + after;
}
