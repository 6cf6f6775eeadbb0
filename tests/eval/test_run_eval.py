"""Unit tests of the retrieval-evaluation runner: metric arithmetic and query-file formats.

Why: the dev-set figures steer ranking work, so the runner's maths must be right; these cases
are small enough to check by hand.
"""

import json
import math
import tempfile
import unittest
from pathlib import Path

import run_eval


class Metrics(unittest.TestCase):
    def test_ndcg_perfect_and_empty(self):
        grades = {"a": 2, "b": 1}
        self.assertAlmostEqual(run_eval.ndcg_at(["a", "b", "x"], grades), 1.0)
        self.assertEqual(run_eval.ndcg_at(["x", "y"], grades), 0.0)
        self.assertEqual(run_eval.ndcg_at(["a"], {}), 0.0)

    def test_ndcg_graded_order(self):
        grades = {"a": 2, "b": 1}
        # related first, answer second: (1/log2(2) + 3/log2(3)) / (3 + 1/log2(3))
        expected = (1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3))
        self.assertAlmostEqual(run_eval.ndcg_at(["b", "a"], grades), expected)
        self.assertLess(run_eval.ndcg_at(["b", "a"], grades), run_eval.ndcg_at(["a", "b"], grades))

    def test_ndcg_cut_at_k(self):
        ranked = [f"f{i}" for i in range(10)] + ["a"]
        self.assertEqual(run_eval.ndcg_at(ranked, {"a": 2}, 10), 0.0)

    def test_recall_counts_answers_only(self):
        self.assertEqual(run_eval.recall_at(["a", "x"], ["a", "b"], 5), 0.5)
        self.assertEqual(run_eval.recall_at(["x"] * 5 + ["a"], ["a"], 5), 0.0)
        self.assertEqual(run_eval.recall_at(["a"], [], 5), 0.0)

    def test_dedupe_keeps_first_rank(self):
        self.assertEqual(run_eval.dedupe(["a", "b", "a", "c", "b"]), ["a", "b", "c"])


class QueryFormats(unittest.TestCase):
    def load(self, lines):
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / "q.jsonl"
            p.write_text("\n".join(lines), encoding="utf-8")
            return run_eval.load_queries(p)

    def test_fixture_format(self):
        [q] = self.load(["// comment", json.dumps({"root": "r", "query": "注文", "relevant": ["./a.php"]})])
        self.assertEqual(q.grades, {"a.php": 2})
        self.assertEqual(q.lang, "ja")
        self.assertEqual(q.answers, ["a.php"])

    def test_graded_format(self):
        [q] = self.load([json.dumps({"root": "r", "query": "orders", "lang": "en",
                                     "relevant": ["a"], "related": ["b", "a"]})])
        self.assertEqual(q.grades, {"a": 2, "b": 1})
        self.assertEqual(q.answers, ["a"])

    def test_object_and_map_formats(self):
        a, b = self.load([
            json.dumps({"root": "r", "query": "x", "relevant": [{"path": "a", "grade": 1}]}),
            json.dumps({"root": "r", "query": "x", "relevant": {"a": 2, "b": 1}}),
        ])
        self.assertEqual(a.answers, ["a"])
        self.assertEqual(b.grades, {"a": 2, "b": 1})

    def test_query_words(self):
        self.assertEqual(run_eval.query_words("Where is the password reset email sent"),
                         ["password", "reset", "email", "sent"])
        self.assertEqual(run_eval.query_words("UserController の認証チェック"),
                         ["UserController", "の認証チェック"])


if __name__ == "__main__":
    unittest.main()
