"""The relation questions: answers from ast, only names that can mean one thing."""

from benchmarks.relations import relation_questions

SOURCE_A = """
def load_config(path):
    return parse_text(open(path).read())


def parse_text(text):
    return text.split()


class Loader:
    def refresh(self):
        data = load_config("x")
        self.store_items(data)

        def inner():
            return parse_text("nested")
        return inner

    def store_items(self, items):
        return items

    def save(self):
        pass
"""
SOURCE_B = """
from pkg.a import load_config


def save(thing):
    return load_config(thing)


class Writer(Loader):
    def save(self):
        save(self)


class Printer(pkg.a.Loader):
    pass
"""


def _answers(questions, names):
    out = {}
    for query, answers in questions:
        name = next(n for n in names if n in query)
        out[name] = {(t.source, t.qualname, t.start_line, t.end_line) for t in answers}
    return out


def test_relation_answers_come_from_the_code_and_skip_ambiguous_names(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text(SOURCE_A)
    (pkg / "b.py").write_text(SOURCE_B)
    (pkg / "broken.py").write_text("def (:\n")
    questions = relation_questions(tmp_path)

    callers = _answers(questions["callers"], ("load_config", "parse_text", "store_items", "save"))
    assert set(callers) == {"load_config", "parse_text", "store_items"}  # "save" is defined three times
    assert callers["load_config"] == {("pkg/a.py", "Loader.refresh", 11, 17), ("pkg/b.py", "save", 5, 6)}
    # the nested function answers for its own call, its enclosing method does not
    assert callers["parse_text"] == {("pkg/a.py", "load_config", 2, 3), ("pkg/a.py", "Loader.refresh.inner", 15, 16)}

    subclasses = _answers(questions["subclasses"], ("Loader",))
    assert subclasses["Loader"] == {("pkg/b.py", "Writer", 9, 11), ("pkg/b.py", "Printer", 14, 15)}

    importers = _answers(questions["importers"], ("pkg.a",))
    assert importers == {"pkg.a": {("pkg/b.py", "", 1, 15)}}  # the importing module, any part of it
