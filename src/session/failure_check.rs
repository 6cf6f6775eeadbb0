//! Seed 000's Step 0, 失敗チェック: does a new request say that the previous change did not
//! work? Then the previous session's failure is recorded before the new session starts, so the
//! memory learns from it even when the agent forgets.
//!
//! Precision matters more than recall here: a false alarm records a failure the user never
//! reported. Only phrases that refer back to a change already made count ("still broken",
//! "didn't work", 「まだ動かない」, 「直っていない」), not a request to fix something that fails
//! ("fix the failing test", 「エラーを修正して」).

use regex::Regex;
use std::sync::LazyLock;

static ENGLISH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?ix)
        \b(still|again)\b .{0,40} \b(broken|fail(s|ing|ed)?|error(s)?|crash(es|ing)?|wrong|not\ work(ing)?|doesn'?t\ work|does\ not\ work|same\ (error|problem|bug|issue))\b
        | \b(it|that|this|the\ (fix|change|patch|edit))\ (didn'?t|did\ not|doesn'?t|does\ not)\ (work|help|fix)\b
        | \b(your|the\ last|the\ previous|previous|last)\ (change|fix|edit|patch|attempt)\b .{0,40} \b(broke|broken|failed|fails|didn'?t|did\ not|doesn'?t|does\ not|wrong|worse)\b
        | \bnot\ fixed\b | \bstill\ the\ same\b | \bmade\ it\ worse\b | \bbroke\ (it|everything|something|the\ build|the\ tests)\b",
    )
    .expect("static regex")
});

static JAPANESE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"まだ.{0,12}(動かない|動いていない|直って(い)?ない|治って(い)?ない|エラー|失敗|壊れ|おかしい|同じ)|直って(い)?ない|治って(い)?ない|(前回|さっき|先ほど|今回)の(修正|変更|対応).{0,16}(動かない|失敗|だめ|ダメ|効いて(い)?ない|壊れ|おかしい|直って(い)?ない|悪化)|効いて(い)?ない|うまくいかなかった|動かなくなった|悪化した|変わって(い)?ない",
    )
    .expect("static regex")
});

/// Whether `request` reports that the previous change failed.
pub fn reports_failure(request: &str) -> bool {
    ENGLISH.is_match(request) || JAPANESE.is_match(request)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follow_ups_that_report_a_failure() {
        for text in [
            "The login is still broken after your change",
            "that didn't work, the test still fails",
            "It did not work: same error as before",
            "the previous fix broke the checkout page",
            "ログインがまだ動かない",
            "前回の修正でカートが壊れた",
            "まだ同じエラーが出る",
            "バグが直っていない",
            "さっきの変更が効いていない",
        ] {
            assert!(reports_failure(text), "{text}");
        }
    }

    #[test]
    fn new_requests_are_not_failures() {
        for text in [
            "fix the failing login test",
            "add rate limiting to the login route",
            "the checkout throws an error when the cart is empty",
            "ログイン機能を追加して",
            "エラーメッセージを日本語にして",
            "カートが空のときに例外が出るので修正して",
            "why does sync fail on large files?",
        ] {
            assert!(!reports_failure(text), "{text}");
        }
    }
}
