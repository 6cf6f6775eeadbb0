//! The `code-intel` binary: the only place errors become exit codes. stdout belongs to the
//! protocol (MCP) or to JSON results (`call`); logs always go to stderr.

use clap::Parser;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    code_intel::allocator::without_huge_pages();
    code_intel::allocator::use_for_tree_sitter();
    code_intel::store::configure_process();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("CODE_INTEL_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .init();
    let cli = code_intel::cli::Cli::parse();
    if cli.starts_background_work() {
        // Before any thread is lowered (and after the environment is set): `background::init`.
        code_intel::background::init();
        code_intel::store::start_pools();
    }
    match code_intel::cli::run(cli) {
        Ok(code) => std::process::exit(code),
        Err(err) => {
            // The store's errors carry the source location of the library that raised them:
            // noise to a user, and a compiler path.
            let message = code_intel::error::without_source_locations(&format!("{err:#}"));
            eprintln!("code-intel: {message}");
            std::process::exit(2);
        }
    }
}
