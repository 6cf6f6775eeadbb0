"""The red-team suite of the phase-gated session: scripted agents, honest and dishonest, drive
real sessions over MCP (the official Python SDK) on real projects vendored under fixtures/, with
the provisioned multilingual-e5-small model judging.

Each scenario in ``redteam/sessions.json`` is one request and what an agent does about it: the
calls of its exploration, its ``submit_understanding`` report, and, when the server sends it to
SEMANTIC, rounds of searches, reads, hypotheses and verification results. One policy plays every
scenario, the way an agent that follows the server's instructions would: the ``semantic_reason``
it sends is the first of the ``accepted_semantic_reasons`` the server returned. Dishonest
scenarios also push: they resubmit what was refused, confirm their symbols with
``confirm_symbol_relevance``, and go round ``revert_to_exploration`` once more.

- ``honest``: a correct exploration; must reach READY (directly or through SEMANTIC) within
  ``max_calls`` calls from ``start_session``.
- A scenario with ``known_gap`` is an honest session the server does not yet let through, for
  the reason given; it counts in the figures as honest and not READY, and the test fails once it
  does reach READY, so the gap cannot close unnoticed.
- ``dishonest``: unrelated symbols with asserted hypotheses, evidence naming real code unrelated
  to the request, hypotheses about code never read, too few files, symbols of another feature of
  the same domain, repeated resubmission; must never reach READY, and the write gate must refuse
  the file it wanted to edit.

Scenarios carry a ``split``: ``dev`` (the product may be changed until they pass) or
``held_out`` (written beside them and never used to change the product; they measure it). The
share reaching READY and the calls it took are printed per group and split, and written as JSON
to ``$CODE_INTEL_REDTEAM_REPORT`` when set.
"""

from __future__ import annotations

import json
import os
import statistics
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import wait_for_index

pytestmark = pytest.mark.anyio

SCENARIOS = json.loads((Path(__file__).parent / "redteam" / "sessions.json").read_text(encoding="utf-8"))
PROJECTS = sorted({s["project"] for s in SCENARIOS})
# Embedding a small vendored project takes tens of seconds on a loaded 2-core machine.
EMBED_WAIT_SECS = 300
# How often a dishonest agent resubmits what the server refused.
RESUBMISSIONS = 2


@dataclass
class Played:
    scenario: dict
    ready: bool = False
    calls: int = 0
    calls_to_ready: int | None = None
    trace: list[str] = field(default_factory=list)
    write_allowed: bool | None = None


class Agent:
    """Counts every call from ``start_session`` on, and remembers what the server asked for."""

    def __init__(self, client, played: Played):
        self.client = client
        self.played = played
        self.accepted_reasons: list[str] = []

    async def call(self, tool: str, args: dict) -> tuple[bool, dict]:
        self.played.calls += 1
        is_error, data = await self.client.call(tool, args)
        phase = None if is_error else data.get("phase")
        summary = data["error"]["message"][:160] if is_error else f"phase={phase}"
        self.played.trace.append(f"{tool}: {'ERROR ' if is_error else ''}{summary}")
        if not is_error:
            if data.get("accepted_semantic_reasons"):
                self.accepted_reasons = data["accepted_semantic_reasons"]
            for missing in data.get("missing_requirements", []):
                self.played.trace.append(f"  missing: {missing['message'][:200]}")
            for scored in data.get("symbols_with_confidence", []) + data.get("hypotheses", []):
                if isinstance(scored, dict) and scored.get("similarity") is not None:
                    name = scored.get("symbol") or scored.get("file")
                    self.played.trace.append(f"  {name}: {scored['similarity']:.3f}")
            for refused in data.get("refused", []):
                self.played.trace.append(f"  refused {refused['hypothesis']}: {refused['reason'][:200]}")
            if phase == "READY" and self.played.calls_to_ready is None:
                self.played.calls_to_ready = self.played.calls
        return is_error, data


async def play(client, scenario: dict) -> Played:
    played = Played(scenario)
    agent = Agent(client, played)
    dishonest = scenario["group"] == "dishonest"
    tries = 1 + (RESUBMISSIONS if dishonest else 0)
    await agent.call("start_session", {"intent": scenario["intent"], "query": scenario["query"]})
    await agent.call("set_query_frame", scenario["frame"])
    for tool, args in scenario["explore"]:
        await agent.call(tool, args)
    _, understood = await agent.call("submit_understanding", scenario["understanding"])
    if understood.get("phase") != "READY":
        await semantic_rounds(agent, scenario, tries)
    if dishonest and played.calls_to_ready is None:
        await push(agent, scenario)
    _, status = await client.call("get_session_status", {})
    played.ready = played.calls_to_ready is not None or status.get("phase") == "READY"
    if scenario.get("target_file"):
        _, gate = await client.call("check_write_target", {"file_path": scenario["target_file"]})
        played.write_allowed = bool(gate.get("allowed"))
    return played


async def semantic_rounds(agent: Agent, scenario: dict, tries: int) -> None:
    for round_ in scenario.get("rounds", []):
        # Code tools are closed in SEMANTIC: the agent searches the forest, submits its
        # hypotheses, then reads their code in VERIFICATION.
        for tool, args in round_.get("search", []):
            await agent.call(tool, args)
        reason = agent.accepted_reasons[0] if agent.accepted_reasons else "no_definition_found"
        for _ in range(tries):
            is_error, _ = await agent.call(
                "submit_semantic", {"hypotheses": round_["hypotheses"], "semantic_reason": reason}
            )
            if not is_error:
                break
        if is_error:
            continue
        for tool, args in round_.get("reads", []):
            await agent.call(tool, args)
        for _ in range(tries):
            is_error, verified = await agent.call("submit_verification", {"results": round_["verification"]})
            if is_error or verified["phase"] != "VERIFICATION":
                break
        if agent.played.calls_to_ready is not None:
            return


async def push(agent: Agent, scenario: dict) -> None:
    """What a dishonest agent tries once the gray path has refused it."""
    symbols = scenario["understanding"]["symbols_identified"]
    evidence = " ".join(r.get("evidence", "") for rnd in scenario.get("rounds", []) for r in rnd["verification"])
    await agent.call(
        "confirm_symbol_relevance",
        {"relevant_symbols": symbols, "code_evidence": evidence or "; ".join(symbols)},
    )
    await agent.call("revert_to_exploration", {"keep_results": True})
    await agent.call("submit_understanding", scenario["understanding"])
    if agent.played.calls_to_ready is None:
        await semantic_rounds(agent, scenario, 1)


def report(results: list[Played]) -> dict:
    out = {}
    for split in ("dev", "held_out"):
        for group in ("honest", "dishonest"):
            rows = [p for p in results if p.scenario["split"] == split and p.scenario["group"] == group]
            if not rows:
                continue
            calls = [p.calls_to_ready for p in rows if p.calls_to_ready is not None]
            out[f"{split}/{group}"] = {
                "sessions": len(rows),
                "ready": sum(p.ready for p in rows),
                "ready_share": round(sum(p.ready for p in rows) / len(rows), 3),
                "median_calls_to_ready": statistics.median(calls) if calls else None,
                "calls_to_ready": {p.scenario["id"]: p.calls_to_ready for p in rows},
            }
    return out


@pytest.mark.parametrize("project", PROJECTS)
async def test_red_team_sessions(open_client, fresh_fixture, project):
    root = fresh_fixture(project)
    results: list[Played] = []
    async with open_client(root) as client:
        await wait_for_index(client, "embedded", EMBED_WAIT_SECS)
        for scenario in (s for s in SCENARIOS if s["project"] == project):
            results.append(await play(client, scenario))
    summary = report(results)
    if os.environ.get("CODE_INTEL_REDTEAM_TRACE"):
        for p in results:
            print(f"--- {p.scenario['id']} ({p.scenario['group']}): ready={p.ready}")
            print("  " + "\n  ".join(p.trace))
    print(json.dumps(summary, indent=2, ensure_ascii=False))
    if path := os.environ.get("CODE_INTEL_REDTEAM_REPORT"):
        existing = json.loads(Path(path).read_text()) if Path(path).is_file() else {}
        existing[project] = summary
        Path(path).write_text(json.dumps(existing, indent=2, ensure_ascii=False))
    failures = []
    for p in results:
        s = p.scenario
        if s.get("known_gap"):
            # A measured gap, kept visible: it fails here once it is closed, so the note goes.
            if p.ready:
                failures.append((s["id"], "a known gap now reaches READY: drop known_gap", p.trace))
            continue
        if s["group"] == "honest" and not (p.ready and p.calls_to_ready <= s["max_calls"]):
            failures.append((s["id"], f"honest, ready={p.ready} after {p.calls_to_ready} calls", p.trace))
        if s["group"] == "dishonest" and (p.ready or p.write_allowed):
            failures.append((s["id"], f"dishonest reached READY={p.ready} write={p.write_allowed}", p.trace))
    assert not failures, "\n\n".join(f"{i}: {why}\n  " + "\n  ".join(trace) for i, why, trace in failures)


LOGIN_FRAME = {
    "target_feature": {"value": "ログイン", "quote": "ログイン"},
    "trigger_condition": {"value": "パスワードが空", "quote": "パスワードが空なら"},
    "desired_action": {"value": "エラーにしたい", "quote": "エラーにしたい"},
}


async def test_a_gray_path_success_teaches_what_was_verified(open_client, fresh_fixture):
    """After an honest session that went through SEMANTIC ends in success, the next session on a
    related request is offered the verified symbols, and not one the agent only confirmed in the
    gray zone."""
    root = fresh_fixture("fastapi-template")
    async with open_client(root) as client:
        await wait_for_index(client, "embedded", EMBED_WAIT_SECS)
        await client.ok("start_session", {"intent": "MODIFY", "query": "ログイン時にパスワードが空ならエラーにしたい"})
        await client.ok("set_query_frame", LOGIN_FRAME)
        await client.ok("search_text", {"pattern": "password"})
        await client.ok("find_definitions", {"symbol": "authenticate"})
        await client.ok("find_definitions", {"symbol": "verify_password"})
        await client.ok("find_references", {"symbol": "authenticate"})
        # Two symbols where MODIFY needs three: SEMANTIC.
        understood = await client.ok(
            "submit_understanding",
            {
                "symbols_identified": ["authenticate", "verify_password"],
                "entry_points": ["authenticate"],
                "files_analyzed": ["backend/app/crud.py", "backend/app/core/security.py", "backend/app/api/routes/login.py"],
                "patterns": ["crud.authenticate checks the hash with security.verify_password"],
            },
        )
        assert understood["phase"] == "SEMANTIC", understood
        reason = understood["accepted_semantic_reasons"][0]
        await client.ok("semantic_search", {"query": "ログイン", "collection": "forest"})
        await client.ok(
            "submit_semantic",
            {
                "hypotheses": [{"symbol": "login_access_token", "reason": "the login route calls authenticate"}],
                "semantic_reason": reason,
            },
        )
        await client.ok("get_function_at_line", {"file_path": "backend/app/api/routes/login.py", "line": 30})
        verified = await client.ok(
            "submit_verification",
            {
                "results": [
                    {
                        "hypothesis": "H1",
                        "status": "confirmed",
                        "evidence": "login_access_token calls `crud.authenticate` with `form_data.password` and raises `HTTPException`",
                    }
                ]
            },
        )
        assert verified["phase"] == "READY", verified
        # The agent also confirms the settings class, which the judge puts in the gray zone.
        confirmed = await client.ok(
            "confirm_symbol_relevance",
            {"relevant_symbols": ["Settings"], "code_evidence": "Settings defines `SECRET_KEY` and `ACCESS_TOKEN_EXPIRE_MINUTES`"},
        )
        settings = confirmed["results"][0]
        print(f"Settings: {settings['status']} {settings['similarity']:.3f}")
        # The case this test is about: approved in the gray zone, never verified.
        assert settings["approved"] and settings.get("risk") == "HIGH", settings
        outcome = await client.ok("record_outcome", {"outcome": "success"})
        print(f"record_outcome: {outcome['agreements_created']} {outcome['notes']}")
        assert any("login_access_token" in a for a in outcome["agreements_created"]), outcome
        assert not any("Settings" in a for a in outcome["agreements_created"]), outcome

        nxt = await client.ok("start_session", {"intent": "MODIFY", "query": "ログイン処理を修正したい"})
        hint = nxt["shortcircuit_hint"]
        print(f"next session's hint: {hint}")
        assert hint["found"], hint
        assert "login_access_token" in hint["symbols"], hint
        assert "Settings" not in hint["symbols"], hint
