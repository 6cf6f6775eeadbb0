//! The command line: clap arguments turned into the same library calls the MCP server makes.

mod chunks;
mod config;
mod eval_relevance;
mod integration;
mod model;
mod semantic;

use crate::tools::{Context, TOOLS, dispatch};
use clap::{Parser, Subcommand};
use std::io::Write;
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "code-intel",
    version,
    about = "Code intelligence for coding agents: an MCP server over stdio, and the same tools from the shell.",
    long_about = long_about()
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

impl Cli {
    /// Whether the command may start background work (a sync, the embedding worker, the
    /// model's warm-up), and so needs the pools a lowered thread must not start
    /// (`crate::background::init`). The hook, which runs on every edit and shell command of
    /// the agent, and the other quick commands start none of those threads.
    pub fn starts_background_work(&self) -> bool {
        !matches!(
            self.command,
            Command::Tools | Command::Init(_) | Command::Config(_) | Command::Hook { .. }
        )
    }
}

/// The long help, with the languages as the registry lists them.
fn long_about() -> String {
    let names: Vec<&str> = crate::lang::LANGUAGES.iter().map(|l| l.name).collect();
    format!(
        "code-intel gives coding agents (Claude Code or any MCP client) a real understanding of the \
codebase they work in: text search with ripgrep's engine, file search, definitions, references, \
symbols, structure and function-at-line for {}.\n\n\
Add it to a project's .mcp.json as {{\"command\": \"code-intel\", \"args\": [\"serve\"]}}, or call any \
tool from the shell:\n\n  code-intel call find_definitions '{{\"symbol\": \"AuthService\"}}' --root \
path/to/project\n  code-intel tools",
        names.join(", ")
    )
}

#[derive(Subcommand)]
enum Command {
    /// Run the MCP server over stdio (what an MCP client spawns). Logs go to stderr.
    Serve {
        /// Project root (default: the current directory).
        #[arg(long)]
        root: Option<PathBuf>,
    },
    /// Run one tool and print its JSON result (exit 0) or its error object (exit 1).
    Call {
        /// Tool name; `code-intel tools` lists them.
        tool: String,
        /// Arguments as a JSON object, e.g. '{"symbol": "AuthService"}' (default: {}).
        args: Option<String>,
        /// Project root (default: the current directory).
        #[arg(long)]
        root: Option<PathBuf>,
        /// Pretty-print the JSON.
        #[arg(long)]
        pretty: bool,
    },
    /// List the tools with their descriptions.
    Tools,
    /// Set a project up for Claude Code: .mcp.json entry, /code command, PreToolUse write-gate hook,
    /// .code-intel/config.json defaults. Idempotent; never overwrites the user's own settings.
    Init(integration::InitArgs),
    /// Show the effective configuration (.code-intel/config.json): every value with where it
    /// came from (default, file, environment) and every problem in the file; exit 1 when there
    /// are problems. `code-intel config schema` prints the file's JSON Schema.
    Config(config::ConfigArgs),
    /// Hooks Claude Code runs (registered by `init`).
    Hook {
        #[command(subcommand)]
        event: integration::HookEvent,
    },
    /// Show the chunks (units for embedding) the chunker makes of a file or directory.
    Chunks(chunks::ChunksArgs),
    /// Install, check or measure the embedding model (multilingual-e5-small).
    Model {
        #[command(subcommand)]
        action: model::ModelCommand,
    },
    /// Build or update the semantic index (chunks, full-text index, embeddings) with a
    /// progress bar; waits until every chunk is embedded.
    Index {
        /// Project root (default: the current directory).
        #[arg(long)]
        root: Option<PathBuf>,
        /// Print the summary as one JSON object (files, chunks, embedded, added, modified,
        /// deleted, seconds).
        #[arg(long)]
        json: bool,
        /// Re-index everything instead of only what changed.
        #[arg(long)]
        force: bool,
        /// Then offer every vector to the team's cache (`embedding_cache_uri`): what a CI job
        /// runs on the default branch. Only what the cache lacks is written.
        #[arg(long)]
        publish: bool,
    },
    /// Search the code by meaning (English or Japanese), best file first.
    Search {
        /// What you are looking for.
        query: String,
        /// Project root (default: the current directory).
        #[arg(long)]
        root: Option<PathBuf>,
        /// Number of results.
        #[arg(long, default_value_t = 10)]
        top: usize,
        /// One JSON object per line: path, start_line, end_line, symbol, score.
        #[arg(long)]
        json: bool,
    },
    /// How well the relevance judge separates labelled request-term → symbol pairs on real
    /// repositories: accuracy of the 3-tier verdict, AUC, unrelated pairs at FACT, relevant
    /// pairs kept, per split, term language, repository and class; and the judge's latency.
    EvalRelevance(eval_relevance::EvalRelevanceArgs),
    /// Retrieval evaluation: NDCG@10 and Recall@5 of lexical, vector and hybrid search over a
    /// queries file (JSON lines: root, query, lang, relevant).
    #[command(hide = true)]
    Eval {
        /// The queries file (e.g. tests/eval/queries.jsonl).
        queries: PathBuf,
        /// Modes to compare, comma-separated.
        #[arg(long, default_value = "lexical,vector,hybrid")]
        modes: String,
        /// Rank fusion: rrf or weighted.
        #[arg(long, default_value = "rrf")]
        fusion: String,
        /// Print every query's ranking on stderr.
        #[arg(long)]
        verbose: bool,
        #[arg(long)]
        json: bool,
    },
}

/// Runs the command line; returns the process exit code.
pub fn run(cli: Cli) -> anyhow::Result<i32> {
    match cli.command {
        Command::Serve { root } => {
            let ctx = Context::open(&root_or_cwd(root)?)?;
            ctx.watch_changes();
            // The model warms up in the background while the server answers; calls
            // that need it before it is ready answer from lexical and symbol signals.
            // CODE_INTEL_NO_WARMUP=1 leaves it to load on first need (short-lived test servers).
            if std::env::var_os("CODE_INTEL_NO_WARMUP").is_none() {
                ctx.embedder.start();
            }
            // One thread for the protocol: tools run on the blocking pool, and every hop
            // between runtime workers was a thread wake-up inside each call's latency.
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            runtime.block_on(crate::mcp::Server::new(ctx).serve_stdio())?;
            Ok(0)
        }
        Command::Call {
            tool,
            args,
            root,
            pretty,
        } => {
            let ctx = Context::open(&root_or_cwd(root)?)?;
            // stdout is the result alone; the configuration's problems go to stderr.
            if let Some(warning) = ctx.ws.config_report.warning() {
                eprintln!("warning: {warning}");
            }
            let args = match args.as_deref().map(str::trim) {
                None | Some("") => serde_json::Value::Null,
                Some(text) => match serde_json::from_str(text) {
                    Ok(value) => value,
                    Err(err) => {
                        let error = crate::error::ToolError::invalid_parameter(format!(
                            "arguments are not valid JSON: {err}"
                        ));
                        print_json(&error.to_json(), pretty)?;
                        return Ok(1);
                    }
                },
            };
            // A server has loaded the model long before the first search; a one-shot process
            // would answer lexically before it loads, so it waits a moment (as `search` does).
            if tool == "semantic_search" {
                ctx.semantic
                    .wait_for_model(std::time::Duration::from_secs(30));
            }
            let code = match dispatch(&ctx, &tool, args) {
                Ok(value) => {
                    print_json(&value, pretty)?;
                    0
                }
                Err(err) => {
                    print_json(&err.to_json(), pretty)?;
                    1
                }
            };
            // The process ends right after this; freeing a large index first only costs time
            // (a fifth of a warm call on a big repository).
            std::mem::forget(ctx);
            Ok(code)
        }
        Command::Model { action } => model::run(action),
        Command::Chunks(args) => chunks::run(args),
        Command::Init(args) => integration::run_init(args),
        Command::Config(args) => config::run(args),
        Command::Hook { event } => integration::run_hook(event),
        Command::Index {
            root,
            json,
            force,
            publish,
        } => {
            let ctx = Context::open(&root_or_cwd(root)?)?;
            semantic::index(&ctx, force, json, publish)
        }
        Command::Search {
            query,
            root,
            top,
            json,
        } => {
            let ctx = Context::open(&root_or_cwd(root)?)?;
            semantic::search_cmd(&ctx, &query, top, json)
        }
        Command::Eval {
            queries,
            modes,
            fusion,
            verbose,
            json,
        } => {
            let modes = modes
                .split(',')
                .map(|m| serde_json::from_value(serde_json::Value::String(m.trim().into())))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|_| anyhow::anyhow!("modes are lexical, vector, hybrid"))?;
            let fusion = match fusion.as_str() {
                "rrf" => crate::search::hybrid::Fusion::Rrf,
                "weighted" => crate::search::hybrid::Fusion::Weighted,
                other => anyhow::bail!("unknown fusion {other} (rrf or weighted)"),
            };
            semantic::eval(&queries, &modes, fusion, verbose, json)
        }
        Command::EvalRelevance(args) => eval_relevance::run(args),
        Command::Tools => {
            let mut out = std::io::stdout().lock();
            for tool in TOOLS {
                writeln!(
                    out,
                    "{:<22} {}",
                    tool.name,
                    tool.description.split(". ").next().unwrap_or("")
                )?;
            }
            Ok(0)
        }
    }
}

fn root_or_cwd(root: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    Ok(match root {
        Some(root) => root,
        None => std::env::current_dir()?,
    })
}

fn print_json(value: &serde_json::Value, pretty: bool) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    if pretty {
        serde_json::to_writer_pretty(&mut out, value)?;
    } else {
        serde_json::to_writer(&mut out, value)?;
    }
    writeln!(out)?;
    Ok(())
}
