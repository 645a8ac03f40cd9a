"""What the code graph resolves, on small real files indexed by the engine: nested and factory-made
functions as entities, `new X()` and `super(...)` as calls of X, method calls told apart by the
receiver types the file writes, imports of every suffix the workspace indexes."""

from __future__ import annotations

import pytest
from workspace_fixture import indexed_files

from agent_brain_lab import Brain
from agent_brain_lab.engine.store.graph import CodeGraph

FILES = {
    # TypeScript: two classes define `next`; the receiver's written type picks one
    "ts/subscriber.ts": "export class Subscriber {\n  next(value: number) {}\n}\n",
    "ts/subject.ts": "export class Subject {\n  next(value: number) {}\n}\n",
    "ts/operate.ts": """import { Subscriber } from './subscriber';
import { Subject } from './subject';

export class Base {
  constructor(n: number) {}
}

export class Operator extends Base {
  protected destination: Subscriber;

  constructor(private sink: Subject) {
    super(1);
  }

  pipe(subscriber: Subscriber) {
    subscriber.next(1);
  }

  forward() {
    this.destination.next(2);
  }

  drain() {
    this.sink.next(3);
  }

  guess(anything) {
    anything.next(4);
  }
}

export const shared = new Subject();

export function make(): Operator {
  return new Operator(new Subject());
}

export function retry(count: number) {
  const subscribeForRetry = () => {
    make();
  };
  subscribeForRetry();
}
""",
    "ts/esm.mts": "import { helper } from './util';\nexport const x = helper();\n",
    "ts/util.mts": "export function helper() { return 1; }\n",
    # JavaScript: functions made by a factory, lodash style
    "js/base.js": """function createBaseFor(fromRight) {
  return function(object) {
    return fromRight ? object : null;
  };
}

var baseForRight = createBaseFor(true);

function debounce(func) {
  function leadingEdge(time) {
    return func(time);
  }
  return leadingEdge(0);
}

function forOwnRight(object) {
  return baseForRight(object);
}
""",
    # Python: inner functions, super(), annotated parameters
    "py/models.py": """class Base:
    def save(self):
        return 1


class Child(Base):
    def save(self):
        def audit():
            return record()

        audit()
        return super().save()


def record():
    return 0
""",
    "py/other.py": """class Store:
    def save(self):
        return 2


def persist(store: Store):
    return store.save()
""",
    # a name defined in two files: the one the caller's file imports
    "py/fast.py": "def combine(a, b):\n    return a + b\n",
    "py/slow.py": "def combine(a, b):\n    return sum([a, b])\n",
    "py/user.py": "from .slow import combine\n\n\ndef run():\n    return combine(1, 2)\n",
    "ts/fast.ts": "export function combine(a: number) { return a; }\n",
    "ts/slow.ts": "export function combine(a: number) { return a + 0; }\n",
    "ts/user.ts": "import { combine } from './slow';\n\nexport function run() {\n  return combine(1);\n}\n",
    # a function named by a common word
    "py/mapping.py": """def values(mapping):
    return list(mapping.values())


def totals(mapping):
    return sum(values(mapping))
""",
    # Java, Go, Rust, C#, Kotlin, Swift: a typed parameter or local picks the class
    "java/Shapes.java": """class Shape {
    Shape() {}
    void draw() {}
}

class Circle extends Shape {
    Circle() {
        super();
    }

    void paint(Shape target) {
        target.draw();
    }
}

class Canvas {
    void draw() {}
}
""",
    # Kotlin and Swift halves of one app: each language's classes extend and call their own
    "android/FilePath.kt": """abstract class FilePath(var uri: String) {
  abstract fun validateType()

  fun copy(to: FilePath) {
    validateType()
  }
}
""",
    "android/FileEntry.kt": "class FileEntry(uri: String) : FilePath(uri)\n",
    "ios/FilePath.swift": """class FilePath {
  func validateType() throws {}

  func copy(to destination: FilePath) throws {
    try validateType()
  }
}
""",
    "ios/FileEntry.swift": "final class FileEntry: FilePath {}\n",
    # Python: an optional's type is its value's; a mapping from outside calls none of the workspace's `items`
    "py/ctx.py": """import typing as t


class Context:
    def get_all(self):
        return {}


class Cache:
    def items(self):
        return []


def template_locals(real: t.Mapping[str, t.Any], ctx: t.Optional[Context]):
    data = ctx.get_all()
    return data, list(real.items())
""",
    # C#: an extension method of an outside type likewise
    "cs/Strings.cs": """static class StringExtensions {
    public static bool IsBlank(this string s) { return s.Length == 0; }
}

class Form {
    bool Check(string name) { return name.IsBlank(); }
}
""",
    # Kotlin: an extension function of an outside type is that type's method, and calls on it find it
    "android/Uris.kt": """fun Uri.isSAFUri(context: Context): Boolean = scheme == "content"

class Reader {
  fun open(uri: Uri, context: Context) {
    if (uri.isSAFUri(context)) {
      uri.normalizeScheme()
    }
  }
}
""",
    # Java: one class of the workspace defines getInputStream; a call of it on a receiver of a type from
    # outside (HttpURLConnection) is that type's method, one on `this` or on a workspace type is its own
    "java/Files.java": """class Files {
    InputStream getInputStream(String path) { return null; }

    byte[] readFile(String path) {
        return getInputStream(path).readAllBytes();
    }
}

class Uploader {
    void upload(Files files) {
        HttpURLConnection connection = open();
        connection.getInputStream();
    }

    void copy(Files files) {
        files.getInputStream("a");
    }
}
""",
    "go/cart.go": """package cart

type Cart struct{}

func (c *Cart) Add() {}

type Bag struct{}

func (b *Bag) Add() {}

func Fill(c *Cart) {
	c.Add()
}
""",
    "rust/cart.rs": """struct Cart;
impl Cart {
    fn add(&self) {}
}

struct Bag;
impl Bag {
    fn add(&self) {}
    fn fill(&self, cart: &Cart) {
        cart.add();
    }
}
""",
    "cs/Cart.cs": """class Cart { public void Add() {} }
class Bag {
    public void Add() {}
    void Fill(Cart cart) { cart.Add(); }
}
""",
    "kt/Cart.kt": """class Cart { fun add() {} }
class Bag {
    fun add() {}
    fun fill(cart: Cart) { cart.add() }
}
""",
    "js/response.js": """'use strict';
var res = Object.create(http.ServerResponse.prototype);

/**
 * Set the status code.
 */
res.status = function status(code) {
  this.statusCode = code;
  return this;
};

res.send = function send(body) {
  this.status(200);
  return this.end(body);
};

function Router() {
  this.stack = [];
  this.reset = function () {
    this.stack = [];
  };
}

Router.prototype.handle = function handle(req, res) {
  res.send(req.url);
};

exports.json = (obj) => res.send(JSON.stringify(obj));
a[0] = function () {};
""",
    # ramda: a named function a factory wraps is its variable's function
    "js/tap.js": """function _curry2(fn) {
  return fn;
}

var tap = _curry2(function tap(fn, x) {
  fn(x);
  return x;
});
module.exports = tap;
""",
    "swift/Cart.swift": """class Cart { func add() {} }
class Bag {
    func add() {}
    func fill(cart: Cart) { cart.add() }
}
""",
}


@pytest.fixture(scope="module")
def brain(tmp_path_factory) -> Brain:
    return indexed_files(tmp_path_factory.mktemp("resolution"), FILES)


@pytest.fixture(scope="module")
def graph(brain) -> CodeGraph:
    graph = brain._reader.view().snapshot.graph
    assert graph is not None
    return graph


def calls(graph: CodeGraph, node: str) -> set[str]:
    return {e.target for e in graph.out_edges(node) if e.relation == "calls"}


@pytest.mark.parametrize(
    "caller, callee",
    [
        ("ts/operate.ts::Operator.pipe", "ts/subscriber.ts::Subscriber.next"),  # parameter annotation
        ("ts/operate.ts::Operator.forward", "ts/subscriber.ts::Subscriber.next"),  # field annotation
        ("ts/operate.ts::Operator.drain", "ts/subject.ts::Subject.next"),  # constructor parameter property
        ("py/other.py::persist", "py/other.py::Store.save"),
        ("java/Shapes.java::Circle.paint", "java/Shapes.java::Shape.draw"),
        ("go/cart.go::Fill", "go/cart.go::Cart.Add"),
        ("rust/cart.rs::Bag.fill", "rust/cart.rs::Cart.add"),
        ("cs/Cart.cs::Bag.Fill", "cs/Cart.cs::Cart.Add"),
        ("kt/Cart.kt::Bag.fill", "kt/Cart.kt::Cart.add"),
        ("swift/Cart.swift::Bag.fill", "swift/Cart.swift::Cart.add"),
        ("py/user.py::run", "py/slow.py::combine"),  # the file imports .slow
        ("ts/user.ts::run", "ts/slow.ts::combine"),  # the file imports ./slow
    ],
)
def test_what_the_file_writes_picks_among_same_named_entities(graph, caller, callee):
    found = calls(graph, caller)
    assert callee in found
    same_named = {n for n in found if n.rpartition(".")[2] == callee.rpartition(".")[2]}
    assert same_named == {callee}  # and not the other class's method of the same name


def test_a_receiver_of_a_type_from_outside_the_workspace_calls_none_of_its_methods(graph):
    """`connection.getInputStream()` with `HttpURLConnection connection` is not a call of the workspace's
    one `getInputStream`; `files.getInputStream(...)` with `Files files`, and the bare call, are."""
    assert "java/Files.java::Files.getInputStream" not in calls(graph, "java/Files.java::Uploader.upload")
    assert "java/Files.java::Files.getInputStream" in calls(graph, "java/Files.java::Uploader.copy")
    assert "java/Files.java::Files.getInputStream" in calls(graph, "java/Files.java::Files.readFile")


def test_an_optional_receiver_has_its_values_type_and_an_outside_mapping_none_of_ours(graph):
    """`ctx: t.Optional[Context]` types `ctx` as Context (`ctx.get_all()` calls Context.get_all);
    `real: t.Mapping[...]` is a type from outside, so `real.items()` is not the workspace's `Cache.items`."""
    found = calls(graph, "py/ctx.py::template_locals")
    assert "py/ctx.py::Context.get_all" in found
    assert "py/ctx.py::Cache.items" not in found


def test_a_file_extends_and_calls_the_entities_of_its_own_language(graph):
    """An app's Kotlin and Swift halves define the same names: each half's subclass extends its own
    language's base (not an outside entity: the name is not ambiguous within the language), and a
    call of a name only the other language defines with a body is no call."""

    def bases(node: str) -> set[str]:
        return {e.target for e in graph.out_edges(node) if e.relation == "extends"}

    assert bases("android/FileEntry.kt::FileEntry") == {"android/FilePath.kt::FilePath"}
    assert bases("ios/FileEntry.swift::FileEntry") == {"ios/FilePath.swift::FilePath"}
    assert not {n for n in calls(graph, "android/FilePath.kt::FilePath.copy") if n.startswith("ios/")}
    assert "ios/FilePath.swift::FilePath.validateType" in calls(graph, "ios/FilePath.swift::FilePath.copy")


def test_an_extension_function_is_a_method_of_its_receiver_type(graph):
    """Kotlin's `fun Uri.isSAFUri(…)` is the entity `Uri.isSAFUri`, C#'s `IsBlank(this string s)` in a
    static class is `StringExtensions.string.IsBlank`, and a call on a receiver of that type (`uri:
    Uri`, `string name`) calls it, though the type is from outside the workspace."""
    assert "android/Uris.kt::Uri.isSAFUri" in calls(graph, "android/Uris.kt::Reader.open")
    assert "cs/Strings.cs::StringExtensions.string.IsBlank" in calls(graph, "cs/Strings.cs::Form.Check")


def test_an_untyped_receiver_across_files_stays_unresolved(graph):
    assert not {n for n in calls(graph, "ts/operate.ts::Operator.guess") if n.endswith(".next")}


@pytest.mark.parametrize(
    "caller, callee",
    [
        ("ts/operate.ts::Operator.constructor", "ts/operate.ts::Base"),  # super(1)
        ("java/Shapes.java::Circle.Circle", "java/Shapes.java::Shape"),  # super()
        ("py/models.py::Child.save", "py/models.py::Base"),  # super()
        ("py/models.py::Child.save", "py/models.py::Base.save"),  # super().save(): the base's method
        ("ts/operate.ts::make", "ts/operate.ts::Operator"),  # new Operator(...)
        ("ts/operate.ts::make", "ts/subject.ts::Subject"),  # new Subject()
    ],
)
def test_super_and_new_are_calls_of_the_class(graph, caller, callee):
    assert callee in calls(graph, caller)


@pytest.mark.parametrize(
    "entity, kind, caller, own_call",
    [
        ("ts/operate.ts::retry.subscribeForRetry", "function", "ts/operate.ts::retry", "ts/operate.ts::make"),
        ("js/base.js::debounce.leadingEdge", "function", "js/base.js::debounce", None),
        ("js/base.js::baseForRight", "function", "js/base.js::forOwnRight", "js/base.js::createBaseFor"),
        ("py/models.py::Child.save.audit", "function", "py/models.py::Child.save", "py/models.py::record"),
    ],
)
def test_nested_and_factory_made_functions_are_entities(graph, entity, kind, caller, own_call):
    data = graph.attrs(entity)
    assert data["kind"] == kind and data["chunk_id"]
    assert entity in calls(graph, caller)
    if own_call:  # the calls inside it are its own, not its encloser's
        assert own_call in calls(graph, entity)


@pytest.mark.parametrize(
    "entity, kind, lines",
    [
        ("js/response.js::res.status", "method", (4, 10)),  # its doc comment with it
        ("js/response.js::res.send", "method", (12, 15)),
        ("js/response.js::Router.handle", "method", (24, 26)),  # the prototype left out
        # `this.reset = ...` in a constructor function: nested in it, found in its chunk
        ("js/response.js::Router.reset", "function", (17, 22)),
        ("js/response.js::json", "function", (28, 28)),  # `exports.json`: the module's own
    ],
)
def test_functions_assigned_to_members_are_methods_of_their_object(brain, graph, entity, kind, lines):
    data = graph.attrs(entity)
    assert data["kind"] == kind and data["chunk_id"]
    view = brain._reader.view()
    keys = view.catalog.keys_of_chunk_ids(view.snapshot.gen, [data["chunk_id"]])
    chunk = view.catalog.chunks_by_key(list(keys.values()))
    assert [(c.start_line, c.end_line) for c in chunk.values()] == [lines]


def test_a_function_a_factory_wraps_is_an_entity_with_its_chunk(brain, graph):
    data = graph.attrs("js/tap.js::tap")
    assert (data["kind"], data["start_line"], data["end_line"]) == ("function", 5, 8)
    view = brain._reader.view()
    keys = view.catalog.keys_of_chunk_ids(view.snapshot.gen, [data["chunk_id"]])
    chunk = next(iter(view.catalog.chunks_by_key(list(keys.values())).values()))
    assert (chunk.start_line, chunk.end_line, chunk.symbol_name) == (5, 8, "tap")
    assert "js/tap.js::_curry2" in calls(graph, "js/tap.js::tap")  # the factory's call is the function's


def test_what_calls_a_member_assigned_function(brain, graph):
    assert "js/response.js::res.send" in calls(graph, "js/response.js::Router.handle")
    assert "js/response.js::res.status" in calls(graph, "js/response.js::res.send")
    response = brain.query("what calls res.send", mode="graph", top_k=5)
    assert response.fallback is None
    assert {r.qualified_symbol for r in response.results[:2]} == {"Router.handle", "json"}
    assert not graph.lookup("a")  # `a[0] = function () {}` names nothing


def test_an_object_made_with_new_is_not_a_function(graph):
    assert graph.lookup("x") == ["ts/esm.mts::x"]  # `const x = helper()`: made by a call
    assert graph.lookup("shared") == []  # `const shared = new Subject()`: an object


def test_imports_resolve_to_every_code_suffix_the_workspace_indexes(graph):
    assert "ts/util.mts" in {e.target for e in graph.out_edges("ts/esm.mts") if e.relation == "imports"}


def test_what_calls_a_closure_answers_with_its_encloser(brain):
    response = brain.query("what calls subscribeForRetry", mode="graph", top_k=5)
    assert response.fallback is None
    first = response.results[0]
    assert first.source == "ts/operate.ts" and "subscribeForRetry();" in first.text


@pytest.mark.parametrize(
    "query",
    [
        "what calls `values`",
        "what calls values()",
        "callers of function values",
        "what calls values",
        "callers of values",
    ],
)
def test_a_common_word_written_as_code_is_an_entity(brain, query):
    response = brain.query(query, mode="graph", top_k=5)
    assert response.fallback is None and "values" in response.query_entities
    assert response.results[0].source == "py/mapping.py" and "sum(values(mapping))" in response.results[0].text


@pytest.mark.parametrize("query", ["how are values stored in a mapping", "return the values of the mapping"])
def test_a_common_word_in_prose_is_not(brain, query):
    assert "values" not in brain.query(query, mode="multi", top_k=5).query_entities
