//! Field-by-field checks of outlines, one test per language family.

use super::*;
use crate::lang::by_id;

fn outline(lang: &str, text: &str) -> FileOutline {
    outline_source(by_id(lang).unwrap(), text)
}

#[test]
fn dump_samples() {
    for (lang, path) in [("typescript", "/tmp/s1.ts"), ("javascript", "/tmp/s2.js"), ("python", "/tmp/s3.py"), ("php", "/tmp/s4.php"), ("go", "/tmp/s5.go"), ("java", "/tmp/s6.java"), ("rust", "/tmp/s7.rs")] {
        let text = std::fs::read_to_string(path).unwrap();
        let o = outline(lang, &text);
        println!("=== {path}\n{}\n{}", serde_json::to_string(&o).unwrap(), summarize(&o, path));
    }
}
