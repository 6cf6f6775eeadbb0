//! Whether a request asks for the part a file plays in a project (its [`FileRole`]: code,
//! tests, documentation, translation catalogues, migrations), and how much a file of each part
//! weighs in the ranking.
//!
//! A request such as "where are pings received" or 「ログイン処理はどこ？」 asks for code. Prose
//! shares the request's words far more than code does: a Japanese README or a `ja_JP.json`
//! catalogue matches a Japanese request on every signal (BM25 bigrams and the dense model
//! alike), and a documentation page explains the very feature the request names. Such files
//! are kept in the ranking but yield to code unless the request is about them, the same way
//! tests yield unless the request is about tests.

pub use crate::workspace::file_role::{FileRole, is_test_path, role_of};

/// Which non-code roles a request asks for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RequestFocus {
    pub tests: bool,
    pub docs: bool,
    pub translations: bool,
    /// Tables, columns, where data is stored.
    pub schema: bool,
}

impl RequestFocus {
    /// Reads the request's own words (English and Japanese) for the roles it names.
    pub fn of(query: &str, terms: &[String]) -> RequestFocus {
        // An English word among the request's terms, or a Japanese word anywhere in it.
        let asks = |en: &[&str], ja: &[&str]| {
            terms.iter().any(|t| en.contains(&t.as_str())) || ja.iter().any(|w| query.contains(w))
        };
        RequestFocus {
            tests: asks(&["test", "tests", "spec", "specs", "testing"], &["テスト"]),
            docs: asks(
                &[
                    "doc",
                    "docs",
                    "documentation",
                    "documented",
                    "readme",
                    "guide",
                    "changelog",
                    "manual",
                ],
                &["ドキュメント", "説明書", "マニュアル", "README"],
            ),
            translations: asks(
                &[
                    "translation",
                    "translations",
                    "translated",
                    "translate",
                    "locale",
                    "locales",
                    "i18n",
                    "l10n",
                    "localization",
                    "localisation",
                    "wording",
                ],
                &["翻訳", "多言語", "ロケール", "文言"],
            ),
            schema: asks(
                &[
                    "table",
                    "tables",
                    "column",
                    "columns",
                    "schema",
                    "migration",
                    "migrations",
                    "migrate",
                    "stored",
                    "persisted",
                    "database",
                    "db",
                    "foreign",
                    "sql",
                ],
                &[
                    "テーブル",
                    "カラム",
                    "スキーマ",
                    "マイグレーション",
                    "保存",
                    "データベース",
                    "DB",
                    "列",
                ],
            ),
        }
    }

    /// The multiplier a file's score gets for its role under this request.
    pub fn weight(&self, role: FileRole) -> f64 {
        match role {
            FileRole::Code => 1.0,
            FileRole::Test if !self.tests => TEST_WEIGHT,
            FileRole::Docs if !self.docs => PROSE_WEIGHT,
            FileRole::Translations if !self.translations => PROSE_WEIGHT,
            FileRole::Migration if !self.schema => MIGRATION_WEIGHT,
            FileRole::ReverseMigration => REVERSE_MIGRATION_WEIGHT,
            _ => 1.0,
        }
    }
}

/// Tests still answer "how is X used"; a mild penalty.
const TEST_WEIGHT: f64 = 0.6;
/// Prose outranks code on wording alone; a stronger one.
const PROSE_WEIGHT: f64 = 0.4;
/// A project with years of migrations has hundreds of them, each naming the features it
/// touched; they crowd out the code unless the request is about the data's shape.
const MIGRATION_WEIGHT: f64 = 0.6;
const REVERSE_MIGRATION_WEIGHT: f64 = 0.5;
#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexical::query_terms;

    fn focus(q: &str) -> RequestFocus {
        RequestFocus::of(q, &query_terms(q))
    }

    #[test]
    fn requests_name_the_roles_they_want() {
        assert_eq!(focus("where is the login handled"), RequestFocus::default());
        assert_eq!(focus("ログイン処理はどこ？"), RequestFocus::default());
        assert!(focus("tests for the cart").tests);
        assert!(focus("カートのテスト").tests);
        assert!(focus("the README section on install").docs);
        assert!(focus("API のドキュメント").docs);
        assert!(focus("Japanese translations of the login page").translations);
        assert!(focus("ログイン画面の文言の翻訳").translations);
        assert!(focus("what columns does the threads table have").schema);
        assert!(focus("注文データはどこに保存されている？").schema);
        assert!(!focus("temporary bans are lifted once they expire").schema);
    }

    #[test]
    fn prose_yields_to_code_unless_asked_for() {
        let plain = RequestFocus::default();
        assert!(plain.weight(FileRole::Docs) < plain.weight(FileRole::Test));
        assert!(plain.weight(FileRole::Translations) < 1.0);
        assert_eq!(plain.weight(FileRole::Code), 1.0);
        assert_eq!(focus("translations").weight(FileRole::Translations), 1.0);
        assert_eq!(focus("docs").weight(FileRole::Docs), 1.0);
        assert_eq!(focus("docs").weight(FileRole::Test), TEST_WEIGHT);
    }
}
