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
    /// The command Claude Code runs for the server and the hooks (default: `code-intel` when
    /// that is this binary on PATH, else this binary's absolute path).
    #[arg(long)]
    command: Option<String>,
    /// Write a Claude Code plugin into DIR instead (server, hooks and /code command for every
    /// repository a team opens), leaving the project alone.
    #[arg(long, value_name = "DIR")]
    plugin: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
pub enum HookEvent {
    /// Claude Code PreToolUse hook for Edit|Write|MultiEdit|NotebookEdit|Bash: reads the hook
    /// JSON on stdin; exit 2 with the reason on stderr when the session's write gate denies the
    /// edit or the shell command.
    PreToolUse {
        /// Answer with the JSON `permissionDecision: "deny"` form on stdout (exit 0) instead.
        #[arg(long)]
        json: bool,
    },
    /// Claude Code Stop hook: once per finished session that edited files without an outcome,
    /// asks the agent to call record_outcome (`{"decision": "block", "reason": …}` on stdout).
    Stop,
}

pub fn run_init(args: InitArgs) -> anyhow::Result<i32> {
    let root = match args.root {
        Some(root) => root,
        None => std::env::current_dir()?,
    };
    let (command, note) = match args.command {
        Some(command) => (command, None),
        None => init::command_path(),
    };
    let report = match &args.plugin {
        Some(dir) => init::plugin(dir, &command)?,
        None => init::init(&root, &command)?,
    };
    if let Some(note) = note {
        eprintln!("code-intel init: note: {note}");
    }
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
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input)?;
    let (code, stdout, stderr) = match event {
        HookEvent::PreToolUse { json } => hook::run(&input, json),
        HookEvent::Stop => hook::run_stop(&input),
    };
    std::io::stdout().write_all(stdout.as_bytes())?;
    std::io::stderr().write_all(stderr.as_bytes())?;
    Ok(code)
}
