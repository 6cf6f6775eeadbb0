"""get_chunks through the MCP client: what the semantic index would embed, on the Laravel fixture."""

from __future__ import annotations

import pytest
from oracle import line_of

pytestmark = pytest.mark.anyio

MIGRATION = "database/migrations/2024_01_10_100100_create_products_table.php"


async def test_get_chunks_of_a_migration_and_a_directory(open_client, fixture_root):
    root = fixture_root("laravel-shop")
    create_line = line_of(root / MIGRATION, r"Schema::create\('products'")
    async with open_client(root) as client:
        one = await client.ok("get_chunks", {"path": MIGRATION})
        folder = await client.ok(
            "get_chunks", {"path": "app/Filament", "include_content": False, "max_chunks": 3}
        )
        await client.error("get_chunks", {"path": "no/such/file.php"}, "FILE_NOT_FOUND")
        await client.error("get_chunks", {"path": "../outside"}, "OUTSIDE_WORKSPACE")
        await client.error("get_chunks", {"path": MIGRATION, "max_chunks": 0}, "INVALID_PARAMETER")
    assert one["total_files"] == 1
    (file,) = one["files"]
    assert (file["file"], file["language"], file["strategy"]) == (MIGRATION, "php", "code")
    tables = [c for c in file["chunks"] if c["kind"] == "table_schema"]
    # The migration creates products, tags and their pivot table: one chunk each.
    assert [t["metadata"]["table"] for t in tables] == ["products", "tags", "product_tag"]
    table = tables[0]
    assert table["line_start"] <= create_line <= table["line_end"]
    assert "Schema::create('products'" in table["content"]
    assert table["tokens"] > 0 and len(table["fingerprint"]) == 64
    assert one["returned_chunks"] == one["total_chunks"] == len(file["chunks"])

    assert folder["returned_chunks"] == 3 and folder["truncated"] is True
    assert folder["total_chunks"] > 3 and folder["by_kind"].get("filament_form", 0) >= 1
    chunks = [c for f in folder["files"] for c in f["chunks"]]
    assert len(chunks) == 3 and all("content" not in c for c in chunks)
