"""The relevance judge on a project this repository did not write: the back end of
fastapi/full-stack-fastapi-template (vendored under fixtures/fastapi-template, MIT).

A Japanese request about the login, explored the way a careful agent would (the login route,
the function that checks the credentials, the password hash check, each found with the code
tools), must reach READY without a detour through SEMANTIC; a symbol of another feature and a
symbol that does not exist must still be refused. Scores come from the provisioned
multilingual-e5-small model (scripts/model/provision.sh), as in test_session.py.
"""

from __future__ import annotations

import json
import os
import sys
import time

import pytest
from conftest import run_cli, wait_for_index

pytestmark = pytest.mark.anyio

# Generous: embedding the fixture on a loaded 2-core machine takes tens of seconds. Tests that
# wait for it see the judge as a minute or so into a real session, the field ranked by meaning.
EMBED_WAIT_SECS = 240
QUERY = "ログイン処理を修正したい"
FRAME = {
    "target_feature": {"value": "ログイン処理", "quote": "ログイン処理"},
    "desired_action": {"value": "修正", "quote": "修正したい"},
}
LOGIN_SYMBOLS = ["login_access_token", "authenticate", "verify_password"]
UNDERSTANDING = {
    "symbols_identified": LOGIN_SYMBOLS,
    "entry_points": ["login_access_token"],
    "files_analyzed": [
        "backend/app/api/routes/login.py",
        "backend/app/crud.py",
        "backend/app/core/security.py",
    ],
    "patterns": ["the route calls crud.authenticate, which checks the hash with security.verify_password"],
}


async def explore(client) -> None:
    """What an agent does to find the login code: search, then definitions and references."""
    found = await client.ok("search_text", {"pattern": "login"})
    assert any("routes/login.py" in m["file"] for m in found["matches"]), found
    for symbol in LOGIN_SYMBOLS:
        defs = await client.ok("find_definitions", {"symbol": symbol})
        assert defs["definitions"], f"{symbol}: {defs}"
    refs = await client.ok("find_references", {"symbol": "authenticate"})
    assert any("routes/login.py" in r["file"] for r in refs["references"]), refs
    refs = await client.ok("find_references", {"symbol": "verify_password"})
    assert any(r["file"].endswith("crud.py") for r in refs["references"]), refs


# The Japanese term alone scores the login route 0.55 (gray): the model links English requests
# to English code better than Japanese ones. Its English rendering from the glossary ("login")
# puts the described score above 0.6, and the fitted combination agrees in each state of the
# index: with every chunk embedded it also sees where the project's own search ranks the route
# (0.72); with the chunks stored and not embedded, where the search by the project's words
# ranks it; before the first sync, it goes without a field and still puts the route above 0.6.
# So the right exploration reaches READY directly, whether the index is done or not.
@pytest.mark.parametrize(
    "stage", ["embedded", "stored", None], ids=["indexed", "index-stored", "index-not-awaited"]
)
async def test_a_japanese_login_request_explored_right_reaches_ready(
    open_client, fresh_fixture, stage
):
    root = fresh_fixture("fastapi-template")
    async with open_client(root) as client:
        if stage:
            await wait_for_index(client, stage, EMBED_WAIT_SECS)
        await client.ok("start_session", {"intent": "MODIFY", "query": QUERY})
        frame = await client.ok("set_query_frame", FRAME)
        assert [s["slot"] for s in frame["valid_slots"]] == list(FRAME), frame
        await explore(client)

        understood = await client.ok("submit_understanding", UNDERSTANDING)
        scores = {s["symbol"]: s["similarity"] for s in understood["symbols_with_confidence"]}
        print(f"submit_understanding similarities (index {stage or 'not awaited'}): {scores}")
        assert understood["phase"] == "READY", understood
        assert scores["login_access_token"] > 0.6, scores


# Neighbours of the login: the sign-up, the password recovery and the token test live next to it
# (the same routes, the same words) and the described score alone made each of them a FACT for
# 「ログイン処理」 (0.65-0.70). Judged by agreement with the code evidence and the project's own
# ranking, only the login route is.
NEIGHBOURS = ["register_user", "recover_password", "reset_password", "test_token"]


async def test_neighbours_of_the_login_are_not_facts(open_client, fresh_fixture):
    root = fresh_fixture("fastapi-template")
    async with open_client(root) as client:
        await wait_for_index(client, "embedded", EMBED_WAIT_SECS)
        await client.ok("start_session", {"intent": "MODIFY", "query": QUERY})
        await client.ok("set_query_frame", FRAME)
        await explore(client)
        for symbol in NEIGHBOURS:
            await client.ok("find_definitions", {"symbol": symbol})

        checked = await client.ok(
            "validate_symbol_relevance",
            {"target_feature": "ログイン処理", "symbols_identified": ["login_access_token"] + NEIGHBOURS},
        )
        tiers = {s["symbol"]: (s["tier"], s["similarity"]) for s in checked["embedding_suggestions"]}
        print(f"validate_symbol_relevance: {tiers}")
        assert tiers["login_access_token"][0] == "FACT", tiers
        for symbol in NEIGHBOURS:
            assert tiers[symbol][0] != "FACT", (symbol, tiers)

        # Naming only neighbours does not make the session READY.
        understood = await client.ok(
            "submit_understanding",
            {
                "symbols_identified": NEIGHBOURS,
                "entry_points": ["register_user"],
                "files_analyzed": ["backend/app/api/routes/login.py", "backend/app/api/routes/users.py"],
                "patterns": ["routes call crud helpers"],
            },
        )
        assert understood["phase"] != "READY", understood


async def test_the_login_symbols_are_approved_with_code_evidence(open_client, fresh_fixture):
    root = fresh_fixture("fastapi-template")
    async with open_client(root) as client:
        await client.ok("start_session", {"intent": "MODIFY", "query": QUERY})
        await client.ok("set_query_frame", FRAME)
        await explore(client)

        checked = await client.ok(
            "validate_symbol_relevance",
            {"target_feature": "ログイン処理", "symbols_identified": LOGIN_SYMBOLS + ["create_item"]},
        )
        ranked = [s["symbol"] for s in checked["embedding_suggestions"]]
        print(f"validate_symbol_relevance: {checked['embedding_suggestions']}")
        # The route and the credential check rank above another feature's symbol. (The hash
        # helper, verify_password, says nothing of logging in by itself and is not asserted.)
        assert ranked.index("create_item") > max(
            ranked.index("login_access_token"), ranked.index("authenticate")
        ), ranked

        confirm = await client.ok(
            "confirm_symbol_relevance",
            {
                "relevant_symbols": ["login_access_token", "authenticate"],
                "code_evidence": "login_access_token calls `crud.authenticate(session, email, password)` "
                "and raises 「Incorrect email or password」; authenticate calls `get_user_by_email` "
                "and `verify_password`",
            },
        )
        by_symbol = {r["symbol"]: r for r in confirm["results"]}
        print(f"confirm: { {s: r['similarity'] for s, r in by_symbol.items()} }")
        assert all(r["approved"] for r in by_symbol.values()), confirm
        assert by_symbol["login_access_token"]["status"] == "FACT"
        assert "authenticate" in by_symbol["login_access_token"]["verified_names"]
        assert "verify_password" in by_symbol["authenticate"]["verified_names"]


@pytest.mark.parametrize("stage", [None, "stored"], ids=["index-not-awaited", "index-stored"])
async def test_wrong_and_invented_symbols_are_still_refused(open_client, fresh_fixture, stage):
    root = fresh_fixture("fastapi-template")
    async with open_client(root) as client:
        if stage:
            await wait_for_index(client, stage)
        await client.ok("start_session", {"intent": "MODIFY", "query": QUERY})
        await client.ok("set_query_frame", FRAME)
        await explore(client)

        confirm = await client.ok(
            "confirm_symbol_relevance",
            {
                "relevant_symbols": ["create_item", "LoginManager"],
                "code_evidence": "create_item calls `Item.model_validate` and `session.commit`; "
                "`LoginManager.login()` checks the password",
            },
        )
        wrong, invented = confirm["results"]
        print(f"confirm (index {stage or 'not awaited'}): create_item {wrong['similarity']:.3f}")
        assert wrong["symbol"] == "create_item" and wrong["status"] == "REJECTED", wrong
        assert wrong["similarity"] < 0.3 and wrong["approved"] is False
        # Citing names that really are in create_item's code does not lift a rejection.
        assert "model_validate" in wrong["verified_names"]
        assert invented["symbol"] == "LoginManager" and invented["status"] == "REJECTED"
        assert "does not exist" in invented["reinvestigation_guidance"]["reason"]

        # Only another feature's symbols: the session is not READY on them.
        understood = await client.ok(
            "submit_understanding",
            {
                "symbols_identified": ["create_item", "read_items", "Item"],
                "entry_points": ["create_item"],
                "files_analyzed": ["backend/app/crud.py", "backend/app/api/routes/items.py", "backend/app/models.py"],
                "patterns": ["routes call crud helpers"],
            },
        )
        scores = {s["symbol"]: s["similarity"] for s in understood["symbols_with_confidence"]}
        print(f"unrelated understanding: {understood['phase']} {scores}")
        assert understood["phase"] != "READY", understood
        assert all(s <= 0.6 for s in scores.values()), scores


# A build or a test run keeping every core busy is the usual state of a developer's machine, and
# the agent's own `cargo test` runs in the server's session. The model's warm-up is background
# work (SCHED_IDLE), which the scheduler does not run at all while the same session keeps the
# cores busy: the load never ended, and the session tools waited their 20 s for the judge and
# answered that relevance was unavailable. A verdict that waits now loads the model at the tool
# call's own priority. The busy loops share the server's session (and so its scheduling group);
# started elsewhere, the kernel's per-session grouping would give the server its own share.
HOG = "import os\np = os.getppid()\nwhile os.getppid() == p: pass"
BUSY_CALL_TIMEOUT_SECS = 240


async def test_a_busy_machine_does_not_starve_the_judge(open_client, fresh_fixture):
    root = fresh_fixture("fastapi-template")
    hogs = " ".join(["\"$0\" -c \"$HOG\" &"] * (os.cpu_count() or 2))
    wrap = ["sh", "-c", f'{hogs} exec "$@"', sys.executable]
    env = {"HOG": HOG, "PATH": os.environ.get("PATH", ""), "HOME": os.environ["HOME"]}
    async with open_client(root, env=env, wrap=wrap) as client:
        await client.ok("start_session", {"intent": "MODIFY", "query": QUERY})
        await client.ok("set_query_frame", FRAME)
        await explore(client)
        started = time.monotonic()
        # If the model is still loading after the call's wait, the submission is refused (and
        # the session stays where it was) rather than passed unchecked; the agent calls again.
        refusals = 0
        while True:
            # One call may take most of a minute here: a load and a verdict on a fraction of
            # a core.
            is_error, understood = await client.call(
                "submit_understanding", UNDERSTANDING, timeout=BUSY_CALL_TIMEOUT_SECS
            )
            if not is_error:
                break
            assert understood["error"]["code"] == "EMBEDDING_UNAVAILABLE", understood
            assert "call again" in understood["error"]["message"], understood
            status = await client.ok("get_session_status")
            assert status["phase"] == "EXPLORATION", status
            refusals += 1
            assert refusals < 5, understood
        print(
            f"submit_understanding on a busy machine: {time.monotonic() - started:.1f}s, "
            f"{refusals} refusal(s) while the model loaded"
        )
        assert understood["phase"] == "READY", understood
        # Judged, not waved through: every symbol has its similarity and nothing is unchecked.
        scores = {s["symbol"]: s["similarity"] for s in understood["symbols_with_confidence"]}
        assert all(score is not None for score in scores.values()), understood
        assert not any("not checked" in w for w in understood.get("warnings", [])), understood


# A domain's own word: a veterinary clinic's request about its pet owners. 飼い主 ("owner") is
# no word of the glossary's shared software vocabulary; the Japanese dictionary provisioned next
# to the model (scripts/model/dictionary.py) gives its senses, and the project's names choose
# `owner` among them. The vets' listing shares the request's action (search, find) and its file
# layout, and only the word 飼い主 tells it apart. Project: spring-projects/spring-petclinic,
# vendored under fixtures/spring-petclinic (Apache-2.0).
OWNER_QUERY = "飼い主の検索を直したい"
OWNER_FRAME = {
    "target_feature": {"value": "飼い主の検索", "quote": "飼い主の検索"},
    "desired_action": {"value": "修正", "quote": "直したい"},
}
OWNER_SEARCH = ["OwnerController.processFindForm", "OwnerRepository.findByLastNameStartingWith"]
VETS = "VetRepository.findAll"


def model_dir_without_dictionary(tmp_path) -> str:
    """The provisioned model directory's files, the dictionary's left out."""
    model = os.environ.get("CODE_INTEL_MODEL_DIR") or os.path.expanduser(
        "~/.cache/code-intel/models/multilingual-e5-small"
    )
    assert os.path.isfile(os.path.join(model, "ja-en.tsv")), (
        f"no dictionary in {model}: run scripts/model/provision.sh"
    )
    bare = tmp_path / "model-without-dictionary"
    bare.mkdir()
    for name in os.listdir(model):
        if not name.startswith("ja-en."):
            (bare / name).symlink_to(os.path.join(model, name))
    return str(bare)


async def owner_search_tiers(client) -> dict[str, tuple[str, float]]:
    await wait_for_index(client, "embedded", EMBED_WAIT_SECS)
    await client.ok("start_session", {"intent": "MODIFY", "query": OWNER_QUERY})
    frame = await client.ok("set_query_frame", OWNER_FRAME)
    assert [s["slot"] for s in frame["valid_slots"]] == list(OWNER_FRAME), frame
    for symbol in OWNER_SEARCH + [VETS]:
        defs = await client.ok("find_definitions", {"symbol": symbol.split(".")[-1]})
        assert defs["definitions"], f"{symbol}: {defs}"
    checked = await client.ok(
        "validate_symbol_relevance",
        {"target_feature": "飼い主の検索", "symbols_identified": OWNER_SEARCH + [VETS]},
    )
    return {s["symbol"]: (s["tier"], s["similarity"]) for s in checked["embedding_suggestions"]}


async def test_a_domain_word_the_glossary_lacks_is_read_through_the_dictionary(
    open_client, fresh_fixture, tmp_path
):
    with_dictionary = fresh_fixture("spring-petclinic")
    async with open_client(with_dictionary) as client:
        tiers = await owner_search_tiers(client)
    print(f"validate_symbol_relevance, with the dictionary: {tiers}")
    for symbol in OWNER_SEARCH:
        assert tiers[symbol][0] != "REJECTED", tiers
    # The vets' listing is about another of the project's entities than the request's: on this
    # machine it is rejected (0.28). The assertions keep a margin for another machine's kernels.
    assert tiers[VETS][0] != "FACT", tiers
    assert all(tiers[VETS][1] < tiers[symbol][1] for symbol in OWNER_SEARCH), tiers

    # The same project and calls with a model directory that has no dictionary: 飼い主 is then
    # a word the server cannot read, and the vets' listing is not refused (a FACT at 0.60 here).
    without = fresh_fixture("spring-petclinic")
    env = {**os.environ, "CODE_INTEL_MODEL_DIR": model_dir_without_dictionary(tmp_path)}
    async with open_client(without, env=env) as client:
        bare = await owner_search_tiers(client)
    print(f"validate_symbol_relevance, without the dictionary: {bare}")
    assert bare[VETS][0] != "REJECTED", bare
    assert bare[VETS][1] - tiers[VETS][1] > 0.15, (bare, tiers)


def _labelled(tmp_path, project):
    """Two labelled pairs on the FastAPI project, as `tests/eval/relevance/` lays them out: the
    pairs, `repos.json` beside them, and the repository under a directory of checkouts."""
    pairs = [
        {"repo": "fastapi-template", "term": "ログイン", "term_lang": "ja", "symbol": "login_access_token",
         "file": "backend/app/api/routes/login.py", "line": 24, "relevant": True, "class": "cross-script"},
        {"repo": "fastapi-template", "term": "login", "term_lang": "en", "symbol": "create_item",
         "file": "backend/app/api/routes/items.py", "line": 62, "relevant": False, "class": "unrelated"},
    ]
    labels = tmp_path / "labels"
    labels.mkdir()
    (labels / "pairs.jsonl").write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pairs))
    (labels / "repos.json").write_text(json.dumps({"repos": [{"name": "fastapi-template", "split": "dev"}]}))
    return labels / "pairs.jsonl", project.parent


@pytest.mark.parametrize("field", ["words", "none", "meaning"])
def test_eval_relevance_measures_the_judge_in_the_state_it_names(server_bin, fresh_fixture, tmp_path, field):
    """`code-intel eval-relevance --field words|none` measures the judge of a project whose chunks
    are stored and not embedded, and leaves its index that way; `--field meaning` embeds every
    chunk first. The report says which state each repository's index was in."""
    pairs, repos = _labelled(tmp_path, fresh_fixture("fastapi-template"))
    features = tmp_path / "features.jsonl"
    done = run_cli(server_bin, "eval-relevance", str(pairs), "--repos", str(repos), "--field", field,
                   "--json", "--features", str(features), timeout=EMBED_WAIT_SECS + 120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["unresolved"] == []
    assert report["groups"]["all"]["pairs"] == 2
    index = report["indexes"]["fastapi-template"]
    assert index["chunks"] > 50, index
    if field == "meaning":
        assert index["embedded"] == index["chunks"], index
    else:
        assert index["embedded"] == 0, index
    rows = [json.loads(line) for line in features.read_text().splitlines()]
    scores = {row["symbol"]: row["score"] for row in rows}
    # The login route is kept in every state (the end-to-end session tests hold it at FACT).
    assert scores["login_access_token"] >= 0.3, scores
