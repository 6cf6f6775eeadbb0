"""A full or read-only disk under the semantic index, over MCP: a state, not an accident.

The index lives on a small file system mounted for the test (tmpfs, which needs root or
CAP_SYS_ADMIN; elsewhere these tests are skipped and say why). Each case checks that the code
tools answer throughout, that the agent is told what is wrong with a typed error or
`index_status.store`, and that once the disk accepts writes again the index resumes by itself
and ends as a clean index of the same files does (chunks and vectors counted).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest
from conftest import FIXTURES, run_cli

pytestmark = pytest.mark.anyio

# Room for the fixture's store with its vectors (about 700 KB) and some to spare.
DISK_SIZE = "3m"


@pytest.fixture
def small_disk(tmp_path: Path):
    """A tmpfs of DISK_SIZE mounted under the test's directory, unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={DISK_SIZE}", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small file system here: {done.stderr.strip() or done.returncode}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def fill(disk: Path) -> Path:
    """Writes a file until the disk is full; returns it (delete it to free the space)."""
    filler = disk / f"filler-{uuid.uuid4().hex}"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        for size in (65536, 4096, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError:
                pass
    finally:
        os.close(fd)
    return filler


def clean_counts(server_bin: Path, tmp_path: Path, source: Path) -> dict:
    """Chunks and vectors of a clean index of the same files, on a normal disk."""
    root = tmp_path / "clean" / uuid.uuid4().hex / source.name
    shutil.copytree(source, root, ignore=shutil.ignore_patterns(".code-intel"))
    done = run_cli(server_bin, "index", "--root", str(root), "--json", timeout=300)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["chunks"] and summary["embedded"] == summary["chunks"], summary
    return summary


async def status(client) -> dict:
    data = await client.ok("semantic_search", {"query": "login", "collection": "forest"})
    return data["index_status"]


def whole(status: dict) -> bool:
    """The store writable again and every chunk embedded."""
    return status["store"]["state"] == "ok" and bool(status["chunks"]) and status["embedded"] == status["chunks"]


async def wait_until(client, check, what: str, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        is_error, data = await client.call("semantic_search", {"query": "login", "collection": "forest"})
        if not is_error and check(data["index_status"]):
            return data["index_status"]
        assert time.monotonic() < deadline, f"{what}: {data}"
        await asyncio.sleep(0.5)


async def test_a_full_disk_is_a_state_and_the_index_resumes_when_space_returns(
    open_client, server_bin, small_disk, tmp_path
):
    clean = clean_counts(server_bin, tmp_path, FIXTURES / "python-service")
    root = small_disk / "python-service"
    shutil.copytree(FIXTURES / "python-service", root)
    filler = fill(small_disk)
    async with open_client(root) as client:
        # The code tools answer whatever the index's disk does.
        found = await client.ok("find_definitions", {"symbol": "AuthService"})
        assert found["definitions"], found
        # The index cannot be written at all: a typed error that says so, never INTERNAL.
        err = await client.error("sync_index", {}, "INDEX_NOT_WRITABLE")
        assert err["details"]["state"] == "disk_full", err
        assert "full" in err["message"] and ".rs:" not in err["message"], err
        err = await client.error("semantic_search", {"query": "login"}, "INDEX_NOT_WRITABLE")
        assert (await client.ok("search_text", {"pattern": "def login"}))["matches"]

        filler.unlink()
        # Nobody calls sync_index again: the index resumes by itself.
        final = await wait_until(
            client,
            whole,
            "the index did not resume after space was freed",
        )
        assert final["chunks"] == clean["chunks"], (final, clean)
        await client.assert_alive()


async def test_a_disk_that_fills_during_embedding_keeps_what_is_stored_and_finishes_later(
    open_client, server_bin, small_disk, tmp_path
):
    clean = clean_counts(server_bin, tmp_path, FIXTURES / "python-service")
    root = small_disk / "python-service"
    shutil.copytree(FIXTURES / "python-service", root)
    # Room for the chunks and their full-text index, not for their vectors.
    ballast = small_disk / "ballast"
    free = shutil.disk_usage(small_disk).free
    ballast.write_bytes(b"\0" * max(0, free - 420 * 1024))
    async with open_client(root) as client:
        paused = await wait_until(
            client,
            lambda s: s["store"]["state"] == "disk_full",
            "the full disk was not reported",
        )
        assert "resume" in paused["store"]["detail"], paused
        # What is stored answers: the lexical part of the ranking finds the login code.
        hits = (await client.ok("semantic_search", {"query": "login", "collection": "forest"}))["results"]
        assert any("auth" in h["file"] for h in hits), hits
        stuck = (await status(client))["embedded"]
        await asyncio.sleep(6)
        assert (await status(client))["embedded"] == stuck, "embedding went on on a full disk"

        ballast.unlink()
        final = await wait_until(
            client,
            whole,
            "embedding did not resume after space was freed",
        )
        assert final["chunks"] == clean["chunks"], (final, clean)


async def test_a_read_only_disk_is_a_state_and_changes_are_indexed_once_it_is_writable(
    open_client, server_bin, small_disk, tmp_path
):
    # The project on a normal disk, the store on the small one.
    root = tmp_path / "project" / "python-service"
    shutil.copytree(FIXTURES / "python-service", root)
    store = small_disk / "lancedb"
    (root / ".code-intel").mkdir(exist_ok=True)
    (root / ".code-intel" / "config.json").write_text(json.dumps({"store_uri": str(store)}))
    done = run_cli(server_bin, "index", "--root", str(root), "--json", timeout=300)
    assert done.returncode == 0, done.stderr
    before = json.loads(done.stdout.strip().splitlines()[-1])

    remount = lambda mode: subprocess.run(  # noqa: E731
        ["mount", "-o", f"remount,{mode}", str(small_disk)], check=True, capture_output=True
    )
    remount("ro")
    try:
        (root / "src" / "orderly" / "audit.py").write_text(
            "def record_failed_login(email):\n    \"\"\"Keeps a trace of a refused login.\"\"\"\n"
            "    return email\n"
        )
        async with open_client(root) as client:
            err = await client.error("sync_index", {}, "INDEX_NOT_WRITABLE")
            assert err["details"]["state"] == "read_only", err
            # A forced sync cannot set the store aside either, and says so the same way.
            err = await client.error("sync_index", {"force": True}, "INDEX_NOT_WRITABLE")
            assert err["details"]["state"] == "read_only", err
            found = await client.ok("find_definitions", {"symbol": "record_failed_login"})
            assert found["definitions"], found
            # Searches answer from the store as it was.
            reading = await status(client)
            assert reading["store"]["state"] == "read_only" and reading["chunks"] == before["chunks"]

            remount("rw")
            final = await wait_until(
                client,
                lambda s: whole(s) and s["chunks"] > before["chunks"],
                "the change was not indexed once the disk was writable",
            )
            hits = (await client.ok("semantic_search", {"query": "refused login trace"}))["results"]
            assert any(h["file"].endswith("audit.py") for h in hits), hits
            clean = clean_counts(server_bin, tmp_path, root)
            assert final["chunks"] == clean["chunks"], (final, clean)
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(small_disk)], capture_output=True)


def test_the_command_line_fails_with_the_reason_on_a_full_disk(server_bin, small_disk):
    root = small_disk / "python-service"
    shutil.copytree(FIXTURES / "python-service", root)
    filler = fill(small_disk)
    done = run_cli(server_bin, "index", "--root", str(root), timeout=300)
    assert done.returncode != 0, done.stdout
    assert "full" in done.stderr and "code-intel index" in done.stderr, done.stderr
    assert ".rs:" not in done.stderr.splitlines()[-1], done.stderr
    filler.unlink()
    done = run_cli(server_bin, "index", "--root", str(root), "--json", timeout=300)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["chunks"] and summary["embedded"] == summary["chunks"], summary
