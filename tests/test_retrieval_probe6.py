"""Multi mode on a real index: classes of natural question whose answer ranked below the top 3 on two
packages nobody had tuned on (field probe 6: structlog, ajv) — a JavaScript function called through
``f.call(this, ...)`` or ``f.apply(this, args)`` not seen as called; an exception class whose own name
ends in ``Error`` taken as raising wherever it is imported or caught; a question asking what a thing is
not finding the page titled as that thing."""

from __future__ import annotations

from workspace_fixture import indexed_files, top10

from agent_brain_lab.engine.chunking.code import analyze_code

COMPILE = """import {CodeGen} from "./codegen"

export function compileSchema(this: Ajv, sch: SchemaEnv): SchemaEnv {
  const gen = new CodeGen(this.scope)
  emitValidate(gen, sch)
  return sch
}

function emitValidate(gen: CodeGen, sch: SchemaEnv): void {
  gen.code(sch.schema)
}
"""

CORE = """import {compileSchema} from "./compile"

export default class Ajv {
  private _compileSchemaEnv(sch: SchemaEnv): AnyValidateFunction {
    if (sch.meta) this._compileMetaSchema(sch)
    else compileSchema.call(this, sch)
    return sch.validate
  }

  private _compileMetaSchema(sch: SchemaEnv): void {
    const currentOpts = this.opts
    try {
      compileSchema.apply(this, [sch])
    } finally {
      this.opts = currentOpts
    }
  }
}
"""


def test_a_function_called_through_call_or_apply_is_called():
    text = "function f() { compileSchema.call(this, s); this.g.apply(this, a); const k = h.bind(null); a.b().call(x); }"
    relations = analyze_code("x.ts", text, "typescript", "code", 1500).relations
    calls = {r.target for r in relations if r.relation == "calls"}
    assert {"compileSchema", "this.g", "h.bind"} <= calls  # `bind` makes a function: it calls nothing
    assert not {"compileSchema.call", "this.g.apply", "h"} & calls
    # Python's `subprocess.call(...)` is a function named call, not a method every function has
    py = analyze_code("x.py", "def f():\n    subprocess.call(args)\n", "python", "code", 1500)
    assert {r.target for r in py.relations if r.relation == "calls"} == {"subprocess.call"}


def test_what_calls_a_function_called_through_call_finds_its_callers(tmp_path):
    brain = indexed_files(tmp_path, {"lib/compile.ts": COMPILE, "lib/core.ts": CORE})
    for mode in ("graph", "multi"):
        names = [r.symbol_name for r in top10(brain, "what calls compileSchema", mode)]
        assert set(names[:2]) == {"_compileSchemaEnv", "_compileMetaSchema"}, (mode, names)


REF_ERROR = """import {resolveUrl} from "./resolve"

export default class MissingRefError extends Error {
  readonly missingRef: string

  constructor(baseId: string, ref: string, msg?: string) {
    super(msg || `can't resolve reference ${ref} from id ${baseId}`)
    this.missingRef = resolveUrl(baseId, ref)
  }
}
"""

LOADER = """import MissingRefError from "./ref_error"
import ValidationError from "./validation_error"

export default class Loader {
  static ValidationError = ValidationError
  static MissingRefError = MissingRefError

  async compileAsync(sch: SchemaEnv): Promise<AnyValidateFunction> {
    try {
      return this._compileSchemaEnv(sch)
    } catch (e) {
      if (!(e instanceof MissingRefError)) throw e
      await this.loadMissingSchema(e.missingRef)
      return this.compileAsync(sch)
    }
  }
}
"""

REF_KEYWORD = """import MissingRefError from "../ref_error"

const def = {
  keyword: "$ref",
  code(cxt: KeywordCxt): void {
    const {schema: $ref, it} = cxt
    const schOrEnv = resolveRef(it.root, it.baseId, $ref)
    if (schOrEnv === undefined) throw new MissingRefError(it.baseId, $ref)
    return inlineRefSchema(schOrEnv)
  },
}

export default def
"""

DISCRIMINATOR = """import MissingRefError from "../ref_error"

const def = {
  keyword: "discriminator",
  code(cxt: KeywordCxt): void {
    const {schema, it} = cxt
    for (const ref of schema.oneOf) {
      const sch = resolveRef(it.root, it.baseId, ref.$ref)
      if (sch === undefined) throw new MissingRefError(it.baseId, ref.$ref)
    }
  },
}

export default def
"""

JTD_REF = """import MissingRefError from "../ref_error"

export function parseRef(cxt: ParseCxt): void {
  const {schema, definitions} = cxt
  const refSchema = definitions[schema.ref]
  if (!refSchema) throw new MissingRefError("", schema.ref, `No definition ${schema.ref}`)
  return parseCode(refSchema)
}
"""


def test_an_exception_class_is_thrown_where_it_is_constructed_with_the_message_it_makes(tmp_path):
    files = {
        "lib/ref_error.ts": REF_ERROR,
        "lib/loader.ts": LOADER,
        "lib/vocabularies/ref.ts": REF_KEYWORD,
        "lib/vocabularies/discriminator.ts": DISCRIMINATOR,
        "lib/jtd/parse.ts": JTD_REF,
    }
    brain = indexed_files(tmp_path, files)
    results = top10(brain, "MissingRefError: can't resolve reference #/definitions/address from id #")
    first = [(r.source, r.symbol_name) for r in results[:3]]
    # both keywords' `code` throw it with the message the class makes (two files' `def.code`: two sites),
    # ahead of the class; not the module importing it, nor the loader that catches and rethrows what it
    # caught, nor the parser throwing it with a message of its own
    assert set(first[:2]) == {("lib/vocabularies/ref.ts", "code"), ("lib/vocabularies/discriminator.ts", "code")}
    assert first[2][0] == "lib/ref_error.ts"


BOUND_LOGGERS_DOC = """# Bound Loggers

The centerpiece of *structlog* that you will interact with most.

It's what you get back from get_logger(), and you can *bind* key-value pairs to it. It consists of a
context dictionary, a list of processors and a wrapped logger.

## Context

The context is merged into each log entry.
"""

CONFIGURATION_DOC = """# Configuration

## Wrapper classes

What is a bound logger? A bound logger is an instance of the wrapper class: the bound logger you
get from get_logger is what the wrapper class makes. Each bound logger binds values to its context.

## Logger factories

The logger factory makes the logger a bound logger wraps.
"""

GETTING_STARTED_DOC = """# Getting Started

## Liked what you saw?

Now that you've seen a bound logger, a bound logger's context and a bound logger's processors, read
on about the bound logger and why a bound logger is what you log with.
"""

BOUND_LOGGER_CODE = '''
class BoundLogger:
    """A bound logger: binds values to a context and proxies log calls to a wrapped logger."""

    def bind(self, **new_values):
        return self.__class__(self._logger, self._processors, {**self._context, **new_values})
'''


def test_what_is_x_finds_the_page_titled_x(tmp_path):
    files = {
        "docs/bound-loggers.md": BOUND_LOGGERS_DOC,
        "docs/configuration.md": CONFIGURATION_DOC,
        "docs/getting-started.md": GETTING_STARTED_DOC,
        "src/structlog/_generic.py": BOUND_LOGGER_CODE,
    }
    brain = indexed_files(tmp_path, files)
    for query in ("what is a bound logger", "what are bound loggers"):
        first = top10(brain, query)[0]
        assert (first.source, first.start_line) == ("docs/bound-loggers.md", 1), query


ERRORS = """import {_, str, Name} from "./codegen"
import N from "./names"

export function reportError(cxt: KeywordErrorCxt, error: KeywordErrorDefinition): void {
  const {it} = cxt
  const errObj = errorObjectCode(cxt, error)
  addError(it.gen, errObj)
}

function errorObjectCode(cxt: KeywordErrorCxt, error: KeywordErrorDefinition): Code {
  const {createErrors} = cxt.it
  if (createErrors === false) return _`{}`
  return errorObject(cxt, error)
}

function errorObject(cxt: KeywordErrorCxt, error: KeywordErrorDefinition, errorPaths: ErrorPaths = {}): Code {
  const {gen, it} = cxt
  const keyValues: [Name, SafeExpr | string][] = [
    errorInstancePath(it, errorPaths),
    errorSchemaPath(cxt, errorPaths),
  ]
  extraErrorProps(cxt, error, keyValues)
  return gen.object(...keyValues)
}

function errorInstancePath({errorPath}: SchemaCxt, {instancePath}: ErrorPaths): [Name, Code] {
  const instPath = instancePath
    ? str`${errorPath}${getErrorPath(instancePath, Type.Str)}`
    : errorPath
  return [N.instancePath, strConcat(N.instancePath, instPath)]
}

function errorSchemaPath(
  {keyword, it: {errSchemaPath}}: KeywordErrorCxt,
  {schemaPath, parentSchema}: ErrorPaths
): [Name, Code] {
  let schPath = parentSchema ? errSchemaPath : str`${errSchemaPath}/${keyword}`
  if (schemaPath) {
    schPath = str`${schPath}${getErrorPath(schemaPath, Type.Str)}`
  }
  return [E.schemaPath, schPath]
}

function extraErrorProps(
  cxt: KeywordErrorCxt,
  {params, message}: KeywordErrorDefinition,
  keyValues: [Name, Code][]
): void {
  const {keyword, data, schemaValue, it} = cxt
  keyValues.push([E.keyword, keyword], [E.params, params ? params(cxt) : _`{}`])
  if (message) keyValues.push([E.message, message(cxt)])
}
"""


def test_a_function_the_question_names_with_the_parts_it_composes_comes_before_them(tmp_path):
    brain = indexed_files(tmp_path, {"lib/compile/errors.ts": ERRORS, "lib/compile/ref_error.ts": REF_ERROR})
    query = "how is a validation error object with instancePath and schemaPath built"
    names = [r.symbol_name for r in top10(brain, query)]
    # errorObject builds the object from errorInstancePath and errorSchemaPath, which say more of the words
    assert names.index("errorObject") < min(names.index("errorInstancePath"), names.index("errorSchemaPath")), names
