#!/usr/bin/env python3
"""Retrieval evaluation: NDCG@10 and Recall@5 of a code-search command over query files.

Why this exists: semantic search is judged on real repositories and requests we never
see, so we keep our own dev set of real public repositories (tests/eval/real/) next to the fixture
queries, and one runner that scores any search engine on both the same way.

Query files are JSON lines (lines starting with `//` are comments):
  root      project root: an absolute path, a name under --repos-dir, or a path relative to the
            query file's directory or one of its ancestors (the fixture convention)
  query     the request, English or Japanese
  lang      "en" or "ja" (detected from the text when absent)
  relevant  files (relative to root) that answer the request: relevance 2
            (also accepted: a list of {"path": ..., "grade": ...} objects, or a {path: grade} map)
  related   optional files that are related but not the answer: relevance 1
  symbols   optional {path: [symbol, ...]}: where in the file the answer is (informational)

Engines:
  rg        built-in keyword baseline: split the query into words (Unicode word runs, stop words
            dropped), count the lines of each file that match any of them (one ripgrep call,
            case-insensitive, fixed strings), rank files by that count
  rg-distinct  a stronger keyword baseline: rank files by how many distinct query words they
            contain, then by matching lines (one ripgrep call per word)
  cmd       any command printing one JSON object per line with at least `path` (best first);
            default `code-intel search {query} --root {root} --top 10 --json`

Scores are computed on the de-duplicated file ranking (the first rank of each file counts).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shlex
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

DEFAULT_CMD = "code-intel search {query} --root {root} --top 10 --json"
DEFAULT_REPOS_DIR = os.environ.get("EVAL_REPOS", "/tmp/eval-repos")

# Words too common in requests to say anything about where code lives.
STOP_WORDS = set(
    """a an the and or of to in on at for from by with without into is are was were be been
    do does did how what where which who when why whose this that these those it its there
    i we you my our your me us can could should would will shall may might must not no
    all any some each every get gets set sets use used uses using find show shows list
    code file files function functions method class handled handle handles happen happens
    done make made does is are""".split()
)

JA_CHARS = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]")


def detect_lang(text: str) -> str:
    return "ja" if JA_CHARS.search(text) else "en"


# --------------------------------------------------------------------------- queries


class Query:
    def __init__(self, obj: dict, source: Path, line: int):
        self.source = source
        self.line = line
        self.id = obj.get("id") or f"{source.name}:{line}"
        self.root = obj["root"]
        self.query = obj["query"]
        self.lang = obj.get("lang") or detect_lang(self.query)
        self.kind = obj.get("kind", "")
        self.grades: dict[str, int] = {}
        rel = obj.get("relevant", [])
        if isinstance(rel, dict):
            for path, grade in rel.items():
                self.grades[norm(path)] = int(grade)
        else:
            for item in rel:
                if isinstance(item, str):
                    self.grades[norm(item)] = 2
                else:
                    self.grades[norm(item["path"])] = int(item.get("grade", 2))
        for path in obj.get("related", []):
            self.grades.setdefault(norm(path), 1)
        self.symbols = obj.get("symbols", {})

    @property
    def answers(self) -> list[str]:
        """Files with the highest grade present: what Recall@5 counts."""
        if not self.grades:
            return []
        top = max(self.grades.values())
        return [p for p, g in self.grades.items() if g == top]


def norm(path: str) -> str:
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def load_queries(path: Path) -> list[Query]:
    out = []
    with path.open(encoding="utf-8") as fh:
        for i, line in enumerate(fh, 1):
            line = line.strip()
            if not line or line.startswith("//"):
                continue
            try:
                out.append(Query(json.loads(line), path, i))
            except (ValueError, KeyError) as exc:
                raise SystemExit(f"{path}:{i}: bad query line: {exc}")
    return out


def resolve_root(q: Query, repos_dir: Path) -> Path | None:
    root = Path(q.root)
    if root.is_absolute():
        return root if root.is_dir() else None
    candidate = repos_dir / root
    if candidate.is_dir():
        return candidate
    for d in [q.source.parent.resolve(), *q.source.parent.resolve().parents]:
        candidate = d / root
        if candidate.is_dir():
            return candidate
    return None


# --------------------------------------------------------------------------- engines


def query_words(text: str, keep_stop_words: bool = False) -> list[str]:
    """Words of a request as a keyword searcher would take them (Unicode word runs)."""
    seen, words = set(), []
    for w in re.findall(r"\w+", text):
        lw = w.lower()
        if len(lw) < 2 or (lw in STOP_WORDS and not keep_stop_words) or lw in seen:
            continue
        seen.add(lw)
        words.append(w)
    return words


def rg_lines_search(query: str, root: Path, top: int, keep_stop_words: bool = False) -> list[str]:
    words = query_words(query, keep_stop_words)
    if not words:
        return []
    argv = ["rg", "--count", "--ignore-case", "--fixed-strings", "--no-messages"]
    for word in words:
        argv += ["-e", word]
    proc = subprocess.run([*argv, "--", "."], cwd=root, capture_output=True, text=True)
    lines: dict[str, int] = {}
    for row in proc.stdout.splitlines():
        path, _, count = row.rpartition(":")
        if path and count.isdigit():
            lines[norm(path)] = int(count)
    return sorted(lines, key=lambda p: (-lines[p], p))[:top]


def rg_search(query: str, root: Path, top: int, keep_stop_words: bool = False) -> list[str]:
    distinct: dict[str, int] = defaultdict(int)
    lines: dict[str, int] = defaultdict(int)
    for word in query_words(query, keep_stop_words):
        proc = subprocess.run(
            ["rg", "--count", "--ignore-case", "--fixed-strings", "--no-messages", "--", word, "."],
            cwd=root,
            capture_output=True,
            text=True,
        )
        for row in proc.stdout.splitlines():
            path, _, count = row.rpartition(":")
            if not path or not count.isdigit():
                continue
            path = norm(path)
            distinct[path] += 1
            lines[path] += int(count)
    ranked = sorted(distinct, key=lambda p: (-distinct[p], -lines[p], p))
    return ranked[:top]


def cmd_search(template: str, query: str, root: Path, top: int) -> list[str]:
    argv = [
        tok.replace("{query}", query).replace("{root}", str(root)).replace("{top}", str(top))
        for tok in shlex.split(template)
    ]
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(f"warning: {argv[0]} exited {proc.returncode}: {proc.stderr.strip()[:300]}\n")
    files = []
    for line in proc.stdout.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            hit = json.loads(line)
        except ValueError:
            continue
        path = hit.get("path") or hit.get("file")
        if not path:
            continue
        p = Path(path)
        if p.is_absolute():
            try:
                path = str(p.resolve().relative_to(root.resolve()))
            except ValueError:
                pass
        files.append(norm(path))
    return files


def dedupe(files: list[str]) -> list[str]:
    seen, out = set(), []
    for f in files:
        if f not in seen:
            seen.add(f)
            out.append(f)
    return out


# --------------------------------------------------------------------------- metrics


def ndcg_at(ranked: list[str], grades: dict[str, int], k: int = 10) -> float:
    """Graded NDCG@k with gain 2^grade - 1 (answer = 3, related = 1)."""
    gain = lambda g: (2**g) - 1  # noqa: E731
    dcg = sum(gain(grades.get(f, 0)) / math.log2(i + 2) for i, f in enumerate(ranked[:k]))
    ideal = sorted(grades.values(), reverse=True)[:k]
    idcg = sum(gain(g) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(ranked: list[str], answers: list[str], k: int = 5) -> float:
    if not answers:
        return 0.0
    top = set(ranked[:k])
    return sum(1 for a in answers if a in top) / len(answers)


# --------------------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("queries", nargs="+", type=Path, help="query files (JSON lines)")
    ap.add_argument("--engine", choices=["rg", "rg-distinct", "cmd"], default="rg")
    ap.add_argument("--keep-stop-words", action="store_true", help="rg engines: search stop words too")
    ap.add_argument("--cmd", default=DEFAULT_CMD, help="search command template for --engine cmd "
                    "({query}, {root}, {top} are substituted per argument)")
    ap.add_argument("--repos-dir", type=Path, default=Path(DEFAULT_REPOS_DIR),
                    help="where the real repositories are checked out (env EVAL_REPOS)")
    ap.add_argument("--root", type=Path, help="override every query's root (one repo at a time)")
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--lang", choices=["en", "ja"], help="only queries in this language")
    ap.add_argument("--by", choices=["lang", "kind", "script"], default="lang",
                    help="second grouping of the table: language (default), request kind, or "
                    "script (en / ja / ja+ascii: Japanese requests that also name identifiers)")
    ap.add_argument("--verbose", "-v", action="store_true", help="print per-query misses")
    ap.add_argument("--check", action="store_true", help="only check that judged files exist")
    ap.add_argument("--json", type=Path, help="write per-query results and totals to this file")
    args = ap.parse_args()

    queries: list[Query] = []
    for path in args.queries:
        queries.extend(load_queries(path))
    if args.lang:
        queries = [q for q in queries if q.lang == args.lang]

    roots: dict[str, Path] = {}
    problems = 0
    for q in queries:
        root = args.root or resolve_root(q, args.repos_dir)
        if root is None:
            print(f"{q.id}: root {q.root!r} not found (fetch it, or pass --repos-dir)", file=sys.stderr)
            problems += 1
            continue
        roots[q.id] = root
        for f in q.grades:
            if not (root / f).is_file():
                print(f"{q.id}: judged file missing: {f}", file=sys.stderr)
                problems += 1
        if not q.answers:
            print(f"{q.id}: no relevant file", file=sys.stderr)
            problems += 1
    if args.check:
        print(f"{len(queries)} queries, {problems} problems")
        return 1 if problems else 0
    if problems:
        print(f"{problems} problems in the query files; scoring the rest", file=sys.stderr)

    per_query = []
    started = time.time()
    for q in queries:
        root = roots.get(q.id)
        if root is None:
            continue
        if args.engine == "rg":
            ranked = rg_lines_search(q.query, root, args.top, args.keep_stop_words)
        elif args.engine == "rg-distinct":
            ranked = rg_search(q.query, root, args.top, args.keep_stop_words)
        else:
            ranked = cmd_search(args.cmd, q.query, root, args.top)
        ranked = dedupe(ranked)
        n = ndcg_at(ranked, q.grades, 10)
        r = recall_at(ranked, q.answers, 5)
        per_query.append({"id": q.id, "root": q.root, "lang": q.lang, "kind": q.kind,
                          "query": q.query, "ndcg10": n, "recall5": r, "ranked": ranked[:10],
                          "answers": q.answers})
        if args.verbose and r < 1.0:
            print(f"MISS {q.id} [{q.lang}] ndcg={n:.2f} recall5={r:.2f}  {q.query}")
            print(f"     want: {', '.join(q.answers)}")
            for i, f in enumerate(ranked[:5], 1):
                mark = {2: "**", 1: "* "}.get(q.grades.get(f, 0), "  ")
                print(f"     {i}. {mark}{f}")
    elapsed = time.time() - started

    def agg(rows):
        if not rows:
            return (0, 0.0, 0.0)
        return (len(rows), sum(r["ndcg10"] for r in rows) / len(rows),
                sum(r["recall5"] for r in rows) / len(rows))

    def group_of(row) -> str:
        if args.by == "kind":
            return row["kind"] or "-"
        if args.by == "script" and row["lang"] == "ja" and re.search(r"[A-Za-z]{2,}", row["query"]):
            return "ja+ascii"
        return row["lang"]

    groups: dict[tuple[str, str], list] = defaultdict(list)
    for row in per_query:
        for root in (row["root"], "ALL"):
            for lang in (group_of(row), "all"):
                groups[(root, lang)].append(row)
    sub_groups = sorted({group_of(r) for r in per_query}) + ["all"]
    roots_sorted = sorted({r["root"] for r in per_query}) + ["ALL"]
    print(f"engine: {args.cmd if args.engine == 'cmd' else args.engine}   ({elapsed:.1f}s)")
    print(f"{'root':<22} {args.by:<9} {'n':>4} {'NDCG@10':>8} {'Recall@5':>9}")
    totals = {}
    for root in roots_sorted:
        for lang in sub_groups:
            n, nd, rc = agg(groups.get((root, lang), []))
            if n == 0:
                continue
            totals[f"{root}/{lang}"] = {"queries": n, "ndcg10": nd, "recall5": rc}
            print(f"{root:<22} {lang:<9} {n:>4} {nd:>8.3f} {rc:>9.3f}")
    if args.json:
        args.json.write_text(json.dumps({"totals": totals, "queries": per_query}, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
