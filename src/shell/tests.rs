use super::*;
use serde::Deserialize;
use std::path::Path;

const ROOT: &str = "/proj";

/// Writes as the corpus spells them: relative to the project root, absolute outside it.
fn display(effects: &Effects) -> Vec<String> {
    let mut out: Vec<String> = effects
        .writes
        .iter()
        .map(|p| match p.strip_prefix(ROOT) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => rel.to_string_lossy().into_owned(),
            Err(_) => p.to_string_lossy().into_owned(),
        })
        .collect();
    if effects.git_state {
        out.push(".git".into());
    }
    out.sort();
    out.dedup();
    out
}

fn check(command: &str) -> (Vec<String>, bool) {
    let effects = analyze(command, Path::new(ROOT));
    (display(&effects), !effects.opaque.is_empty())
}

#[test]
fn readers_pass() {
    for command in [
        "rg -n 'fn main' src",
        "grep -r \">\" src",
        "rg '>>' -g '*.rs'",
        "awk '$3 > 10' data.txt",
        "git log --format='%h > %s' -n 5",
        "echo '->' | cat",
        "sed -n '1,20p' src/main.rs",
        "find . -name '*.py' | xargs wc -l",
        "ls -la 2>/dev/null",
        "cargo test 2>&1 | tail -20",
        "git --no-pager diff HEAD~1",
        "cat a.txt | sort | uniq -c | sort -rn | head",
        "[ -f composer.json ] && cat composer.json",
        "python -m pytest -q tests/test_auth.py",
        "php artisan route:list",
        "echo \"a > b\"",
        "find . -type f -newer Cargo.toml -exec grep -l foo {} +",
        "cd src && rg TODO",
    ] {
        let (writes, opaque) = check(command);
        assert!(
            writes.is_empty() && !opaque,
            "{command}: {writes:?} opaque={opaque}"
        );
    }
}

#[test]
fn writers_name_their_targets() {
    let cases: &[(&str, &[&str])] = &[
        ("sed -i 's/a/b/' src/x.py", &["src/x.py"]),
        (
            "sed -i.bak -e s/a/b/ a.txt b.txt",
            &["a.txt", "a.txt.bak", "b.txt", "b.txt.bak"],
        ),
        ("cd src && sed -i s/a/b/ x.py", &["src/x.py"]),
        (
            "cat > app/new.py <<'EOF'\nprint('hi')\nEOF",
            &["app/new.py"],
        ),
        ("echo hi >file", &["file"]),
        ("printf '%s\\n' x >> .env", &[".env"]),
        ("git diff > /tmp/p.diff", &["/tmp/p.diff"]),
        ("bash -c 'echo x > a.txt'", &["a.txt"]),
        ("(cd lib && echo hi > b) && echo c > d", &["d", "lib/b"]),
        ("mv old.py new.py", &["new.py", "old.py"]),
        ("cp -r src backup", &["backup"]),
        ("git checkout HEAD~1 -- src/a.py", &[".git", "src/a.py"]),
        ("tee -a log.txt < in.txt", &["log.txt"]),
        ("sort -o f.txt f.txt", &["f.txt"]),
        ("uniq a b", &["b"]),
        ("sed -n 'w out.txt' f", &["out.txt"]),
        ("awk '{print > \"o.txt\"}' f", &["o.txt"]),
        ("tar -czf out.tgz src", &["out.tgz"]),
        ("curl -sSo f.json https://example.invalid/x", &["f.json"]),
        ("perl -pi -e 's/a/b/' lib/A.pm", &["lib/A.pm"]),
        ("sudo -u www rm -rf storage/cache", &["storage/cache"]),
        ("timeout 5 touch x", &["x"]),
        ("env FOO=1 sed -i s/a/b/ y", &["y"]),
        ("echo $(touch made) > /dev/null", &["made"]),
        ("dd if=/dev/zero of=blob bs=1 count=1", &["blob"]),
        ("cd ../other && touch t", &["/other/t"]),
        ("git -C sub checkout -- f", &[".git", "sub/f"]),
        ("exec 3> fd.txt", &["fd.txt"]),
        ("black src/app.py", &["src/app.py"]),
    ];
    for (command, want) in cases {
        let (writes, opaque) = check(command);
        assert_eq!(writes, *want, "{command}");
        assert!(!opaque, "{command} should be fully known");
    }
}

#[test]
fn unknowable_parts_are_opaque() {
    for command in [
        "python -c \"open('a','w').write('x')\"",
        "python3 - <<'EOF'\nopen('x','w')\nEOF",
        "node -e \"require('fs').writeFileSync('a','')\"",
        "php -r 'file_put_contents(\"a\", 1);'",
        "echo x > \"$OUT\"",
        "for f in *.py; do sed -i 's/a/b/' \"$f\"; done",
        "find . -name '*.pyc' -delete",
        "find . -name '*.py' -exec sed -i 's/a/b/' {} +",
        "grep -l foo -r . | xargs sed -i 's/foo/bar/'",
        "git stash pop",
        "git reset --hard HEAD",
        "npm install",
        "make",
        "./deploy.sh",
        "eval \"$CMD\"",
        "$EDITOR file.txt",
        "sed -i s/a/b/ *.txt",
        "cd \"$DIR\" && touch x",
        "git apply fix.diff",
        "unknown-tool --flag",
    ] {
        let (_, opaque) = check(command);
        assert!(opaque, "{command} should be opaque");
    }
}

#[test]
fn a_syntax_error_is_never_read_only() {
    let effects = analyze("echo 'unterminated > x", Path::new(ROOT));
    assert!(!effects.is_read_only());
}

/// One line of `tests/fixtures/shell_commands.jsonl`.
#[derive(Deserialize)]
struct Labelled {
    command: String,
    kind: String,
    writes: Vec<String>,
}

/// The labelled corpus of real agent commands. The bar: no command that writes is judged
/// read-only, and every exactly-known write is found. The false-deny rate on read-only commands
/// is printed (`cargo test shell -- --nocapture`).
#[test]
fn labelled_corpus() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/shell_commands.jsonl");
    let text = std::fs::read_to_string(&path).expect("the shell command corpus");
    let mut read_total = 0;
    let mut false_denies = Vec::new();
    let mut missed = Vec::new();
    let mut wrong_targets = Vec::new();
    let mut count = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Labelled = serde_json::from_str(line).expect("corpus line");
        count += 1;
        let effects = analyze(&case.command, Path::new(ROOT));
        let found = display(&effects);
        match case.kind.as_str() {
            "read" => {
                read_total += 1;
                if !effects.is_read_only() {
                    false_denies.push(format!(
                        "{} -> {found:?} {:?}",
                        case.command, effects.opaque
                    ));
                }
            }
            "write" | "opaque" => {
                if effects.is_read_only() {
                    missed.push(case.command.clone());
                } else if case.kind == "write" {
                    let missing: Vec<&String> =
                        case.writes.iter().filter(|w| !found.contains(w)).collect();
                    if !missing.is_empty() && effects.opaque.is_empty() {
                        wrong_targets.push(format!(
                            "{} -> {found:?}, missing {missing:?}",
                            case.command
                        ));
                    }
                }
            }
            other => panic!("unknown kind {other}"),
        }
    }
    assert!(count >= 300, "the corpus has {count} commands");
    println!(
        "shell corpus: {count} commands; false denies on read-only commands: {}/{read_total} ({:.1}%)",
        false_denies.len(),
        100.0 * false_denies.len() as f64 / read_total.max(1) as f64
    );
    for d in &false_denies {
        println!("  false deny: {d}");
    }
    assert!(missed.is_empty(), "writes judged read-only: {missed:#?}");
    assert!(
        wrong_targets.is_empty(),
        "write targets missed: {wrong_targets:#?}"
    );
}
