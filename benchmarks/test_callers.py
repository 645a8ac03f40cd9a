"""The caller questions: ground truth from ast, only unambiguous names."""

from benchmarks.callers import caller_questions

SOURCE_A = '''
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
'''
SOURCE_B = '''
from a import load_config


def save(thing):
    return load_config(thing)


class Writer:
    def save(self):
        save(self)
'''


def test_callers_come_from_the_code_and_skip_ambiguous_names(tmp_path):
    (tmp_path / "a.py").write_text(SOURCE_A)
    (tmp_path / "b.py").write_text(SOURCE_B)
    (tmp_path / "broken.py").write_text("def (:\n")
    questions = {q: {(t.source, t.qualname, t.start_line, t.end_line) for t in callers}
                 for q, callers in caller_questions(tmp_path)}
    by_name = {next(w for w in ("load_config", "parse_text", "store_items", "save") if w in q): answers
               for q, answers in questions.items()}
    assert set(by_name) == {"load_config", "parse_text", "store_items"}  # "save" is defined three times
    assert by_name["load_config"] == {("a.py", "Loader.refresh", 11, 17), ("b.py", "save", 5, 6)}
    # the nested function answers for its own call, its enclosing method does not
    assert by_name["parse_text"] == {("a.py", "load_config", 2, 3), ("a.py", "Loader.refresh.inner", 15, 16)}
    assert by_name["store_items"] == {("a.py", "Loader.refresh", 11, 17)}
