//! The one- or two-sentence summary of a file, built from the code itself (no language model):
//! the first sentence of the file's doc comment — or of its main declaration's doc — followed by
//! what it declares, exports and imports. Deterministic, so the same file always reads the same.

use super::FileOutline;

/// Longest first sentence taken from a doc comment.
const MAX_SENTENCE_CHARS: usize = 220;
/// Names listed per group before "…".
const NAMES_LISTED: usize = 3;

pub fn summarize(outline: &FileOutline, path: &str) -> String {
    let described = describe(outline, path);
    match lead_sentence(outline, path) {
        Some(lead) => format!("{lead} {described}"),
        None => {
            let language = display_language(&outline.language);
            let mut first = described.chars();
            let rest = match first.next() {
                Some(c) => c.to_lowercase().collect::<String>() + first.as_str(),
                None => String::new(),
            };
            format!("{language} file that {rest}")
        }
    }
}

/// The first sentence of the file's doc, or of the doc of the declaration named like the file.
fn lead_sentence(outline: &FileOutline, path: &str) -> Option<String> {
    if let Some(doc) = &outline.doc {
        return first_sentence(doc);
    }
    let stem = normalize(stem(path));
    let main_doc = outline
        .classes
        .iter()
        .filter(|c| normalize(&c.name) == stem || outline.classes.len() == 1)
        .find_map(|c| c.doc.as_deref())
        .or_else(|| {
            outline
                .types
                .iter()
                .filter(|t| normalize(&t.name) == stem)
                .find_map(|t| t.doc.as_deref())
        })
        .or_else(|| {
            outline
                .functions
                .iter()
                .filter(|f| normalize(&f.name) == stem || outline.functions.len() == 1)
                .find_map(|f| f.doc.as_deref())
        })?;
    first_sentence(main_doc)
}

fn stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.split('.').next().unwrap_or(name)
}

fn normalize(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The doc's first sentence: text before any `@tag` line, up to the first full stop.
pub fn first_sentence(doc: &str) -> Option<String> {
    let mut prose = String::new();
    for line in doc.lines() {
        let line = line.trim();
        if line.starts_with('@') || line.starts_with(":param") || line.starts_with("Args:") {
            break;
        }
        if line.is_empty() {
            if prose.is_empty() {
                continue;
            }
            break;
        }
        if !prose.is_empty() {
            prose.push(' ');
        }
        prose.push_str(line);
    }
    let prose = prose.trim();
    if prose.is_empty() {
        return None;
    }
    let end = prose
        .char_indices()
        .find(|(i, c)| (*c == '.' && prose[i + 1..].starts_with(char::is_whitespace)) || *c == '。')
        .map(|(i, c)| i + c.len_utf8());
    let mut sentence = match end {
        Some(end) => prose[..end].to_string(),
        None => prose.to_string(),
    };
    if sentence.chars().count() > MAX_SENTENCE_CHARS {
        sentence = sentence
            .chars()
            .take(MAX_SENTENCE_CHARS)
            .collect::<String>()
            + "…";
    } else if !sentence.ends_with(['.', '。', '!', '?']) {
        sentence.push('.');
    }
    Some(sentence)
}

/// What a file of the language is called: its noun (`Vue component`) or the language's name.
fn display_language(id: &str) -> &str {
    crate::lang::by_id(id).map_or(id, |lang| lang.file_noun.unwrap_or(lang.name))
}

fn names(list: &[&str]) -> String {
    let mut shown: Vec<&str> = list.iter().take(NAMES_LISTED).copied().collect();
    if list.len() > NAMES_LISTED {
        shown.push("…");
    }
    shown.join(", ")
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// "Defines class UserService (9 methods) and function validateUser; exports UserService;
/// imports ../types/User."
fn describe(outline: &FileOutline, path: &str) -> String {
    let mut parts: Vec<String> = Vec::new();
    let classes: Vec<&super::Class> = outline.classes.iter().collect();
    if classes.len() <= 2 {
        for c in &classes {
            let methods = if c.methods.is_empty() {
                String::new()
            } else {
                format!(" ({})", plural(c.methods.len(), "method", "methods"))
            };
            parts.push(format!("{} {}{methods}", c.kind, c.name));
        }
    } else {
        let list: Vec<&str> = classes.iter().map(|c| c.name.as_str()).collect();
        parts.push(format!("{} classes ({})", classes.len(), names(&list)));
    }
    let functions: Vec<&str> = outline.functions.iter().map(|f| f.name.as_str()).collect();
    match functions.len() {
        0 => {}
        1 => parts.push(format!("function {}", functions[0])),
        n => parts.push(format!("{n} functions ({})", names(&functions))),
    }
    let types: Vec<&super::TypeDefinition> = outline.types.iter().collect();
    match types.len() {
        0 => {}
        1 => parts.push(format!("{} {}", types[0].kind, types[0].name)),
        n => {
            let list: Vec<&str> = types.iter().map(|t| t.name.as_str()).collect();
            parts.push(format!("{n} types ({})", names(&list)));
        }
    }
    let enums: Vec<&str> = outline.enums.iter().map(|e| e.name.as_str()).collect();
    match enums.len() {
        0 => {}
        1 => parts.push(format!("enum {}", enums[0])),
        n => parts.push(format!("{n} enums ({})", names(&enums))),
    }
    let mut sentence = if parts.is_empty() {
        match outline.variables.len() {
            0 => "Declares nothing at the top level".to_string(),
            n => format!(
                "Declares {}",
                plural(n, "module-level value", "module-level values")
            ),
        }
    } else {
        let last = parts.pop().unwrap_or_default();
        if parts.is_empty() {
            format!("Defines {last}")
        } else {
            format!("Defines {} and {last}", parts.join(", "))
        }
    };
    let exported: Vec<&str> = outline
        .exports
        .iter()
        .map(|e| e.name.as_str())
        .filter(|n| *n != "*")
        .collect();
    // Where the exports are just the public classes already named, they add nothing.
    let package_scoped = crate::lang::by_id(&outline.language).is_some_and(|l| l.package_scoped);
    if !exported.is_empty() && !package_scoped {
        sentence.push_str(&format!("; exports {}", names(&exported)));
    }
    let mut sources: Vec<&str> = Vec::new();
    // Classes named without `use` may be built-ins: only import statements are summarised.
    for import in outline.imports.iter().filter(|i| !i.is_reference()) {
        if !sources.contains(&import.source.as_str()) {
            sources.push(&import.source);
        }
    }
    if !sources.is_empty() {
        sentence.push_str(&format!("; imports {}", names(&sources)));
    }
    if outline.is_partial() {
        sentence.push_str(&format!(
            " (partial: {} in {})",
            plural(outline.errors.len(), "syntax error", "syntax errors"),
            path.rsplit('/').next().unwrap_or(path)
        ));
    }
    sentence.push('.');
    sentence
}
