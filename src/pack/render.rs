//! The three pack styles. XML wraps files in `<file path="…">` tags (unescaped, as language
//! models read it best); Markdown uses headings and fenced blocks long enough never to collide
//! with the content's own fences; plain text uses separator lines. Each starts with a short
//! summary and the directory tree of the files it contains.

use super::{Encoding, Style};

const SEPARATOR: &str = "================================================================";

/// The header: what this document is, then the directory tree of `paths`.
pub fn header(
    style: Style,
    project: &str,
    paths: &[&str],
    compressed: bool,
    encoding: Encoding,
    part: Option<(usize, usize)>,
) -> String {
    let mut about = format!(
        "This document packs {} file{} of the project '{project}' for a language model",
        paths.len(),
        if paths.len() == 1 { "" } else { "s" }
    );
    if let Some((index, count)) = part {
        about.push_str(&format!(" (part {index} of {count})"));
    }
    about.push_str(". ");
    if compressed {
        about.push_str("Function bodies are elided: signatures and doc comments remain. ");
    }
    about.push_str(&format!(
        "Secrets are masked as [MASKED]. Token counts use {}. .gitignore'd files are not included.",
        encoding.name()
    ));
    let tree = directory_tree(paths);
    match style {
        Style::Xml => format!(
            "<file_summary>\n{about}\n</file_summary>\n\n<directory_structure>\n{tree}</directory_structure>\n\n<files>\n"
        ),
        Style::Markdown => format!(
            "# {project}\n\n{about}\n\n## Directory structure\n\n```text\n{tree}```\n\n## Files\n\n"
        ),
        Style::Plain => format!("{about}\n\nDirectory structure:\n{tree}\n"),
    }
}

pub fn footer(style: Style) -> &'static str {
    match style {
        Style::Xml => "</files>\n",
        Style::Markdown | Style::Plain => "",
    }
}

/// One file in the chosen style.
pub fn wrap_file(style: Style, path: &str, content: &str) -> String {
    let newline = if content.is_empty() || content.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    match style {
        Style::Xml => format!("<file path=\"{path}\">\n{content}{newline}</file>\n\n"),
        Style::Markdown => {
            let fence = fence_for(content);
            let lang = path
                .rsplit('/')
                .next()
                .and_then(|name| name.rsplit_once('.'))
                .map_or("", |(_, ext)| ext);
            format!("### {path}\n\n{fence}{lang}\n{content}{newline}{fence}\n\n")
        }
        Style::Plain => {
            format!("{SEPARATOR}\nFile: {path}\n{SEPARATOR}\n{content}{newline}\n")
        }
    }
}

/// A backtick fence longer than any run of backticks in the content.
fn fence_for(content: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in content.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat(longest.max(2) + 1)
}

/// Paths (sorted) as an indented tree, directories ending in `/`.
pub fn directory_tree(paths: &[&str]) -> String {
    let mut out = String::new();
    let mut open: Vec<&str> = Vec::new();
    for path in paths {
        let parts: Vec<&str> = path.split('/').collect();
        let (dirs, name) = parts.split_at(parts.len() - 1);
        let common = open.iter().zip(dirs).take_while(|(a, b)| a == b).count();
        open.truncate(common);
        for dir in &dirs[common..] {
            out.push_str(&"  ".repeat(open.len()));
            out.push_str(dir);
            out.push_str("/\n");
            open.push(dir);
        }
        out.push_str(&"  ".repeat(open.len()));
        out.push_str(name[0]);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_nests_directories_once() {
        assert_eq!(
            directory_tree(&[
                "README.md",
                "src/a.ts",
                "src/lib/b.ts",
                "src/lib/c.ts",
                "tests/t.ts"
            ]),
            "README.md\nsrc/\n  a.ts\n  lib/\n    b.ts\n    c.ts\ntests/\n  t.ts\n"
        );
    }

    #[test]
    fn markdown_fences_outgrow_the_content() {
        let wrapped = wrap_file(Style::Markdown, "doc.md", "```js\nx\n```\n");
        assert!(wrapped.starts_with("### doc.md\n\n````md\n"));
        assert!(wrapped.ends_with("\n````\n\n"));
    }
}
