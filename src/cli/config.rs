//! `code-intel config`: the effective configuration of a project, where each value came from,
//! and every problem found in its file; `code-intel config schema` prints the JSON Schema.

use crate::config::{self, Origin};
use clap::{Args, Subcommand};
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args)]
pub struct ConfigArgs {
    #[command(subcommand)]
    action: Option<ConfigAction>,
    /// Project root (default: the current directory).
    #[arg(long)]
    root: Option<PathBuf>,
    /// Print one JSON object: file, entries (key, value, origin), problems (path, message).
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
enum ConfigAction {
    /// Print the JSON Schema of .code-intel/config.json (for editors: validation and completion).
    Schema,
}

/// Exit 0 when the file has no problem (or there is no file), 1 when it has some, so scripts
/// and CI can check a configuration.
pub fn run(args: ConfigArgs) -> anyhow::Result<i32> {
    let mut out = std::io::stdout().lock();
    if let Some(ConfigAction::Schema) = args.action {
        serde_json::to_writer_pretty(&mut out, &config::schema())?;
        writeln!(out)?;
        return Ok(0);
    }
    let root = match args.root {
        Some(root) => root,
        None => std::env::current_dir()?,
    };
    let root = root
        .canonicalize()
        .map_err(|e| anyhow::anyhow!("cannot open {}: {e}", root.display()))?;
    let (_, report) = config::load(&root);
    let entries = report.entries();
    if args.json {
        let value = json!({
            "file": report.file,
            "exists": report.file.exists(),
            "entries": entries,
            "problems": report.problems,
        });
        serde_json::to_writer_pretty(&mut out, &value)?;
        writeln!(out)?;
    } else {
        let state = if report.file.exists() {
            ""
        } else {
            " (no file: every value is a default)"
        };
        writeln!(out, "{}{state}", report.file.display())?;
        let width = entries.iter().map(|e| e.key.len()).max().unwrap_or(0);
        for entry in &entries {
            let origin = match (entry.origin, entry.variable) {
                (Origin::Environment, Some(var)) => format!("environment ({var})"),
                (Origin::Environment, None) => "environment".into(),
                (Origin::File, _) => "file".into(),
                (Origin::Default, _) => "default".into(),
            };
            writeln!(
                out,
                "  {:<width$}  {}  [{origin}]",
                entry.key,
                serde_json::to_string(&entry.value)?
            )?;
        }
        if report.problems.is_empty() {
            writeln!(out, "no problems")?;
        } else {
            writeln!(
                out,
                "{} problem(s); every other entry applies:",
                report.problems.len()
            )?;
            for problem in &report.problems {
                writeln!(out, "  {}: {}", problem.path, problem.message)?;
            }
        }
    }
    Ok(if report.problems.is_empty() { 0 } else { 1 })
}
