"""The team's vector cache on a real S3-compatible server: moto's standalone server on loopback,
with authentication on (IAM users for a CI writer and a read-only developer).

One project copy publishes (`code-intel index --publish`, what CI runs); a second copy on a
"fresh machine" (an empty machine cache) is then embedded from the team's cache without computing
a vector. Every failure of the store (wrong credentials, a missing bucket, nothing listening, a
server that never answers, one that stops in the middle of a response) ends with the index
complete, computed locally, a clear `remote_cache` state, and tool calls that never waited on it.
"""

import asyncio
import json
import os
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest
from conftest import FIXTURES, run_cli
from s3server import BUCKET, MOTO, S3, free_port

pytestmark = pytest.mark.anyio

PROJECT = "python-service"
URI = f"s3://{BUCKET}/code-intel"
INDEX_TIMEOUT = 900


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    if not MOTO.is_file():
        pytest.fail(f"{MOTO} is missing: run scripts/setup.sh (tests/e2e/requirements.txt)")
    server = S3(tmp_path_factory.mktemp("s3"))
    yield server
    server.close()


def env_for(s3: S3, key: dict, machine_cache: Path, uri: str = URI, endpoint: str | None = None):
    return {**s3.env(key, uri, endpoint), "CODE_INTEL_VECTOR_CACHE_DIR": str(machine_cache)}


def copy_project(dest: Path, extra: dict[str, str] | None = None) -> Path:
    shutil.copytree(FIXTURES / PROJECT, dest, ignore=shutil.ignore_patterns(".code-intel"))
    for rel, text in (extra or {}).items():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_text(text, encoding="utf-8")
    return dest


def index(server_bin: Path, root: Path, env: dict, *extra: str) -> tuple[int, dict, str]:
    done = run_cli(server_bin, "index", "--root", str(root), "--json", *extra, env=env,
                   timeout=INDEX_TIMEOUT)
    summary = json.loads(done.stdout) if done.stdout.strip() else {}
    return done.returncode, summary, done.stderr


def top_hits(server_bin: Path, root: Path, env: dict, query: str) -> list[tuple[str, int]]:
    done = run_cli(server_bin, "search", query, "--root", str(root), "--json", "--top", "8",
                   env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return [(hit["path"], hit["start_line"]) for hit in lines]


QUERIES = ["where are passwords hashed", "ユーザーを登録する処理"]


@pytest.fixture(scope="module")
def published(s3, server_bin, tmp_path_factory):
    """One project copy indexed and published by the CI writer; its machine cache stays warm."""
    tmp = tmp_path_factory.mktemp("publisher")
    root = copy_project(tmp / PROJECT)
    env = env_for(s3, s3.writer, tmp / "machine-cache")
    code, summary, stderr = index(server_bin, root, env, "--publish")
    assert code == 0, stderr
    return {"root": root, "env": env, "summary": summary}


def test_ci_publishes_every_text_once(published, s3, server_bin):
    summary = published["summary"]
    assert summary["embedded"] == summary["chunks"] > 0 and summary["head_only"] == 0, summary
    report = summary["published"]
    # Every chunk's whole text, and the heads of those longer than their head.
    assert report["offered"] >= summary["chunks"], report
    assert report["added"] == report["offered"] and report["present"] == 0, report
    assert s3.objects("code-intel/vectors_384.lance/"), "nothing was written to the bucket"
    # Publishing again adds nothing: the cache already holds every text.
    code, again, stderr = index(server_bin, published["root"], published["env"], "--publish")
    assert code == 0, stderr
    assert again["published"]["added"] == 0, again["published"]
    assert again["published"]["present"] == report["offered"], again["published"]


def test_a_fresh_machine_is_embedded_from_the_team_cache(published, s3, server_bin, tmp_path):
    root = copy_project(tmp_path / PROJECT)
    env = env_for(s3, s3.reader, tmp_path / "empty-machine-cache")
    code, summary, stderr = index(server_bin, root, env)
    assert code == 0, stderr
    assert summary["embedded"] == summary["chunks"] == published["summary"]["chunks"], summary
    assert summary["head_only"] == 0, summary
    remote = summary["remote_cache"]
    assert remote["state"] == "ok" and remote["uri"] == URI, remote
    # Nothing was computed: every text the two passes needed came from the team's cache, and
    # went into this machine's cache on the way.
    assert remote["misses"] == 0 and remote["hits"] > 0, remote
    assert summary["vector_cache"]["hits"] == 0, summary["vector_cache"]
    assert summary["vector_cache"]["written"] == remote["hits"], summary["vector_cache"]
    print(f"\nfresh machine: {remote['hits']} texts from the team cache in {summary['seconds']:.1f} s "
          f"(the publisher embedded them in {published['summary']['seconds']:.1f} s)")
    # The same vectors: the same answers, in the same order.
    for query in QUERIES:
        assert top_hits(server_bin, root, env, query) == top_hits(
            server_bin, published["root"], published["env"], query
        ), query


def test_a_read_only_key_reads_but_cannot_publish(published, s3, server_bin, tmp_path):
    root = copy_project(tmp_path / PROJECT, {"app/extra.py": "def brand_new_helper():\n    return 42\n"})
    env = env_for(s3, s3.reader, tmp_path / "machine-cache")
    before = s3.objects("code-intel/")
    code, summary, stderr = index(server_bin, root, env, "--publish")
    assert code == 1, (summary, stderr)
    assert "publishing to the team's cache failed" in stderr, stderr
    assert "AWS_SECRET_ACCESS_KEY=" not in stderr and s3.reader["secret"] not in stderr
    # The index itself is complete (the new file's chunks were computed here) and the bucket
    # is as it was.
    assert summary["embedded"] == summary["chunks"] and summary["head_only"] == 0, summary
    assert summary["remote_cache"]["hits"] > 0, summary["remote_cache"]
    assert s3.objects("code-intel/") == before


def test_two_publishers_at_once_leave_one_consistent_cache(published, s3, server_bin, tmp_path):
    """Two CI jobs publish at the same moment to an empty location: both succeed, and the cache
    they leave holds every text of both (a third copy finds all of them and has nothing to add)."""
    uri = f"s3://{BUCKET}/concurrent"
    extra = {"app/only_in_b.py": "def only_in_the_second_copy(x):\n    return x * 2\n"}
    roots = [copy_project(tmp_path / "a" / PROJECT), copy_project(tmp_path / "b" / PROJECT, extra)]
    # Both runners have the publisher's warm machine cache, as CI runners keep theirs.
    warm = Path(published["env"]["CODE_INTEL_VECTOR_CACHE_DIR"])
    caches = [tmp_path / "cache-a", tmp_path / "cache-b"]
    for cache in caches:
        shutil.copytree(warm, cache)
    procs = [
        subprocess.Popen(
            [str(server_bin), "index", "--root", str(root), "--json", "--publish"],
            env={**os.environ, **env_for(s3, s3.writer, cache, uri)},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for root, cache in zip(roots, caches)
    ]
    outs = [p.communicate(timeout=INDEX_TIMEOUT) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
    reports = [json.loads(out)["published"] for out, _ in outs]
    assert all(r["offered"] > 0 for r in reports), reports
    # A third copy, with the second's files and an empty machine cache, finds every text.
    third = copy_project(tmp_path / "c" / PROJECT, extra)
    env = env_for(s3, s3.writer, tmp_path / "cache-c", uri)
    code, summary, stderr = index(server_bin, third, env, "--publish")
    assert code == 0, stderr
    assert summary["remote_cache"]["misses"] == 0, summary["remote_cache"]
    assert summary["published"]["added"] == 0, summary["published"]
    assert summary["published"]["present"] == reports[1]["offered"], (summary["published"], reports)


@pytest.mark.parametrize(
    "case",
    ["wrong_key", "no_bucket", "nothing_listening"],
)
def test_a_failing_store_ends_in_a_clear_state_and_a_complete_index(
    case, published, s3, server_bin, tmp_path
):
    root = copy_project(tmp_path / PROJECT)
    cache = tmp_path / "machine-cache"
    if case == "wrong_key":
        env = env_for(s3, {"id": "AKIAWRONGWRONGWRONG0", "secret": "not-the-secret"}, cache)
        want = "denied"
    elif case == "no_bucket":
        env = env_for(s3, s3.reader, cache, uri="s3://no-such-bucket/code-intel")
        want = "no_bucket"
    else:
        env = env_for(s3, s3.reader, cache, endpoint=f"http://127.0.0.1:{free_port()}")
        want = "unreachable"
    code, summary, stderr = index(server_bin, root, env)
    assert code == 0, stderr
    assert summary["embedded"] == summary["chunks"] == published["summary"]["chunks"], summary
    assert summary["head_only"] == 0, summary
    remote = summary["remote_cache"]
    print(f"\n{case}: {remote} in {summary['seconds']:.1f} s")
    assert remote["state"] == want, remote
    assert remote["hits"] == 0 and remote["misses"] > 0, remote
    assert "not-the-secret" not in json.dumps(summary) + stderr
    assert top_hits(server_bin, root, env, QUERIES[0]) == top_hits(
        server_bin, published["root"], published["env"], QUERIES[0]
    )


class Proxy:
    """A TCP proxy in front of the S3 server that never answers (`hang`), or passes bytes until
    `cut_after` bytes of responses went through and then drops every connection, present and
    future (a server that stops in the middle of a read)."""

    def __init__(self, upstream: int, mode: str, cut_after: int = 0):
        self.upstream, self.mode, self.cut_after = upstream, mode, cut_after
        self.sent = 0
        self.dead = threading.Event()
        self.lock = threading.Lock()
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.mode == "hang":
                self.held.append(client)  # read nothing, answer nothing
                continue
            if self.dead.is_set():
                client.close()
                continue
            upstream = socket.create_connection(("127.0.0.1", self.upstream))
            threading.Thread(target=self._pump, args=(client, upstream, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, True), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, response: bool) -> None:
        try:
            while not self.dead.is_set():
                data = src.recv(16384)
                if not data:
                    break
                if response:
                    with self.lock:
                        room = self.cut_after - self.sent
                        self.sent += len(data)
                    if room <= len(data):
                        dst.sendall(data[: max(room, 0)])
                        self.dead.set()
                        break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self) -> None:
        self.listener.close()
        for s in self.held:
            s.close()


async def test_a_server_that_never_answers_holds_up_no_tool_call(
    published, s3, server_bin, tmp_path, open_client
):
    proxy = Proxy(s3.port, "hang")
    try:
        root = copy_project(tmp_path / PROJECT)
        env = {**os.environ, **env_for(s3, s3.reader, tmp_path / "machine-cache",
                                       endpoint=f"http://127.0.0.1:{proxy.port}")}
        async with open_client(root, env=env) as client:
            slowest = 0.0
            deadline = time.monotonic() + INDEX_TIMEOUT
            while True:
                started = time.monotonic()
                await client.ok("search_text", {"pattern": "def ", "max_results": 5})
                result = await client.ok("semantic_search", {"query": QUERIES[0]})
                slowest = max(slowest, time.monotonic() - started)
                status = result["index_status"]
                if status["chunks"] and status["embedded"] == status["chunks"] and not status["head_only"]:
                    break
                assert time.monotonic() < deadline, status
                await asyncio.sleep(1)
            remote = status["remote_cache"]
            print(f"\nhung store: {remote}")
            assert remote["state"] == "unreachable", remote
            assert remote["detail"].startswith("the store gave no answer") or remote["detail"].startswith("the store could not be reached"), remote
            assert remote["hits"] == 0, remote
            print(f"\nslowest pair of tool calls while the store hung: {slowest:.2f} s")
            # Tool calls answer from what is indexed; the cache's timeouts are the background's.
            assert slowest < 10, slowest
    finally:
        proxy.close()


def test_a_server_that_stops_mid_read_loses_nothing(published, s3, server_bin, tmp_path):
    # Enough for the listing and the table's metadata, then cut inside the vectors.
    proxy = Proxy(s3.port, "cut", cut_after=150_000)
    try:
        root = copy_project(tmp_path / PROJECT)
        env = env_for(s3, s3.reader, tmp_path / "machine-cache",
                      endpoint=f"http://127.0.0.1:{proxy.port}")
        code, summary, stderr = index(server_bin, root, env)
        assert proxy.dead.is_set(), "the proxy never cut a response: raise the test's size"
    finally:
        proxy.close()
    assert code == 0, stderr
    assert summary["embedded"] == summary["chunks"] == published["summary"]["chunks"], summary
    assert summary["head_only"] == 0, summary
    remote = summary["remote_cache"]
    print(f"\ncut after {proxy.sent} bytes: {remote} in {summary['seconds']:.1f} s")
    assert remote["state"] in ("unreachable", "error"), remote
    assert remote["misses"] > 0, remote
    assert top_hits(server_bin, root, env, QUERIES[0]) == top_hits(
        server_bin, published["root"], published["env"], QUERIES[0]
    )
