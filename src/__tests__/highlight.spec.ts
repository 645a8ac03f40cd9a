import { segments, snippet } from '../highlight';

const marked = (text: string, ranges: number[][]) =>
  segments(text, ranges)
    .filter(s => s.match)
    .map(s => s.text);

describe('segments', () => {
  it('marks exactly the engine ranges and keeps all text', () => {
    const text = 'Parse the header; parse_header(line)';
    const all = segments(text, [
      [0, 5],
      [10, 16],
      [18, 23],
      [24, 30]
    ]);
    expect(all.map(s => s.text).join('')).toBe(text);
    expect(all.filter(s => s.match).map(s => s.text)).toEqual([
      'Parse',
      'header',
      'parse',
      'header'
    ]);
  });

  it('counts code points like the engine, not UTF-16 units', () => {
    expect(marked('🙂 parses', [[2, 8]])).toEqual(['parses']);
  });

  it('ignores empty, overlapping and out-of-range ranges', () => {
    expect(
      marked('abcdef', [
        [1, 1],
        [0, 3],
        [2, 4],
        [5, 99]
      ])
    ).toEqual(['abc', 'd', 'f']);
    expect(segments('abc', [])).toEqual([{ text: 'abc', match: false }]);
    expect(segments('', [[0, 1]])).toEqual([]);
  });

  it('draws bidi controls and line separators as escapes, marks unmoved', () => {
    // "access level" reads reversed after U+202E in a browser (Trojan Source)
    const text = 'if (level != "user\u202e \u2066// admin\u2069") ok\u2028end';
    const all = segments(text, [[4, 9]]);
    expect(all.map(s => s.text).join('')).toBe(
      'if (level != "user\\u202e \\u2066// admin\\u2069") ok\\u2028end'
    );
    expect(all.filter(s => s.match).map(s => s.text)).toEqual(['level']);
    expect(marked('a\u202eb level', [[4, 9]])).toEqual(['level']);
  });
});

describe('snippet', () => {
  const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
  const text = lines.join('\n');
  const at = (line: number, from: number, to: number) => {
    const start = lines.slice(0, line - 1).join('\n').length + 1;
    return [start + from, start + to];
  };

  it('starts one line above the first mark, moves the ranges, marks cut ends', () => {
    const cut = snippet(text, [at(20, 0, 4), at(21, 5, 7), at(29, 0, 4)], 4);
    expect(cut.text).toBe('…\nline 19\nline 20\nline 21\nline 22\n…');
    expect(marked(cut.text, cut.ranges)).toEqual(['line', '21']);
  });

  it('shows the top without marks and whole short texts as they are', () => {
    expect(snippet(text, [], 3)).toEqual({
      text: 'line 1\nline 2\nline 3\n…',
      ranges: []
    });
    const short = snippet('one\ntwo\n\n', [[4, 7]], 8);
    expect(marked(short.text, short.ranges)).toEqual(['two']);
    expect(short.text).toBe('one\ntwo');
  });

  it('keeps a full window when the mark is near the end', () => {
    const cut = snippet(text, [at(30, 5, 7)], 4);
    expect(cut.text).toBe('…\nline 27\nline 28\nline 29\nline 30');
    expect(marked(cut.text, cut.ranges)).toEqual(['30']);
  });
});
