// JSDoc/TSDoc removal with the TypeScript compiler: `node ts_docstrip.js ROOT OUT` reads every
// .ts/.tsx/.js/.mjs/.cjs file under ROOT (no .d.ts, tests or node_modules), writes a copy under OUT
// with every `/** ... */` comment blanked (spaces, newlines kept: line numbers unchanged), and
// prints {"files": n, "docs": [{source, qualname, start, end, doc}]}: each documented function,
// method, constructor, accessor, variable holding a function (or a factory call's result), class
// field holding a function, and class, with the
// comment text of its JSDoc (the compiler's own parse: tags are not part of it) or, when that is
// empty, its @summary / @description tag. An overloaded function's span runs from its first
// signature to its last (the implementation).
const ts = require(process.env.TS || '/work/main/node_modules/typescript');
const fs = require('fs'), path = require('path');
const root = path.resolve(process.argv[2]), out = path.resolve(process.argv[3]);
const SOURCE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/, SKIP = /\.d\.[mc]?ts$|\.(spec|test)\.[jt]sx?$|\.min\.js$/;
function walk(d, acc) {
  for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) { if (!/^(node_modules|\.agent-brain|__tests__)$/.test(e.name)) walk(p, acc); }
    else if (e.isFile() && SOURCE.test(e.name) && !SKIP.test(e.name)) acc.push(p);
  }
  return acc;
}
const kindOf = (p) => (/\.tsx$/.test(p) ? ts.ScriptKind.TSX : /\.[mc]?ts$/.test(p) ? ts.ScriptKind.TS : /\.jsx$/.test(p) ? ts.ScriptKind.JSX : ts.ScriptKind.JS);

function jsDocComments(sf) {
  // every comment in trivia position (leading/trailing comment ranges of every token and node)
  const text = sf.text, seen = new Map();
  const add = (ranges) => { for (const r of ranges || []) if (r.kind === ts.SyntaxKind.MultiLineCommentTrivia && text.startsWith('/**', r.pos) && r.end - r.pos >= 5) seen.set(r.pos, r.end); };
  const visit = (node) => {
    add(ts.getLeadingCommentRanges(text, node.pos));
    add(ts.getTrailingCommentRanges(text, node.end));
    // tokens are not children in the AST: scan the node's own trivia between its children too
    let last = node.pos;
    node.getChildren(sf).forEach((c) => { add(ts.getLeadingCommentRanges(text, c.pos)); last = c.end; visit(c); });
    add(ts.getLeadingCommentRanges(text, last));
  };
  visit(sf);
  return [...seen.entries()].sort((a, b) => a[0] - b[0]);
}

function blank(text, ranges) {
  let outText = '', at = 0;
  for (const [pos, end] of ranges) {
    outText += text.slice(at, pos) + text.slice(pos, end).replace(/[^\r\n]/g, ' ');
    at = end;
  }
  return outText + text.slice(at);
}

const commentText = (c) => (c === undefined ? '' : typeof c === 'string' ? c : ts.getTextOfJSDocComment(c) || '');
function docOf(node) {
  const docs = (node.jsDoc || []).filter((d) => d.kind === ts.SyntaxKind.JSDoc);
  if (!docs.length) return '';
  const d = docs[docs.length - 1]; // the block closest to the declaration
  let body = commentText(d.comment).trim();
  if (!body) {
    for (const name of ['summary', 'description']) {
      const tag = (d.tags || []).find((t) => t.tagName && t.tagName.text === name);
      if (tag && commentText(tag.comment).trim()) { body = commentText(tag.comment).trim(); break; }
    }
  }
  return body;
}

function nameOf(node) {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name && (ts.isIdentifier(node.name) || ts.isPrivateIdentifier(node.name) || ts.isStringLiteral(node.name))) return node.name.text;
  return null;
}
const FUNCTION_VALUE = (e) => e && (ts.isArrowFunction(e) || ts.isFunctionExpression(e) || ts.isClassExpression(e));
// `var always = _curry1(function always(val) {...})`, `var camelCase = createCompounder(...)`: made by a factory
const MADE_VALUE = (e) => FUNCTION_VALUE(e) || (e && ts.isCallExpression(e));

const docs = [];
let files = 0;
const line = (sf, pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
for (const file of walk(root, [])) {
  const rel = path.relative(root, file).split(path.sep).join('/');
  const text = fs.readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kindOf(file));
  if (sf.parseDiagnostics && sf.parseDiagnostics.length) continue; // not stripped reliably: left out
  files += 1;
  const found = []; // {key, node (the statement), name, qualname, doc}
  const visit = (node, prefix) => {
    let name = null, owner = node, value = null;
    if (ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node) || ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) {
      name = nameOf(node);
    } else if (ts.isVariableStatement(node) && node.declarationList.declarations.length === 1) {
      const decl = node.declarationList.declarations[0];
      if (ts.isIdentifier(decl.name) && MADE_VALUE(decl.initializer)) { name = decl.name.text; value = decl.initializer; }
    } else if (ts.isPropertyDeclaration(node) && FUNCTION_VALUE(node.initializer)) {
      name = nameOf(node); value = node.initializer;
    }
    let next = prefix;
    if (name) {
      const qualname = prefix ? `${prefix}.${name}` : name;
      const doc = docOf(owner);
      const overloadable = ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node);
      found.push({ key: overloadable ? `${prefix}\0${name}\0${node.parent.pos}` : null, node, qualname, doc });
      next = qualname;
    }
    ts.forEachChild(value || node, (c) => visit(c, next));
  };
  visit(sf, '');
  const groups = new Map();
  for (const f of found) if (f.key) { const g = groups.get(f.key) || []; g.push(f); groups.set(f.key, g); }
  for (const f of found) {
    if (!f.doc) continue;
    const group = f.key ? groups.get(f.key) : [f];
    const start = Math.min(...group.map((g) => line(sf, g.node.getStart(sf))));
    const end = Math.max(...group.map((g) => line(sf, g.node.end)));
    docs.push({ source: rel, qualname: f.qualname, start, end, doc: f.doc });
  }
  const target = path.join(out, rel);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, blank(text, jsDocComments(sf)));
}
process.stdout.write(JSON.stringify({ files, docs }));
