#!/usr/bin/env bash
# Set up a fresh machine and show code-intel at work on the example Laravel shop, from the shell
# (the same tools an MCP client calls): code tools, semantic search in Japanese and English, and
# a phase-gated session whose write gate refuses an edit until the file has been explored.
# The shop is copied to a temporary directory, so the demo leaves the repository untouched.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
bin="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/debug/code-intel"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r fixtures/laravel-shop "$work/shop"
root="$work/shop"

show() {
  echo
  echo "\$ code-intel call $1 '$2'"
  # `head` may close the pipe early; that is not a failure of the demo.
  "$bin" call "$1" "$2" --root "$root" --pretty 2>/dev/null | head -n "${3:-30}" || true
}
# What Claude Code's PreToolUse hook does before an edit or a shell command.
hook() {
  local tool="$1" input="$2"
  echo
  echo "\$ echo '{\"tool_name\": \"$tool\", \"tool_input\": $input, ...}' | code-intel hook pre-tool-use"
  set +e
  printf '{"hook_event_name": "PreToolUse", "cwd": "%s", "tool_name": "%s", "tool_input": %s}' \
    "$root" "$tool" "$input" | "$bin" hook pre-tool-use
  local code=$?
  set -e
  if [[ $code == 0 ]]; then echo "-> allowed (exit 0)"; else echo "-> refused (exit $code; Claude Code shows the reason above to the model)"; fi
}

echo "== Code tools"
show find_definitions '{"symbol": "Product", "kind": "class"}' 20
show find_references '{"symbol": "CartService", "max_results": 5}' 25

echo
echo "== Semantic search"
echo
echo "\$ code-intel index   # chunks, embeds and stores the project (later runs are incremental)"
"$bin" index --root "$root" 2>&1 | tail -n 3
brief() {  # file, lines, symbol, score and the signals that found each hit
  python3 -c "$(cat <<'PY'
import json, sys
for r in json.load(sys.stdin)["results"]:
    where = f"{r['file']}:{r['line_start']}-{r['line_end']}"
    print(f"  {r['score']:.3f}  {where}  {r.get('symbol') or ''}  {sorted(r['components'])}")
PY
)"
}
for q in "クーポンの割引と消費税と送料をカートの小計に適用する処理" "where is stock reserved when an order is placed"; do
  echo
  echo "\$ code-intel call semantic_search '{\"query\": \"$q\", \"n_results\": 3}'"
  "$bin" call semantic_search "{\"query\": \"$q\", \"n_results\": 3}" --root "$root" | brief
done

echo
echo "== A phase-gated session: no edit before the code is understood"
"$bin" init --root "$root" --command "$bin" >/dev/null
show start_session '{"intent": "MODIFY", "query": "クーポンの割引額が小計を超えないように修正したい"}' 8
show set_query_frame '{"target_feature": {"value": "クーポンの割引", "quote": "クーポンの割引額"}, "desired_action": {"value": "割引額が小計を超えないようにする", "quote": "小計を超えないように修正したい"}}' 12
hook Edit '{"file_path": "'"$root"'/app/Services/PricingService.php", "old_string": "a", "new_string": "b"}'
hook Bash '{"command": "sed -i s/min/max/ app/Services/PricingService.php"}'
show find_definitions '{"symbol": "PricingService"}' 12
show find_references '{"symbol": "discountFor"}' 12
show search_text '{"pattern": "resolveCoupon", "max_results": 5}' 12
show get_function_at_line '{"file_path": "app/Services/PricingService.php", "line": 58}' 16
show submit_understanding '{"symbols_identified": ["PricingService", "PricingService.discountFor", "Coupon"], "entry_points": ["PricingService.breakdown"], "files_analyzed": ["app/Services/PricingService.php", "app/Models/Coupon.php", "app/Http/Controllers/CartController.php"], "patterns": ["the discount is computed in discountFor and applied in breakdown"]}' 25
hook Edit '{"file_path": "'"$root"'/app/Services/PricingService.php", "old_string": "a", "new_string": "b"}'
hook Bash '{"command": "rg -n discountFor app | head -5"}'
hook Bash '{"command": "sed -i s/a/b/ app/Models/User.php"}'
