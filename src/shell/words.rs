//! Words of a simple command, as far as they are known before it runs, and the option parsing
//! the command table shares.

/// One word of a command after quote removal.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Word {
    /// The word's value, or `None` when it depends on an expansion (`$f`, `$(…)`, `{a,b}`).
    pub value: Option<String>,
    /// The word as written, for messages.
    pub text: String,
    /// Holds an unquoted glob character: it names files only known when it runs.
    pub glob: bool,
}

impl Word {
    pub fn literal(value: &str) -> Word {
        Word {
            value: Some(value.to_string()),
            text: value.to_string(),
            glob: false,
        }
    }

    pub fn is(&self, value: &str) -> bool {
        self.value.as_deref() == Some(value)
    }

    pub fn str(&self) -> &str {
        self.value.as_deref().unwrap_or("")
    }

    /// An option word: starts with `-` and is more than `-` itself.
    pub fn is_option(&self) -> bool {
        self.value
            .as_deref()
            .is_some_and(|v| v.starts_with('-') && v.len() > 1)
    }
}

/// A command's arguments split into options and operands.
pub(super) struct Parsed<'a> {
    /// Option names (`-o`, `--output`, or a flag cluster such as `-la`) with their values.
    pub options: Vec<(String, Option<Word>)>,
    pub operands: Vec<&'a Word>,
}

impl<'a> Parsed<'a> {
    /// Splits `args`: options before `--` (or anywhere, GNU style), operands otherwise. An option
    /// named in `takes_value` consumes the next word, or its `=value`, or the rest of its flag
    /// cluster (`-sSo out` and `-qO-` both give `-o`/`-O` a value).
    pub fn new(args: &'a [Word], takes_value: &[&str]) -> Parsed<'a> {
        let mut options = Vec::new();
        let mut operands = Vec::new();
        let mut i = 0;
        let mut only_operands = false;
        while i < args.len() {
            let word = &args[i];
            i += 1;
            if only_operands || !word.is_option() {
                operands.push(word);
                continue;
            }
            let v = word.str();
            if v == "--" {
                only_operands = true;
                continue;
            }
            if let Some(long) = v.strip_prefix("--") {
                match long.split_once('=') {
                    Some((name, value)) => {
                        options.push((format!("--{name}"), Some(Word::literal(value))))
                    }
                    None if takes_value.contains(&v) => {
                        options.push((v.to_string(), args.get(i).cloned()));
                        i += 1;
                    }
                    None => options.push((v.to_string(), None)),
                }
                continue;
            }
            // A short cluster: flags up to the first one that takes a value.
            let flags = &v[1..];
            let mut taken = None;
            for (at, c) in flags.char_indices() {
                let name = format!("-{c}");
                if takes_value.contains(&name.as_str()) {
                    let rest = &flags[at + c.len_utf8()..];
                    let value = if rest.is_empty() {
                        i += 1;
                        args.get(i - 1).cloned()
                    } else {
                        Some(Word::literal(rest))
                    };
                    taken = Some((at, name, value));
                    break;
                }
            }
            match taken {
                Some((at, name, value)) => {
                    if at > 0 {
                        options.push((format!("-{}", &flags[..at]), None));
                    }
                    options.push((name, value));
                }
                None => options.push((v.to_string(), None)),
            }
        }
        Parsed { options, operands }
    }

    /// Whether a short flag (`-i`, also inside a cluster such as `-pi`) or one of the long
    /// names is present.
    pub fn has(&self, short: Option<char>, long: &[&str]) -> bool {
        self.options.iter().any(|(name, _)| {
            long.contains(&name.as_str())
                || short.is_some_and(|c| {
                    name.starts_with('-') && !name.starts_with("--") && name[1..].contains(c)
                })
        })
    }

    /// The value of `-o FILE`, `-oFILE`, `--output FILE` or `--output=FILE` (the short name
    /// must be in `takes_value` when parsing).
    pub fn value(&self, short: Option<&str>, long: &[&str]) -> Option<Word> {
        self.options
            .iter()
            .find(|(name, _)| long.contains(&name.as_str()) || short == Some(name.as_str()))
            .and_then(|(_, value)| value.clone())
    }
}
