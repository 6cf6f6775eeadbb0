//! Memory tests: file formats round-trip, expiry and pruning, the JSON map's scoring, the logs
//! under concurrent writers, and the insights computed from them.

use super::*;
use crate::query_frame::{Intent, RiskLevel};
use crate::relevance::{FakeRelevance, SharedRelevance};
use chrono::{Duration, TimeZone, Utc};
use std::sync::Arc;

fn now() -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 1, 12, 0, 0).unwrap()
}

fn agreement(nl_term: &str, symbol: &str) -> Agreement {
    Agreement {
        nl_term: nl_term.into(),
        symbol: symbol.into(),
        similarity: 0.82,
        session_id: "session_20261101_120000_ab12".into(),
        code_evidence:
            "AuthService.login() がユーザー認証を処理\n`verify_password` compares hashes".into(),
        files: vec!["src/orderly/auth/service.py".into()],
        query: "ログイン機能: パスワードが空のとき \"エラー\" が出ない".into(),
        created_at: now().to_rfc3339(),
    }
}

#[test]
fn agreements_round_trip_through_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let memory = Memory::new(dir.path());
    for (term, symbol) in [
        ("ログイン機能", "AuthService"),
        ("rate limit: login", "RateLimiter::hit"),
        ("- leading dash", "App\\Auth\\Guard"),
    ] {
        let a = agreement(term, symbol);
        let path = memory.write_agreement(&a).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("---\ndoc_type: agreement\n"), "{text}");
        assert!(text.contains("## 根拠 (Code Evidence)"), "{text}");
        let back = parse_agreement(&text).unwrap();
        assert_eq!(back, a, "{text}");
    }
    // The seed's own example parses.
    let seed = "---\ndoc_type: agreement\nnl_term: ログイン機能\nsymbol: AuthService\nsimilarity: 0.85\nsession_id: session_20250112_143000\n---\n\n# ログイン機能 → AuthService\n\n## 根拠 (Code Evidence)\n\nAuthService.login() がユーザー認証を処理\n\n## 関連ファイル\n\n- `src/auth/service.py`\n";
    let a = parse_agreement(seed).unwrap();
    assert_eq!(
        (a.nl_term.as_str(), a.symbol.as_str()),
        ("ログイン機能", "AuthService")
    );
    assert_eq!(a.files, ["src/auth/service.py"]);
    assert!((a.similarity - 0.85).abs() < 1e-6);
    assert!(parse_agreement("# just markdown").is_none());
    // Re-learning a pair replaces its file.
    assert_eq!(memory.agreements().len(), 3);
    memory
        .write_agreement(&agreement("ログイン機能", "AuthService"))
        .unwrap();
    assert_eq!(memory.agreements().len(), 3);
}

#[test]
fn learned_pairs_expire_and_follow_the_code() {
    let dir = tempfile::tempdir().unwrap();
    let memory = Memory::new(dir.path());
    let pair = |symbol: &str, age_days: i64| LearnedPair {
        nl_term: "ログイン".into(),
        symbol: symbol.into(),
        similarity: 0.7,
        code_evidence: "login()".into(),
        session_id: "s".into(),
        learned_at: (now() - Duration::days(age_days)).to_rfc3339(),
    };
    let all = |_: &str| true;
    memory
        .learn_pairs(
            &[
                pair("AuthService", 1),
                pair("OldAuth", 31),
                pair("LoginView", 29),
                pair("Gone", 2),
            ],
            now() - Duration::days(0),
            &|s: &str| s != "nothing",
        )
        .unwrap();
    // Expiry is applied on load; so is the disappearance of a symbol.
    let exists = |s: &str| s != "Gone";
    let pairs = memory.learned_pairs(now(), &exists).unwrap();
    let mut names: Vec<&str> = pairs.pairs.iter().map(|p| p.symbol.as_str()).collect();
    names.sort();
    assert_eq!(names, ["AuthService", "LoginView"]);
    // The pruned cache was written back.
    let reloaded = LearnedPairs::load(&memory.learned_pairs_path()).unwrap();
    assert_eq!(reloaded.pairs.len(), 2);
    // Two days later LoginView (29 days old) has expired too.
    let later = memory
        .learned_pairs(now() + Duration::days(2), &all)
        .unwrap();
    assert_eq!(later.pairs.len(), 1);
    // Matching normalises the term (full-width / half-width) and filters by symbol.
    let hits = later.matches("ﾛｸﾞｲﾝ", &["AuthService".into(), "Other".into()]);
    assert_eq!(hits.len(), 1);
    assert!(later.matches("ログイン", &["Other".into()]).is_empty());
}

#[test]
fn learned_pairs_expire_after_the_configured_days() {
    let dir = tempfile::tempdir().unwrap();
    let memory = Memory::new(dir.path()).with_expiry_days(7);
    let pair = |symbol: &str, age_days: i64| LearnedPair {
        nl_term: "cart".into(),
        symbol: symbol.into(),
        similarity: 0.7,
        code_evidence: "total()".into(),
        session_id: "s".into(),
        learned_at: (now() - Duration::days(age_days)).to_rfc3339(),
    };
    let all = |_: &str| true;
    memory
        .learn_pairs(&[pair("Cart", 6), pair("OldCart", 8)], now(), &all)
        .unwrap();
    let pairs = memory.learned_pairs(now(), &all).unwrap();
    let names: Vec<&str> = pairs.pairs.iter().map(|p| p.symbol.as_str()).collect();
    assert_eq!(names, ["Cart"]);
}

#[test]
fn json_map_scores_with_calibrated_relevance() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeRelevance::new()
        .with("パスワード", "パスワードが空", 0.9)
        .with("ログイン", "ログイン機能", 0.75)
        .with("注文", "ログイン", 0.1);
    let store = JsonMapStore::new(dir.path(), SharedRelevance::new(Arc::new(fake)));
    assert!(store.is_empty().unwrap());
    let entry = MapEntry {
        id: "AuthService-1".into(),
        nl_term: "ログイン機能".into(),
        symbols: vec!["AuthService".into()],
        files: vec!["src/auth/service.py".into()],
        code_evidence: "login()".into(),
        similarity: 0.8,
        session_id: "s1".into(),
        query: "ログイン機能でパスワードが空のときエラーが出ない".into(),
        created_at: now().to_rfc3339(),
    };
    store.upsert(&entry).unwrap();
    store.upsert(&entry).unwrap();
    assert_eq!(store.len().unwrap(), 1);
    let cases = [
        ("パスワードが空でもログインできてしまう", 0.9),
        ("ログイン画面", 0.75),
        ("注文一覧", 0.1),
    ];
    for (query, want) in cases {
        let hits = store.search(query, 3).unwrap();
        assert_eq!(hits.len(), 1, "{query}");
        assert!(
            (hits[0].score - want).abs() < 1e-6,
            "{query}: {}",
            hits[0].score
        );
        assert_eq!(hits[0].symbols, ["AuthService"]);
    }
}

fn outcome(session: &str, outcome: Outcome, risk: RiskLevel, phase: &str) -> OutcomeLog {
    OutcomeLog {
        session_id: session.into(),
        outcome,
        phase_at_outcome: phase.into(),
        intent: Intent::Modify,
        risk_level: risk,
        semantic_used: false,
        analysis: None,
        trigger_message: None,
        tools_used: vec!["find_definitions".into()],
        phase_violations: 0,
        timestamp: now().to_rfc3339(),
    }
}

fn decision(session: &str, tools: &[&str]) -> crate::router::DecisionLog {
    crate::router::DecisionLog {
        query: "q".into(),
        timestamp: now().to_rfc3339(),
        intent: Intent::Modify,
        required_phases: vec![
            crate::router::Phase::Exploration,
            crate::router::Phase::Ready,
        ],
        missing_slots: vec![],
        risk_level: RiskLevel::Medium,
        tools_planned: tools.iter().map(|s| s.to_string()).collect(),
        needs_bootstrap: false,
        bootstrap_reason: None,
        session_id: Some(session.into()),
    }
}

#[test]
fn logs_survive_concurrent_writers_and_feed_insights() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    // Four writers with their own Memory handles (as two processes would have) append at once.
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let root = root.clone();
            std::thread::spawn(move || {
                let memory = Memory::new(&root);
                for i in 0..25 {
                    memory
                        .record_decision(&decision(&format!("t{t}-{i}"), &["find_references"]))
                        .unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let memory = Memory::new(&root);
    assert_eq!(memory.decisions().unwrap().len(), 100);
    // A torn last line is skipped, not fatal.
    crate::fsutil::append_line(&memory.decisions_path(), "{\"query\": \"tor").unwrap();
    assert_eq!(memory.decisions().unwrap().len(), 100);

    memory
        .record_decision(&decision("a", &["find_references", "search_text"]))
        .unwrap();
    memory
        .record_decision(&decision("b", &["search_text"]))
        .unwrap();
    memory
        .record_outcome(&outcome("a", Outcome::Failure, RiskLevel::High, "READY"))
        .unwrap();
    memory
        .record_outcome(&outcome("a", Outcome::Success, RiskLevel::High, "READY"))
        .unwrap();
    memory
        .record_outcome(&outcome(
            "b",
            Outcome::Failure,
            RiskLevel::Medium,
            "EXPLORATION",
        ))
        .unwrap();
    memory
        .record_outcome(&outcome(
            "c",
            Outcome::Partial,
            RiskLevel::Medium,
            "VERIFICATION",
        ))
        .unwrap();

    let a = session_analysis(&memory, "a").unwrap();
    assert!(a.analysis.had_decision && a.analysis.had_outcome);
    assert_eq!(a.analysis.final_outcome, Some(Outcome::Success));
    assert_eq!(a.analysis.failure_point, None);
    assert_eq!(a.outcomes.len(), 2);
    let b = session_analysis(&memory, "b").unwrap();
    assert_eq!(b.analysis.failure_point.as_deref(), Some("EXPLORATION"));
    assert_eq!(b.analysis.tools_planned, ["search_text"]);

    let insights = serde_json::to_value(improvement_insights(&memory, 100).unwrap()).unwrap();
    assert_eq!(insights["total_sessions_with_outcomes"], 3);
    assert_eq!(insights["sessions_with_decisions"], 2);
    assert_eq!(
        insights["tool_failure_correlation"]["search_text"]["sessions"],
        2
    );
    assert_eq!(
        insights["tool_failure_correlation"]["search_text"]["failures"],
        1
    );
    assert_eq!(
        insights["risk_level_correlation"]["MEDIUM"]["failure_rate"],
        1.0
    );
    assert_eq!(
        insights["risk_level_correlation"]["HIGH"]["failure_rate"],
        0.0
    );
    assert_eq!(insights["common_failure_points"]["EXPLORATION"], 1);
    assert_eq!(insights["common_failure_points"]["VERIFICATION"], 1);
    // The limit keeps the most recent sessions.
    let last = serde_json::to_value(improvement_insights(&memory, 1).unwrap()).unwrap();
    assert_eq!(last["total_sessions_with_outcomes"], 1);
    assert_eq!(last["common_failure_points"]["VERIFICATION"], 1);
}
