#!/usr/bin/env python3
"""How the words-field judge grows with the labelled repositories it is fitted on.

Each dev repository is scored by the judge's linear fit (`fit_judge.evaluate`: word odds,
weights and the 0.3 / 0.6 lines all read without it) fitted on K of the other repositories,
drawn at random, for each K of `--sizes`; every figure is on a repository the fit did not see,
as a new project is. A curve still rising at the largest K says more labelled projects would
move the judge; a flat one says the signals, not the labels, are what hold it.

Input: a dump written by `code-intel eval-relevance PAIRS --split dev --field words --features
OUT.jsonl`. Dev only: the held-out split is for reporting. Needs numpy. With the default sizes
and two draws, about as long as three runs of `fit_judge.py --words-field`.
"""
import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fit_judge as fj  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dump", help="`eval-relevance --split dev --field words --features` output")
    p.add_argument("--sizes", default="4,9,18,27",
                   help="how many training repositories to draw (all of them are always run)")
    p.add_argument("--draws", type=int, default=2, help="random draws per size below all")
    args = p.parse_args()
    rows, names = fj.load(args.dump)
    repos = sorted({r["repo"] for r in rows})
    everyone = len(repos) - 1
    cols = list(range(len(names)))
    sizes = sorted({k for k in map(int, args.sizes.split(",")) if 0 < k < everyone})
    print(f"{len(repos)} dev repositories, {len(rows)} pairs; each scored by a fit on K others "
          "(AUC, accuracy, relevant kept, unrelated rejected, terms at FACT, unrelated > 0.6):",
          flush=True)
    for k in sizes:
        for d in range(args.draws):
            # A draw per held repository, from a generator seeded by the size and the draw, so
            # a run can be repeated.
            rng = random.Random(f"{k}/{d}")
            report(k, d, fj.evaluate(rows, cols, names, session=True, trees=False,
                                     training=lambda others: rng.sample(others, k)))
    report(everyone, 0, fj.evaluate(rows, cols, names, session=True, trees=False))


def report(k, draw, figures):
    print("  K=%-3d draw %d   %.3f %.3f %.3f %.3f %.3f %d" % ((k, draw) + figures), flush=True)

if __name__ == "__main__":
    main()
