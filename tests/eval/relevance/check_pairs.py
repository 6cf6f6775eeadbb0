#!/usr/bin/env python3
"""Check the relevance pairs against the repositories' checkouts.

Every pair must have exactly the set's keys, a known class and split repository, and its
`(file, line)` must exist in the checkout and hold the symbol's last name segment (`store` of
`PlaylistController.store`), so a label names the definition an agent would be shown. Run it
after labelling a repository and before it joins the set:

    python3 tests/eval/relevance/check_pairs.py [PAIRS] [--repos DIR]

Checkouts come from `fetch_repos.sh` (default ${RELEVANCE_REPOS:-/tmp/relevance-repos}); a
repository without a checkout is reported, not skipped silently. Exit 1 on any failure.
"""
import json
import os
import re
import sys

KEYS = {"repo", "term", "term_lang", "symbol", "file", "line", "relevant", "class", "why"}
CLASSES = {"direct", "cross-script", "generic-name", "body-only", "one-domain", "near-miss", "unrelated"}


def main():
    args = sys.argv[1:]
    here = os.path.dirname(os.path.abspath(__file__))
    repos_dir = os.environ.get("RELEVANCE_REPOS", "/tmp/relevance-repos")
    if "--repos" in args:
        at = args.index("--repos")
        repos_dir = args[at + 1]
        del args[at : at + 2]
    pairs_path = args[0] if args else os.path.join(here, "pairs.jsonl")
    repos = {r["name"] for r in json.load(open(os.path.join(here, "repos.json")))["repos"]}
    failures, missing, lines_cache = [], set(), {}
    count = 0
    for n, text in enumerate(open(pairs_path, encoding="utf-8"), 1):
        if not text.strip():
            continue
        count += 1
        p = json.loads(text)
        where = f"{pairs_path}:{n}"
        if set(p) != KEYS:
            failures.append(f"{where}: keys {sorted(set(p) ^ KEYS)} differ")
            continue
        if p["repo"] not in repos:
            failures.append(f"{where}: repository {p['repo']} is not in repos.json")
            continue
        if p["class"] not in CLASSES or p["term_lang"] not in ("en", "ja"):
            failures.append(f"{where}: class {p['class']!r} or term_lang {p['term_lang']!r}")
        checkout = os.path.join(repos_dir, p["repo"])
        if not os.path.isdir(checkout):
            missing.add(p["repo"])
            continue
        path = os.path.join(checkout, p["file"])
        if path not in lines_cache:
            try:
                lines_cache[path] = open(path, encoding="utf-8").read().split("\n")
            except OSError:
                lines_cache[path] = None
        lines = lines_cache[path]
        last = re.split(r"[.:#]", p["symbol"])[-1]
        if lines is None:
            failures.append(f"{where}: no file {p['file']}")
        elif not 1 <= p["line"] <= len(lines) or last not in lines[p["line"] - 1]:
            failures.append(f"{where}: line {p['line']} of {p['file']} does not hold {last!r}")
    for f in failures:
        print(f)
    for r in sorted(missing):
        print(f"no checkout of {r} in {repos_dir}: its pairs were not checked")
    print(f"{count} pairs, {len(failures)} failures, {len(missing)} repositories without a checkout")
    sys.exit(1 if failures or missing else 0)


if __name__ == "__main__":
    main()
