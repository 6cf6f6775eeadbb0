#!/usr/bin/env bash
# Checks out the real repositories of the retrieval dev set (tests/eval/real/repos.json) at their
# recorded commits, from git mirrors brought in by the search tool's `fetch`
# (github:<owner>/<name> -> $MIRROR_DIR/<owner>+<name>/repo). Their code stays outside this
# repository: it goes to $EVAL_REPOS (default /tmp/eval-repos).
# Other sets reuse it: REPOS_JSON names another repos.json (relevance/fetch_repos.sh does).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
EVAL_REPOS="${EVAL_REPOS:-/tmp/eval-repos}"
MIRROR_DIR="${MIRROR_DIR:-/work/.mirror}"
missing=0
while IFS=$'\t' read -r name source commit; do
  slug="${source#github:}"
  mirror="$MIRROR_DIR/${slug/\//+}/repo"
  dest="$EVAL_REPOS/$name"
  if [ -f "$dest/.eval-commit" ] && [ "$(cat "$dest/.eval-commit")" = "$commit" ]; then
    echo "ok       $name ($commit)"
    continue
  fi
  if [ ! -d "$mirror" ]; then
    echo "MISSING  $name: no mirror at $mirror - run the search tool: fetch $source" >&2
    missing=1
    continue
  fi
  if ! git --git-dir="$mirror" cat-file -e "$commit^{commit}" 2>/dev/null; then
    echo "MISSING  $name: mirror $mirror lacks commit $commit (newer snapshot?)" >&2
    missing=1
    continue
  fi
  # A mirror may list its largest files without holding them: check out the rest, say which.
  blobs=$(git --git-dir="$mirror" ls-tree -r "$commit" | awk '$2 == "blob"')
  gone=$(awk '{print $3}' <<<"$blobs" | git --git-dir="$mirror" cat-file --batch-check \
    | awk '$2 == "missing" {print $1}')
  absent=()
  if [ -n "$gone" ]; then
    while IFS= read -r path; do
      absent+=(":(exclude,literal)$path")
      echo "absent   $name: $path (not in the mirror)" >&2
    done < <(awk -F'\t' -v gone="$gone" '
        BEGIN { n = split(gone, g, "\n"); for (i = 1; i <= n; i++) set[g[i]] = 1 }
        { split($1, m, " "); if (m[3] in set) print $2 }' <<<"$blobs")
  fi
  rm -rf "$dest" && mkdir -p "$dest"
  git --git-dir="$mirror" archive "$commit" -- . "${absent[@]}" | tar -x -C "$dest"
  echo "$commit" > "$dest/.eval-commit"
  echo "checked  $name ($commit, $(find "$dest" -type f | wc -l) files)"
done < <(python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["repos"]:
    print(r["name"], r["source"], r["commit"], sep="\t")
' "${REPOS_JSON:-$here/real/repos.json}")
exit "$missing"
