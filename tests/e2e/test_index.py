"""The symbol index under real use: edits between calls, concurrent calls, and two server
processes sharing one project's `.code-intel/symbols.bin`."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest
from oracle import line_of

pytestmark = pytest.mark.anyio


def without_timing(result: dict) -> dict:
    return {k: v for k, v in result.items() if k != "elapsed_ms"}


# --- edits between calls -------------------------------------------------------------------


async def test_an_edited_file_is_seen_by_the_next_call(open_client, fresh_fixture):
    root = fresh_fixture("ts-app")
    hook = root / "src/hooks/useDebounce.ts"
    user = root / "src/components/Layout/Footer.tsx"
    async with open_client(root) as client:
        before = await client.ok("get_symbols", {"path": "src/hooks/useDebounce.ts"})
        assert "useThrottle" not in {s["name"] for s in before["symbols"]}
        assert (await client.ok("find_definitions", {"symbol": "useThrottle"}))["total"] == 0

        # Add a function to one file and a use of it to another.
        hook.write_text(
            hook.read_text()
            + "\nexport function useThrottle(ms: number): number {\n  return ms * 2;\n}\n"
        )
        user.write_text(user.read_text() + "\nexport const throttled = useThrottle(10);\n")
        new_line = line_of(hook, r"^export function useThrottle\(")
        use_line = line_of(user, r"useThrottle\(10\)")

        after = await client.ok("get_symbols", {"path": "src/hooks/useDebounce.ts"})
        defs = await client.ok("find_definitions", {"symbol": "useThrottle"})
        refs = await client.ok("find_references", {"symbol": "useThrottle"})
        at_line = await client.ok(
            "get_function_at_line", {"file_path": "src/hooks/useDebounce.ts", "line": new_line + 1}
        )
        structure = await client.ok("analyze_structure", {"path": "src/hooks/useDebounce.ts"})

        assert "useThrottle" in {s["name"] for s in after["symbols"]}
        assert [(d["file"], d["line"]) for d in defs["definitions"]] == [
            ("src/hooks/useDebounce.ts", new_line)
        ]
        assert [(r["file"], r["line"]) for r in refs["references"]] == [
            ("src/components/Layout/Footer.tsx", use_line)
        ]
        assert at_line["name"] == "useThrottle" and at_line["start_line"] == new_line
        assert "useThrottle" in {n["name"] for n in structure["files"][0]["symbols"]}

        # Deleting the file removes its definitions; asking for it is FILE_NOT_FOUND.
        hook.unlink()
        assert (await client.ok("find_definitions", {"symbol": "useThrottle"}))["total"] == 0
        await client.error("get_symbols", {"path": "src/hooks/useDebounce.ts"}, "FILE_NOT_FOUND")

        # A new file is found without any restart.
        (root / "src/hooks/useClock.ts").write_text("export function useClock(): number {\n  return 0;\n}\n")
        defs = await client.ok("find_definitions", {"symbol": "useClock"})
        assert [d["file"] for d in defs["definitions"]] == ["src/hooks/useClock.ts"]


async def test_same_size_edits_in_quick_succession_are_never_stale(open_client, make_project):
    # The cheapest freshness check (size + mtime) cannot tell these edits apart by size: each
    # rewrite keeps the byte count and follows the previous call within milliseconds.
    root = make_project({"m.py": "def fn_000():\n    pass\n"})
    async with open_client(root) as client:
        for i in range(1, 21):
            (root / "m.py").write_text(f"def fn_{i:03d}():\n    pass\n")
            result = await client.ok("get_symbols", {"path": "m.py"})
            assert [s["name"] for s in result["symbols"]] == [f"fn_{i:03d}"], f"stale after edit {i}"
            defs = await client.ok("find_definitions", {"symbol": f"fn_{i:03d}"})
            assert defs["total"] == 1, f"index stale after edit {i}"


async def test_an_edit_between_two_processes_is_seen(open_client, make_project):
    root = make_project({"svc.py": "def first():\n    pass\n", "other.py": "X = 1\n"})
    async with open_client(root) as client:
        assert (await client.ok("find_definitions", {"symbol": "first"}))["total"] == 1
    assert (root / ".code-intel/symbols.bin").is_file(), "the index is persisted"
    (root / "svc.py").write_text("def second():\n    pass\n")
    async with open_client(root) as client:
        assert (await client.ok("find_definitions", {"symbol": "first"}))["total"] == 0
        assert (await client.ok("find_definitions", {"symbol": "second"}))["total"] == 1


# --- concurrency ---------------------------------------------------------------------------

# Calls on different subtrees, so that refreshes of parts of the index interleave and persist.
LARAVEL_CALLS = [
    ("find_definitions", {"symbol": "App\\Models\\Product"}),
    ("find_references", {"symbol": "CartService"}),
    ("get_symbols", {"path": "app/Models", "kinds": ["class"]}),
    ("analyze_structure", {"path": "app/Services"}),
    ("find_definitions", {"symbol": "OrderStatus"}),
    ("get_symbols", {"path": "database/migrations"}),
    ("find_references", {"symbol": "Product", "path": "app/Http"}),
    ("search_text", {"pattern": "Schema::create", "fixed_strings": True}),
]


async def run_concurrently(client, calls) -> list[dict]:
    results: list[dict | None] = [None] * len(calls)

    async def one(i: int, tool: str, args: dict) -> None:
        results[i] = without_timing(await client.ok(tool, args))

    async with anyio.create_task_group() as tg:
        for i, (tool, args) in enumerate(calls):
            tg.start_soon(one, i, tool, args)
    return results  # type: ignore[return-value]


def check_laravel_facts(root: Path, results: list[dict]) -> None:
    product = results[0]["definitions"][0]
    assert (product["file"], product["line"], product["kind"]) == (
        "app/Models/Product.php",
        line_of(root / "app/Models/Product.php", r"^class Product\b"),
        "class",
    )
    assert results[1]["total"] >= 3
    assert "App\\Models\\Product" in {s["qualified_name"] for s in results[2]["symbols"]}
    assert results[4]["definitions"][0]["kind"] == "enum"
    assert results[5]["files"] >= 5


async def test_many_concurrent_calls_on_one_session(open_client, fresh_fixture):
    root = fresh_fixture("laravel-shop")
    async with open_client(root) as client:
        concurrent = await run_concurrently(client, LARAVEL_CALLS * 2)
        sequential = [without_timing(await client.ok(tool, args)) for tool, args in LARAVEL_CALLS]
    check_laravel_facts(root, concurrent)
    assert concurrent[: len(LARAVEL_CALLS)] == sequential
    assert concurrent[len(LARAVEL_CALLS) :] == sequential


async def test_two_servers_on_one_project_share_the_store_safely(open_client, fresh_fixture):
    root = fresh_fixture("laravel-shop")
    state = root / ".code-intel"
    assert not state.exists(), "both servers start cold and race to write the store"
    env = {"CODE_INTEL_LOG": "info"}
    answers: dict[str, list[dict]] = {}
    async with open_client(root, env=env) as first, open_client(root, env=env) as second:

        async def drive(name, client):
            collected = []
            for _ in range(2):
                collected.extend(await run_concurrently(client, LARAVEL_CALLS))
            answers[name] = collected

        async with anyio.create_task_group() as tg:
            tg.start_soon(drive, "first", first)
            tg.start_soon(drive, "second", second)
        logs = first.stderr() + second.stderr()

    assert answers["first"] == answers["second"]
    check_laravel_facts(root, answers["first"])
    assert "unreadable" not in logs, logs[-2000:]
    # Atomic writes leave no temporary files behind.
    assert sorted(p.name for p in state.iterdir() if p.name.startswith("symbols")) == ["symbols.bin"]

    # A third process loads the store the two wrote and answers the same.
    async with open_client(root, env=env) as third:
        again = await run_concurrently(third, LARAVEL_CALLS)
        third_log = third.stderr()
    assert again == answers["first"][: len(LARAVEL_CALLS)]
    assert "unreadable" not in third_log and "rebuilding" not in third_log, third_log[-2000:]
    assert os.path.getsize(state / "symbols.bin") > 0
