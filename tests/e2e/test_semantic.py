"""The semantic index over MCP with the real embedding model (multilingual-e5-small, provisioned
by scripts/setup.sh): sync_index with progress notifications, semantic_search in English and
Japanese, incremental re-sync after an edit, and the lexical fallback when no model is available.

The Rust integration tests (tests/semantic/) cover the same logic with a deterministic stand-in
model; these tests check that the real model, the real store and a real MCP client agree.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import wait_for_index

pytestmark = pytest.mark.anyio

# Generous: embedding a fixture on a loaded 2-core machine takes tens of seconds.
EMBED_WAIT_SECS = 240


async def synced(client) -> dict:
    """Runs sync_index with a progress token, then waits until every chunk is embedded."""
    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    result = await client.session.call_tool(
        "sync_index", {}, read_timeout_seconds=120, progress_callback=on_progress
    )
    assert not result.is_error, result
    outcome = result.structured_content
    assert outcome["forest"]["chunks"] > 0, outcome
    assert progress, "sync_index sent no progress notifications"
    assert progress == sorted(progress), f"progress went backwards: {progress}"
    await wait_for_index(client, "embedded", EMBED_WAIT_SECS)
    return outcome


def rank_of(results: list[dict], suffix: str) -> int | None:
    files: list[str] = []
    for hit in results:
        if hit["file"] not in files:
            files.append(hit["file"])
    for i, f in enumerate(files):
        if f.endswith(suffix):
            return i + 1
    return None


async def test_requests_in_english_and_japanese_find_the_code(open_client, fresh_fixture) -> None:
    root = fresh_fixture("python-service")
    async with open_client(root) as client:
        await synced(client)
        cases = [
            ("ログイン機能", "auth/service.py"),
            ("パスワードはどこで検証している？", "auth/service.py"),
            ("where are settings loaded from the YAML files and the environment", "config/loader.py"),
            ("how is an order's total computed", "services/order_service.py"),
        ]
        for query, expected in cases:
            data = await client.ok("semantic_search", {"query": query, "collection": "forest"})
            assert "vector" in data["signals"], data["signals"]
            rank = rank_of(data["results"], expected)
            assert rank is not None and rank <= 3, (
                f"{query!r}: {expected} at rank {rank}: "
                f"{[h['file'] for h in data['results'][:5]]}"
            )
            top = data["results"][0]
            assert top["score"] == pytest.approx(1.0)
            assert top["line_start"] <= top["line_end"] and top["snippet"].strip()
        # 「ログイン機能」 lands on the authentication code, not on the configuration loader.
        data = await client.ok("semantic_search", {"query": "ログイン機能", "collection": "forest"})
        auth, config = rank_of(data["results"], "auth/service.py"), rank_of(data["results"], "config/loader.py")
        assert auth is not None and (config is None or auth < config)


async def test_an_edit_is_flagged_then_replaced_by_the_next_sync(open_client, fresh_fixture) -> None:
    root = fresh_fixture("python-service")
    async with open_client(root) as client:
        first = await synced(client)
        target = root / "src/orderly/utils/time.py"
        target.write_text(
            target.read_text(encoding="utf-8")
            + "\n\ndef business_days_between(start, end):\n"
            '    """Counts weekdays between two dates for delivery estimates."""\n'
            "    return sum(1 for d in range((end - start).days) if (start.weekday() + d) % 7 < 5)\n",
            encoding="utf-8",
        )
        (root / "src/orderly/utils/pagination.py").unlink()
        data = await client.ok("semantic_search", {"query": "utc time helpers", "collection": "forest"})
        flagged = [h for h in data["results"] if h["file"].endswith("utils/time.py")]
        assert flagged and all(h["changed_since_indexed"] for h in flagged), data["results"][:3]
        second = await synced(client)
        forest = second["forest"]
        assert (forest["added"], forest["modified"], forest["deleted"]) == (0, 1, 1), forest
        assert forest["chunks"] != first["forest"]["chunks"] or forest["chunks_written"] > 0
        data = await client.ok(
            "semantic_search", {"query": "count weekdays for a delivery estimate", "collection": "forest"}
        )
        assert rank_of(data["results"], "utils/time.py") == 1, [h["file"] for h in data["results"][:5]]
        assert not any(h["file"].endswith("pagination.py") for h in data["results"])


async def test_without_a_model_search_answers_from_lexical_and_symbol_signals(
    open_client, fresh_fixture, tmp_path: Path
) -> None:
    root = fresh_fixture("python-service")
    env = {"CODE_INTEL_MODEL_DIR": str(tmp_path / "no-model-here")}
    async with open_client(root, env=env) as client:
        data = await client.ok("semantic_search", {"query": "AuthService login", "collection": "forest"})
        assert data["index_status"]["model"] == "unavailable", data["index_status"]
        assert "vector" not in data["signals"]
        assert rank_of(data["results"], "auth/service.py") == 1, [h["file"] for h in data["results"][:5]]
        await client.error("semantic_search", {"query": "  "}, "INVALID_PARAMETER")
        await client.error("semantic_search", {"query": "x", "n_results": 0}, "INVALID_PARAMETER")
