#!/usr/bin/env python3
"""How far two labellers agree on the relevance set: `agreement.jsonl` holds 357 dev pairs drawn
at random from `pairs.jsonl` (two draws), each with its label (`relevant`) and a second label given blind to
it, to the class and to every score (`second`, `second_sure`, `second_why`). The agreement is
the ceiling any judge's accuracy can be measured against on these labels.

Usage: python3 tests/eval/relevance/agreement.py [agreement.jsonl]
"""
import json
import os
import sys


def kappa(rows):
    """Share of pairs labelled alike, and Cohen's kappa (agreement beyond chance)."""
    n = len(rows)
    alike = sum(r["relevant"] == r["second"] for r in rows) / n
    first = sum(r["relevant"] for r in rows) / n
    second = sum(r["second"] for r in rows) / n
    chance = first * second + (1 - first) * (1 - second)
    return alike, (alike - chance) / (1 - chance)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "agreement.jsonl")
    rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    for label, part in [("all", rows), ("second label sure", [r for r in rows if r["second_sure"]])]:
        alike, k = kappa(part)
        print("%-18s %3d pairs  agreement %.3f  kappa %.3f" % (label, len(part), alike, k))
    for r in rows:
        if r["relevant"] != r["second"]:
            print("  differ: %s %r %s (%s): first %s, second %s (%s)" % (
                r["repo"], r["term"], r["symbol"], r["class"], r["relevant"], r["second"],
                "sure" if r["second_sure"] else "unsure"))


if __name__ == "__main__":
    main()
