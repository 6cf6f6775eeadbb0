"""`.code-intel/config.json` as a user edits it: `code-intel config` shows every effective value
with its origin and every problem; a mistake costs only its own entry and the agent is told (in
the first tool result, in get_session_status, in index_status); every key `init` writes changes
what the server does."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from conftest import run_cli
from mcp.types import TextContent

pytestmark = pytest.mark.anyio

SEED_KEYS = {
    "embedding_model", "source_dirs", "exclude_patterns", "chunk_strategy", "chunk_max_tokens",
    "supported_languages", "sync_ttl_hours", "sync_on_start", "sync_timeout_seconds",
    "search_weights", "max_chunks", "max_index_size_mb", "auto_purge_days", "memory_limit_mb",
    "lightweight_mode",
}

APP = {
    "app/cart.py": "class Cart:\n    def total(self):\n        return 1\n",
    "app/generated_cart.py": "class GeneratedCart:\n    pass\n",
    "web/cart.ts": "export function cartTotal(): number {\n  return 1;\n}\n",
    "README.md": "# Shop\nA shop.\n",
}

# No model in these tests: what is checked is the configuration, not the embeddings.
NO_MODEL = {"CODE_INTEL_NO_WARMUP": "1"}


def config_json(server_bin: Path, root: Path, env: dict | None = None):
    done = run_cli(server_bin, "config", "--json", "--root", str(root), env=env)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def origins(report: dict) -> dict[str, str]:
    return {e["key"]: e["origin"] for e in report["entries"]}


def values(report: dict) -> dict:
    return {e["key"]: e["value"] for e in report["entries"]}


def test_the_schema_covers_the_seed_keys_and_this_servers(server_bin):
    done = run_cli(server_bin, "config", "schema")
    assert done.returncode == 0, done.stderr
    schema = json.loads(done.stdout)
    properties = schema["properties"]
    assert SEED_KEYS | {"strict_write_gate", "tool_timeout_secs", "model_dir"} <= set(properties)
    assert "python" in properties["supported_languages"]["items"]["enum"]
    assert properties["chunk_max_tokens"]["maximum"] == 512
    assert properties["max_chunks"]["default"] == 200000


# (file content, JSON path of the problem, words in its message, a valid entry that still applies)
MISTAKES = [
    ('{"max_chunks": "abc", "max_file_bytes": 1000}', "$.max_chunks", "expected a non-negative integer", ("max_file_bytes", 1000)),
    ('{"sync_on_strat": false, "max_file_bytes": 1000}', "$.sync_on_strat", 'did you mean "sync_on_start"', ("max_file_bytes", 1000)),
    ('{"chunk_max_tokens": 4096, "max_file_bytes": 1000}', "$.chunk_max_tokens", "above the maximum 512", ("max_file_bytes", 1000)),
    ('{"embedding_model": "codebert-base", "max_file_bytes": 1000}', "$.embedding_model", "available: \"multilingual-e5-small\"", ("max_file_bytes", 1000)),
    ('{"supported_languages": ["python", "pyhton"], "max_file_bytes": 1000}', "$.supported_languages[1]", 'did you mean "python"', ("supported_languages", ["python"])),
    ('{"max_chunks": 5,', "$", "not valid JSON", None),
]


@pytest.mark.parametrize(("text", "path", "words", "kept"), MISTAKES, ids=[m[1] for m in MISTAKES])
def test_config_reports_each_mistake_and_keeps_the_rest(server_bin, make_project, text, path, words, kept):
    root = make_project({**APP, ".code-intel/config.json": text})
    code, report = config_json(server_bin, root)
    assert code == 1
    assert [p["path"] for p in report["problems"]] == [path], report["problems"]
    assert words in report["problems"][0]["message"], report["problems"]
    if kept is None:
        assert set(origins(report).values()) == {"default"}
    else:
        key, value = kept
        assert values(report)[key] == value
        assert origins(report)[key] == "file"
    assert values(report)["max_chunks"] == 200000
    # The human form says the same.
    human = run_cli(server_bin, "config", "--root", str(root))
    assert human.returncode == 1
    assert path in human.stdout and "every other entry applies" in human.stdout


def test_an_unreadable_file_is_reported_and_the_defaults_apply(server_bin, make_project):
    root = make_project(APP)
    # A directory where the file should be cannot be read, whoever runs the test.
    (root / ".code-intel" / "config.json").mkdir(parents=True)
    code, report = config_json(server_bin, root)
    assert code == 1
    assert report["problems"][0]["path"] == "$"
    assert report["problems"][0]["message"].startswith("cannot read the file")
    assert set(origins(report).values()) == {"default"}


def test_values_come_from_defaults_the_file_and_the_environment(server_bin, make_project, tmp_path):
    root = make_project(APP)
    code, report = config_json(server_bin, root)
    assert (code, report["exists"], report["problems"]) == (0, False, [])
    assert set(origins(report).values()) == {"default"}
    (root / ".code-intel").mkdir()
    (root / ".code-intel/config.json").write_text(
        '{"max_chunks": 50, "model_dir": "models/e5", "embedding_cache_uri": "s3://from-file/x"}'
    )
    env = {"CODE_INTEL_MODEL_DIR": str(tmp_path / "elsewhere"),
           "CODE_INTEL_EMBEDDING_CACHE_URI": "s3://from-env/team"}
    code, report = config_json(server_bin, root, env=env)
    assert code == 0
    entries = {e["key"]: e for e in report["entries"]}
    assert (entries["max_chunks"]["value"], entries["max_chunks"]["origin"]) == (50, "file")
    assert entries["model_dir"]["origin"] == "environment"
    assert entries["model_dir"]["variable"] == "CODE_INTEL_MODEL_DIR"
    assert entries["model_dir"]["value"] == str(tmp_path / "elsewhere")
    assert entries["chunk_strategy"]["origin"] == "default"
    # The team cache's location: the environment's over the file's, said so.
    assert (entries["embedding_cache_uri"]["value"], entries["embedding_cache_uri"]["origin"],
            entries["embedding_cache_uri"]["variable"]) == (
        "s3://from-env/team", "environment", "CODE_INTEL_EMBEDDING_CACHE_URI")
    code, report = config_json(server_bin, root)
    entries = {e["key"]: e for e in report["entries"]}
    assert (entries["embedding_cache_uri"]["value"], entries["embedding_cache_uri"]["origin"]) == (
        "s3://from-file/x", "file")


def test_init_writes_the_servers_defaults_and_a_schema(server_bin, make_project):
    root = make_project(APP)
    done = run_cli(server_bin, "init", "--root", str(root), "--json")
    assert done.returncode == 0, done.stderr
    written = json.loads((root / ".code-intel/config.json").read_text())
    schema = json.loads((root / ".code-intel/config.schema.json").read_text())
    assert written["$schema"] == "config.schema.json"
    assert SEED_KEYS | {"strict_write_gate"} == set(written) - {"$schema"}
    for key, value in written.items():
        if key != "$schema":
            assert schema["properties"][key]["default"] == value, key
    assert written["max_chunks"] == 200000 and written["max_index_size_mb"] == 4096
    code, report = config_json(server_bin, root)
    assert (code, report["problems"]) == (0, [])
    assert {k for k, o in origins(report).items() if o == "file"} == set(written) - {"$schema"}


def test_cli_calls_warn_on_stderr_and_keep_stdout_clean(server_bin, make_project):
    root = make_project({**APP, ".code-intel/config.json": '{"max_chunks": "abc"}'})
    done = run_cli(server_bin, "call", "get_session_status", "{}", "--root", str(root))
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    assert status["config_problems"][0]["path"] == "$.max_chunks"
    assert "warning:" in done.stderr and "$.max_chunks" in done.stderr


async def test_the_agent_is_told_in_the_first_result_and_the_status_tools(open_client, make_project):
    config = {
        "max_chunks": "abc",
        "sync_on_strat": False,
        "exclude_patterns": ["app/generated_*"],
        "lightweight_mode": True,
    }
    root = make_project({**APP, ".code-intel/config.json": json.dumps(config)})
    async with open_client(root, env=NO_MODEL) as client:
        first = await client.session.call_tool("search_files", {"pattern": "*.py"})
        texts = [c.text for c in first.content if isinstance(c, TextContent)]
        assert json.loads(texts[0]) == first.structured_content
        assert len(texts) == 2 and texts[1].startswith("warning: "), texts
        assert "$.max_chunks" in texts[1] and '"sync_on_start"' in texts[1]
        # The rest of the file applies: the excluded file is not walked.
        files = [f["path"] for f in first.structured_content["files"]]
        assert files == ["app/cart.py"], files
        second = await client.session.call_tool("search_files", {"pattern": "*.py"})
        assert len(second.content) == 1, "the warning comes once per server"
        status = await client.ok("get_session_status")
        assert [p["path"] for p in status["config_problems"]] == ["$.max_chunks", "$.sync_on_strat"]
        search = await client.ok("semantic_search", {"query": "cart total", "collection": "forest"})
        assert len(search["index_status"]["config_problems"]) == 2


async def test_a_clean_file_adds_no_warning(open_client, make_project):
    root = make_project({**APP, ".code-intel/config.json": '{"max_chunks": 1000}'})
    async with open_client(root, env=NO_MODEL) as client:
        first = await client.session.call_tool("search_files", {"pattern": "*.py"})
        assert len(first.content) == 1
        status = await client.ok("get_session_status")
        assert "config_problems" not in status


async def test_index_keys_change_what_is_indexed(open_client, make_project):
    config = {
        "supported_languages": ["python"],
        "chunk_strategy": "lines",
        "source_dirs": ["app", "web"],
        "lightweight_mode": True,
        "sync_on_start": False,
    }
    root = make_project({**APP, "docs/guide.md": "# Guide\n", ".code-intel/config.json": json.dumps(config)})
    async with open_client(root, env=NO_MODEL) as client:
        outcome = await client.ok("sync_index", {"target": "forest"})
        # source_dirs: docs/ and README.md are outside; supported_languages: the .ts file is out.
        assert outcome["forest"]["files"] == 2, outcome
        assert outcome["embedding"]["state"] == "disabled"  # lightweight_mode
        chunks = await client.ok("get_chunks", {"path": "app/cart.py"})
        assert chunks["files"][0]["strategy"] == "lines"
        hits = await client.ok("semantic_search", {"query": "cartTotal", "collection": "forest"})
        assert not any(h["file"].endswith(".ts") for h in hits["results"])


async def test_a_sync_past_its_timeout_goes_on_in_the_background(open_client, make_project):
    root = make_project({**APP, ".code-intel/config.json": '{"sync_timeout_seconds": 0, "lightweight_mode": true}'})
    async with open_client(root, env=NO_MODEL) as client:
        outcome = await client.ok("sync_index")
        assert "sync_timeout_seconds (0 s)" in outcome["background"], outcome
        assert "forest" not in outcome
        deadline = time.monotonic() + 60
        while True:
            status = (await client.ok("semantic_search", {"query": "cart", "collection": "forest"}))["index_status"]
            if status["last_sync"] is not None and status["chunks"] > 0:
                break
            assert time.monotonic() < deadline, status
            await _sleep()


async def test_strict_write_gate_denies_writes_without_a_session(open_client, make_project):
    for strict, allowed in [(True, False), (False, True)]:
        root = make_project({**APP, ".code-intel/config.json": json.dumps({"strict_write_gate": strict})})
        async with open_client(root, env=NO_MODEL) as client:
            answer = await client.ok("check_write_target", {"file_path": "app/cart.py"})
            assert answer["allowed"] is allowed, answer
            status = await client.ok("get_session_status")
            assert status["strict_write_gate"] is strict


async def test_auto_purge_days_purges_old_agreements_about_vanished_symbols(open_client, make_project):
    def agreement(symbol: str, created: str) -> str:
        return f"---\nnl_term: cart {symbol}\nsymbol: {symbol}\ncreated_at: {created}\n---\n\n## 根拠\n\n{symbol}\n"

    recent = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())
    old = "2020-01-02T03:04:05+00:00"
    files = {
        **APP,
        ".code-intel/agreements/old-gone.md": agreement("Vanished", old),
        ".code-intel/agreements/old-kept.md": agreement("Cart", old),
        ".code-intel/agreements/recent-gone.md": agreement("Vanished", recent),
    }
    for days, purged in [(10, 1), (100000, 0)]:
        # No start-up sync: it would purge before the call that is checked.
        config = {"auto_purge_days": days, "lightweight_mode": True, "sync_on_start": False}
        root = make_project({**files, ".code-intel/config.json": json.dumps(config)})
        async with open_client(root, env=NO_MODEL) as client:
            outcome = await client.ok("sync_index", {"target": "map"})
        assert outcome["map"]["purged"] == purged, outcome
        assert (root / ".code-intel/agreements/old-gone.md").exists() == (purged == 0)
        assert (root / ".code-intel/agreements/old-kept.md").exists()
        assert (root / ".code-intel/agreements/recent-gone.md").exists()


async def _sleep() -> None:
    import anyio

    await anyio.sleep(0.2)


def _call(server_bin: Path, root: Path, tool: str, args: dict) -> dict:
    done = run_cli(server_bin, "call", tool, json.dumps(args), "--root", str(root), env=NO_MODEL)
    assert done.returncode == 0, (done.stdout, done.stderr)
    return json.loads(done.stdout)


def _project_with(make_project, files: dict, config: dict) -> Path:
    base = {"lightweight_mode": True, "sync_on_start": False}
    return make_project({**files, ".code-intel/config.json": json.dumps({**base, **config})})


def test_max_chunks_stops_the_index_and_says_so(server_bin, make_project):
    files = {f"app/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(5)}
    capped = _call(server_bin, _project_with(make_project, files, {"max_chunks": 2}), "sync_index", {})
    assert capped["forest"]["truncated"] is True, capped
    assert capped["forest"]["chunks"] <= 2
    assert any("max_chunks (2)" in s["reason"] for s in capped["forest"]["skipped"]), capped
    full = _call(server_bin, _project_with(make_project, files, {}), "sync_index", {})
    assert full["forest"]["truncated"] is False and full["forest"]["files"] == 5, full


def test_chunk_max_tokens_bounds_the_chunks(server_bin, make_project):
    body = "".join(f"    total_{i} = sum(o.amount for o in orders if o.customer_id == {i})\n" for i in range(80))
    files = {"app/report.py": f"def build_report(orders):\n{body}    return locals()\n"}
    small = _call(server_bin, _project_with(make_project, files, {"chunk_max_tokens": 64}), "get_chunks", {"path": "app/report.py"})
    large = _call(server_bin, _project_with(make_project, files, {}), "get_chunks", {"path": "app/report.py"})
    assert (small["max_tokens"], large["max_tokens"]) == (64, 512)
    assert small["total_chunks"] > large["total_chunks"], (small["total_chunks"], large["total_chunks"])


def test_search_weights_decide_the_ranking(server_bin, make_project):
    files = {
        "app/invoice_total.py": "def compute():\n    return 42\n",
        "app/helpers.py": "".join(f"# the invoice total, part {i}\n" for i in range(20)) + "def add(a, b):\n    return a + b\n",
    }
    off = {"vector": 0, "keyword": 0, "definition": 0, "reference": 0, "path": 0, "map": 0}
    tops = {}
    for signal in ("path", "keyword"):
        root = _project_with(make_project, files, {"search_weights": {**off, signal: 1}})
        answer = _call(server_bin, root, "semantic_search", {"query": "invoice total", "collection": "forest"})
        tops[signal] = answer["results"][0]["file"]
    assert tops == {"path": "app/invoice_total.py", "keyword": "app/helpers.py"}, tops


async def test_sync_on_start_and_sync_ttl_hours_decide_the_start_up_sync(server_bin, open_client, make_project):
    def last_sync(root: Path):
        state = root / ".code-intel/sync_state.json"
        return json.loads(state.read_text())["last_sync"] if state.exists() else None

    async def started(root: Path, expect_sync: bool) -> None:
        async with open_client(root, env=NO_MODEL) as client:
            before = last_sync(root)
            await client.ok("get_session_status")
            deadline = time.monotonic() + (30 if expect_sync else 3)
            while time.monotonic() < deadline and last_sync(root) == before:
                await _sleep()
            assert (last_sync(root) != before) is expect_sync, (before, last_sync(root))

    # Never synced: the server syncs at start unless sync_on_start is off.
    await started(_project_with(make_project, APP, {"sync_on_start": True}), True)
    await started(_project_with(make_project, APP, {"sync_on_start": False}), False)
    # Synced a moment ago: a TTL of one hour skips the start-up sync, a TTL of zero does not.
    for ttl, expect in [(1, False), (0, True)]:
        root = _project_with(make_project, APP, {"sync_on_start": True, "sync_ttl_hours": ttl})
        _call(server_bin, root, "sync_index", {})
        time.sleep(1.1)  # last_sync has a resolution of one second
        await started(root, expect)


def test_max_index_size_mb_and_memory_limit_mb_bound_the_index_and_its_batches(server_bin, make_project):
    # 40 files of about 100 KB: 4 MB of code, far above a 1 MiB store.
    files = {
        f"app/m{i}.py": "".join(f"def f_{i}_{j}():\n    return {j}  # value {i} {j}\n" for j in range(2500))
        for i in range(40)
    }

    def sync(config: dict) -> dict:
        return _call(server_bin, _project_with(make_project, files, config), "sync_index", {"target": "forest"})["forest"]

    # Small batches (memory_limit_mb 128: 16 files a commit): the size limit stops the sync
    # after the first batch and the rest is reported.
    small = sync({"max_index_size_mb": 1, "memory_limit_mb": 128})
    assert small["truncated"] is True and small["files"] == 16, {k: small[k] for k in ("files", "truncated")}
    assert sum("index limit reached" in s["reason"] for s in small["skipped"]) == 24
    # The default budget commits all 40 files in one batch before the size is checked.
    large = sync({"max_index_size_mb": 1})
    assert large["truncated"] is True and large["files"] == 40
    # 0: no size limit.
    unbounded = sync({"max_index_size_mb": 0, "memory_limit_mb": 128})
    assert unbounded["truncated"] is False and unbounded["files"] == 40
