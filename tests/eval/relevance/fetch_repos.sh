#!/usr/bin/env bash
# Checks out the real repositories of the relevance dev set (tests/eval/relevance/repos.json) at
# their recorded commits into $RELEVANCE_REPOS (default /tmp/relevance-repos), with the retrieval
# set's checkout script (mirrors from the search tool's `fetch`, then `git archive`).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
REPOS_JSON="$here/repos.json" EVAL_REPOS="${RELEVANCE_REPOS:-/tmp/relevance-repos}" \
  exec bash "$here/../fetch_repos.sh"
