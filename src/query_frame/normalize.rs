//! Text normalisation for quote checks: the same words typed two ways must compare equal.
//!
//! A quote is "found verbatim" when its normalised form occurs in the normalised request. The
//! normalisation is NFKC (full-width ↔ half-width letters and digits, half-width katakana,
//! compatibility characters), lower case, whitespace runs collapsed to one space, and the
//! quotation marks an agent tends to wrap a quote in (「」『』“”"'…) removed from its ends.
//! Nothing else: a paraphrase is not verbatim and goes to the semantic check instead.

use unicode_normalization::UnicodeNormalization;

/// Marks stripped from both ends of a quote before it is looked up.
const WRAPPERS: &[char] = &[
    '"', '\'', '`', '「', '」', '『', '』', '“', '”', '‘', '’', '«', '»', '【', '】',
];

/// NFKC, lower case, single spaces, trimmed.
pub fn normalize(text: &str) -> String {
    let nfkc: String = text.nfkc().collect();
    let lower = nfkc.to_lowercase();
    lower.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `quote` occurs in `text` after normalisation (wrapping quotation marks ignored).
/// An empty quote never matches.
pub fn contains_verbatim(text: &str, quote: &str) -> bool {
    let quote = normalize(quote.trim().trim_matches(WRAPPERS));
    let quote = quote.trim_matches(|c: char| WRAPPERS.contains(&c) || c.is_whitespace());
    !quote.is_empty() && normalize(text).contains(quote)
}

/// The request cut into clauses (at sentence and clause punctuation), plus the whole request:
/// what a paraphrased quote is compared with when it is not found verbatim.
pub fn clauses(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .split([
            '。', '、', '，', '．', '！', '？', '\n', ',', '.', '!', '?', ';', '；',
        ])
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(String::from)
        .collect();
    let whole = text.trim().to_string();
    if !whole.is_empty() && !out.contains(&whole) {
        out.push(whole);
    }
    out
}

/// Share of the quote's tokens that occur in `text` (both normalised): words for runs of ASCII
/// letters and digits, character bigrams for other scripts (Japanese has no spaces). A quote
/// the request does not contain scores low whatever the embedding model thinks of it.
pub fn coverage(text: &str, quote: &str) -> f32 {
    let have: std::collections::BTreeSet<String> = tokens(&normalize(text)).into_iter().collect();
    let want = tokens(&normalize(quote.trim_matches(WRAPPERS)));
    if want.is_empty() {
        return 0.0;
    }
    let found = want.iter().filter(|t| have.contains(*t)).count();
    found as f32 / want.len() as f32
}

fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut run: Vec<char> = Vec::new();
    let flush_run = |run: &mut Vec<char>, out: &mut Vec<String>| {
        match run.len() {
            0 => {}
            1 => out.push(run[0].to_string()),
            _ => out.extend(run.windows(2).map(|w| w.iter().collect::<String>())),
        }
        run.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            flush_run(&mut run, &mut out);
            word.push(c);
        } else {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            // A combining mark NFKC left without a base (a half-width ﾞ alone becomes U+3099)
            // stays in the run, so a quote made of one still covers itself.
            if c.is_alphanumeric() || unicode_normalization::char::is_combining_mark(c) {
                run.push(c);
            } else {
                flush_run(&mut run, &mut out);
            }
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    flush_run(&mut run, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_of_a_lone_voiced_mark_covers_itself() {
        // Half-width ﾞ and ﾟ are letters; NFKC makes them combining marks (fuzzing found it).
        for request in ["\u{ff9e}", "`\u{ff9e}", "「\u{ff9f}」", "ｶﾞ"] {
            assert_eq!(coverage(request, request), 1.0, "{request:?}");
        }
    }

    #[test]
    fn verbatim_after_normalisation() {
        let cases = [
            // (request, quote, found)
            (
                "ログイン機能でパスワードが空のときエラーが出ない",
                "パスワードが空のとき",
                true,
            ),
            (
                "ログイン機能でパスワードが空のときエラーが出ない",
                "「ログイン機能」",
                true,
            ),
            // Half-width katakana and full-width ASCII fold under NFKC.
            ("ﾛｸﾞｲﾝ機能を直したい", "ログイン機能", true),
            ("ＡＰＩのレスポンスが遅い", "API", true),
            (
                "Add a rate limit to the Login endpoint",
                "login endpoint",
                true,
            ),
            (
                "Add a rate limit to the login   endpoint",
                "\"login endpoint\"",
                true,
            ),
            ("ログイン機能を直したい", "サインイン機能", false),
            ("fix the login page", "logout page", false),
            ("fix the login page", "  ", false),
            ("fix the login page", "\"\"", false),
        ];
        for (text, quote, want) in cases {
            assert_eq!(contains_verbatim(text, quote), want, "{text:?} / {quote:?}");
        }
    }

    #[test]
    fn coverage_of_paraphrases_and_inventions() {
        const JA: &str =
            "ログイン機能でパスワードが空のときエラーが出ないので、チェックを追加したい";
        const EN: &str = "When the password is empty the login form shows no error; please add a validation check.";
        // (request, quote, coverage)
        let cases = [
            (JA, "ログインの機能", 4.0 / 6.0),
            (JA, "パスワード未入力のとき", 0.6),
            (JA, "二段階認証を導入", 0.0),
            (JA, "パスワードの再設定メール", 4.0 / 11.0),
            (EN, "no error message is displayed", 0.6),
            (EN, "add two-factor authentication", 0.25),
            (EN, "Login Form", 1.0),
            (JA, "", 0.0),
        ];
        for (text, quote, want) in cases {
            let got = coverage(text, quote);
            assert!((got - want).abs() < 1e-6, "{quote:?}: {got} != {want}");
        }
    }

    #[test]
    fn clauses_split_japanese_and_english() {
        assert_eq!(
            clauses("ログイン時、パスワードが空ならエラーにしたい。"),
            [
                "ログイン時",
                "パスワードが空ならエラーにしたい",
                "ログイン時、パスワードが空ならエラーにしたい。"
            ]
        );
        assert_eq!(clauses("fix login"), ["fix login"]);
    }
}
