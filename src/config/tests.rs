//! The loader keeps what is valid and reports the rest, one problem per entry, by JSON path.

use super::*;
use serde_json::json;

/// Loads `text` as a project's config.json; returns the configuration and the problems as
/// `path: message` lines.
fn load_text(text: &str) -> (Config, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(STATE_DIR)).unwrap();
    std::fs::create_dir_all(dir.path().join("app")).unwrap();
    std::fs::write(Config::path(dir.path()), text).unwrap();
    let (config, report) = load(dir.path());
    let problems = report
        .problems
        .iter()
        .map(|p| format!("{}: {}", p.path, p.message))
        .collect();
    (config, problems)
}

fn paths(problems: &[String]) -> Vec<&str> {
    problems
        .iter()
        .map(|p| p.split(": ").next().unwrap())
        .collect()
}

#[test]
fn no_file_means_the_defaults_and_no_problem() {
    let dir = tempfile::tempdir().unwrap();
    let (config, report) = load(dir.path());
    assert_eq!(config, Config::default());
    assert!(report.problems.is_empty());
    assert!(report.warning().is_none());
    assert!(report.entries().iter().all(|e| e.origin == Origin::Default));
}

#[test]
fn every_key_of_the_schema_loads_with_its_default() {
    let text = serde_json::to_string(&Config::default()).unwrap();
    let (config, problems) = load_text(&text);
    assert_eq!(problems, Vec::<String>::new());
    assert_eq!(config, Config::default());
}

/// Issue 19: one mistyped value used to drop the whole file.
#[test]
fn a_wrong_type_loses_only_its_own_entry() {
    let (config, problems) = load_text(
        r#"{"max_chunks": "abc", "exclude_patterns": ["*.gen.py"], "sync_on_start": false}"#,
    );
    assert_eq!(
        problems,
        [
            "$.max_chunks: expected a non-negative integer, found the string \"abc\"; the default 200000 applies"
        ]
    );
    assert_eq!(config.max_chunks, 200_000);
    assert_eq!(config.exclude_patterns, ["*.gen.py"]);
    assert!(!config.sync_on_start);
}

#[test]
fn a_misspelt_key_names_the_key_it_resembles() {
    let (config, problems) = load_text(r#"{"sync_on_strat": false, "max_chunk": 5}"#);
    assert_eq!(
        problems,
        [
            "$.sync_on_strat: unknown key (did you mean \"sync_on_start\"?); it is ignored",
            "$.max_chunk: unknown key (did you mean \"max_chunks\"?); it is ignored",
        ]
    );
    assert!(config.sync_on_start);
    let (_, problems) = load_text(r#"{"colour_scheme": "dark"}"#);
    assert!(
        problems[0].starts_with("$.colour_scheme: unknown key; it is ignored (known keys: "),
        "{problems:?}"
    );
    let (_, problems) = load_text(r#"{"fallback_languages": ["blade"]}"#);
    assert!(
        problems[0].starts_with("$.fallback_languages: not supported: "),
        "{problems:?}"
    );
}

#[test]
fn out_of_range_and_unavailable_values_are_refused() {
    let (config, problems) = load_text(
        r#"{"chunk_max_tokens": 9000, "auto_purge_days": 0, "max_chunks": 0,
            "embedding_model": "codebert-base", "chunk_strategy": "line",
            "embedding_query_precision": "fp16", "sync_ttl_hours": -1}"#,
    );
    assert_eq!(
        problems,
        [
            "$.chunk_max_tokens: 9000 is above the maximum 512; the default 512 applies",
            "$.auto_purge_days: 0 is below the minimum 1; the default 30 applies",
            "$.max_chunks: 0 is below the minimum 1; the default 200000 applies",
            "$.embedding_model: \"codebert-base\" is not available; available: \"multilingual-e5-small\", \"intfloat/multilingual-e5-small\"; the default \"multilingual-e5-small\" applies",
            "$.chunk_strategy: unknown variant `line`, expected `ast` or `lines`; the default \"ast\" applies",
            "$.embedding_query_precision: unknown variant `fp16`, expected `int8` or `fp32`; the default \"int8\" applies",
            "$.sync_ttl_hours: -1 is below the minimum 0.0; the default 1.0 applies",
        ]
    );
    assert_eq!(config, Config::default());
}

#[test]
fn nested_entries_and_list_items_are_checked_one_by_one() {
    let (config, problems) = load_text(
        r#"{"search_weights": {"vector": -1, "keyword": 3, "vectr": 1},
            "supported_languages": ["python", "pyhton", "php"]}"#,
    );
    assert_eq!(
        paths(&problems),
        [
            "$.search_weights.vector",
            "$.search_weights.vectr",
            "$.supported_languages[1]"
        ]
    );
    assert!(
        problems[1].contains("did you mean \"vector\""),
        "{problems:?}"
    );
    assert!(
        problems[2].contains("did you mean \"python\"") && problems[2].contains("\"typescript\""),
        "{problems:?}"
    );
    assert_eq!(config.search_weights.keyword, 3.0);
    assert_eq!(
        config.search_weights.vector,
        SearchWeights::default().vector
    );
    assert_eq!(config.supported_languages, ["python", "php"]);
    assert!(config.indexes_language("php") && !config.indexes_language("go"));
}

#[test]
fn invalid_json_and_other_shapes_fall_back_to_the_defaults_with_a_problem() {
    let (config, problems) = load_text(r#"{"max_chunks": 5,"#);
    assert_eq!(config, Config::default());
    assert_eq!(paths(&problems), ["$"]);
    assert!(problems[0].contains("not valid JSON"), "{problems:?}");
    let (_, problems) = load_text("[1, 2]");
    assert_eq!(
        problems,
        ["$: the file holds a list, not an object of settings; the defaults apply"]
    );
}

#[test]
fn an_unreadable_file_falls_back_to_the_defaults_with_a_problem() {
    let dir = tempfile::tempdir().unwrap();
    // A directory where the file should be: reading it fails whoever runs the test.
    std::fs::create_dir_all(Config::path(dir.path())).unwrap();
    let (config, report) = load(dir.path());
    assert_eq!(config, Config::default());
    assert_eq!(report.problems.len(), 1);
    assert!(
        report.problems[0]
            .message
            .starts_with("cannot read the file"),
        "{:?}",
        report.problems
    );
    assert!(report.warning().unwrap().contains("cannot read the file"));
}

#[test]
fn source_dirs_must_be_inside_the_project() {
    let (config, problems) = load_text(r#"{"source_dirs": ["app", "lib", "../other", "/etc"]}"#);
    assert_eq!(
        paths(&problems),
        ["$.source_dirs[1]", "$.source_dirs[2]", "$.source_dirs[3]"]
    );
    assert!(problems[0].contains("does not exist"), "{problems:?}");
    assert_eq!(config.source_dirs, ["app", "lib"]);
}

#[test]
fn invalid_exclude_globs_are_left_out() {
    let (config, problems) = load_text(r#"{"exclude_patterns": ["*.gen.py", "src/[broken"]}"#);
    assert_eq!(paths(&problems), ["$.exclude_patterns[1]"]);
    assert_eq!(config.exclude_patterns, ["*.gen.py"]);
}

#[test]
fn entries_say_where_each_value_comes_from() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(STATE_DIR)).unwrap();
    std::fs::write(
        Config::path(dir.path()),
        r#"{"$schema": "config.schema.json", "max_chunks": 10, "max_file_bytes": "big"}"#,
    )
    .unwrap();
    let (_, report) = load(dir.path());
    let entries = report.entries();
    let origin = |key: &str| entries.iter().find(|e| e.key == key).unwrap().origin;
    assert_eq!(origin("max_chunks"), Origin::File);
    // A refused value is not "from the file": its default applies.
    assert_eq!(origin("max_file_bytes"), Origin::Default);
    assert_eq!(origin("chunk_strategy"), Origin::Default);
    assert!(entries.iter().all(|e| e.key != "$schema"));
    let max_chunks = entries.iter().find(|e| e.key == "max_chunks").unwrap();
    assert_eq!(max_chunks.value, json!(10));
}

#[test]
fn the_schema_describes_every_key_with_its_default() {
    let schema = schema();
    let properties = schema["properties"].as_object().unwrap();
    let defaults = serde_json::to_value(Config::default()).unwrap();
    for (key, value) in defaults.as_object().unwrap() {
        let property = &properties[key];
        assert!(
            property["description"]
                .as_str()
                .is_some_and(|d| !d.is_empty()),
            "{key} has no description"
        );
        assert_eq!(&property["default"], value, "{key}");
    }
    assert_eq!(
        schema.pointer("/properties/supported_languages/items/enum"),
        Some(&json!(crate::lang::ids()))
    );
    assert_eq!(
        schema.pointer("/properties/embedding_model/enum"),
        Some(&json!(EMBEDDING_MODELS))
    );
}

/// README's configuration table is the schema's (regenerate it from `markdown_table`).
#[test]
fn readme_table_matches_the_schema() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let table = markdown_table();
    assert!(
        readme.contains(&table),
        "README.md's configuration table differs from the schema; replace it with:\n\n{table}"
    );
}
