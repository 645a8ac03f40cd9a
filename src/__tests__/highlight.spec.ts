import { highlight, queryTerms, snippet } from '../highlight';

describe('queryTerms', () => {
  it('splits identifiers into parts and drops stop words, longest first', () => {
    const terms = queryTerms('how is parseHTTPHeader used in the cart_total');
    expect(terms).toEqual(
      expect.arrayContaining([
        'parsehttpheader',
        'parse',
        'http',
        'header',
        'cart_total',
        'cart',
        'total',
        'used'
      ])
    );
    expect(terms).not.toContain('how');
    expect(terms).not.toContain('the');
    expect(terms[0]).toBe('parsehttpheader');
    const lengths = terms.map(t => t.length);
    expect([...lengths].sort((a, b) => b - a)).toEqual(lengths);
  });

  it('treats regex characters in the query as plain text', () => {
    expect(queryTerms('a.*b (c+d)')).toEqual([]);
    expect(() => highlight('x.*y', queryTerms('.*'))).not.toThrow();
  });
});

describe('highlight', () => {
  it('marks every case-insensitive occurrence and keeps all text', () => {
    const text = 'Parse the header; parse_header(line) returns HEADER parts';
    const segments = highlight(text, queryTerms('parse header'));
    expect(segments.map(s => s.text).join('')).toBe(text);
    expect(segments.filter(s => s.match).map(s => s.text)).toEqual([
      'Parse',
      'header',
      'parse',
      'header',
      'HEADER'
    ]);
  });

  it('prefers the longer term over its prefix', () => {
    const segments = highlight('cart_total and cart', ['cart_total', 'cart']);
    expect(segments.filter(s => s.match).map(s => s.text)).toEqual([
      'cart_total',
      'cart'
    ]);
  });

  it('matches at word and identifier-part starts only', () => {
    const text =
      'subtotal compute_total cartTotal parseHTTPHeader HTTPHeader taxed';
    const marked = highlight(text, ['total', 'header', 'http', 'tax'])
      .filter(s => s.match)
      .map(s => s.text);
    expect(marked).toEqual([
      'total',
      'Total',
      'HTTP',
      'Header',
      'HTTP',
      'Header',
      'tax'
    ]);
  });

  it('returns the text unmarked without terms, nothing for empty text', () => {
    expect(highlight('abc', [])).toEqual([{ text: 'abc', match: false }]);
    expect(highlight('', ['a'])).toEqual([]);
  });
});

describe('snippet', () => {
  const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);

  it('starts one line above the first match and marks cut ends', () => {
    const text = [
      ...lines.slice(0, 19),
      'the needle is here',
      ...lines.slice(20)
    ].join('\n');
    const cut = snippet(text, ['needle'], 4);
    expect(cut).toBe('…\nline 19\nthe needle is here\nline 21\nline 22\n…');
  });

  it('shows the top without a match and whole short texts as they are', () => {
    expect(snippet(lines.join('\n'), ['zzz'], 3)).toBe(
      'line 1\nline 2\nline 3\n…'
    );
    expect(snippet('one\ntwo\n\n', ['two'], 8)).toBe('one\ntwo');
  });

  it('keeps a full window when the match is near the end', () => {
    const cut = snippet(lines.join('\n'), ['line 30'], 4);
    expect(cut).toBe('…\nline 27\nline 28\nline 29\nline 30');
  });
});
