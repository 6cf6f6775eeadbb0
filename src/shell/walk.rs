//! The walk over a parsed command: statements in the order bash runs them, the working
//! directory as `cd` changes it, redirections, and strings run again (`bash -c`, `eval`).

use super::commands::{self, Effect};
use super::words::Word;
use super::{Effects, normalize};
use std::path::{Path, PathBuf};
use tree_sitter::Node;

/// How deep `bash -c "bash -c '…'"` strings are followed before the rest counts as unknown.
const MAX_NESTING: usize = 4;

/// The working directory at a point of the command.
#[derive(Debug, Clone)]
enum Cwd {
    Known(PathBuf),
    /// `cd "$dir"`: relative paths after it are unknown.
    Unknown(String),
}

struct Walker<'a> {
    home: Option<&'a Path>,
    effects: Effects,
}

pub(super) fn run(command: &str, cwd: &Path, home: Option<&Path>) -> Effects {
    let mut walker = Walker {
        home,
        effects: Effects::default(),
    };
    let mut cwd = Cwd::Known(normalize(cwd));
    walker.source(command, &mut cwd, 0);
    walker.effects
}

/// Paths that are not files: writing to them changes nothing on disk.
fn is_device(path: &str) -> bool {
    matches!(
        path,
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty" | "/dev/zero" | "-"
    ) || path.starts_with("/dev/fd/")
}

impl Walker<'_> {
    /// Parses and walks one piece of shell source.
    fn source(&mut self, text: &str, cwd: &mut Cwd, depth: usize) {
        if depth > MAX_NESTING {
            self.effects
                .opaque(text, "shell strings nested this deep are not followed");
            return;
        }
        let Some(tree) = crate::syntax::parse_shell(text) else {
            self.effects.opaque(text, "the command could not be parsed");
            return;
        };
        let root = tree.root_node();
        if root.has_error() {
            // Walk what parsed; the broken part may hide anything.
            self.effects.opaque(
                text,
                "the command has a syntax error; its effect is unknown",
            );
        }
        let mut ctx = Ctx { src: text, depth };
        self.node(&mut ctx, root, cwd);
    }

    fn node(&mut self, ctx: &mut Ctx, node: Node, cwd: &mut Cwd) {
        match node.kind() {
            "comment" | "heredoc_start" | "heredoc_end" | "heredoc_content" => {}
            "command" => self.command(ctx, node, cwd),
            "file_redirect" => self.redirect(ctx, node, cwd),
            // Own processes: a `cd` inside does not move the rest of the command.
            "subshell" | "command_substitution" | "process_substitution" => {
                let mut inner = cwd.clone();
                self.children(ctx, node, &mut inner);
            }
            "function_definition" => {
                let mut inner = cwd.clone();
                self.children(ctx, node, &mut inner);
            }
            _ => self.children(ctx, node, cwd),
        }
    }

    fn children(&mut self, ctx: &mut Ctx, node: Node, cwd: &mut Cwd) {
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            self.node(ctx, child, cwd);
        }
    }

    fn command(&mut self, ctx: &mut Ctx, node: Node, cwd: &mut Cwd) {
        let mut words = Vec::new();
        let mut redirects = Vec::new();
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "variable_assignment" => self.expansions(ctx, child, cwd),
                "file_redirect" | "herestring_redirect" | "heredoc_redirect" => {
                    redirects.push(child)
                }
                "command_name" => {
                    self.expansions(ctx, child, cwd);
                    words.push(word(ctx.src, child, self.home));
                }
                _ => {
                    self.expansions(ctx, child, cwd);
                    words.push(word(ctx.src, child, self.home));
                }
            }
        }
        let part = ctx.src[node.byte_range()].to_string();
        // `cd` moves the rest of the command; `git -C dir` only this command; `bash -c 'cd x'`
        // only its own process.
        let mut here = cwd.clone();
        for effect in commands::effects(&words) {
            match effect {
                Effect::ChangeDir(dir) => {
                    change_dir(cwd, &dir);
                    here = cwd.clone();
                }
                Effect::InDir(dir) => change_dir(&mut here, &dir),
                Effect::Write(target) => self.target(&target, &part, &here),
                Effect::Opaque(reason) => self.effects.opaque(&part, reason),
                Effect::Run(text) => self.source(&text, &mut here.clone(), ctx.depth + 1),
                Effect::GitState => self.effects.git_state = true,
            }
        }
        for redirect in redirects {
            self.node(ctx, redirect, cwd);
        }
    }

    /// Runs the command substitutions in or under a word: they execute before the command does.
    fn expansions(&mut self, ctx: &mut Ctx, node: Node, cwd: &mut Cwd) {
        if matches!(node.kind(), "command_substitution" | "process_substitution") {
            let mut inner = cwd.clone();
            self.children(ctx, node, &mut inner);
            return;
        }
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "command_substitution" | "process_substitution" => {
                    let mut inner = cwd.clone();
                    self.children(ctx, child, &mut inner);
                }
                _ => self.expansions(ctx, child, cwd),
            }
        }
    }

    /// Records a write of `target`, or says why its path is unknown.
    fn target(&mut self, target: &Word, part: &str, cwd: &Cwd) {
        let Some(path) = target.value.as_deref() else {
            self.effects.opaque(
                part,
                format!(
                    "it writes `{}`, which is only known when it runs",
                    target.text
                ),
            );
            return;
        };
        if target.glob {
            self.effects.opaque(
                part,
                format!(
                    "it writes the files `{}` matches, only known when it runs",
                    target.text
                ),
            );
            return;
        }
        if is_device(path) {
            return;
        }
        // `mkdir -p src/{a,b}`, `cp f{,.bak}`: one target per alternative.
        if target.text.contains('{') && !target.text.starts_with(['\'', '"']) {
            let expanded = expand_braces(path);
            if expanded.len() > 1 {
                for one in expanded {
                    self.target(&Word::literal(&one), part, cwd);
                }
                return;
            }
        }
        let path = Path::new(path);
        let full = if path.is_absolute() {
            path.to_path_buf()
        } else {
            match cwd {
                Cwd::Known(base) => base.join(path),
                Cwd::Unknown(dir) => {
                    self.effects.opaque(
                        part,
                        format!(
                            "it writes `{}` in `{dir}`, a directory only known when it runs",
                            target.text
                        ),
                    );
                    return;
                }
            }
        };
        self.effects.write(normalize(&full));
    }

    fn redirect(&mut self, ctx: &mut Ctx, node: Node, cwd: &mut Cwd) {
        self.expansions(ctx, node, cwd);
        let mut cursor = node.walk();
        let operator = node
            .children(&mut cursor)
            .find(|c| !c.is_named())
            .map(|c| &ctx.src[c.byte_range()])
            .unwrap_or("");
        let writes = matches!(
            operator,
            ">" | ">>" | "&>" | "&>>" | ">|" | "<>" | ">&" | "&>|"
        );
        if !writes {
            return;
        }
        let Some(destination) = node.child_by_field_name("destination") else {
            return;
        };
        let target = word(ctx.src, destination, self.home);
        // `2>&1`, `>&-`: a descriptor, not a file.
        if operator == ">&"
            && target
                .value
                .as_deref()
                .is_some_and(|v| v == "-" || v.chars().all(|c| c.is_ascii_digit()))
        {
            return;
        }
        let part = node
            .parent()
            .map(|p| &ctx.src[p.byte_range()])
            .unwrap_or(&ctx.src[node.byte_range()])
            .to_string();
        self.target(&target, &part, cwd);
    }
}

/// Bash brace expansion of comma lists (`a{b,c}d` → `abd`, `acd`), nested ones included;
/// a brace without a comma is literal.
fn expand_braces(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let Some(open) = text.find('{') else {
        return vec![text.to_string()];
    };
    let (mut depth, mut close, mut commas) = (0usize, None, Vec::new());
    for (i, &b) in bytes.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(i);
                    break;
                }
            }
            b',' if depth == 1 => commas.push(i),
            _ => {}
        }
    }
    let Some(close) = close.filter(|_| !commas.is_empty()) else {
        return vec![text.to_string()];
    };
    let (head, tail) = (&text[..open], &text[close + 1..]);
    let mut bounds = vec![open];
    bounds.extend(&commas);
    bounds.push(close);
    let mut out = Vec::new();
    for pair in bounds.windows(2) {
        let alternative = &text[pair[0] + 1..pair[1]];
        for rest in expand_braces(&format!("{alternative}{tail}")) {
            out.extend(expand_braces(&format!("{head}{rest}")));
        }
    }
    out
}

fn change_dir(cwd: &mut Cwd, dir: &Word) {
    *cwd = match (dir.value.as_deref(), &*cwd) {
        (Some(d), _) if dir.glob => Cwd::Unknown(d.to_string()),
        (None, _) => Cwd::Unknown(dir.text.clone()),
        (Some(d), Cwd::Known(base)) => Cwd::Known(normalize(&base.join(d))),
        (Some(d), Cwd::Unknown(_)) if Path::new(d).is_absolute() => {
            Cwd::Known(normalize(Path::new(d)))
        }
        (Some(_), unknown) => unknown.clone(),
    }
}

struct Ctx<'s> {
    src: &'s str,
    depth: usize,
}

/// The value of a word node, when it is known before the command runs.
fn word(src: &str, node: Node, home: Option<&Path>) -> Word {
    let text = src[node.byte_range()].to_string();
    let mut glob = false;
    let value = value(src, node, &mut glob).map(|v| expand_tilde(v, home));
    Word { value, text, glob }
}

fn expand_tilde(value: String, home: Option<&Path>) -> String {
    match (home, value.strip_prefix('~')) {
        (Some(home), Some(rest)) if rest.is_empty() || rest.starts_with('/') => {
            format!("{}{rest}", home.display())
        }
        _ => value,
    }
}

fn value(src: &str, node: Node, glob: &mut bool) -> Option<String> {
    let text = &src[node.byte_range()];
    match node.kind() {
        "word" | "number" => {
            if text.contains(['*', '?', '[']) {
                *glob = true;
            }
            Some(unescape(text))
        }
        "raw_string" => Some(
            text.trim_start_matches('\'')
                .trim_end_matches('\'')
                .to_string(),
        ),
        "ansi_c_string" => Some(
            text.trim_start_matches("$'")
                .trim_end_matches('\'')
                .replace("\\n", "\n")
                .replace("\\t", "\t")
                .replace("\\'", "'"),
        ),
        "string" => {
            let mut out = String::new();
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                match child.kind() {
                    "string_content" => out.push_str(&unescape_double(&src[child.byte_range()])),
                    _ => return None,
                }
            }
            Some(out)
        }
        "concatenation" | "command_name" => {
            let mut out = String::new();
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                out.push_str(&value(src, child, glob)?);
            }
            // An anonymous piece between named ones (`a"b"` keeps no named node for `a` in some
            // shapes): fall back to the raw text when nothing named was found.
            if node.named_child_count() == 0 {
                return Some(unescape(text));
            }
            Some(out)
        }
        _ => None,
    }
}

/// Backslash removal outside quotes: `a\ b` is `a b`.
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next()
                && next != '\n'
            {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Backslash removal inside double quotes: only before `$`, `` ` ``, `"`, `\` and newline.
fn unescape_double(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && matches!(chars.peek(), Some('$' | '`' | '"' | '\\' | '\n')) {
            let next = chars.next().unwrap_or('\\');
            if next != '\n' {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}
