"""The quality report: sets without questions say so, the summary compares multi with the best other mode."""

import importlib.util

import pytest

from benchmarks.codesearch import import_roots
from benchmarks.report import _quality


def _scores(ndcg):
    return {"ndcg": ndcg, "mrr": ndcg, "recall": ndcg, "queries": 3, "strict": {"ndcg": ndcg}, "fallbacks": 0}


def test_a_set_without_questions_says_no_questions_and_the_summary_ranks_multi():
    engine = {"hybrid": _scores(0.6), "graph": _scores(0.9), "multi": _scores(0.95)}
    results = {
        "k": 10,
        "limit": None,
        "seed": 0,
        "sets": {
            "pkg 1.0": {
                "files": 2,
                "index": {"chunks": 9},
                "held_out": True,
                "callers": {"queries": 3, "engine": engine, "peers": {}},
                "subclasses": {"queries": 0},
            }
        },
    }
    text = "\n".join(_quality(results))
    assert "### pkg 1.0 (held out): subclasses of X\n\nno questions" in text
    assert "| pkg 1.0 | yes | what calls X | 0.950 | graph 0.900 | +0.050 |" in text
    assert "| pkg 1.0 | yes | subclasses of X | no questions |" in text
    assert "0.000" not in text


@pytest.mark.skipif(importlib.util.find_spec("attr") is None, reason="attrs is not installed")
def test_a_distribution_name_means_the_packages_it_installs():
    assert "attr" in import_roots("attrs")  # the code of attrs lives in attr
    assert list(import_roots("attr")) == ["attr"]  # an import name is itself
