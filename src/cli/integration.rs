//! `code-intel init` and `code-intel hook`: the Claude Code integration's command line.

use crate::integration::{hook, init};
use clap::{Args, Subcommand};
use std::io::{Read, Write};
use std::path::PathBuf;

#[derive(Args)]
pub struct InitArgs {
    /// Project root (default: the current directory).
    #[arg(long)]
    root: Option<PathBuf>,
    /// The command Claude Code runs for the server and the hook (default: this binary's path).
    #[arg(long)]
    command: Option<String>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
pub enum HookEvent {
    /// Claude Code PreToolUse hook for Edit|Write|MultiEdit|NotebookEdit: reads the hook JSON on
    /// stdin; exit 2 with the reason on stderr when the session's write gate denies the edit.
    PreToolUse {
        /// Answer with the JSON `permissionDecision: "deny"` form on stdout (exit 0) instead.
        #[arg(long)]
        json: bool,
    },
}

pub fn run_init(args: InitArgs) -> anyhow::Result<i32> {
    let root = match args.root {
        Some(root) => root,
        None => std::env::current_dir()?,
    };
    let command = args.command.unwrap_or_else(init::command_path);
    let report = init::init(&root, &command)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        writeln!(out, "code-intel init: {}", report.root)?;
        for f in &report.files {
            let action = serde_json::to_value(&f.action)?;
            write!(out, "  {:<10} {}", action.as_str().unwrap_or(""), f.file)?;
            if let Some(note) = &f.note {
                write!(out, " ({note})")?;
            }
            writeln!(out)?;
        }
    }
    Ok(0)
}

pub fn run_hook(event: HookEvent) -> anyhow::Result<i32> {
    let HookEvent::PreToolUse { json } = event;
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input)?;
    let (code, stdout, stderr) = hook::run(&input, json);
    std::io::stdout().write_all(stdout.as_bytes())?;
    std::io::stderr().write_all(stderr.as_bytes())?;
    Ok(code)
}
