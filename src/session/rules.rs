//! The seeds' judgement rules, as pure functions of plain data: when an exploration is enough
//! (`evaluate_exploration`), when its report holds together (`validate_exploration_consistency`),
//! which reasons justify semantic search (`validate_semantic_reason`), and the 3-tier similarity
//! rule. The server, not the agent, applies them; the agent only supplies facts the server checks.

use crate::query_frame::{Intent, RiskLevel};
use crate::relevance::{FACT_THRESHOLD, REJECT_THRESHOLD};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The server's verdict on an exploration (seed 000: "high" / "low").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    High,
    Low,
}

/// One unmet requirement of [`evaluate_exploration`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MissingRequirement {
    /// `symbols_identified`, `entry_points`, `files_analyzed`, `patterns`, `tools`, or
    /// `symbol_relevance`; [`validate_semantic_reason`] keys on it.
    pub requirement: String,
    pub have: usize,
    pub need: usize,
    pub message: String,
}

/// What an exploration report contains, counted by the server.
#[derive(Debug, Clone, Default)]
pub struct ExplorationCounts {
    pub symbols: usize,
    pub entry_points: usize,
    pub files: usize,
    pub patterns: usize,
}

/// Tools that count as a required tool: `search_symbol` finds definitions too.
const TOOL_EQUIVALENTS: &[(&str, &[&str])] = &[
    ("find_definitions", &["find_definitions", "search_symbol"]),
    ("find_references", &["find_references"]),
    ("search_text", &["search_text"]),
];

/// Seed 000 `evaluate_exploration`. `tools_used` comes from the server's record of the session's
/// calls, never from the agent.
///
/// | intent | symbols | entry points | files | patterns | tools |
/// |---|---|---|---|---|---|
/// | IMPLEMENT / MODIFY | ≥ 3 | ≥ 1 | ≥ 2 | ≥ 1 | find_definitions, find_references |
/// | INVESTIGATE | ≥ 1 | | ≥ 1 | | |
/// | QUESTION | | | | | |
///
/// Two adjustments, both documented in the session module: HIGH risk (seed 003's gray zone
/// "raises the exploration quota") adds `search_text` and a third file for IMPLEMENT / MODIFY;
/// a verified short-circuit hint (a past success for a similar request, seed 004 "EXPLORATION
/// can be partly skipped") lowers IMPLEMENT / MODIFY to one symbol, one file and
/// find_definitions.
pub fn evaluate_exploration(
    intent: Intent,
    counts: &ExplorationCounts,
    tools_used: &BTreeSet<String>,
    risk: RiskLevel,
    shortcircuit_verified: bool,
) -> (Confidence, Vec<MissingRequirement>) {
    struct Need {
        symbols: usize,
        entry_points: usize,
        files: usize,
        patterns: usize,
        tools: Vec<&'static str>,
    }
    let writes = matches!(intent, Intent::Implement | Intent::Modify);
    let need = match intent {
        _ if writes && shortcircuit_verified => Need {
            symbols: 1,
            entry_points: 0,
            files: 1,
            patterns: 0,
            tools: vec!["find_definitions"],
        },
        Intent::Implement | Intent::Modify => {
            let high = risk == RiskLevel::High;
            let mut tools = vec!["find_definitions", "find_references"];
            if high {
                tools.push("search_text");
            }
            Need {
                symbols: 3,
                entry_points: 1,
                files: if high { 3 } else { 2 },
                patterns: 1,
                tools,
            }
        }
        Intent::Investigate => Need {
            symbols: 1,
            entry_points: 0,
            files: 1,
            patterns: 0,
            tools: vec![],
        },
        Intent::Question => Need {
            symbols: 0,
            entry_points: 0,
            files: 0,
            patterns: 0,
            tools: vec![],
        },
    };
    let mut missing = Vec::new();
    let mut check = |requirement: &str, have: usize, need: usize| {
        if have < need {
            missing.push(MissingRequirement {
                requirement: requirement.to_string(),
                have,
                need,
                message: format!(
                    "{requirement}: {have} given, {need} needed for {}",
                    intent.as_str()
                ),
            });
        }
    };
    check("symbols_identified", counts.symbols, need.symbols);
    check("entry_points", counts.entry_points, need.entry_points);
    check("files_analyzed", counts.files, need.files);
    check("patterns", counts.patterns, need.patterns);
    for tool in need.tools {
        let accepted = TOOL_EQUIVALENTS
            .iter()
            .find(|(t, _)| *t == tool)
            .map_or(&[][..], |(_, eq)| *eq);
        if !accepted.iter().any(|t| tools_used.contains(*t)) {
            missing.push(MissingRequirement {
                requirement: "tools".into(),
                have: 0,
                need: 1,
                message: format!(
                    "{tool} was not used in this session (the server's own record of its calls)"
                ),
            });
        }
    }
    let confidence = if missing.is_empty() {
        Confidence::High
    } else {
        Confidence::Low
    };
    (confidence, missing)
}

/// Seed 000 `validate_exploration_consistency`: entry points must belong to identified symbols,
/// no duplicates, patterns need files, no empty entries.
pub fn validate_exploration_consistency(
    symbols: &[String],
    entry_points: &[String],
    files: &[String],
    patterns: &[String],
) -> Vec<String> {
    let mut errors = Vec::new();
    for (name, list) in [
        ("symbols_identified", symbols),
        ("entry_points", entry_points),
        ("files_analyzed", files),
        ("patterns", patterns),
    ] {
        if list.iter().any(|s| s.trim().is_empty()) {
            errors.push(format!("{name} contains an empty entry"));
        }
        let mut seen = BTreeSet::new();
        for item in list {
            if !seen.insert(item.trim()) {
                errors.push(format!("{name} lists '{}' twice", item.trim()));
            }
        }
    }
    for entry in entry_points {
        let words: BTreeSet<&str> = entry
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
            .filter(|w| !w.is_empty())
            .collect();
        let tied = symbols.iter().any(|s| {
            let s = s.trim().trim_end_matches("()");
            entry.trim() == s
                || words.contains(s)
                || s.rsplit(['.', ':', '\\'])
                    .next()
                    .is_some_and(|last| words.contains(last))
        });
        if !tied {
            errors.push(format!(
                "entry point '{entry}' is not tied to any of symbols_identified; name the symbol it belongs to"
            ));
        }
    }
    if !patterns.is_empty() && files.is_empty() {
        errors.push(
            "patterns were given without files_analyzed: name the files the patterns were seen in"
                .into(),
        );
    }
    errors
}

/// Reasons `submit_semantic` accepts (seed 000).
pub const SEMANTIC_REASONS: &[&str] = &[
    "no_definition_found",
    "no_reference_found",
    "no_similar_implementation",
    "architecture_unknown",
    "context_fragmented",
];

/// Which reasons justify semantic search for each missing requirement (seed 000's table, with
/// the server's own `tools` and `symbol_relevance` requirements mapped like missing symbols).
fn reasons_for(requirement: &str) -> &'static [&'static str] {
    match requirement {
        "symbols_identified" | "symbol_relevance" | "tools" => {
            &["no_definition_found", "architecture_unknown"]
        }
        "entry_points" => &["no_definition_found", "no_reference_found"],
        "patterns" => &["no_similar_implementation", "architecture_unknown"],
        "files_analyzed" => &["context_fragmented", "architecture_unknown"],
        _ => SEMANTIC_REASONS,
    }
}

/// The `semantic_reason` values that fit `missing` (every reason when nothing is missing), in
/// a stable order: what `submit_understanding` tells the agent to send.
pub fn accepted_semantic_reasons(missing: &[MissingRequirement]) -> Vec<&'static str> {
    let fitting: BTreeSet<&'static str> = if missing.is_empty() {
        SEMANTIC_REASONS.iter().copied().collect()
    } else {
        missing
            .iter()
            .flat_map(|m| reasons_for(&m.requirement).iter().copied())
            .collect()
    };
    fitting.into_iter().collect()
}

/// Seed 000 `validate_semantic_reason`: the reason must be a known one and fit at least one
/// missing requirement. Returns the reasons that would fit when it does not.
pub fn validate_semantic_reason(
    reason: &str,
    missing: &[MissingRequirement],
) -> Result<(), Vec<&'static str>> {
    let fitting = accepted_semantic_reasons(missing);
    if fitting.contains(&reason.trim()) {
        Ok(())
    } else {
        Err(fitting)
    }
}

/// Seed 003's 3-tier rule on a calibrated similarity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Tier {
    /// > 0.6: approved as FACT.
    Fact,
    /// 0.3 – 0.6: approved as FACT, risk raised to HIGH, with a warning.
    GrayZone,
    /// < 0.3: rejected, with reinvestigation guidance.
    Rejected,
}

/// The tier of a calibrated similarity, decided at the precision the agent is shown (three
/// decimals): a score reported as 0.600 is on the FACT line and so gray, whatever float noise
/// lies beyond the third decimal; one reported as 0.300 is gray, not rejected. The same score
/// therefore always gets the same tier, in every tool and on every path.
pub fn three_tier(similarity: f32) -> Tier {
    let similarity = (similarity * 1000.0).round() / 1000.0;
    if similarity > FACT_THRESHOLD {
        Tier::Fact
    } else if similarity >= REJECT_THRESHOLD {
        Tier::GrayZone
    } else {
        Tier::Rejected
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn exploration_thresholds_per_intent() {
        let full = ExplorationCounts {
            symbols: 3,
            entry_points: 1,
            files: 2,
            patterns: 1,
        };
        let thin = ExplorationCounts {
            symbols: 1,
            entry_points: 0,
            files: 1,
            patterns: 0,
        };
        type Case<'a> = (
            Intent,
            &'a ExplorationCounts,
            &'a [&'a str],
            RiskLevel,
            bool,
            &'a [&'a str],
        );
        let cases: &[Case] = &[
            (
                Intent::Modify,
                &full,
                &["find_definitions", "find_references"],
                RiskLevel::Medium,
                false,
                &[],
            ),
            (
                Intent::Implement,
                &full,
                &["search_symbol", "find_references"],
                RiskLevel::Low,
                false,
                &[],
            ),
            (
                Intent::Modify,
                &full,
                &["find_definitions"],
                RiskLevel::Medium,
                false,
                &["tools"],
            ),
            (
                Intent::Implement,
                &thin,
                &["find_definitions", "find_references"],
                RiskLevel::Medium,
                false,
                &[
                    "symbols_identified",
                    "entry_points",
                    "files_analyzed",
                    "patterns",
                ],
            ),
            (
                Intent::Modify,
                &full,
                &["find_definitions", "find_references"],
                RiskLevel::High,
                false,
                &["files_analyzed", "tools"],
            ),
            (
                Intent::Modify,
                &thin,
                &["find_definitions"],
                RiskLevel::Medium,
                true,
                &[],
            ),
            (Intent::Investigate, &thin, &[], RiskLevel::Low, false, &[]),
            (
                Intent::Investigate,
                &ExplorationCounts::default(),
                &[],
                RiskLevel::Low,
                false,
                &["symbols_identified", "files_analyzed"],
            ),
            (
                Intent::Question,
                &ExplorationCounts::default(),
                &[],
                RiskLevel::Low,
                false,
                &[],
            ),
        ];
        for (intent, counts, used, risk, hint, want) in cases {
            let (confidence, missing) =
                evaluate_exploration(*intent, counts, &tools(used), *risk, *hint);
            let got: Vec<&str> = missing.iter().map(|m| m.requirement.as_str()).collect();
            assert_eq!(got, *want, "{intent:?} {used:?} {risk:?}");
            assert_eq!(confidence == Confidence::High, want.is_empty());
        }
    }

    #[test]
    fn consistency_checks() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        type Case<'a> = (
            &'a [&'a str],
            &'a [&'a str],
            &'a [&'a str],
            &'a [&'a str],
            usize,
        );
        let cases: &[Case] = &[
            (
                &["AuthService", "login"],
                &["AuthService.login"],
                &["a.py"],
                &["DI"],
                0,
            ),
            (&["App\\Auth\\Guard"], &["Guard::check"], &["a.php"], &[], 0),
            (&["AuthService"], &["POST /orders"], &["a.py"], &[], 1),
            (
                &["AuthService", "AuthService"],
                &["AuthService"],
                &["a.py", "a.py"],
                &[],
                2,
            ),
            (
                &["AuthService"],
                &["AuthService"],
                &[],
                &["repository pattern"],
                1,
            ),
            (&[" "], &[], &[], &[], 1),
        ];
        for (symbols, entries, files, patterns, errors) in cases {
            let got =
                validate_exploration_consistency(&s(symbols), &s(entries), &s(files), &s(patterns));
            assert_eq!(got.len(), *errors, "{symbols:?} {entries:?}: {got:?}");
        }
    }

    #[test]
    fn semantic_reasons_fit_missing_requirements() {
        let missing = |keys: &[&str]| {
            keys.iter()
                .map(|k| MissingRequirement {
                    requirement: k.to_string(),
                    have: 0,
                    need: 1,
                    message: String::new(),
                })
                .collect::<Vec<_>>()
        };
        let cases: &[(&str, &[&str], bool)] = &[
            ("no_definition_found", &["symbols_identified"], true),
            ("architecture_unknown", &["files_analyzed"], true),
            ("no_reference_found", &["entry_points"], true),
            ("no_reference_found", &["patterns"], false),
            (
                "context_fragmented",
                &["symbols_identified", "files_analyzed"],
                true,
            ),
            ("because I want to", &[], false),
            ("no_similar_implementation", &[], true),
        ];
        for (reason, keys, ok) in cases {
            assert_eq!(
                validate_semantic_reason(reason, &missing(keys)).is_ok(),
                *ok,
                "{reason} {keys:?}"
            );
        }
    }

    #[test]
    fn three_tiers() {
        let cases = [
            (0.95, Tier::Fact),
            (0.61, Tier::Fact),
            (0.6, Tier::GrayZone),
            (0.3, Tier::GrayZone),
            (0.29, Tier::Rejected),
            (0.0, Tier::Rejected),
            // On the line: decided at the three decimals the agent sees.
            (0.600_000_1, Tier::GrayZone),
            (0.600_4, Tier::GrayZone),
            (0.600_6, Tier::Fact),
            (0.299_9, Tier::GrayZone),
            (0.299_4, Tier::Rejected),
        ];
        for (s, want) in cases {
            assert_eq!(three_tier(s), want, "{s}");
        }
    }
}
