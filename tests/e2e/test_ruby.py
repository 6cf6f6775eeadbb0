"""Ruby through the MCP client, on the `Tally` library of fixtures/polyglot/ruby: definitions
(classes and methods under their module, `def self.x`, private methods), references, the
outline (`require` / `require_relative`, mixins, `attr_*`, access), module resolution by load
path and relative path, and chunks. Expected answers are read from the files themselves."""

from __future__ import annotations

import pytest
from oracle import line_of

pytestmark = pytest.mark.anyio

LIB = "ruby/lib"


async def test_definitions_references_and_symbols(open_client, fixture_root):
    root = fixture_root("polyglot")
    ledger = f"{LIB}/tally/ledger.rb"
    async with open_client(root) as client:
        classes = await client.ok("find_definitions", {"symbol": "Ledger"})
        record = await client.ok("find_definitions", {"symbol": "record"})
        parse = await client.ok("find_definitions", {"symbol": "parse", "path": "ruby"})
        private = await client.ok("find_definitions", {"symbol": "validate!"})
        refs = await client.ok("find_references", {"symbol": "Entry", "path": "ruby"})
        symbols = await client.ok("get_symbols", {"path": ledger})
    (ledger_class,) = classes["definitions"]
    assert (ledger_class["file"], ledger_class["kind"], ledger_class["qualified_name"]) == (
        ledger, "class", "Tally::Ledger")
    assert ledger_class["line"] == line_of(root / ledger, r"^  class Ledger$")
    (method,) = record["definitions"]
    assert (method["kind"], method["qualified_name"], method["exported"]) == (
        "method", "Tally::Ledger::record", True)
    assert method["line"] == line_of(root / ledger, r"^    def record\(")
    (singleton,) = parse["definitions"]
    assert (singleton["kind"], singleton["qualified_name"]) == ("method", "Tally::Entry::parse")
    (hidden,) = private["definitions"]
    assert hidden["exported"] is False, "a method under `private` is not exported"
    # `Entry.new` in the ledger and `Entry.parse` in tally.rb; the class definition is not a use.
    used_in = {(r["file"], r["line"]) for r in refs["references"]}
    assert (ledger, line_of(root / ledger, r"Entry\.new\(")) in used_in
    assert (f"{LIB}/tally.rb", line_of(root / f"{LIB}/tally.rb", r"Entry\.parse")) in used_in
    assert all(r["file"].startswith("ruby/") for r in refs["references"])
    names = {s["qualified_name"]: s["kind"] for s in symbols["symbols"]}
    assert names["Tally"] == "module"
    assert names["Tally::LedgerClosedError"] == "class"
    assert {"Tally::Ledger::balance", "Tally::Ledger::close", "Tally::Ledger::each"} <= set(names)


async def test_outline_dependencies_and_chunks(open_client, fixture_root):
    root = fixture_root("polyglot")
    async with open_client(root) as client:
        ledger = await client.ok("analyze_file", {"path": f"{LIB}/tally/ledger.rb", "mode": "detailed"})
        entry = await client.ok("analyze_file", {"path": f"{LIB}/tally/entry.rb"})
        main = await client.ok("get_dependencies", {"path": f"{LIB}/tally.rb"})
        used = await client.ok("get_dependencies", {"path": f"{LIB}/tally/entry.rb"})
        chunks = await client.ok("get_chunks", {"path": f"{LIB}/tally/ledger.rb", "include_content": False})
    assert ledger["language"] == "ruby" and ledger["partial"] is False
    cls = next(c for c in ledger["classes"] if c["name"] == "Tally::Ledger")
    assert cls["uses"] == ["Enumerable"]
    assert [p["name"] for p in cls["properties"]] == ["name"]
    access = {m["name"]: m["accessModifier"] for m in cls["methods"]}
    assert access["validate!"] == "private" and access["record"] == "public"
    assert next(m for m in cls["methods"] if m["name"] == "initialize")["kind"] == "constructor"
    record = next(m for m in cls["methods"] if m["name"] == "record")
    assert [(p["name"], p["optional"]) for p in record["parameters"]] == [("amount", False), ("memo", True)]
    assert record["doc"] == "Adds a movement of +amount+ and returns the new entry."
    entry_cls = next(c for c in entry["classes"] if c["name"] == "Tally::Entry")
    assert [(p["name"], p["readonly"]) for p in entry_cls["properties"]] == [("amount", True), ("memo", True)]
    assert next(m for m in entry_cls["methods"] if m["name"] == "parse")["static"] is True
    # The magic comment is not the file's doc; the sentence under it is.
    assert "frozen_string_literal" not in entry["summary"]

    resolved = {i["source"]: (i["type"], i.get("resolvedPath")) for i in main["imports"]}
    assert resolved == {
        "json": ("external", None),
        "tally/entry": ("internal", f"{LIB}/tally/entry.rb"),
        "tally/ledger": ("internal", f"{LIB}/tally/ledger.rb"),
        "tally/report": ("internal", f"{LIB}/tally/report.rb"),
    }
    assert [(i["source"], i["statement"]) for i in ledger["imports"]] == [("tally/entry", "require")]
    # `require "tally/entry"` (load path) and `require_relative "tally/entry"` both count.
    assert set(used["dependents"]) == {f"{LIB}/tally.rb", f"{LIB}/tally/ledger.rb"}

    (file,) = chunks["files"]
    assert file["language"] == "ruby"
    kinds = {(c["kind"], c["name"]) for c in file["chunks"]}
    assert ("class", "Ledger") in kinds and ("method", "record") in kinds
