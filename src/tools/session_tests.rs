//! Session scenarios through the tool layer (`tools::dispatch`, so the phase gate and the call
//! record are exercised exactly as MCP calls them), with a deterministic relevance scorer. The
//! same scenario with the real model runs end to end in `tests/e2e/test_session.py`.

use crate::relevance::FakeRelevance;
use crate::tools::Context;
use crate::tools::test_support::{project, run};
use serde_json::{Value, json};
use std::sync::Arc;

const AUTH_SERVICE: &str = r#""""User authentication."""


class AuthService:
    """Handles user login and logout."""

    def __init__(self, users):
        self._users = users

    def login(self, email, password):
        """Check credentials and open a login session."""
        user = self._users.get_by_email(email)
        if not self.verify_password(password, user.password_hash):
            raise ValueError("invalid e-mail or password")
        return user

    def verify_password(self, password, encoded):
        return password == encoded
"#;

const CONFIG_LOADER: &str = r#"class ConfigLoader:
    """Loads application configuration from YAML files."""

    def load(self):
        return {}
"#;

const ROUTES: &str = r#"from ..auth.service import AuthService


def login_route(service: AuthService, email, password):
    return service.login(email, password)
"#;

const TESTS: &str = "def test_login():\n    assert True\n";

const QUERY: &str = "ログイン機能でパスワードが空のときエラーが出ないので、チェックを追加したい";

/// Scores a real model would give in spirit: the login request is close to AuthService and its
/// login route, far from ConfigLoader; a later, similar request is close to the first one.
fn fake() -> FakeRelevance {
    FakeRelevance::new()
        .with("ログイン", "class authservice", 0.82)
        .with("ログイン", "def login_route", 0.66)
        .with("ログイン", "def verify_password", 0.7)
        .with("ログイン", "class configloader", 0.08)
        .with("ログイン時", "ログイン機能", 0.8)
}

fn scenario_project() -> (tempfile::TempDir, Context) {
    let (dir, ctx) = project(&[
        ("src/auth/service.py", AUTH_SERVICE),
        ("src/config/loader.py", CONFIG_LOADER),
        ("src/api/routes/auth.py", ROUTES),
        ("tests/test_auth.py", TESTS),
    ]);
    ctx.sessions.relevance().set(Arc::new(fake()));
    (dir, ctx)
}

fn ok(ctx: &Context, tool: &str, args: Value) -> Value {
    run(ctx, tool, args.clone()).unwrap_or_else(|e| panic!("{tool} {args}: {}", e.to_json()))
}

fn err_code(ctx: &Context, tool: &str, args: Value) -> (String, Value) {
    let err = run(ctx, tool, args.clone()).expect_err(&format!("{tool} {args} should fail"));
    (err.code.as_str().to_string(), Value::Object(err.details))
}

/// The requirement keys of a tool answer's `missing_requirements`.
fn requirements(out: &Value) -> Vec<&str> {
    out["missing_requirements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["requirement"].as_str().unwrap())
        .collect()
}

fn frame_args() -> Value {
    json!({
        "target_feature": {"value": "ログイン機能", "quote": "ログイン機能"},
        "trigger_condition": {"value": "パスワードが空", "quote": "パスワードが空のとき"},
        "observed_issue": {"value": "エラーが出ない", "quote": "エラーが出ない"},
        "desired_action": {"value": "二段階認証を追加", "quote": "二段階認証を追加"},
    })
}

/// Start → frame → explore → READY, as the /code workflow does it.
fn reach_ready(ctx: &Context) -> String {
    let started = ok(
        ctx,
        "start_session",
        json!({"intent": "MODIFY", "query": QUERY}),
    );
    ok(ctx, "set_query_frame", frame_args());
    ok(ctx, "find_definitions", json!({"symbol": "AuthService"}));
    ok(ctx, "find_references", json!({"symbol": "AuthService"}));
    let out = ok(
        ctx,
        "submit_understanding",
        json!({
            "symbols_identified": ["AuthService", "AuthService.login", "login_route"],
            "entry_points": ["login_route"],
            "files_analyzed": ["src/auth/service.py", "src/api/routes/auth.py"],
            "patterns": ["routes receive the service as a parameter"],
        }),
    );
    assert_eq!(out["phase"], "READY", "{out}");
    started["session_id"].as_str().unwrap().to_string()
}

/// Start → frame → too little exploration (one unrelated symbol) → SEMANTIC, with what
/// `submit_understanding` answered.
fn reach_semantic(ctx: &Context) -> Value {
    ok(
        ctx,
        "start_session",
        json!({"intent": "MODIFY", "query": QUERY}),
    );
    ok(ctx, "set_query_frame", frame_args());
    ok(ctx, "find_definitions", json!({"symbol": "ConfigLoader"}));
    let out = ok(
        ctx,
        "submit_understanding",
        json!({"symbols_identified": ["ConfigLoader"], "files_analyzed": ["src/config/loader.py"]}),
    );
    assert_eq!(out["phase"], "SEMANTIC", "{out}");
    out
}

#[test]
fn without_a_session_every_tool_is_a_plain_tool() {
    let (_d, ctx) = scenario_project();
    ok(&ctx, "search_text", json!({"pattern": "login"}));
    let status = ok(&ctx, "get_session_status", json!({}));
    assert_eq!(status["active"], false);
    let write = ok(
        &ctx,
        "check_write_target",
        json!({"file_path": "src/auth/service.py"}),
    );
    assert_eq!(write["allowed"], true);
    assert_eq!(
        err_code(&ctx, "submit_understanding", json!({})).0,
        "NO_SESSION"
    );
    // Nothing was recorded anywhere.
    assert!(
        !ctx.ws
            .state_dir()
            .join("sessions")
            .join("active.json")
            .exists()
    );
}

#[test]
fn the_seeds_scenario_with_learning() {
    let (_d, ctx) = scenario_project();
    let started = ok(
        &ctx,
        "start_session",
        json!({"intent": "MODIFY", "query": QUERY}),
    );
    assert_eq!(started["phase"], "EXPLORATION");
    assert_eq!(started["shortcircuit_hint"]["found"], false);
    assert!(
        started["extraction_prompt"]
            .as_str()
            .unwrap()
            .contains(QUERY)
    );
    let id = started["session_id"].as_str().unwrap().to_string();

    // Tools of later phases are refused, with the phase and the way forward.
    let (code, details) = err_code(
        &ctx,
        "submit_semantic",
        json!({"hypotheses": [], "semantic_reason": "x"}),
    );
    assert_eq!(code, "PHASE_VIOLATION");
    assert_eq!(details["phase"], "EXPLORATION");
    assert!(
        details["next_step"]
            .as_str()
            .unwrap()
            .contains("submit_understanding")
    );
    assert_eq!(
        err_code(&ctx, "add_explored_files", json!({"files": ["x.py"]})).0,
        "PHASE_VIOLATION"
    );

    // The frame: verbatim quotes are facts; an invented one is rejected.
    let frame = ok(&ctx, "set_query_frame", frame_args());
    let valid: Vec<&str> = frame["valid_slots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["slot"].as_str().unwrap())
        .collect();
    assert_eq!(
        valid,
        ["target_feature", "trigger_condition", "observed_issue"]
    );
    assert_eq!(frame["rejected_slots"][0]["slot"], "desired_action");
    assert_eq!(frame["missing_slots"], json!(["desired_action"]));
    assert_eq!(frame["risk_level"], "MEDIUM");
    assert!(
        frame["plan"]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["tool"] == "find_references")
    );
    let decisions =
        std::fs::read_to_string(ctx.ws.state_dir().join("logs/decisions.jsonl")).unwrap();
    assert_eq!(decisions.lines().count(), 1);
    assert!(decisions.contains(&id));

    // A hallucinated symbol is refused and the phase does not move.
    let (code, details) = err_code(
        &ctx,
        "submit_understanding",
        json!({"symbols_identified": ["AuthServise"], "files_analyzed": ["src/auth/service.py"]}),
    );
    assert_eq!(code, "INVALID_PARAMETER");
    assert_eq!(details["hallucinated_symbols"][0]["symbol"], "AuthServise");
    assert_eq!(
        details["hallucinated_symbols"][0]["did_you_mean"][0],
        "AuthService"
    );

    ok(&ctx, "find_definitions", json!({"symbol": "AuthService"}));
    ok(&ctx, "find_references", json!({"symbol": "AuthService"}));
    let out = ok(
        &ctx,
        "submit_understanding",
        json!({
            "symbols_identified": ["AuthService", "ConfigLoader", "login_route"],
            "entry_points": ["login_route"],
            "files_analyzed": ["src/auth/service.py", "src/api/routes/auth.py"],
            "patterns": ["routes receive the service as a parameter"],
        }),
    );
    assert_eq!(out["phase"], "READY", "{out}");
    assert_eq!(
        out["high_confidence_symbols"],
        json!(["AuthService", "login_route"])
    );

    // The wrong symbol is rejected below 0.3 with guidance; the right one is a FACT.
    let confirm = ok(
        &ctx,
        "confirm_symbol_relevance",
        json!({
            "relevant_symbols": ["ConfigLoader", "AuthService"],
            "code_evidence": "`AuthService.login()` calls verify_password; ConfigLoader.load() reads the YAML files",
        }),
    );
    let results = confirm["results"].as_array().unwrap();
    assert_eq!(results[0]["symbol"], "ConfigLoader");
    assert_eq!(results[0]["status"], "REJECTED");
    assert!(results[0]["similarity"].as_f64().unwrap() < 0.3);
    assert!(
        results[0]["reinvestigation_guidance"]["next_actions"]
            .as_array()
            .unwrap()
            .len()
            >= 3
    );
    assert_eq!(results[1]["status"], "FACT");
    assert_eq!(results[1]["approved"], true);
    assert_eq!(
        results[1]["verified_names"],
        json!(["login", "verify_password"])
    );

    // Writes: explored files only, with recovery.
    let blocked = ok(
        &ctx,
        "check_write_target",
        json!({"file_path": "tests/test_auth.py"}),
    );
    assert_eq!(blocked["allowed"], false);
    assert!(blocked["recovery_options"]["add_explored_files"].is_object());
    ok(
        &ctx,
        "add_explored_files",
        json!({"files": ["tests/test_auth.py"]}),
    );
    let allowed = ok(
        &ctx,
        "check_write_target",
        json!({"file_path": ctx.ws.root().join("tests/test_auth.py").display().to_string()}),
    );
    assert_eq!(allowed["allowed"], true, "{allowed}");

    // Success teaches the project.
    let outcome = ok(
        &ctx,
        "record_outcome",
        json!({"outcome": "success", "analysis": "added the empty-password check"}),
    );
    // What the server judged: AuthService confirmed at FACT with evidence, then login_route,
    // which the judge put at FACT in the exploration. ConfigLoader was rejected.
    let created: Vec<&str> = outcome["agreements_created"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(created.len(), 2, "{outcome}");
    assert!(created[0].contains("AuthService-"), "{outcome}");
    assert!(created[1].contains("login_route-"), "{outcome}");
    assert_eq!(outcome["map_updated"], true);
    let agreement_path = ctx
        .ws
        .root()
        .join(outcome["agreements_created"][0].as_str().unwrap());
    let agreement =
        crate::memory::parse_agreement(&std::fs::read_to_string(agreement_path).unwrap()).unwrap();
    assert_eq!(
        (agreement.nl_term.as_str(), agreement.symbol.as_str()),
        ("ログイン機能", "AuthService")
    );
    assert_eq!(agreement.files, ["src/auth/service.py"]);
    let outcomes = ctx.sessions.memory().outcomes().unwrap();
    assert_eq!(outcomes.len(), 1);
    assert_eq!(
        outcomes[0].tools_used,
        ["find_definitions", "find_references"]
    );
    assert_eq!(outcomes[0].phase_violations, 2);
    assert_eq!(ok(&ctx, "get_session_status", json!({}))["active"], false);
    // A closed session can be read but no longer changed.
    assert_eq!(
        ok(&ctx, "get_session_status", json!({"session_id": id}))["status"],
        "closed"
    );
    let (code, _) = err_code(
        &ctx,
        "add_explored_files",
        json!({"files": ["x.py"], "session_id": id}),
    );
    assert_eq!(code, "NO_SESSION");

    // The next, similar request starts from what worked.
    let next = ok(
        &ctx,
        "start_session",
        json!({"intent": "MODIFY", "query": "ログイン時のパスワードチェックを強化したい"}),
    );
    assert_eq!(next["shortcircuit_hint"]["found"], true, "{next}");
    // Every symbol of the pattern, the strongest link first.
    assert_eq!(
        next["shortcircuit_hint"]["symbols"],
        json!(["AuthService", "login_route"])
    );
    assert!(next["shortcircuit_hint"]["confidence"].as_f64().unwrap() >= 0.7);
    let cached = ok(
        &ctx,
        "validate_symbol_relevance",
        json!({"target_feature": "ログイン機能", "symbols_identified": ["AuthService", "ConfigLoader"]}),
    );
    assert_eq!(cached["cached_matches"][0]["symbol"], "AuthService");
    assert_eq!(cached["embedding_suggestions"][0]["symbol"], "AuthService");
    // With the hint verified, a lighter exploration is enough.
    ok(
        &ctx,
        "set_query_frame",
        json!({"target_feature": {"value": "ログイン", "quote": "ログイン"}}),
    );
    ok(&ctx, "find_definitions", json!({"symbol": "AuthService"}));
    let out = ok(
        &ctx,
        "submit_understanding",
        json!({"symbols_identified": ["AuthService"], "files_analyzed": ["src/auth/service.py"]}),
    );
    assert_eq!(out["phase"], "READY", "{out}");

    let insights = ok(&ctx, "get_improvement_insights", json!({}));
    assert_eq!(insights["total_sessions_with_outcomes"], 1);
    let analysis = ok(&ctx, "get_session_analysis", json!({"session_id": id}));
    assert_eq!(analysis["analysis"]["final_outcome"], "success");
}

/// Evidence may cite what calls a symbol: the name of a caller is around it, as its code is
/// in it; a name found nowhere near it verifies nothing.
#[test]
fn evidence_that_names_a_caller_is_verified() {
    let (_d, ctx) = scenario_project();
    reach_ready(&ctx);
    let confirm = ok(
        &ctx,
        "confirm_symbol_relevance",
        json!({
            "relevant_symbols": ["AuthService.verify_password"],
            "code_evidence": "`login_route` reaches it through `login()`; `ConfigLoader` reads YAML",
        }),
    );
    let check = &confirm["results"][0];
    assert_eq!(check["verified_names"], json!(["login"]), "{confirm}");
}

/// A hypothesis is verified by the same evidence as a confirmed symbol: a caller's name counts,
/// a name found nowhere near the symbol does not.
#[test]
fn verification_evidence_may_name_a_caller() {
    let (_d, ctx) = scenario_project();
    reach_semantic(&ctx);
    ok(
        &ctx,
        "submit_semantic",
        json!({
            "hypotheses": [{"symbol": "AuthService.verify_password", "reason": "the login checks passwords"}],
            "semantic_reason": "no_definition_found",
        }),
    );
    // Code the session never read is not verified, whatever the evidence says.
    let refused = ok(
        &ctx,
        "submit_verification",
        json!({"results": [{"hypothesis": "H1", "status": "confirmed", "evidence": "`login()` calls it"}]}),
    );
    let reason = refused["refused"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("never read"), "{refused}");
    ok(
        &ctx,
        "find_definitions",
        json!({"symbol": "AuthService.verify_password"}),
    );
    let refused = ok(
        &ctx,
        "submit_verification",
        json!({"results": [{"hypothesis": "H1", "status": "confirmed", "evidence": "`ConfigLoader` reads YAML"}]}),
    );
    assert_eq!(
        refused["refused"].as_array().map(Vec::len),
        Some(1),
        "{refused}"
    );
    let out = ok(
        &ctx,
        "submit_verification",
        json!({"results": [{"hypothesis": "H1", "status": "confirmed", "evidence": "`login()` calls it"}]}),
    );
    assert_eq!(out["refused"].as_array().map_or(0, Vec::len), 0, "{out}");
    assert_eq!(out["confirmed"], json!(["H1"]), "{out}");
    // The exploration's requirements did not vanish: two symbols, no entry point, no pattern,
    // no find_references. Back to SEMANTIC, told what is missing and what to send.
    assert_eq!(out["phase"], "SEMANTIC", "{out}");
    let missing = requirements(&out);
    assert_eq!(
        missing,
        ["symbols_identified", "entry_points", "patterns", "tools"],
        "{out}"
    );
    assert!(
        out["accepted_semantic_reasons"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r == "no_definition_found")
    );
}

#[test]
fn semantic_and_verification_phases_gate_the_tools() {
    let (_d, ctx) = scenario_project();
    // Not enough exploration (no find_references, one symbol): SEMANTIC.
    let out = reach_semantic(&ctx);
    let missing = requirements(&out);
    assert_eq!(
        missing,
        [
            "symbols_identified",
            "entry_points",
            "files_analyzed",
            "patterns",
            "tools",
            "symbol_relevance"
        ]
    );

    // Code tools are refused in SEMANTIC; the refusal names what is allowed.
    for tool in ["find_definitions", "search_text", "get_symbols"] {
        let args = match tool {
            "find_definitions" => json!({"symbol": "AuthService"}),
            "search_text" => json!({"pattern": "login"}),
            _ => json!({}),
        };
        let (code, details) = err_code(&ctx, tool, args);
        assert_eq!(code, "PHASE_VIOLATION", "{tool}");
        assert_eq!(details["phase"], "SEMANTIC");
        assert!(
            details["allowed"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t == "submit_semantic")
        );
        assert!(
            !details["allowed"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t == "search_text")
        );
    }
    let write = ok(
        &ctx,
        "check_write_target",
        json!({"file_path": "src/config/loader.py"}),
    );
    assert_eq!(write["allowed"], false);
    assert!(write["error"].as_str().unwrap().contains("SEMANTIC"));

    // A hypothesis naming a symbol that does not exist is refused.
    let (code, _) = err_code(
        &ctx,
        "submit_semantic",
        json!({"hypotheses": [{"symbol": "LoginManager", "reason": "sounds right"}], "semantic_reason": "no_definition_found"}),
    );
    assert_eq!(code, "INVALID_SYMBOL");
    let out = ok(
        &ctx,
        "submit_semantic",
        json!({
            "hypotheses": [
                {"symbol": "AuthService", "reason": "its docstring mentions login"},
                {"file": "src/api/routes/auth.py", "reason": "the login route"},
            ],
            "semantic_reason": "no_definition_found",
        }),
    );
    assert_eq!(out["phase"], "VERIFICATION");
    assert_eq!(
        out["warnings"].as_array().unwrap().len(),
        1,
        "no semantic_search call was recorded"
    );

    // Code tools are back; the forest would not be.
    ok(&ctx, "search_text", json!({"pattern": "def login"}));
    let (code, _) = err_code(
        &ctx,
        "submit_verification",
        json!({"results": [{"hypothesis": "H7", "status": "confirmed", "evidence": "x"}]}),
    );
    assert_eq!(code, "INVALID_PARAMETER");
    ok(&ctx, "find_definitions", json!({"symbol": "AuthService"}));
    ok(
        &ctx,
        "get_symbols",
        json!({"path": "src/api/routes/auth.py"}),
    );
    let out = ok(
        &ctx,
        "submit_verification",
        json!({"results": [{"hypothesis": "H1", "status": "confirmed", "evidence": "`login()` calls verify_password"}]}),
    );
    assert_eq!(out["phase"], "VERIFICATION", "H2 is still open: {out}");
    let out = ok(
        &ctx,
        "submit_verification",
        json!({"results": [{"hypothesis": "src/api/routes/auth.py", "status": "confirmed", "evidence": "login_route calls service.login"}]}),
    );
    assert_eq!(out["confirmed"], json!(["H1", "H2"]), "{out}");
    // Both confirmed, but the exploration had no entry point, no pattern and no
    // find_references: not READY, and the gate still refuses the write.
    assert_eq!(out["phase"], "SEMANTIC", "{out}");
    let write = ok(
        &ctx,
        "check_write_target",
        json!({"file_path": "src/api/routes/auth.py"}),
    );
    assert_eq!(write["allowed"], false);

    // Back to exploration on request.
    let out = ok(
        &ctx,
        "revert_to_exploration",
        json!({"keep_results": false}),
    );
    assert_eq!(out["phase"], "EXPLORATION");
    let status = ok(&ctx, "get_session_status", json!({}));
    assert_eq!(status["explored_files"], json!([]));
    let history: Vec<&str> = status["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["to"].as_str().unwrap())
        .collect();
    assert_eq!(
        history,
        [
            "EXPLORATION",
            "SEMANTIC",
            "VERIFICATION",
            "SEMANTIC",
            "EXPLORATION"
        ]
    );
    // The server's record holds every call, refused ones included.
    let calls = ctx
        .sessions
        .store()
        .calls(status["session_id"].as_str().unwrap())
        .unwrap();
    let violations = calls
        .iter()
        .filter(|c| c.error_code.as_deref() == Some("PHASE_VIOLATION"))
        .count();
    assert_eq!(violations, 3);
    let search = calls
        .iter()
        .find(|c| c.tool == "search_text" && c.ok)
        .unwrap();
    assert_eq!(search.phase, crate::session::Phase::Verification);
    assert!(
        search
            .result_files
            .contains(&"src/auth/service.py".to_string()),
        "{:?}",
        search.result_files
    );
}

#[test]
fn sessions_survive_a_restart() {
    let (dir, ctx) = scenario_project();
    let id = reach_ready(&ctx);
    ok(&ctx, "add_explored_files", json!({"files": ["tests/"]}));
    drop(ctx);
    let ctx = Context::open(dir.path()).unwrap();
    ctx.sessions.relevance().set(Arc::new(fake()));
    let status = ok(&ctx, "get_session_status", json!({}));
    assert_eq!(status["session_id"], id.as_str());
    assert_eq!(status["phase"], "READY");
    assert_eq!(
        status["query_frame"]["target_feature"]["value"],
        "ログイン機能"
    );
    assert!(status["tool_calls"]["count"].as_u64().unwrap() >= 6);
    assert_eq!(
        ok(
            &ctx,
            "check_write_target",
            json!({"file_path": "tests/new_test.py", "allow_new_files": true})
        )["allowed"],
        true
    );
    assert_eq!(
        ok(
            &ctx,
            "check_write_target",
            json!({"file_path": "src/config/loader.py"})
        )["allowed"],
        false
    );
}

#[test]
fn two_servers_on_one_project_lose_nothing() {
    let (dir, ctx) = scenario_project();
    let id = reach_ready(&ctx);
    let before = ctx.sessions.store().calls(&id).unwrap().len();
    drop(ctx);
    const EACH: usize = 15;
    // Two independent contexts, as two server processes would have, hammering the same session.
    let handles: Vec<_> = (0..2)
        .map(|worker| {
            let root = dir.path().to_path_buf();
            std::thread::spawn(move || {
                let ctx = Context::open(&root).unwrap();
                for i in 0..EACH {
                    run(
                        &ctx,
                        "add_explored_files",
                        json!({"files": [format!("docs/w{worker}_{i}.md")]}),
                    )
                    .unwrap();
                    run(&ctx, "get_session_status", json!({})).unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let ctx = Context::open(dir.path()).unwrap();
    let state = ctx.sessions.store().load(&id).unwrap();
    for worker in 0..2 {
        for i in 0..EACH {
            assert!(
                state
                    .explored_files
                    .contains(&format!("docs/w{worker}_{i}.md")),
                "lost update w{worker}_{i}"
            );
        }
    }
    let calls = ctx.sessions.store().calls(&id).unwrap();
    assert_eq!(
        calls.len(),
        before + 2 * 2 * EACH,
        "every call recorded once"
    );
}

/// Seed 000's Step 0: a request that says the last change did not work records that session's
/// failure before the new session starts; a plain new request only reports the open session.
#[test]
fn step_zero_records_the_previous_failure() {
    let (_dir, ctx) = scenario_project();
    let first = reach_ready(&ctx);
    let follow_up = ok(
        &ctx,
        "start_session",
        json!({"intent": "MODIFY", "query": "ログインがまだ動かない。パスワードが空でも通ってしまう"}),
    );
    let previous = &follow_up["previous_session"];
    assert_eq!(previous["session_id"], first.as_str(), "{follow_up}");
    assert_eq!(previous["failure_recorded"], true);
    assert_eq!(previous["outcome"], "failure");
    let outcomes = std::fs::read_to_string(ctx.ws.state_dir().join("logs/outcomes.jsonl")).unwrap();
    let last: Value = serde_json::from_str(outcomes.lines().last().unwrap()).unwrap();
    assert_eq!(last["outcome"], "failure");
    assert_eq!(last["session_id"], first.as_str());
    assert!(
        last["trigger_message"]
            .as_str()
            .unwrap()
            .contains("まだ動かない")
    );

    // A new request that reports nothing: the open session is named, nothing is recorded.
    let second = follow_up["session_id"].as_str().unwrap().to_string();
    let plain = ok(
        &ctx,
        "start_session",
        json!({"intent": "IMPLEMENT", "query": "注文一覧をCSVで出力したい"}),
    );
    assert_eq!(plain["previous_session"]["session_id"], second.as_str());
    assert_eq!(plain["previous_session"]["failure_recorded"], false);
    assert!(plain["previous_session"].get("outcome").is_none());
    let after = std::fs::read_to_string(ctx.ws.state_dir().join("logs/outcomes.jsonl")).unwrap();
    assert_eq!(after.lines().count(), outcomes.lines().count());
}
