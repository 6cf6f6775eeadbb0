//! The /code workflow (seed 000's data flow, steps 0–7) as text for the agent: served as the MCP
//! prompt `code` and written to `.claude/commands/code.md` by `code-intel init`, so Claude Code
//! users get it as the `/code` command. One text, two deliveries.

/// Name of the MCP prompt and of the Claude Code command.
pub const PROMPT_NAME: &str = "code";

/// One-line description (prompt list, command front matter).
pub const DESCRIPTION: &str = "Phase-gated coding workflow: explore, verify, then edit only what was explored, and learn from the outcome";

/// The workflow, with `request` in place of the user's request.
pub fn workflow(request: &str) -> String {
    let request = request.trim();
    let request = if request.is_empty() {
        "(the user's request)"
    } else {
        request
    };
    format!(
        "# /code: phase-gated workflow (code-intel)\n\n\
Request: {request}\n\n\
Use the code-intel MCP server's tools (in Claude Code: `mcp__code-intel__<tool>`). The server, not you, \
decides when your understanding is sufficient: it checks every symbol against the code, scores every \
link between the request's words and a symbol, refuses tools the current phase does not allow \
(PHASE_VIOLATION, with the allowed tools and the next step), and only lets you edit files you explored.\n\n\
## Step 0: failure check\n\
If the user says the previous change did not work, call `record_outcome` with outcome `failure`, an \
`analysis` of what went wrong and the user's words as `trigger_message` (it applies to the latest session).\n\n\
## Step 1: intent\n\
Choose IMPLEMENT (new behaviour), MODIFY (change or fix existing code), INVESTIGATE (find out how something \
works) or QUESTION (answer without changing code).\n\n\
## Step 2: start_session\n\
Call `start_session` with `intent` and `query` (the request exactly as written). If `shortcircuit_hint.found`, \
a past success matches: verify its `symbols` first with `find_definitions`.\n\n\
## Step 3: set_query_frame\n\
Follow `extraction_prompt`: fill target_feature, trigger_condition, observed_issue, desired_action with \
`value` and a `quote` copied verbatim from the request; leave out what the request does not say. Fix any \
`rejected_slots`. The returned `plan` lists the tools to use.\n\n\
## Step 4: EXPLORATION\n\
Use `find_definitions`, `find_references`, `search_text`, `get_symbols`, `analyze_structure`, \
`get_function_at_line` (and `semantic_search` with collection \"map\" for past agreements). Never guess \
a symbol name: only names the tools returned exist. Then call `submit_understanding` with \
`symbols_identified`, `entry_points`, `files_analyzed`, `patterns`. Then `validate_symbol_relevance` and \
`confirm_symbol_relevance` with `code_evidence` naming the methods, calls or comments that prove each \
symbol serves the target feature. A REJECTED symbol comes with `reinvestigation_guidance`: follow it.\n\n\
## Step 5: SEMANTIC (only if the server moved you there)\n\
Search with `semantic_search` (collection \"forest\"); the code tools are refused in this phase. Call \
`submit_semantic` with `hypotheses` ({{symbol?, file?, reason}}) and a `semantic_reason` that fits the \
`missing_requirements`.\n\n\
## Step 6: VERIFICATION\n\
Check each hypothesis with the code tools, then `submit_verification` with `results` \
({{hypothesis, status: confirmed|rejected, evidence}}). READY comes when no hypothesis is left open.\n\n\
## Step 7: READY\n\
Before every edit call `check_write_target` (the Claude Code hook enforces it anyway). If a file is \
blocked, use `add_explored_files` for files you have now read, or `revert_to_exploration` to explore again. \
When the work is done and checked, call `record_outcome` (success, partial or failure) with an `analysis`; \
on success the confirmed symbols become agreements that the next session on a similar request starts from.\n\n\
`get_session_status` shows the phase, what is allowed and the next step at any time.\n"
    )
}

/// `.claude/commands/code.md`: the workflow with Claude Code's `$ARGUMENTS` placeholder and a
/// marker so `init` knows the file is its own.
pub fn command_markdown() -> String {
    format!(
        "---\ndescription: {DESCRIPTION}\nargument-hint: <request>\ngenerated-by: code-intel init\n---\n\n{}",
        workflow("$ARGUMENTS")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workflow_has_every_step_and_the_request() {
        let text = workflow("ログイン機能を直して");
        assert!(text.contains("Request: ログイン機能を直して"));
        for step in 0..=7 {
            assert!(text.contains(&format!("## Step {step}:")), "step {step}");
        }
        let session_tools = crate::tools::gated()
            .iter()
            .filter(|t| t.gate == crate::session::gate::Gate::Session)
            .map(|t| t.name);
        for tool in session_tools {
            if !["get_session_analysis", "get_improvement_insights"].contains(&tool) {
                assert!(text.contains(tool), "{tool} missing");
            }
        }
        let md = command_markdown();
        assert!(md.starts_with("---\ndescription:") && md.contains("$ARGUMENTS"));
    }
}
