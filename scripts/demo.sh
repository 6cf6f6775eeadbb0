#!/usr/bin/env bash
# Set up a fresh machine and show code-intel at work on the example Laravel shop: the same
# tools an MCP client calls, from the shell.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
bin="${CARGO_TARGET_DIR:-target}/debug/code-intel"
root=fixtures/laravel-shop
show() { echo; echo "\$ code-intel call $1 '$2' --root $root"; "$bin" call "$1" "$2" --root "$root" --pretty | head -n "${3:-40}"; }
show find_definitions '{"symbol": "Product", "kind": "class"}'
show find_references '{"symbol": "CartService", "max_results": 5}'
show get_function_at_line '{"file_path": "app/Services/CheckoutService.php", "line": 40}' 25
show search_text '{"pattern": "Schema::create", "max_results": 5}'
