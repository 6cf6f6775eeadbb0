//! The QueryDecomposer's extraction prompt (seed 000): what `start_session` hands the agent so it
//! fills the four slots from the request, each with a verbatim quote.
//!
//! The server does not call a model to decompose the request; the agent does, and the server
//! checks the answer (`set_query_frame`). The prompt therefore states the checking rules, so a
//! well-behaved agent passes them the first time.

use super::Slot;

/// One line per slot: what it means, with the seeds' example.
fn slot_help(slot: Slot) -> &'static str {
    match slot {
        Slot::TargetFeature => {
            "the feature or part of the system the request is about (e.g. 「ログイン機能」, \"the login form\")"
        }
        Slot::TriggerCondition => {
            "when or under which condition it happens (e.g. 「パスワードが空のとき」, \"when the password is empty\")"
        }
        Slot::ObservedIssue => {
            "what goes wrong or is missing now (e.g. 「エラーが出ない」, \"no error is shown\")"
        }
        Slot::DesiredAction => {
            "what should be done or happen instead (e.g. 「チェックを追加」, \"add a check\")"
        }
    }
}

/// The prompt for `query`.
pub fn extraction_prompt(query: &str) -> String {
    let mut out = String::new();
    out.push_str("Extract the structure of this request. Do not guess: fill a slot only when the request itself says it.\n\n");
    out.push_str("Request:\n<<<\n");
    out.push_str(query.trim());
    out.push_str("\n>>>\n\nSlots:\n");
    for slot in Slot::ALL {
        out.push_str(&format!("- {}: {}\n", slot.as_str(), slot_help(slot)));
    }
    out.push_str(
        "\nFor each slot you fill, give:\n\
         - value: the slot in your own short words (keep the request's language),\n\
         - quote: the exact words of the request it comes from, copied character for character.\n\
         Leave out any slot the request does not mention. The server checks every quote against the \
         request (after Unicode normalisation); a quote that is not in the request is accepted only \
         if the embedding model finds it means the same as part of the request, otherwise the slot \
         is rejected as a hallucination.\n\n\
         Then call set_query_frame with the slots, for example:\n\
         {\"target_feature\": {\"value\": \"ログイン機能\", \"quote\": \"ログイン機能\"},\n \
         \"trigger_condition\": {\"value\": \"パスワードが空\", \"quote\": \"パスワードが空のとき\"}}\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_names_every_slot_and_the_request() {
        let prompt = extraction_prompt("  ログインでエラーが出ない ");
        assert!(
            prompt.contains("<<<\nログインでエラーが出ない\n>>>"),
            "{prompt}"
        );
        for slot in Slot::ALL {
            assert!(
                prompt.contains(&format!("- {}:", slot.as_str())),
                "{slot:?}"
            );
        }
        assert!(prompt.contains("set_query_frame"));
    }
}
