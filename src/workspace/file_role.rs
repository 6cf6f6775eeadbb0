//! The part a file plays in a project — code, tests, documentation, translation catalogues,
//! schema migrations — read from its path alone. Ranking weighs files by it (`search::roles`),
//! the judge tells tests from code with it, and the embedding queue gives code its vectors
//! before tests and prose.

/// What a file is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileRole {
    Code,
    Test,
    /// Prose: READMEs, guides, changelogs, plain-text and markup documents.
    Docs,
    /// Translation catalogues: UI strings per language.
    Translations,
    /// A schema migration: one historical step of the database's shape. The answer to a
    /// question about tables and columns, rarely to one about behaviour.
    Migration,
    /// The undo half of a migration (`down.sql`): never where a feature is implemented.
    ReverseMigration,
}

/// Directory names under which files are UI strings per language.
const TRANSLATION_DIRS: &[&str] = &[
    "locale",
    "locales",
    "i18n",
    "l10n",
    "lang",
    "langs",
    "languages",
    "translations",
    "messages",
];

/// Directory names that hold schema migrations (Laravel, Rails, Django, diesel, Alembic …).
const MIGRATION_DIRS: &[&str] = &["migrations", "migrate", "migration"];

/// Extensions of prose documents.
const DOC_EXTENSIONS: &[&str] = &["md", "mdx", "markdown", "rst", "txt", "adoc", "asciidoc"];

/// Extensions a translation catalogue is written in.
const CATALOGUE_EXTENSIONS: &[&str] = &[
    "json",
    "yaml",
    "yml",
    "po",
    "pot",
    "xlf",
    "xliff",
    "properties",
    "php", // an extension: not a language id
    "toml",
    "ftl",
    "arb",
    "strings",
];

/// Classifies a project-relative path.
pub fn role_of(path: &str) -> FileRole {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let (stem, ext) = name.rsplit_once('.').unwrap_or((name, ""));
    if is_test_path(&lower) {
        return FileRole::Test;
    }
    if name == "down.sql" || name.ends_with(".down.sql") {
        return FileRole::ReverseMigration;
    }
    let dirs: Vec<&str> = lower.split('/').collect();
    let parents = &dirs[..dirs.len() - 1];
    if parents.iter().any(|d| MIGRATION_DIRS.contains(d)) {
        return FileRole::Migration;
    }
    if DOC_EXTENSIONS.contains(&ext) || stem == "readme" || stem == "changelog" {
        return FileRole::Docs;
    }
    let in_translation_dir = parents.iter().any(|d| TRANSLATION_DIRS.contains(d));
    if is_bundle(stem, ext) || is_android_strings(parents, stem, ext) {
        return FileRole::Translations;
    }
    if CATALOGUE_EXTENSIONS.contains(&ext) && (in_translation_dir || is_locale_code(stem)) {
        // `lang/en/auth.php` (Laravel) or `translations/ja_JP.json`; but a PHP or TOML file
        // outside such a directory needs a locale-code name to count.
        // An extension: not a language id.
        if ext != "php" || in_translation_dir {
            return FileRole::Translations;
        }
    }
    FileRole::Code
}

/// A Java resource bundle or a Flutter ARB file of one locale, wherever it lives:
/// `messages_ja.properties`, `messages_pt_BR.properties`, `app_en.arb`. The locale is the
/// two-letter kind bundles use, so `application_dev.properties` stays configuration.
fn is_bundle(stem: &str, ext: &str) -> bool {
    if !matches!(ext, "properties" | "arb") {
        return false;
    }
    // Lowercased by the caller: `pt_br`.
    let two_letters = |s: &str| s.len() == 2 && s.bytes().all(|b| b.is_ascii_lowercase());
    let parts: Vec<&str> = stem.split('_').collect();
    match parts[..] {
        [.., lang, region] if parts.len() >= 3 && two_letters(lang) && two_letters(region) => true,
        [_, .., lang] => two_letters(lang),
        _ => false,
    }
}

/// Android's string resources of one locale: `res/values-ja/strings.xml`, `values-pt-rBR`.
fn is_android_strings(parents: &[&str], stem: &str, ext: &str) -> bool {
    ext == "xml"
        && stem.starts_with("strings")
        && parents.last().is_some_and(|d| {
            d.strip_prefix("values-").is_some_and(|locale| {
                let mut parts = locale.split('-');
                let lang = parts.next().unwrap_or("");
                let region = parts.next();
                parts.next().is_none()
                    && lang.len() == 2
                    && lang.bytes().all(|b| b.is_ascii_lowercase())
                    && region.is_none_or(|r| r.len() == 3 && r.starts_with('r'))
            })
        })
}

/// `ja`, `en-US`, `zh_TW`, `pt-br`: a language code, optionally with a region.
fn is_locale_code(stem: &str) -> bool {
    let mut parts = stem.split(['-', '_']);
    let lang = parts.next().unwrap_or("");
    let region = parts.next();
    parts.next().is_none()
        && (2..=3).contains(&lang.len())
        && lang.bytes().all(|b| b.is_ascii_lowercase())
        && region.is_none_or(|r| {
            (2..=4).contains(&r.len()) && r.bytes().all(|b| b.is_ascii_alphanumeric())
        })
        && !matches!(
            stem,
            // Directory names: not a language id.
            "app" | "api" | "web" | "cli" | "src" | "lib" | "db" | "ui" | "js" | "css"
        )
}

/// Whether a path looks like a test file or lives in a test directory.
pub fn is_test_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let file = lower.rsplit('/').next().unwrap_or(&lower);
    lower.split('/').any(|seg| {
        matches!(
            seg,
            "test" | "tests" | "__tests__" | "spec" | "specs" | "testing" | "e2e"
        )
    }) || file.starts_with("test_")
        || file.contains("_test.")
        || file.contains(".test.")
        || file.contains(".spec.")
        || file.contains("_spec.")
        || (file.ends_with("test.php") || file.ends_with("test.java") || file.ends_with("tests.cs"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_of_real_layouts() {
        let cases = [
            ("app/Services/OrderService.php", FileRole::Code),
            ("internal/reader/icon/finder.go", FileRole::Code),
            ("src/lib/data/cart.ts", FileRole::Code),
            ("config/app.php", FileRole::Code),
            ("package.json", FileRole::Code),
            ("src/api.json", FileRole::Code),
            ("tests/Feature/OrderTest.php", FileRole::Test),
            ("README.md", FileRole::Docs),
            ("readmes/README.ja.md", FileRole::Docs),
            ("templates/docs/http_api.md", FileRole::Docs),
            ("CHANGELOG", FileRole::Docs),
            (
                "internal/locale/translations/ja_JP.json",
                FileRole::Translations,
            ),
            ("resources/lang/en/auth.php", FileRole::Translations),
            ("lang/ja.json", FileRole::Translations),
            ("public/locales/de/common.json", FileRole::Translations),
            ("src/i18n/fr.yml", FileRole::Translations),
            ("src/ja.php", FileRole::Code),
            (
                "src/main/resources/messages_ja.properties",
                FileRole::Translations,
            ),
            (
                "src/main/resources/messages_pt_BR.properties",
                FileRole::Translations,
            ),
            ("src/main/resources/application.properties", FileRole::Code),
            (
                "src/main/resources/application_dev.properties",
                FileRole::Code,
            ),
            ("lib/intl_ja.arb", FileRole::Translations),
            ("lib/l10n/intl_messages_ja.arb", FileRole::Translations),
            (
                "app/src/main/res/values-ja/strings.xml",
                FileRole::Translations,
            ),
            (
                "app/src/main/res/values-pt-rBR/strings.xml",
                FileRole::Translations,
            ),
            ("app/src/main/res/values-v21/styles.xml", FileRole::Code),
            ("app/src/main/res/values/strings.xml", FileRole::Code),
            ("pom.xml", FileRole::Code),
            (
                "migrations/2023-06-07-105918_add_hot_rank/down.sql",
                FileRole::ReverseMigration,
            ),
            (
                "migrations/2023-06-07-105918_add_hot_rank/up.sql",
                FileRole::Migration,
            ),
            (
                "database/migrations/2021_12_13_create_orders_table.php",
                FileRole::Migration,
            ),
            ("hc/api/migrations/0001_initial.py", FileRole::Migration),
            ("db/migrate/20240101_create_users.rb", FileRole::Migration),
            ("src/migrate.rs", FileRole::Code),
        ];
        for (path, role) in cases {
            assert_eq!(role_of(path), role, "{path}");
        }
    }

    #[test]
    fn test_paths_are_recognised() {
        for path in [
            "tests/Feature/OrderTest.php",
            "src/__tests__/cart.ts",
            "app/cart.test.ts",
            "pkg/order_test.go",
            "test_orders.py",
            "spec/models/user_spec.rb",
        ] {
            assert!(is_test_path(path), "{path}");
        }
        for path in [
            "src/contest.py",
            "app/Services/OrderService.php",
            "latest/main.go",
        ] {
            assert!(!is_test_path(path), "{path}");
        }
    }
}
