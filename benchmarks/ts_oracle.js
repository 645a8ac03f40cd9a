// Callers/callees of a TypeScript source tree, from the TypeScript compiler's own type checker.
const ts = require(process.env.TS || '/work/main/node_modules/typescript');
const fs = require('fs'), path = require('path');
const root = path.resolve(process.argv[2]);
function walk(d, out) {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) { if (!/node_modules|\.agent-brain/.test(e.name)) walk(p, out); }
    else if (/\.(ts|tsx|mts|cts)$/.test(e.name) && !/\.d\.ts$|\.spec\.ts$|\.test\.ts$/.test(e.name)) out.push(p);
  }
  return out;
}
const files = walk(root, []);
const program = ts.createProgram(files, { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Node10, noEmit: true, skipLibCheck: true, strict: false, jsx: ts.JsxEmit.React });
const checker = program.getTypeChecker();
const defs = [], byNode = new Map();
const line = (sf, pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
function named(node) {
  if ((ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node)) && node.name) return node.name.text;
  if ((ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) && node.name && ts.isIdentifier(node.name)) return node.name.text;
  if ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && ts.isVariableDeclaration(node.parent) && ts.isIdentifier(node.parent.name)) return node.parent.name.text;
  return null;
}
function visit(sf, node, prefix) {
  const name = named(node);
  let next = prefix;
  if (name) {
    const hasBody = ts.isClassDeclaration(node) || node.body;
    if (hasBody) {
      const q = prefix ? prefix + '.' + name : name;
      const outer = ts.isArrowFunction(node) || ts.isFunctionExpression(node) ? node.parent.parent.parent : node; // the statement
      const d = { id: defs.length, source: path.relative(root, sf.fileName).split(path.sep).join('/'), qualname: q, name,
        kind: ts.isClassDeclaration(node) ? 'class' : 'function', start: line(sf, outer.getStart(sf)), end: line(sf, outer.end), node };
      defs.push(d); byNode.set(node, d);
      if (node.parent && ts.isVariableDeclaration(node.parent)) byNode.set(node.parent, d);
      next = q;
    }
  }
  ts.forEachChild(node, c => visit(sf, c, next));
}
for (const sf of program.getSourceFiles()) if (files.includes(sf.fileName)) visit(sf, sf, '');
function target(expr) {
  let e = expr;
  if (ts.isPropertyAccessExpression(e)) e = e.name;
  let sym = checker.getSymbolAtLocation(e);
  if (!sym && expr.kind === ts.SyntaxKind.SuperKeyword) { const t = checker.getTypeAtLocation(expr); sym = t && t.symbol; }
  if (!sym) return null;
  if (sym.flags & ts.SymbolFlags.Alias) { try { sym = checker.getAliasedSymbol(sym); } catch (err) { return null; } }
  for (const decl of sym.declarations || []) { const d = byNode.get(decl); if (d) return d; }
  return null;
}
const calls = new Set();
for (const d of defs) {
  if (d.kind !== 'function') continue;
  const own = (node) => {
    if (node !== d.node && byNode.has(node) && byNode.get(node).kind === 'function' && byNode.get(node).node === node) return; // nested defs answer for their own calls
    if (ts.isClassDeclaration(node) && node !== d.node) return;
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      const t = target(node.expression);
      if (t && t !== d) calls.add(d.id + ',' + t.id);
    }
    ts.forEachChild(node, own);
  };
  ts.forEachChild(d.node, own);
}
process.stdout.write(JSON.stringify({ defs: defs.map(({ node, ...rest }) => rest), calls: [...calls].map(s => s.split(',').map(Number)) }));
