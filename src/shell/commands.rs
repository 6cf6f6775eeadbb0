//! What each command writes: one table of the programs agents run, from readers (`rg`, `cat`,
//! `git log`, test runners) to writers (`sed -i`, `cp`, `git checkout --`) and to the ones whose
//! targets only show when they run (`python -c`, `npm install`, `git stash pop`).
//!
//! A program missing from the table is unknown, and unknown is never read-only.

use super::words::{Parsed, Word};

/// One effect of a simple command.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Effect {
    /// Writes this path (relative to the working directory unless absolute).
    Write(Word),
    /// Writes something this table cannot name; the reason says what.
    Opaque(String),
    /// `cd`: later commands run there.
    ChangeDir(Word),
    /// `git -C dir`: this command's paths are relative to `dir`.
    InDir(Word),
    /// Runs this shell source (`bash -c`, `eval`): analysed like the command itself.
    Run(String),
    /// Changes git's index, refs or objects only.
    GitState,
}

use Effect::*;

/// Programs that only read files (their output goes to stdout or to a build directory). Build
/// and test runners count as readers: they write build products, not the project's sources.
#[rustfmt::skip]
const READERS: &[&str] = &[
    // files and text
    "cat", "tac", "head", "tail", "less", "more", "wc", "nl", "od", "hexdump", "xxd", "strings",
    "cut", "tr", "column", "paste", "join", "comm", "fold", "fmt", "rev", "expand", "unexpand",
    "grep", "egrep", "fgrep", "rg", "ag", "ack", "fd", "fdfind", "locate", "ls", "ll", "dir",
    "tree", "stat", "file", "du", "df", "diff", "cmp", "colordiff", "md5sum", "sha1sum",
    "sha256sum", "sha512sum", "b2sum", "cksum", "base64", "basename", "dirname", "realpath",
    "readlink", "pwd", "which", "whereis", "type", "echo", "printf", "true", "false", ":", "test",
    "[", "[[", "seq", "sleep", "date", "cal", "expr", "bc", "env", "printenv", "id", "whoami",
    "groups", "uname", "hostname", "nproc", "free", "uptime", "ps", "pgrep", "lsof", "jq", "yq",
    "bat", "batcat", "tokei", "cloc", "scc", "wait", "read", "export", "declare", "typeset",
    "local", "readonly", "unset", "set", "shopt", "alias", "unalias", "history", "hash", "exit",
    "return", "trap", "ulimit", "umask", "kill", "pkill", "popd", "dirs", "jobs", "getconf",
    "locale", "tput", "clear", "iconv", "numfmt", "shuf", "look", "xmllint", "column", "lscpu",
    "ss", "netstat", "ping", "dig", "host", "nslookup", "man", "info", "help", "sqlite3_analyzer",
    "ldd", "nm", "objdump", "readelf", "size",
    // test runners, type checkers and linters that do not fix
    "pytest", "py.test", "mypy", "pyright", "flake8", "pylint", "pyflakes", "pycodestyle",
    "pydocstyle", "bandit", "vulture", "tox", "nox", "phpunit", "pest", "phpstan", "psalm", "jest",
    "vitest", "mocha", "ava", "tap", "karma", "jasmine", "playwright", "cypress", "golangci-lint",
    "staticcheck", "govulncheck", "shellcheck", "hadolint", "actionlint", "rspec", "minitest",
    "ctest", "nextest", "cargo-nextest",
];

/// `python -m X` modules that only read.
#[rustfmt::skip]
const READ_MODULES: &[&str] = &[
    "pytest", "unittest", "mypy", "pyflakes", "pylint", "flake8", "pydoc", "json.tool", "doctest",
    "pyright", "pycodestyle", "tokenize", "tabnanny", "site", "timeit", "platform", "pip list",
    "pip show", "pip freeze", "pip check",
];

/// Wrappers that run the rest of the line as a command, with the options that take a value.
fn wrapper_value_options(name: &str) -> Option<&'static [&'static str]> {
    Some(match name {
        "sudo" => &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"],
        "nice" => &["-n", "--adjustment"],
        "ionice" => &["-c", "-n", "-p"],
        "stdbuf" => &["-i", "-o", "-e"],
        "timeout" => &["-s", "--signal", "-k", "--kill-after"],
        "time" | "nohup" | "command" | "builtin" | "chronic" | "unbuffer" | "exec" | "then"
        | "do" | "!" => &[],
        _ => return None,
    })
}

/// The effects of one simple command; `words[0]` is its name.
pub(super) fn effects(words: &[Word]) -> Vec<Effect> {
    let Some((name_word, args)) = words.split_first() else {
        return Vec::new();
    };
    let Some(raw_name) = name_word.value.as_deref() else {
        return vec![Opaque(format!(
            "the program `{}` is only known when it runs",
            name_word.text
        ))];
    };
    let name = raw_name.rsplit('/').next().unwrap_or(raw_name);
    let path_invoked = raw_name.contains('/');

    if let Some(value_options) = wrapper_value_options(name) {
        return wrapped(name, args, value_options);
    }
    match name {
        "env" => env(args),
        "cd" | "pushd" => vec![ChangeDir(
            args.iter()
                .find(|w| !w.is_option())
                .cloned()
                .unwrap_or_else(|| Word::literal("~")),
        )],
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "fish" => shell(name, args),
        "eval" => match joined(args) {
            Some(text) => vec![Run(text)],
            None => vec![Opaque(
                "`eval` runs a string only known when it runs".into(),
            )],
        },
        "source" | "." => vec![Opaque("it runs a script file".into())],
        "xargs" => xargs(args),
        "find" => find(args),
        "tee" => writes_all(Parsed::new(args, &[]).operands),
        "sed" => sed(args),
        "awk" | "gawk" | "mawk" | "nawk" => awk(args),
        // Interpreter commands, here and below: not a language id.
        "perl" | "ruby" => perl_like(name, args),
        // Commands again: not a language id.
        "python" | "python3" | "python2" | "py" | "pypy" | "pypy3" => python(args),
        n if n.starts_with("python3.") => python(args),
        // The `php` command: not a language id.
        "node" | "nodejs" | "deno" | "bun" | "php" | "lua" | "Rscript" | "osascript" => {
            interpreter(name, args)
        }
        "cp" => copy(args, false),
        "mv" => copy(args, true),
        "install" => install(args),
        "ln" => link(args),
        "rm" | "rmdir" | "unlink" | "shred" | "mkdir" | "mkfifo" => {
            writes_all(Parsed::new(args, &["-m", "--mode"]).operands)
        }
        "touch" => {
            writes_all(Parsed::new(args, &["-d", "--date", "-t", "-r", "--reference"]).operands)
        }
        "truncate" => {
            writes_all(Parsed::new(args, &["-s", "--size", "-r", "--reference"]).operands)
        }
        "chmod" | "chown" | "chgrp" => {
            let p = Parsed::new(args, &[]);
            let skip = usize::from(!p.options.iter().any(|(n, _)| n.starts_with("--reference")));
            writes_all(p.operands.into_iter().skip(skip).collect())
        }
        "dd" => args
            .iter()
            .filter_map(|w| {
                w.value
                    .as_deref()
                    .and_then(|v| v.strip_prefix("of="))
                    .map(|of| {
                        Write(Word {
                            value: Some(of.to_string()),
                            ..w.clone()
                        })
                    })
                    .or_else(|| {
                        w.value
                            .is_none()
                            .then(|| Opaque(format!("`{}` is only known when it runs", w.text)))
                    })
            })
            .collect(),
        "rsync" | "scp" => last_operand(
            args,
            &[
                "-e",
                "--rsh",
                "-f",
                "--filter",
                "--exclude",
                "--include",
                "-T",
                "--temp-dir",
                "-P",
            ],
        ),
        "tar" | "bsdtar" => tar(args),
        "zip" => {
            let p = Parsed::new(args, &["-x", "-i", "-b", "-n"]);
            p.operands
                .first()
                .map(|w| vec![Write((*w).clone())])
                .unwrap_or_default()
        }
        "unzip" => {
            let p = Parsed::new(args, &["-d", "-x"]);
            if p.has(Some('l'), &[])
                || p.has(Some('t'), &[])
                || p.has(Some('v'), &[])
                || p.has(Some('p'), &[])
                || p.has(Some('Z'), &[])
            {
                Vec::new()
            } else {
                vec![Opaque(
                    "it extracts an archive: the files it writes are in the archive".into(),
                )]
            }
        }
        "gzip" | "gunzip" | "bzip2" | "bunzip2" | "xz" | "unxz" | "zstd" | "unzstd" | "lz4" => {
            let p = Parsed::new(args, &["-S", "--suffix"]);
            if p.has(Some('c'), &["--stdout", "--to-stdout"])
                || p.has(Some('l'), &["--list"])
                || p.has(Some('t'), &["--test"])
                || p.operands.is_empty()
            {
                Vec::new()
            } else {
                vec![Opaque(
                    "it replaces each file with its (de)compressed copy".into(),
                )]
            }
        }
        "zcat" | "bzcat" | "xzcat" | "zgrep" | "zless" => Vec::new(),
        "sort" => {
            let p = Parsed::new(
                args,
                &[
                    "-k",
                    "--key",
                    "-t",
                    "--field-separator",
                    "-o",
                    "--output",
                    "-S",
                    "--buffer-size",
                    "-T",
                    "--temporary-directory",
                ],
            );
            p.value(Some("-o"), &["--output"])
                .map(Write)
                .into_iter()
                .collect()
        }
        "uniq" => {
            let p = Parsed::new(
                args,
                &[
                    "-f",
                    "-s",
                    "-w",
                    "--skip-fields",
                    "--skip-chars",
                    "--check-chars",
                ],
            );
            p.operands
                .get(1)
                .map(|w| vec![Write((*w).clone())])
                .unwrap_or_default()
        }
        "split" | "csplit" => vec![Opaque("it writes pieces named when it runs".into())],
        "curl" => curl(args),
        "wget" => wget(args),
        "patch" => patch(args),
        "git" => git(args),
        "npm" | "pnpm" | "yarn" => package_manager(name, args),
        "npx" | "pnpx" | "bunx" => npx(args),
        "pip" | "pip3" | "uv" | "poetry" | "pipenv" | "pdm" | "conda" => pip_like(name, args),
        "composer" => subcommand(
            args,
            &[
                "show",
                "validate",
                "diagnose",
                "outdated",
                "licenses",
                "depends",
                "why",
                "why-not",
                "--version",
                "-V",
                "list",
                "help",
                "search",
                "check-platform-reqs",
                "audit",
            ],
            "composer",
        ),
        "cargo" => cargo(args),
        "go" => go(args), // the command: not a language id
        "mvn" | "mvnw" | "gradle" | "gradlew" => subcommand(
            args,
            &[
                "test",
                "compile",
                "verify",
                "package",
                "dependency:tree",
                "dependencies",
                "tasks",
                "check",
                "build",
                "--version",
                "-v",
                "validate",
                "help",
            ],
            name,
        ),
        "make" | "cmake" | "ninja" | "just" | "task" | "rake" => vec![Opaque(format!(
            "`{name}` runs recipes whose writes are only known when they run"
        ))],
        "black" | "isort" | "yapf" | "autopep8" | "rustfmt" | "gofmt" | "goimports"
        | "clang-format" | "prettier" | "eslint" | "stylelint" | "standard" | "ruff"
        | "php-cs-fixer" | "pint" | "phpcbf" | "biome" | "dprint" | "shfmt" => {
            formatter(name, args)
        }
        "manage.py" => django(args),
        "artisan" => artisan(args),
        "ctags" | "etags" => {
            let p = Parsed::new(args, &["-f", "-o"]);
            let target = p
                .value(Some("-f"), &["--output"])
                .or_else(|| p.value(Some("-o"), &[]))
                .unwrap_or_else(|| Word::literal(if name == "etags" { "TAGS" } else { "tags" }));
            vec![Write(target)]
        }
        "mktemp" => {
            let p = Parsed::new(args, &["-p", "--tmpdir", "--suffix"]);
            if p.operands.is_empty() && p.value(Some("-p"), &["--tmpdir"]).is_none() {
                Vec::new()
            } else {
                vec![Opaque(
                    "it creates a file whose name is chosen when it runs".into(),
                )]
            }
        }
        "yq" => {
            let p = Parsed::new(
                args,
                &["-o", "--output-format", "-p", "--input-format", "--arg"],
            );
            if p.has(Some('i'), &["--inplace"]) {
                writes_all(p.operands.into_iter().skip(1).collect())
            } else {
                Vec::new()
            }
        }
        "tsc" => {
            if args
                .iter()
                .any(|w| w.is("--noEmit") || w.is("--version") || w.is("-v") || w.is("--help"))
            {
                Vec::new()
            } else {
                vec![Opaque(
                    "`tsc` emits JavaScript next to or under its outDir".into(),
                )]
            }
        }
        "jar" => match args.first().map(|w| w.str()) {
            Some(mode) if mode.trim_start_matches('-').starts_with('t') => Vec::new(),
            _ => vec![Opaque("`jar` creates or extracts archives".into())],
        },
        "gh" => {
            let sub: Vec<&str> = args
                .iter()
                .filter(|w| !w.is_option())
                .map(|w| w.str())
                .take(2)
                .collect();
            match sub.as_slice() {
                ["pr", "checkout"]
                | ["repo", "clone"]
                | ["release", "download"]
                | ["run", "download"]
                | ["extension", ..] => {
                    vec![Opaque(format!("`gh {}` writes files", sub.join(" ")))]
                }
                _ => Vec::new(),
            }
        }
        "docker" | "podman"
            if args
                .iter()
                .find(|w| !w.is_option())
                .is_some_and(|w| w.is("compose")) =>
        {
            let rest: Vec<Word> = args
                .iter()
                .skip_while(|w| !w.is("compose"))
                .skip(1)
                .cloned()
                .collect();
            subcommand(
                &rest,
                &[
                    "logs", "ps", "config", "images", "top", "version", "ls", "events",
                ],
                "docker compose",
            )
        }
        "docker" | "podman" | "kubectl" => subcommand(
            args,
            &[
                "ps",
                "images",
                "logs",
                "inspect",
                "version",
                "info",
                "get",
                "describe",
                "top",
                "stats",
                "--version",
            ],
            name,
        ),
        "vi" | "vim" | "nvim" | "nano" | "emacs" | "code" | "ed" | "ex" => vec![Opaque(format!(
            "`{name}` is an editor: it may write any file it opens"
        ))],
        // By name even when invoked by path: `vendor/bin/phpunit`, `./node_modules/.bin/jest`.
        _ if READERS.contains(&name) => Vec::new(),
        // `java -version`, `rustc --version`: asking a program about itself writes nothing.
        _ if matches!(args, [only] if matches!(only.str(), "--version" | "-version" | "-V" | "--help" | "-help" | "version")) => {
            Vec::new()
        }
        _ => vec![Opaque(if path_invoked {
            format!("`{raw_name}` is a program or script whose writes are unknown")
        } else {
            format!("`{name}` is not a command code-intel knows to be read-only")
        })],
    }
}

fn writes_all(words: Vec<&Word>) -> Vec<Effect> {
    words.into_iter().map(|w| Write(w.clone())).collect()
}

fn joined(args: &[Word]) -> Option<String> {
    let parts: Option<Vec<&str>> = args.iter().map(|w| w.value.as_deref()).collect();
    parts.map(|p| p.join(" "))
}

/// `sudo -u x cmd …`, `timeout 10 cmd …`, `nice -n 5 cmd …`: the effects of `cmd …`.
fn wrapped(name: &str, args: &[Word], value_options: &[&str]) -> Vec<Effect> {
    let mut i = 0;
    while i < args.len() && args[i].is_option() {
        if args[i].is("--") {
            i += 1;
            break;
        }
        i += if value_options.contains(&args[i].str()) {
            2
        } else {
            1
        };
    }
    if name == "timeout" && i < args.len() {
        i += 1; // the duration
    }
    if i >= args.len() {
        return Vec::new();
    }
    effects(&args[i..])
}

/// `env [-i] [-u NAME] [NAME=VALUE]… cmd …`.
fn env(args: &[Word]) -> Vec<Effect> {
    let mut i = 0;
    while i < args.len() {
        let v = args[i].str();
        if v == "-u" || v == "--unset" || v == "-C" || v == "--chdir" {
            i += 2;
        } else if args[i].is_option() || (v.contains('=') && !v.starts_with('=')) {
            i += 1;
        } else {
            break;
        }
    }
    if i >= args.len() {
        return Vec::new();
    }
    effects(&args[i..])
}

/// `bash -c 'cmd'` runs `cmd`; `bash script.sh` or a script on stdin is unknown.
fn shell(name: &str, args: &[Word]) -> Vec<Effect> {
    let mut i = 0;
    while i < args.len() && args[i].is_option() {
        let v = args[i].str();
        if v.starts_with('-') && !v.starts_with("--") && v.contains('c') {
            return match args.get(i + 1).and_then(|w| w.value.clone()) {
                Some(script) => vec![Run(script)],
                None => vec![Opaque(format!(
                    "`{name} -c` runs a string only known when it runs"
                ))],
            };
        }
        if v == "-o" || v == "+o" || v == "--rcfile" || v == "--init-file" {
            i += 1;
        }
        i += 1;
    }
    vec![Opaque(format!(
        "`{name}` runs a script whose writes are unknown"
    ))]
}

/// `xargs [opts] cmd args…`: `cmd` gets more arguments only known when it runs.
fn xargs(args: &[Word]) -> Vec<Effect> {
    let value_options = [
        "-n",
        "-L",
        "-P",
        "-I",
        "-d",
        "-E",
        "-s",
        "-a",
        "--max-args",
        "--max-procs",
        "--delimiter",
        "--arg-file",
        "-i",
    ];
    let mut i = 0;
    while i < args.len() && args[i].is_option() {
        i += if value_options.contains(&args[i].str()) {
            2
        } else {
            1
        };
    }
    if i >= args.len() {
        return Vec::new(); // `xargs` alone runs echo
    }
    with_unknown_arguments(&args[i..])
}

/// The effects of a command that will get more arguments when it runs (`xargs`, `find -exec`):
/// a reader stays a reader; anything else writes what only the run knows.
fn with_unknown_arguments(command: &[Word]) -> Vec<Effect> {
    let mut probe: Vec<Word> = command.to_vec();
    probe.push(Word {
        value: None,
        text: "{}".into(),
        glob: false,
    });
    let found = effects(&probe);
    if found.is_empty() {
        return found;
    }
    let name = command.first().map(|w| w.text.as_str()).unwrap_or("");
    vec![Opaque(format!(
        "`{name}` runs on files listed only when it runs"
    ))]
}

/// `find`: `-delete`, writers under `-exec`, `-fprint FILE`.
fn find(args: &[Word]) -> Vec<Effect> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let v = args[i].str();
        match v {
            "-delete" => out.push(Opaque("`find -delete` removes the files it finds".into())),
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let start = i + 1;
                let mut end = start;
                while end < args.len()
                    && !args[end].is(";")
                    && !args[end].is("+")
                    && !args[end].is("\\;")
                {
                    end += 1;
                }
                let command: Vec<Word> = args[start..end]
                    .iter()
                    .filter(|w| !w.is("{}"))
                    .cloned()
                    .collect();
                out.extend(with_unknown_arguments(&command));
                i = end;
            }
            "-fprint" | "-fprint0" | "-fls" | "-fprintf" => {
                if let Some(target) = args.get(i + 1) {
                    out.push(Write(target.clone()));
                }
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// `sed -i` edits its files; a `w FILE` command or `s///w FILE` flag writes FILE; `e` runs.
fn sed(args: &[Word]) -> Vec<Effect> {
    let p = Parsed::new(
        args,
        &["-e", "--expression", "-f", "--file", "-l", "--line-length"],
    );
    let in_place = p.options.iter().any(|(n, _)| {
        n.starts_with("--in-place") || (!n.starts_with("--") && n[1..].contains('i'))
    });
    let scripts: Vec<&Word> = p
        .options
        .iter()
        .filter(|(n, _)| n == "-e" || n == "--expression")
        .filter_map(|(_, w)| w.as_ref())
        .collect();
    let has_file_script = p.options.iter().any(|(n, _)| n == "-f" || n == "--file");
    let mut operands = p.operands.clone();
    let mut script_words = scripts;
    if script_words.is_empty() && !has_file_script && !operands.is_empty() {
        // BSD `sed -i '' 's/…/'`: an empty suffix word before the script.
        if in_place && operands.len() > 1 && operands[0].is("") {
            operands.remove(0);
        }
        script_words.push(operands.remove(0));
    }
    let mut out = Vec::new();
    for script in &script_words {
        match script.value.as_deref() {
            Some(text) => out.extend(sed_script_writes(text)),
            None => out.push(Opaque("the sed script is only known when it runs".into())),
        }
    }
    if has_file_script {
        out.push(Opaque("the sed script comes from a file".into()));
    }
    if in_place {
        if operands.is_empty() {
            out.push(Opaque("`sed -i` without a file".into()));
        }
        // `-i.bak` / `--in-place=.bak` also writes a backup next to each file.
        let suffix = p
            .options
            .iter()
            .find_map(|(n, v)| match n.strip_prefix("--in-place") {
                Some(_) => v.as_ref().and_then(|w| w.value.clone()),
                None if !n.starts_with("--") => n[1..]
                    .split_once('i')
                    .map(|(_, rest)| rest.to_string())
                    .filter(|rest| !rest.is_empty()),
                None => None,
            });
        for file in &operands {
            if let (Some(suffix), Some(value)) = (&suffix, &file.value) {
                out.push(Write(Word {
                    value: Some(format!("{value}{suffix}")),
                    ..(*file).clone()
                }));
            }
        }
        out.extend(writes_all(operands));
    }
    out
}

/// Files a sed script writes with `w`/`W` commands or the `w` flag of `s`; `e` runs a command.
fn sed_script_writes(script: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    for line in script.split(['\n', ';']) {
        let command = line.trim_start().trim_start_matches(|c: char| {
            c.is_ascii_digit() || matches!(c, ',' | '$' | '!' | ' ' | '{' | '}')
        });
        let command = if let Some(address) = command.strip_prefix('/') {
            // `/re/w file`: skip the address.
            address
                .find('/')
                .map_or("", |end| &address[end + 1..])
                .trim_start()
        } else {
            command
        };
        if let Some(rest) = command
            .strip_prefix('w')
            .or_else(|| command.strip_prefix('W'))
            && rest.starts_with([' ', '\t'])
        {
            let file = rest.trim();
            if !file.is_empty() {
                out.push(Write(Word::literal(file)));
            }
        } else if command.starts_with("e ") || command == "e" {
            out.push(Opaque("the sed script runs a command (`e`)".into()));
        } else if let Some(body) = command.strip_prefix('s')
            && let Some(delim) = body.chars().next()
            && !delim.is_alphanumeric()
            && !delim.is_whitespace()
        {
            let parts: Vec<&str> = body[delim.len_utf8()..].splitn(3, delim).collect();
            if let Some(flags) = parts.get(2) {
                if let Some(at) = flags.find('w') {
                    let file = flags[at + 1..].trim();
                    if !file.is_empty() {
                        out.push(Write(Word::literal(file)));
                    }
                } else if flags.contains('e') {
                    out.push(Opaque("the sed script runs a command (`s///e`)".into()));
                }
            }
        }
    }
    out
}

/// `awk`: `-i inplace` edits the files; the program may print to files or run commands.
fn awk(args: &[Word]) -> Vec<Effect> {
    let p = Parsed::new(
        args,
        &[
            "-F",
            "-v",
            "-f",
            "-i",
            "--include",
            "--file",
            "--assign",
            "--field-separator",
        ],
    );
    let in_place = p.options.iter().any(|(n, v)| {
        (n == "-i" || n == "--include") && v.as_ref().is_some_and(|w| w.is("inplace"))
    });
    let from_file = p.options.iter().any(|(n, _)| n == "-f" || n == "--file");
    let mut operands = p.operands.clone();
    let mut out = Vec::new();
    if from_file {
        out.push(Opaque("the awk program comes from a file".into()));
    } else if !operands.is_empty() {
        let program = operands.remove(0);
        match program.value.as_deref() {
            Some(text) => out.extend(awk_program_writes(text)),
            None => out.push(Opaque("the awk program is only known when it runs".into())),
        }
    }
    if in_place {
        out.extend(writes_all(operands));
    }
    out
}

/// `print … > "file"` writes file; `system(…)`, `| "cmd"` and `print > expr` are unknown.
fn awk_program_writes(program: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    if program.contains("system(")
        || program.contains("| \"")
        || program.contains("|\"")
        || program.contains("|&")
    {
        out.push(Opaque("the awk program runs commands".into()));
    }
    // Redirections only exist inside print/printf statements.
    for (at, _) in program.match_indices("print") {
        let statement = &program[at..];
        let end = statement.find([';', '}', '\n']).unwrap_or(statement.len());
        let statement = &statement[..end];
        let mut in_string = false;
        let bytes = statement.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'"' => in_string = !in_string,
                b'\\' => i += 1,
                b'>' if !in_string => {
                    let rest = statement[i + 1..].trim_start_matches('>').trim_start();
                    if let Some(name) = rest.strip_prefix('"').and_then(|r| r.split('"').next()) {
                        out.push(Write(Word::literal(name)));
                    } else {
                        out.push(Opaque(
                            "the awk program prints to a file named when it runs".into(),
                        ));
                    }
                    break;
                }
                _ => {}
            }
            i += 1;
        }
    }
    out
}

/// `perl -i` / `ruby -i` edit their files; an inline program (`-e`) may do anything.
fn perl_like(name: &str, args: &[Word]) -> Vec<Effect> {
    let mut in_place = false;
    let mut inline = false;
    let mut i = 0;
    while i < args.len() && args[i].is_option() {
        let v = args[i].str();
        if v == "--" {
            i += 1;
            break;
        }
        if v == "--version" || v == "-v" {
            return Vec::new();
        }
        let flags = &v[1..];
        // In a cluster, `e`/`E` takes the rest of the line as the program (the next word).
        for (at, c) in flags.char_indices() {
            match c {
                'i' => in_place = true,
                'e' | 'E' => {
                    inline = true;
                    if at + 1 == flags.len() {
                        i += 1;
                    }
                    break;
                }
                'I' | 'M' | 'm' | 'F' | 'x' | 'C' | 'r' => break,
                _ => {}
            }
        }
        i += 1;
    }
    let operands = &args[i.min(args.len())..];
    if !inline && !in_place {
        return vec![Opaque(format!(
            "`{name}` runs a script whose writes are unknown"
        ))];
    }
    let mut out = Vec::new();
    if in_place {
        out.extend(operands.iter().map(|w| Write(w.clone())));
    } else {
        out.push(Opaque(format!(
            "`{name} -e` runs an inline program; its writes are unknown"
        )));
    }
    out
}

/// `python -m pytest` reads; `python -c`, `python - <<EOF` and scripts are unknown.
fn python(args: &[Word]) -> Vec<Effect> {
    let p = Parsed::new(args, &["-m", "-c", "-W", "-X"]);
    if args
        .first()
        .is_some_and(|w| w.is("--version") || w.is("-V"))
    {
        return Vec::new();
    }
    if let Some(module) = p.value(Some("-m"), &[]) {
        let module = module.str().to_string();
        let next = p.operands.first().map(|w| w.str()).unwrap_or("");
        let with_sub = format!("{module} {next}");
        if READ_MODULES.contains(&module.as_str()) || READ_MODULES.contains(&with_sub.as_str()) {
            return Vec::new();
        }
        return vec![Opaque(format!("`python -m {module}` may write files"))];
    }
    if p.options.iter().any(|(n, _)| n == "-c") {
        return vec![Opaque(
            "`python -c` runs an inline program; its writes are unknown".into(),
        )];
    }
    match p.operands.first() {
        Some(script) if script.str().ends_with("manage.py") => django(&args[1..]),
        Some(script) if script.is("-") => vec![Opaque(
            "python runs a program from stdin; its writes are unknown".into(),
        )],
        Some(script) => vec![Opaque(format!(
            "python runs `{}`, whose writes are unknown",
            script.text
        ))],
        None => vec![Opaque(
            "python runs a program from stdin; its writes are unknown".into(),
        )],
    }
}

/// Interpreters with an inline-program flag: node -e, php -r, deno eval, …
fn interpreter(name: &str, args: &[Word]) -> Vec<Effect> {
    if args
        .first()
        .is_some_and(|w| w.is("--version") || w.is("-v") || w.is("-V"))
    {
        return Vec::new();
    }
    // The interpreter command: not a language id.
    if name == "php" {
        if args
            .first()
            .is_some_and(|w| w.is("-l") || w.is("--syntax-check") || w.is("-m") || w.is("-i"))
        {
            return Vec::new();
        }
        if args.first().is_some_and(|w| w.str().ends_with("artisan")) {
            return artisan(&args[1..]);
        }
        if args
            .first()
            .is_some_and(|w| w.str().ends_with("phpunit") || w.str().ends_with("pest"))
        {
            return Vec::new();
        }
    }
    if name == "bun" || name == "deno" {
        if args.first().is_some_and(|w| w.is("test")) {
            return Vec::new();
        }
        if name == "bun" {
            return package_manager(name, args);
        }
    }
    if name == "node" && args.first().is_some_and(|w| w.is("--check") || w.is("-c")) {
        return Vec::new();
    }
    if name == "node"
        && args.first().is_some_and(|w| {
            w.str().contains("jest") || w.str().contains("vitest") || w.str().contains("mocha")
        })
    {
        return Vec::new();
    }
    vec![Opaque(format!(
        "`{name}` runs a program whose writes are unknown"
    ))]
}

/// `cp SRC… DEST` / `cp -t DIR SRC…`; `mv` also removes its sources.
fn copy(args: &[Word], moves: bool) -> Vec<Effect> {
    let p = Parsed::new(args, &["-t", "--target-directory", "-S", "--suffix"]);
    let target = p.value(Some("-t"), &["--target-directory"]);
    let mut operands = p.operands.clone();
    let dest = match target {
        Some(t) => t,
        None => match operands.pop() {
            Some(d) => d.clone(),
            None => return Vec::new(),
        },
    };
    let mut out = Vec::new();
    if moves {
        out.extend(writes_all(operands));
    }
    out.push(Write(dest));
    out
}

fn install(args: &[Word]) -> Vec<Effect> {
    let p = Parsed::new(
        args,
        &[
            "-m",
            "--mode",
            "-o",
            "--owner",
            "-g",
            "--group",
            "-t",
            "--target-directory",
            "-S",
            "--suffix",
        ],
    );
    if p.has(Some('d'), &["--directory"]) {
        return writes_all(p.operands);
    }
    if let Some(t) = p.value(Some("-t"), &["--target-directory"]) {
        return vec![Write(t)];
    }
    p.operands
        .last()
        .map(|w| vec![Write((*w).clone())])
        .unwrap_or_default()
}

/// `ln TARGET LINK`, `ln TARGET` (a link in the working directory), `ln -t DIR TARGET…`.
fn link(args: &[Word]) -> Vec<Effect> {
    let p = Parsed::new(args, &["-t", "--target-directory", "-S", "--suffix"]);
    if let Some(t) = p.value(Some("-t"), &["--target-directory"]) {
        return vec![Write(t)];
    }
    match p.operands.as_slice() {
        [] => Vec::new(),
        [only] => {
            let base = only.value.as_deref().map(|v| {
                v.trim_end_matches('/')
                    .rsplit('/')
                    .next()
                    .unwrap_or(v)
                    .to_string()
            });
            vec![Write(Word {
                value: base,
                text: only.text.clone(),
                glob: only.glob,
            })]
        }
        [.., last] => vec![Write((*last).clone())],
    }
}

fn last_operand(args: &[Word], takes_value: &[&str]) -> Vec<Effect> {
    let p = Parsed::new(args, takes_value);
    match p.operands.last() {
        Some(last) if p.operands.len() > 1 => {
            // A remote destination (`host:path`) is not a local file.
            if last.str().contains(':') && !last.str().starts_with('/') {
                Vec::new()
            } else {
                vec![Write((*last).clone())]
            }
        }
        _ => Vec::new(),
    }
}

/// `tar -c -f OUT …` writes OUT; extracting writes what the archive holds.
fn tar(args: &[Word]) -> Vec<Effect> {
    // Old-style bundled first word (`tar czf out.tgz src`).
    let mut words: Vec<Word> = args.to_vec();
    if let Some(first) = words.first_mut()
        && let Some(v) = first.value.as_deref()
        && !v.starts_with('-')
        && v.chars().all(|c| c.is_ascii_alphabetic())
    {
        let dashed = format!("-{v}");
        first.value = Some(dashed);
    }
    let mut mode = None;
    let mut file = None;
    let mut i = 0;
    while i < words.len() {
        let v = words[i].str().to_string();
        if let Some(long) = v.strip_prefix("--") {
            match long.split('=').next().unwrap_or("") {
                "create" | "append" | "update" | "concatenate" => mode = Some('c'),
                "extract" | "get" => mode = Some('x'),
                "list" => mode = Some('t'),
                "file" => {
                    file = match long.split_once('=') {
                        Some((_, f)) => Some(Word::literal(f)),
                        None => words.get(i + 1).cloned(),
                    };
                }
                _ => {}
            }
        } else if v.starts_with('-') && v.len() > 1 {
            let flags: Vec<char> = v[1..].chars().collect();
            for (at, c) in flags.iter().enumerate() {
                match c {
                    'c' | 'r' | 'u' | 'A' => mode = Some('c'),
                    'x' => mode = Some('x'),
                    't' => mode = Some('t'),
                    'f' => {
                        let rest: String = flags[at + 1..].iter().collect();
                        file = if rest.is_empty() {
                            i += 1;
                            words.get(i).cloned()
                        } else {
                            Some(Word::literal(&rest))
                        };
                        break;
                    }
                    _ => {}
                }
            }
        }
        i += 1;
    }
    match mode {
        Some('t') => Vec::new(),
        Some('c') => file.map(Write).into_iter().collect(),
        _ => vec![Opaque(
            "it extracts an archive: the files it writes are in the archive".into(),
        )],
    }
}

fn curl(args: &[Word]) -> Vec<Effect> {
    let p = Parsed::new(
        args,
        &[
            "-o",
            "--output",
            "-D",
            "--dump-header",
            "-c",
            "--cookie-jar",
            "-d",
            "--data",
            "-H",
            "--header",
            "-X",
            "--request",
            "-u",
            "--user",
            "-A",
            "--user-agent",
            "-e",
            "--referer",
            "-b",
            "--cookie",
            "-F",
            "--form",
            "-m",
            "--max-time",
            "-w",
            "--write-out",
            "--data-raw",
            "--data-binary",
            "--connect-timeout",
            "-x",
            "--proxy",
            "--retry",
            "-T",
            "--upload-file",
            "--url",
        ],
    );
    let mut out = Vec::new();
    for (short, long) in [
        ("-o", "--output"),
        ("-D", "--dump-header"),
        ("-c", "--cookie-jar"),
    ] {
        if let Some(w) = p.value(Some(short), &[long]) {
            out.push(Write(w));
        }
    }
    if p.has(Some('O'), &["--remote-name", "--remote-name-all"])
        || p.has(Some('J'), &["--remote-header-name"])
    {
        out.push(Opaque(
            "`curl -O` saves under a name the server chooses".into(),
        ));
    }
    out
}

fn wget(args: &[Word]) -> Vec<Effect> {
    let p = Parsed::new(
        args,
        &[
            "-O",
            "--output-document",
            "-o",
            "--output-file",
            "-a",
            "--append-output",
            "-P",
            "--directory-prefix",
            "-t",
            "--tries",
            "-T",
            "--timeout",
            "-U",
            "--user-agent",
            "--header",
        ],
    );
    let mut out = Vec::new();
    if let Some(w) = p
        .value(Some("-o"), &["--output-file"])
        .or_else(|| p.value(Some("-a"), &["--append-output"]))
    {
        out.push(Write(w));
    }
    match p.value(Some("-O"), &["--output-document"]) {
        Some(w) => out.push(Write(w)),
        None if p.has(None, &["--spider"]) => {}
        None => out.push(Opaque(
            "wget saves under a name taken from the address".into(),
        )),
    }
    out
}

fn patch(args: &[Word]) -> Vec<Effect> {
    let p = Parsed::new(
        args,
        &[
            "-p",
            "-i",
            "--input",
            "-o",
            "--output",
            "-d",
            "--directory",
            "-r",
            "--reject-file",
            "-B",
            "-z",
            "-F",
            "-D",
        ],
    );
    if p.has(None, &["--dry-run", "--check"]) {
        return Vec::new();
    }
    if let Some(out) = p.value(Some("-o"), &["--output"]) {
        return vec![Write(out)];
    }
    match p.operands.first() {
        Some(file) => vec![Write((*file).clone())],
        None => vec![Opaque("`patch` writes the files the diff names".into())],
    }
}

/// `git`: readers, writers of named paths, and commands that rewrite the working tree.
fn git(args: &[Word]) -> Vec<Effect> {
    let mut out = Vec::new();
    let mut i = 0;
    // Global options; `-C DIR` moves where the rest runs.
    while i < args.len() && args[i].is_option() {
        let v = args[i].str();
        if v == "-C" {
            if let Some(dir) = args.get(i + 1) {
                out.push(InDir(dir.clone()));
            }
            i += 2;
        } else if v == "-c" || v == "--git-dir" || v == "--work-tree" || v == "--namespace" {
            i += 2;
        } else {
            i += 1;
        }
    }
    let Some(sub) = args.get(i) else {
        return out;
    };
    let rest = &args[i + 1..];
    let p = Parsed::new(
        rest,
        &[
            "-m",
            "--message",
            "-s",
            "--source",
            "-b",
            "-B",
            "-c",
            "--format",
            "--pretty",
            "-n",
            "--author",
            "--since",
            "--until",
            "-S",
            "-G",
            "--grep",
            "-L",
            "-U",
            "-o",
            "--output",
            "--prefix",
            "--depth",
            "-F",
            "--file",
            "--date",
            "-e",
            "--contains",
            "--merged",
            "--sort",
            "--points-at",
        ],
    );
    let git_dir = || GitState;
    let files = |out: &mut Vec<Effect>, words: &[&Word]| {
        out.extend(words.iter().map(|w| Write((*w).clone())))
    };
    let after_dashdash: Vec<&Word> = rest.iter().skip_while(|w| !w.is("--")).skip(1).collect();
    match sub.str() {
        "log" | "diff" | "show" | "status" | "blame" | "annotate" | "grep" | "rev-parse"
        | "rev-list" | "ls-files" | "ls-tree" | "ls-remote" | "cat-file" | "describe"
        | "shortlog" | "whatchanged" | "name-rev" | "merge-base" | "show-ref" | "for-each-ref"
        | "count-objects" | "version" | "help" | "check-ignore" | "check-attr" | "var"
        | "difftool" | "range-diff" | "cherry" | "show-branch" | "verify-commit" | "fsck"
        | "--version" | "--help" => {
            if let Some(w) = p
                .value(Some("-o"), &["--output"])
                .filter(|_| sub.is("diff") || sub.is("log") || sub.is("show"))
            {
                out.push(Write(w));
            }
        }
        "reflog" => {
            if p.operands
                .first()
                .is_some_and(|w| w.is("expire") || w.is("delete"))
            {
                out.push(git_dir());
            }
        }
        "branch" => {
            let listing = p.operands.is_empty()
                || p.has(
                    Some('l'),
                    &[
                        "--list",
                        "--show-current",
                        "--contains",
                        "--merged",
                        "--no-merged",
                        "--all",
                        "--remotes",
                    ],
                ) && !p.has(Some('d'), &["--delete"]);
            if !listing
                || p.has(Some('d'), &["--delete"])
                || p.has(Some('D'), &[])
                || p.has(Some('m'), &["--move"])
            {
                out.push(git_dir());
            }
        }
        "tag" => {
            if !(p.operands.is_empty()
                || p.has(Some('l'), &["--list", "--contains", "--points-at"]))
            {
                out.push(git_dir());
            }
        }
        "remote" => {
            if p.operands
                .first()
                .is_some_and(|w| !w.is("show") && !w.is("get-url"))
            {
                out.push(git_dir());
            }
        }
        "config" => {
            let reading = p.has(
                Some('l'),
                &[
                    "--list",
                    "--get",
                    "--get-all",
                    "--get-regexp",
                    "--show-origin",
                    "--show-scope",
                ],
            ) || p.operands.len() <= 1
                || p.operands
                    .first()
                    .is_some_and(|w| w.is("get") || w.is("list"));
            if !reading {
                out.push(git_dir());
            }
        }
        "stash" => match p.operands.first().map(|w| w.str()) {
            Some("list" | "show") => {}
            Some("drop" | "clear" | "store" | "create") => out.push(git_dir()),
            _ => out.push(Opaque("`git stash` rewrites the working tree".into())),
        },
        "worktree" => {
            if !p.operands.first().is_some_and(|w| w.is("list")) {
                out.push(Opaque(
                    "`git worktree` creates or removes working trees".into(),
                ));
            }
        }
        "submodule" => {
            if !p
                .operands
                .first()
                .is_some_and(|w| w.is("status") || w.is("summary") || w.is("foreach"))
            {
                out.push(Opaque("`git submodule` checks out code".into()));
            } else if p.operands.first().is_some_and(|w| w.is("foreach")) {
                out.push(Opaque(
                    "`git submodule foreach` runs a command in each submodule".into(),
                ));
            }
        }
        "add" | "commit" | "fetch" | "notes" | "gc" | "prune" | "update-index" | "update-ref"
        | "push" | "symbolic-ref" | "repack" | "init" | "maintenance" | "replace" => {
            out.push(git_dir())
        }
        "rm" | "mv" => {
            out.push(git_dir());
            if !p.has(None, &["--cached"]) {
                files(&mut out, &p.operands);
            }
        }
        "checkout" => {
            if !after_dashdash.is_empty() {
                out.push(git_dir());
                files(&mut out, &after_dashdash);
            } else if p.has(Some('b'), &[]) || p.has(Some('B'), &["--orphan"]) {
                out.push(git_dir());
            } else {
                out.push(Opaque("`git checkout` rewrites the working tree (name the files after `--` to check out only those)".into()));
            }
        }
        "restore" => {
            let staged_only = p.has(Some('S'), &["--staged"]) && !p.has(Some('W'), &["--worktree"]);
            if staged_only {
                out.push(git_dir());
            } else if p.operands.is_empty() {
                out.push(Opaque("`git restore` without paths".into()));
            } else {
                files(&mut out, &p.operands);
            }
        }
        "reset" => {
            if p.has(None, &["--hard", "--merge", "--keep"]) {
                out.push(Opaque(
                    "`git reset --hard` rewrites the working tree".into(),
                ));
            } else {
                out.push(git_dir());
            }
        }
        "clean" => {
            if !p.has(Some('n'), &["--dry-run"]) {
                out.push(Opaque("`git clean` deletes untracked files".into()));
            }
        }
        "apply" => {
            if p.has(None, &["--check", "--stat", "--numstat", "--summary"]) {
            } else if p.has(None, &["--cached", "--index"]) && p.has(None, &["--cached"]) {
                out.push(git_dir());
            } else {
                out.push(Opaque(
                    "`git apply` writes the files the patch names".into(),
                ));
            }
        }
        "archive" => {
            if let Some(w) = p.value(Some("-o"), &["--output"]) {
                out.push(Write(w));
            }
        }
        "format-patch" => out.push(Opaque(
            "`git format-patch` writes patch files named when it runs".into(),
        )),
        "clone" => match p.operands.get(1) {
            Some(dir) => out.push(Write((*dir).clone())),
            None => out.push(Opaque(
                "`git clone` creates a directory named after the repository".into(),
            )),
        },
        other => out.push(Opaque(format!(
            "`git {other}` may rewrite the working tree"
        ))),
    }
    out
}

/// Subcommand-driven tools: the listed subcommands read, anything else is unknown.
fn subcommand(args: &[Word], readers: &[&str], name: &str) -> Vec<Effect> {
    let sub = args
        .iter()
        .find(|w| !w.is_option() || w.str().starts_with("--version") || w.is("-V") || w.is("-v"));
    match sub {
        Some(s) if readers.contains(&s.str()) => Vec::new(),
        None if args.is_empty() => vec![Opaque(format!("`{name}` alone may write files"))],
        _ => vec![Opaque(format!(
            "`{name} {}` may write files",
            sub.map(|s| s.text.as_str()).unwrap_or("")
        ))],
    }
}

fn package_manager(name: &str, args: &[Word]) -> Vec<Effect> {
    let sub = args
        .iter()
        .find(|w| !w.is_option())
        .map(|w| w.str())
        .unwrap_or("");
    if args
        .first()
        .is_some_and(|w| w.is("--version") || w.is("-v"))
    {
        return Vec::new();
    }
    match sub {
        "test" | "t" | "ls" | "list" | "view" | "info" | "outdated" | "why" | "explain"
        | "help" | "search" | "bin" | "root" | "prefix" | "whoami" | "ping" | "doctor"
        | "licenses" => Vec::new(),
        "audit" if !args.iter().any(|w| w.is("fix")) => Vec::new(),
        "config" if args.iter().any(|w| w.is("get") || w.is("list")) => Vec::new(),
        "run" | "run-script" => match args
            .iter()
            .filter(|w| !w.is_option())
            .nth(1)
            .map(|w| w.str())
        {
            Some("test" | "typecheck" | "type-check" | "tsc" | "check" | "check-types") => {
                Vec::new()
            }
            Some(script) => vec![Opaque(format!(
                "`{name} run {script}` runs a package script whose writes are unknown"
            ))],
            None => Vec::new(),
        },
        "" => vec![Opaque(format!("`{name}` alone installs packages"))],
        other => vec![Opaque(format!(
            "`{name} {other}` may write files (packages, lock files, scripts)"
        ))],
    }
}

fn npx(args: &[Word]) -> Vec<Effect> {
    let mut i = 0;
    while i < args.len() && args[i].is_option() {
        i += if args[i].is("-p") || args[i].is("--package") {
            2
        } else {
            1
        };
    }
    if i >= args.len() {
        return Vec::new();
    }
    effects(&args[i..])
}

fn pip_like(name: &str, args: &[Word]) -> Vec<Effect> {
    let sub = args
        .iter()
        .find(|w| !w.is_option())
        .map(|w| w.str())
        .unwrap_or("");
    match (name, sub) {
        (_, "list" | "show" | "freeze" | "check" | "search" | "help" | "--version") => Vec::new(),
        ("uv" | "poetry" | "pipenv" | "pdm", "run") => {
            let at = args.iter().position(|w| w.is("run")).unwrap_or(0) + 1;
            let mut j = at;
            while j < args.len() && args[j].is_option() {
                j += 1;
            }
            if j >= args.len() {
                Vec::new()
            } else {
                effects(&args[j..])
            }
        }
        (_, "") if args.iter().any(|w| w.is("--version") || w.is("-V")) => Vec::new(),
        (_, other) => vec![Opaque(format!(
            "`{name} {other}` may write files (packages, lock files)"
        ))],
    }
}

fn cargo(args: &[Word]) -> Vec<Effect> {
    let sub = args
        .iter()
        .find(|w| !w.is_option() || w.is("--version") || w.is("-V"))
        .map(|w| w.str())
        .unwrap_or("");
    let p = Parsed::new(
        args,
        &[
            "-p",
            "--package",
            "--features",
            "--target",
            "--bin",
            "--test",
            "--example",
            "-j",
            "--jobs",
            "--manifest-path",
            "--target-dir",
            "--profile",
        ],
    );
    match sub {
        "build" | "b" | "check" | "c" | "test" | "t" | "doc" | "d" | "tree" | "metadata"
        | "bench" | "nextest" | "search" | "--version" | "-V" | "locate-project" | "pkgid"
        | "verify-project" | "read-manifest" | "version" | "help" | "info" | "expand"
        | "llvm-lines" | "bloat" | "audit" | "deny" | "outdated" | "udeps" => Vec::new(),
        "clippy" if !p.has(None, &["--fix"]) => Vec::new(),
        "fmt" if args.iter().any(|w| w.is("--check")) => Vec::new(),
        other => vec![Opaque(format!("`cargo {other}` may write files"))],
    }
}

fn go(args: &[Word]) -> Vec<Effect> {
    let sub = args
        .iter()
        .find(|w| !w.is_option())
        .map(|w| w.str())
        .unwrap_or("");
    let second = args
        .iter()
        .filter(|w| !w.is_option())
        .nth(1)
        .map(|w| w.str())
        .unwrap_or("");
    match (sub, second) {
        ("build", _) => {
            let p = Parsed::new(args, &["-o", "-tags", "-ldflags", "-gcflags", "-p"]);
            p.value(Some("-o"), &[]).map(Write).into_iter().collect()
        }
        ("test" | "vet" | "list" | "version" | "doc" | "help", _) => Vec::new(),
        ("env", _) if !args.iter().any(|w| w.is("-w") || w.is("-u")) => Vec::new(),
        ("mod", "graph" | "why" | "verify" | "download") => Vec::new(),
        ("tool", "pprof" | "cover" | "nm" | "objdump") => Vec::new(),
        (other, _) => vec![Opaque(format!("`go {other}` may write files"))],
    }
}

/// Formatters and fixers write the files they are given unless asked only to check.
fn formatter(name: &str, args: &[Word]) -> Vec<Effect> {
    let p = Parsed::new(
        args,
        &[
            "-l",
            "--line-length",
            "--config",
            "-c",
            "--ext",
            "--target-version",
            "--style",
            "--profile",
            "--select",
            "--ignore",
            "--exclude",
            "--extend-select",
            "--format",
            "-f",
            "--output-format",
            "--rules",
            "--ignore-path",
            "--cache-location",
            "--parser",
            "--plugin",
            "--max-warnings",
        ],
    );
    let writes = match name {
        "black" | "isort" | "rustfmt" | "pint" | "php-cs-fixer" | "phpcbf" | "shfmt" => {
            !p.has(
                None,
                &[
                    "--check",
                    "--diff",
                    "--test",
                    "--dry-run",
                    "--version",
                    "-d",
                ],
            ) && (name != "shfmt" || p.has(Some('w'), &["--write"]))
        }
        "yapf" | "autopep8" | "clang-format" => p.has(Some('i'), &["--in-place"]),
        "gofmt" | "goimports" => p.has(Some('w'), &[]),
        "prettier" | "biome" | "dprint" => {
            p.has(Some('w'), &["--write", "--apply", "--fix"])
                || p.operands
                    .first()
                    .is_some_and(|w| w.is("fmt") || w.is("format"))
                    && !p.has(None, &["--check"])
        }
        "eslint" | "stylelint" | "standard" => {
            p.has(None, &["--fix", "--fix-dry-run"]) && !p.has(None, &["--fix-dry-run"])
        }
        "ruff" => {
            let format = p.operands.first().is_some_and(|w| w.is("format"));
            (format && !p.has(None, &["--check", "--diff"]))
                || p.has(None, &["--fix", "--unsafe-fixes"])
                    && !p.has(None, &["--no-fix", "--diff"])
        }
        _ => true,
    };
    if !writes {
        return Vec::new();
    }
    let files: Vec<&Word> = p
        .operands
        .iter()
        .copied()
        .filter(|w| !matches!(w.str(), "format" | "check" | "fix" | "fmt" | "lint"))
        .collect();
    if files.is_empty() {
        return vec![Opaque(format!("`{name}` rewrites the files it finds"))];
    }
    writes_all(files)
}

/// `python manage.py SUB`: Django's read-only subcommands.
fn django(args: &[Word]) -> Vec<Effect> {
    let sub = args
        .iter()
        .find(|w| !w.is_option() && !w.str().ends_with("manage.py"))
        .map(|w| w.str())
        .unwrap_or("");
    match sub {
        "check" | "test" | "showmigrations" | "sqlmigrate" | "diffsettings" | "help"
        | "version" | "show_urls" | "inspectdb" => Vec::new(),
        "makemigrations" if args.iter().any(|w| w.is("--check") || w.is("--dry-run")) => Vec::new(),
        other => vec![Opaque(format!("`manage.py {other}` may write files"))],
    }
}

/// `php artisan SUB`: Laravel's read-only subcommands.
fn artisan(args: &[Word]) -> Vec<Effect> {
    let sub = args
        .iter()
        .find(|w| !w.is_option())
        .map(|w| w.str())
        .unwrap_or("list");
    match sub {
        "list" | "help" | "about" | "test" | "route:list" | "config:show" | "migrate:status"
        | "model:show" | "schedule:list" | "event:list" | "db:show" | "db:table" | "env"
        | "inspire" | "--version" | "-V" | "channel:list" => Vec::new(),
        other => vec![Opaque(format!(
            "`artisan {other}` may write files (generators, caches, migrations)"
        ))],
    }
}
