//! Secret masking for packed files: a packed repository goes to a language model, so keys,
//! tokens, private keys, passwords in URLs and `.env` values are replaced by `[MASKED]` first.
//!
//! Deliberately conservative about what a value is (quoted literals of 8+ characters, known
//! token shapes) so code that merely mentions `password` or `token` stays readable.

use regex::Regex;
use std::sync::LazyLock;

pub const MASK: &str = "[MASKED]";

/// Known token shapes, masked wherever they appear.
static TOKENS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",           // AWS access key id
        r"|\bgh[pousr]_[A-Za-z0-9]{36,}\b",         // GitHub tokens
        r"|\bgithub_pat_[A-Za-z0-9_]{22,}",         // GitHub fine-grained tokens
        r"|\bxox[abprs]-[A-Za-z0-9-]{10,}",         // Slack
        r"|\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}", // Stripe
        r"|\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}", // OpenAI / Anthropic style
        r"|\bAIza[0-9A-Za-z_-]{35}\b",              // Google API key
        r"|\bglpat-[A-Za-z0-9_-]{20,}",             // GitLab
        r"|\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}", // JWT
    ))
    .expect("valid regex")
});

/// PEM private key blocks.
static PRIVATE_KEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?s)(-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----).*?(-----END [A-Z0-9 ]*PRIVATE KEY-----)",
    )
    .expect("valid regex")
});

/// `api_key = "…"`, `"clientSecret": "…"`, `'password' => '…'`: a secret-named key with a
/// quoted literal value.
static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"(?i)((?:[A-Za-z0-9_.-]*(?:api[_-]?key|secret|token|passwd|password|pwd|private[_-]?key"#,
        r#"|access[_-]?key|client[_-]?secret|auth[_-]?key|credentials?)[A-Za-z0-9_.-]*)["']?"#,
        r#"\s*(?::=|=>|[:=])\s*)(["'`])([^"'`\s]{8,})(["'`])"#,
    ))
    .expect("valid regex")
});

/// Passwords in connection URLs: `postgres://user:secret@host`.
static URL_PASSWORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b([a-zA-Z][a-zA-Z0-9+.-]*://[^:/\s@]+:)([^@/\s]{3,})(@)").expect("valid regex")
});

/// `KEY=value` lines of `.env` files (any value).
static ENV_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^(\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*\s*=\s*)(\S.*?)\s*$")
        .expect("valid regex")
});

/// Whether a file holds environment settings (`.env`, `.env.local`, `prod.env`).
pub fn is_env_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name == ".env" || name.starts_with(".env.") || name.ends_with(".env")
}

/// The text with secrets masked, and how many were masked.
pub fn mask(path: &str, text: &str) -> (String, usize) {
    let mut count = 0;
    let mut out = text.to_string();
    if is_env_file(path) {
        out = ENV_LINE
            .replace_all(&out, |caps: &regex::Captures| {
                count += 1;
                format!("{}{MASK}", &caps[1])
            })
            .into_owned();
    }
    out = PRIVATE_KEY
        .replace_all(&out, |caps: &regex::Captures| {
            count += 1;
            format!("{}\n{MASK}\n{}", &caps[1], &caps[2])
        })
        .into_owned();
    out = ASSIGNMENT
        .replace_all(&out, |caps: &regex::Captures| {
            if caps[3].contains(MASK) || looks_like_reference(&caps[3]) {
                return caps[0].to_string();
            }
            count += 1;
            format!("{}{}{MASK}{}", &caps[1], &caps[2], &caps[4])
        })
        .into_owned();
    out = URL_PASSWORD
        .replace_all(&out, |caps: &regex::Captures| {
            if caps[2].starts_with('$') || caps[2].starts_with('{') {
                return caps[0].to_string();
            }
            count += 1;
            format!("{}{MASK}{}", &caps[1], &caps[3])
        })
        .into_owned();
    out = TOKENS
        .replace_all(&out, |_: &regex::Captures| {
            count += 1;
            MASK.to_string()
        })
        .into_owned();
    (out, count)
}

/// Values that name where a secret comes from rather than holding one.
fn looks_like_reference(value: &str) -> bool {
    value.starts_with('$')
        || value.starts_with("env(")
        || value.starts_with("process.env")
        || value.starts_with("os.environ")
        || value.contains("${")
        || value.contains("{{")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_keys_tokens_private_keys_and_env_values() {
        let cases = [
            (
                "config.py",
                "API_KEY = \"abcd1234efgh5678\"\n",
                1,
                "abcd1234",
            ),
            (
                "a.ts",
                "const t = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB';",
                1,
                "ghp_",
            ),
            ("a.ts", "aws: AKIAIOSFODNN7EXAMPLE\n", 1, "AKIA"),
            (
                "key.pem",
                "-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY-----\n",
                1,
                "MIIE",
            ),
            (
                "db.yml",
                "url: postgres://app:hunter22@db:5432/x\n",
                1,
                "hunter22",
            ),
            (".env", "APP_KEY=base64:xyz\nDEBUG=true\n", 2, "base64:xyz"),
            (
                "config.php",
                "'password' => 'correct-horse',\n",
                1,
                "correct-horse",
            ),
        ];
        for (path, text, expected, secret) in cases {
            let (masked, count) = mask(path, text);
            assert_eq!(count, expected, "{path}: {masked}");
            assert!(!masked.contains(secret), "{path}: {masked}");
            assert!(masked.contains(MASK));
        }
    }

    #[test]
    fn leaves_ordinary_code_alone() {
        for text in [
            "def check_password(password: str) -> bool:\n    return len(password) > 8\n",
            "const token = await getToken();\n",
            "'password' => env('DB_PASSWORD'),\n",
            "api_key = os.environ['API_KEY']\n",
        ] {
            let (masked, count) = mask("a.py", text);
            assert_eq!((masked.as_str(), count), (text, 0));
        }
    }
}
