"""Files into chunks: code by its syntax tree, documents by their sections, notebooks by their cells."""

# What the chunkers make of a file: bump it with every change to chunk bounds or to the symbol,
# section or doc fields they fill. An index recorded under another version is re-chunked whole
# by its next run (every chunk text it already embedded comes from the embedding cache), so an
# upgrade never leaves unchanged files with the old chunks next to edited files with the new.
# 2: JavaScript member-assigned functions as methods, doc comments across a blank line.
# 3: C/C++ headers behind a split `extern "C"` guard parse; parts begin at declarations inside
#    preprocessor conditionals; anonymous typedef'd structs and enums take the typedef's name.
#    A file whose root the grammar makes an ERROR node around whole functions is chunked by them.
#    C# destructors and operators are methods; a file-scoped `namespace X;` holds the declarations after it.
#    A file the grammar cannot parse whole is parsed by top-level sections.
#    A statement longer than a chunk is cut at the statements inside it; calls on receivers of outside
#    types are no calls of same-named workspace methods (the graph's edges are re-resolved with the chunks);
#    Kotlin extension functions and C# extension methods are named after the type they extend.
# 4: scripts without a suffix are read by their #! line; C# properties whose accessors run
#    code are methods of their class.
# 5: a function a factory call is given is its variable's chunk; a C/C++ macro alone on its line
#    reads as a blank; a notebook's headings make one outline across its cells.
# 6: JavaScript/TypeScript `f.call(this, x)` and `f.apply(this, args)` are calls of `f` in the graph.
# 7: Rust items under `#[cfg(test)]`/`#[test]` (and what they hold) are chunks of source type `test`.
# 8: Rust `#[derive(...)]` traits are `implements` relations of the type.
# 9: Ruby `include`/`extend`/`prepend M` and PHP `use SomeTrait;` in a class are `extends` relations.
# 10: a unit too long for one chunk, cut by lines, fills a small part before it first (a signature
#     above a long docstring is no chunk of its own).
CHUNKER_VERSION = 10
