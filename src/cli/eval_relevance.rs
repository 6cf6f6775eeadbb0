//! `code-intel eval-relevance FILE`: how well the relevance judge separates labelled
//! request-term → symbol pairs on real repositories (`tests/eval/relevance/pairs.jsonl`).
//!
//! Each pair's symbol is found in its repository's symbol index as the session tools find it
//! (`session::lookup::find_symbol`, narrowed to the pair's file as `submit_understanding`
//! narrows a name defined twice to the files the agent read), and scored by the same judge
//! with the same project background. A pair is counted right when a relevant symbol is kept (score ≥ 0.3: FACT or
//! gray) and an unrelated one rejected (< 0.3); unrelated pairs above 0.6 (FACT) are reported on
//! their own, being the costliest error. The split of each repository (`dev` / `heldout`) comes
//! from `repos.json` next to the pairs file.

use crate::index::semantic::Target;
use crate::judge::{self, Candidate, FEATURE_NAMES, Judge, Mode};
use crate::relevance::embedded::EmbedRelevance;
use crate::relevance::{FACT_THRESHOLD, REJECT_THRESHOLD};
use crate::session::lookup;
use anyhow::{Context as _, bail};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(clap::Args)]
pub struct EvalRelevanceArgs {
    /// The labelled pairs (JSON lines: repo, term, term_lang, symbol, relevant, class).
    pub file: PathBuf,
    /// Which repositories' pairs to score: dev, heldout or all.
    #[arg(long, default_value = "all")]
    pub split: String,
    /// Where the repositories are checked out (`<DIR>/<repo>`; default $RELEVANCE_REPOS or
    /// /tmp/relevance-repos).
    #[arg(long)]
    pub repos: Option<PathBuf>,
    /// Score with the described dense signal alone (the judge before code evidence and the
    /// project background), whatever the session tools use.
    #[arg(long, conflicts_with = "fitted")]
    pub description_only: bool,
    /// Score with the fitted combination of every signal (code evidence, project background,
    /// lexical bridges), whatever the session tools use.
    #[arg(long)]
    pub fitted: bool,
    /// Write every pair's signals, score and definition shape (kind, lines, doc, callers, its file
    /// and first line, the texts the model reads) as JSON lines to this file (for fitting the
    /// judge on the dev split, and trying new signals that read the checkout).
    #[arg(long)]
    pub features: Option<PathBuf>,
    /// Which field the judge reads: `meaning` (the index embedded), `words` (the project's
    /// words alone: BM25, definitions, paths, as while the index is being embedded) or `none`
    /// (as before the project's first sync).
    #[arg(long, value_enum, default_value_t = FieldKind::Meaning)]
    pub field: FieldKind,
    /// Print the report as one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// The states of a project's index the judge can be measured in (`--field`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FieldKind {
    Meaning,
    Words,
    None,
}

#[derive(Debug, Deserialize)]
struct Pair {
    repo: String,
    term: String,
    term_lang: String,
    symbol: String,
    /// The file of the definition the label is about: an agent names the files it read, and
    /// the session judges a name defined twice by the definition in those files.
    #[serde(default)]
    file: Option<String>,
    relevant: bool,
    class: String,
}

#[derive(Debug, Deserialize)]
struct Manifest {
    repos: Vec<RepoEntry>,
}

#[derive(Debug, Deserialize)]
struct RepoEntry {
    name: String,
    split: String,
}

/// One scored pair.
struct Scored {
    score: f32,
    relevant: bool,
    /// `repo/term`: the pairs of one request term.
    term: String,
    keys: Vec<String>,
}

/// Figures of one group of pairs.
#[derive(Debug, Serialize)]
pub struct Figures {
    pub pairs: usize,
    pub relevant: usize,
    /// Share of pairs on the right side of 0.3.
    pub accuracy: f64,
    /// Probability that a relevant pair outscores an unrelated one (ties count half).
    pub auc: Option<f64>,
    /// Unrelated pairs scored above 0.6.
    pub unrelated_at_fact: usize,
    /// Share of relevant pairs scored ≥ 0.3 (kept: FACT or gray).
    pub relevant_kept: Option<f64>,
    /// Share of relevant pairs scored above 0.6.
    pub relevant_fact: Option<f64>,
    /// Share of unrelated pairs scored below 0.3.
    pub unrelated_rejected: Option<f64>,
    /// Share of the terms with a relevant pair whose best relevant pair is above 0.6: an
    /// exploration that found the term's code goes to READY without a detour.
    pub terms_at_fact: Option<f64>,
}

fn figures(scored: &[&Scored]) -> Figures {
    let rel: Vec<f32> = scored
        .iter()
        .filter(|s| s.relevant)
        .map(|s| s.score)
        .collect();
    let unrel: Vec<f32> = scored
        .iter()
        .filter(|s| !s.relevant)
        .map(|s| s.score)
        .collect();
    let right = rel.iter().filter(|s| **s >= REJECT_THRESHOLD).count()
        + unrel.iter().filter(|s| **s < REJECT_THRESHOLD).count();
    let share = |n: usize, d: usize| (d > 0).then(|| n as f64 / d as f64);
    let auc = (!rel.is_empty() && !unrel.is_empty()).then(|| {
        let mut wins = 0.0;
        for r in &rel {
            for u in &unrel {
                wins += if r > u {
                    1.0
                } else if r == u {
                    0.5
                } else {
                    0.0
                };
            }
        }
        wins / (rel.len() * unrel.len()) as f64
    });
    let mut best: BTreeMap<&str, f32> = BTreeMap::new();
    for s in scored.iter().filter(|s| s.relevant) {
        let b = best.entry(s.term.as_str()).or_insert(0.0);
        *b = b.max(s.score);
    }
    Figures {
        terms_at_fact: share(
            best.values().filter(|s| **s > FACT_THRESHOLD).count(),
            best.len(),
        ),
        pairs: scored.len(),
        relevant: rel.len(),
        accuracy: share(right, scored.len()).unwrap_or(0.0),
        auc,
        unrelated_at_fact: unrel.iter().filter(|s| **s > FACT_THRESHOLD).count(),
        relevant_kept: share(
            rel.iter().filter(|s| **s >= REJECT_THRESHOLD).count(),
            rel.len(),
        ),
        relevant_fact: share(
            rel.iter().filter(|s| **s > FACT_THRESHOLD).count(),
            rel.len(),
        ),
        unrelated_rejected: share(
            unrel.iter().filter(|s| **s < REJECT_THRESHOLD).count(),
            unrel.len(),
        ),
    }
}

#[derive(Debug, Serialize)]
struct Report {
    judge: String,
    /// Whether this is the mode the session tools use.
    session_mode: bool,
    /// Figures by group: `all`, `split=…`, `lang=…`, `split/lang=…`, `repo=…`, `class=…`.
    groups: BTreeMap<String, Figures>,
    /// Pairs whose symbol the index does not know (scored 0).
    unresolved: Vec<String>,
    /// Each repository's index as the judge read it: which state was measured (`--field words`
    /// and `none` leave every chunk unembedded), and how long opening it took.
    indexes: BTreeMap<String, IndexState>,
    /// What a verdict on 10 symbols costs (none when no repository has enough terms).
    #[serde(flatten)]
    latency: Option<Latency>,
}

/// A repository's index when its pairs were scored.
#[derive(Debug, Serialize)]
struct IndexState {
    chunks: usize,
    embedded: usize,
    /// Seconds to open the repository: sync, symbols and bridges (a fresh checkout's indexing).
    open_seconds: f64,
}

/// The labelled pairs and the split of each repository they name.
struct Labelled {
    pairs: Vec<Pair>,
    split_of: BTreeMap<String, String>,
}

impl Labelled {
    /// Reads `file` and the `repos.json` beside it; every pair's repository must be listed.
    fn load(file: &Path) -> anyhow::Result<Labelled> {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let pairs: Vec<Pair> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .enumerate()
            .map(|(i, l)| {
                serde_json::from_str(l)
                    .with_context(|| format!("{} line {}", file.display(), i + 1))
            })
            .collect::<anyhow::Result<_>>()?;
        let manifest_path = file.with_file_name("repos.json");
        let manifest: Manifest =
            serde_json::from_str(&std::fs::read_to_string(&manifest_path).with_context(|| {
                format!(
                    "cannot read {} (the repositories' splits)",
                    manifest_path.display()
                )
            })?)
            .with_context(|| format!("{} is not a repos manifest", manifest_path.display()))?;
        let split_of: BTreeMap<String, String> = manifest
            .repos
            .into_iter()
            .map(|r| (r.name, r.split))
            .collect();
        if let Some(p) = pairs.iter().find(|p| !split_of.contains_key(&p.repo)) {
            bail!(
                "repository {} is not in {}",
                p.repo,
                manifest_path.display()
            );
        }
        Ok(Labelled { pairs, split_of })
    }

    /// The pairs of `split` (`all` for every one), by repository.
    fn by_repo(&self, split: &str) -> BTreeMap<&str, Vec<&Pair>> {
        let mut by_repo: BTreeMap<&str, Vec<&Pair>> = BTreeMap::new();
        for p in &self.pairs {
            if split == "all" || split == self.split_of[&p.repo] {
                by_repo.entry(p.repo.as_str()).or_default().push(p);
            }
        }
        by_repo
    }
}

/// Scores one repository's pairs with `judge`, appending to `scored` (and the signals to
/// `features`, when asked); pairs whose symbol the index does not know go to `unresolved`.
fn score_repo(
    project: &Project,
    judge: &Judge,
    pairs: &[&Pair],
    labelled: &Labelled,
    features: Option<&mut dyn Write>,
    scored: &mut Vec<Scored>,
    unresolved: &mut Vec<String>,
) -> anyhow::Result<()> {
    let mut features = features;
    // As one long tool call: one background for the repository, one search per term.
    let judged = judge::CallCache::default();
    for p in pairs {
        let candidates = project.candidates(&p.symbol, p.file.as_deref(), &judged);
        if candidates.is_empty() {
            unresolved.push(format!("{}: {}", p.repo, p.symbol));
        }
        let grounds = judged.grounds(project.judged(), &p.term);
        let ground = grounds.ground();
        let verdict = judge.verdict(&p.term, &candidates, ground)?;
        let split = &labelled.split_of[&p.repo];
        if let Some(out) = features.as_mut() {
            let signals = judge.signals(&p.term, &candidates, ground)?;
            let best_at = (0..signals.len())
                .max_by(|&a, &b| signals[a].combine().total_cmp(&signals[b].combine()));
            let best = best_at.map(|i| &signals[i]);
            // What the definition is, for trying new signals on dev before they join the fit.
            let shape = best_at.map(|i| {
                let c = &candidates[i];
                serde_json::json!({
                    "kind": c.context.kind, "lines": c.code.lines().count(),
                    "doc": c.context.doc.is_some(), "members": c.context.members.len(),
                    "callers": c.callers.len(), "siblings": c.siblings.len(),
                    "file": c.context.file, "line": c.line, "scope": c.context.scope,
                    "text": c.context.text(), "evidence": c.evidence_text(),
                })
            });
            let line = serde_json::json!({
                "repo": p.repo, "split": split, "term": p.term,
                "term_lang": p.term_lang, "symbol": p.symbol, "class": p.class,
                "relevant": p.relevant, "score": verdict.score,
                "features": best.map(|s| s.features().to_vec()),
                "feature_names": FEATURE_NAMES,
                "reversed": best.is_some_and(|s| s.reversed),
                "outscored_by": verdict.outscored_by,
                "leader_best": judge
                    .best_other_leader(&p.term, &candidates, ground)?
                    .map(|(score, _)| score),
                // The words the fit weighs by their odds ([`judge::Signals::stray`]), which
                // `fit_judge.py` reads afresh for each fold.
                "stray": best.map(|s| &s.stray),
                "missing": best.map(|s| &s.missing),
                "shape": shape,
                // How the term was read: its lexical keys (each the forms that count as the
                // word present) and its English rendering, for auditing the bridges on dev.
                "keys": ground.keys.map(|k| &k.keys),
                "rendering": ground.keys.and_then(|k| {
                    crate::search::glossary::render_outside(&p.term, &k.loanwords, &k.covered)
                }),
            });
            writeln!(out, "{line}")?;
        }
        scored.push(Scored {
            score: verdict.score,
            relevant: p.relevant,
            term: format!("{}/{}", p.repo, p.term),
            keys: vec![
                "all".into(),
                format!("split={split}"),
                format!("lang={}", p.term_lang),
                format!("split/lang={split}/{}", p.term_lang),
                format!("repo={}", p.repo),
                format!("class={}", p.class),
            ],
        });
    }
    Ok(())
}

/// The figures of every group key the scored pairs carry.
fn groups(scored: &[Scored]) -> BTreeMap<String, Figures> {
    let mut keys: Vec<&String> = scored.iter().flat_map(|s| &s.keys).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .map(|k| {
            let members: Vec<&Scored> = scored.iter().filter(|s| s.keys.contains(k)).collect();
            (k.clone(), figures(&members))
        })
        .collect()
}

pub fn run(args: EvalRelevanceArgs) -> anyhow::Result<i32> {
    if !["dev", "heldout", "all"].contains(&args.split.as_str()) {
        bail!("--split is dev, heldout or all, not {}", args.split);
    }
    let labelled = Labelled::load(&args.file)?;
    let by_repo = labelled.by_repo(&args.split);
    if by_repo.is_empty() {
        bail!("no pair of split {} in {}", args.split, args.file.display());
    }
    let repos_dir = args
        .repos
        .clone()
        .or_else(|| std::env::var_os("RELEVANCE_REPOS").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("/tmp/relevance-repos"));
    // By default the judge exactly as the session tools run it.
    let mode = if args.description_only {
        Mode::DescriptionOnly
    } else if args.fitted {
        Mode::Fitted
    } else {
        judge::SESSION_MODE
    };
    let mut features_out = match &args.features {
        Some(path) => Some(std::io::BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot write {}", path.display()))?,
        )),
        None => None,
    };
    let mut scored: Vec<Scored> = Vec::new();
    let mut unresolved = Vec::new();
    let mut latency = None;
    let mut indexes = BTreeMap::new();
    for (repo, repo_pairs) in &by_repo {
        let root = repos_dir.join(repo);
        if !root.is_dir() {
            bail!(
                "{} is missing: check the repositories out with tests/eval/relevance/fetch_repos.sh",
                root.display()
            );
        }
        let project = Project::open(&root, args.field)?;
        let relevance = EmbedRelevance::new(project.ctx.embedder.clone())
            .with_wait(std::time::Duration::from_secs(120));
        let judge = Judge::new(&relevance).with_mode(mode);
        let started = Instant::now();
        score_repo(
            &project,
            &judge,
            repo_pairs,
            &labelled,
            features_out.as_mut().map(|w| w as &mut dyn Write),
            &mut scored,
            &mut unresolved,
        )?;
        if !args.json {
            eprintln!(
                "{repo}: {} pairs in {:.1}s (index of {} chunks, {} embedded, opened in {:.1}s)",
                repo_pairs.len(),
                started.elapsed().as_secs_f64(),
                project.index.chunks,
                project.index.embedded,
                project.index.open_seconds
            );
        }
        if latency.is_none() {
            latency = measure_latency(&project, &judge, repo_pairs)?;
        }
        indexes.insert(repo.to_string(), project.index);
    }
    if let Some(mut out) = features_out {
        out.flush()?;
    }
    let groups = groups(&scored);
    let report = Report {
        judge: match mode {
            Mode::Fitted => {
                "fitted combination (code evidence, project field and background, lexical bridges)"
                    .into()
            }
            Mode::DescriptionOnly => "described dense score".into(),
            Mode::Agreed => {
                "described dense score and fitted combination in agreement (a fact needs both, the fitted rejection rejects)".into()
            }
        },
        session_mode: mode == judge::SESSION_MODE,
        groups,
        unresolved,
        indexes,
        latency,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&report)?;
    }
    Ok(0)
}

/// One repository opened as the server opens it: the tools' context (workspace, symbol index,
/// semantic index, search cache), its index synced (and embedded, for the field by meaning), a
/// fresh symbol snapshot.
struct Project {
    ctx: crate::tools::Context,
    snapshot: std::sync::Arc<crate::index::Snapshot>,
    /// The field the judge reads (`--field`).
    field: FieldKind,
    /// Its index once opened, for the report.
    index: IndexState,
}

impl Project {
    fn open(root: &Path, field: FieldKind) -> anyhow::Result<Project> {
        let opening = Instant::now();
        let ctx = crate::tools::Context::open(root)?;
        ctx.semantic
            .wait_for_model(std::time::Duration::from_secs(120));
        // The field by meaning needs every chunk embedded: sync as `code-intel index` does
        // (nothing to do when the repository was indexed before). The field of words and no
        // field read no chunk's vector, so their index stays as the first sync leaves it: a
        // fresh checkout is measured in seconds instead of the minutes its embedding takes.
        match field {
            FieldKind::Meaning => ctx
                .semantic
                .sync(&ctx.ws, &ctx.symbols, Target::All, false, None, &|_| {})
                .map(drop),
            FieldKind::Words | FieldKind::None => ctx
                .semantic
                .sync_stored(&ctx.ws, &ctx.symbols, Target::All, false, &|_| {})
                .map(drop),
        }
        .with_context(|| format!("indexing {}", root.display()))?;
        let (snapshot, _) = ctx
            .symbols
            .refresh(&ctx.ws, ctx.ws.root())
            .map_err(|e| anyhow::anyhow!("indexing {}: {e}", root.display()))?;
        // What the server embeds at start, beside the sync.
        if let Some(model) = ctx.semantic.embedder_if_ready() {
            judge::warm_bridges(&ctx.ws, model.as_ref(), &snapshot);
        }
        let status = ctx.semantic.status();
        let index = IndexState {
            chunks: status.chunks,
            embedded: status.embedded,
            open_seconds: opening.elapsed().as_secs_f64(),
        };
        Ok(Project {
            ctx,
            snapshot,
            field,
            index,
        })
    }

    fn candidates(
        &self,
        symbol: &str,
        file: Option<&str>,
        judged: &judge::CallCache,
    ) -> Vec<Candidate> {
        let files: Vec<String> = file.into_iter().map(String::from).collect();
        let defs = lookup::in_files(lookup::find_symbol(&self.snapshot, symbol), &files);
        let defs: Vec<(&str, &crate::analysis::Symbol)> =
            defs.iter().map(|d| (d.file.as_str(), &d.symbol)).collect();
        judge::claimed(&self.ctx.ws, &self.snapshot, &defs, judged)
    }

    /// The repository as the judge reads it.
    fn judged(&self) -> judge::Project<'_> {
        judge::Project {
            ws: &self.ctx.ws,
            snapshot: &self.snapshot,
            search: (self.field != FieldKind::None).then(|| crate::judge::FieldSearch {
                words_only: self.field == FieldKind::Words,
                ..self.ctx.field_search()
            }),
        }
    }
}

/// What a verdict on 10 symbols costs, warm (the model loaded, the project's background and
/// the symbols' texts embedded), in milliseconds.
#[derive(Debug, Clone, Copy, Serialize)]
struct Latency {
    /// For a term judged before, as a session's later calls ask (median of 5 rounds).
    #[serde(rename = "latency_ms_10_symbols")]
    judged_before: f64,
    /// For a term the project is searched for the first time: its field is searched in the
    /// round (median of 5 terms, each with its own pairs' symbols).
    #[serde(rename = "latency_ms_10_symbols_new_term")]
    new_term: f64,
}

/// The [`Latency`] of `pairs`' verdicts as `validate_symbol_relevance` asks for them, or `None`
/// when the repository has fewer than 6 terms. The pairs were all scored before, so the
/// texts' vectors are cached and every round measures the judge, not the first embedding.
fn measure_latency(
    project: &Project,
    judge: &Judge,
    pairs: &[&Pair],
) -> anyhow::Result<Option<Latency>> {
    let mut terms: Vec<&str> = pairs.iter().map(|p| p.term.as_str()).collect();
    terms.dedup();
    if terms.len() < 6 {
        return Ok(None);
    }
    let round = |term: &str, symbols: &[&str]| -> anyhow::Result<f64> {
        let started = Instant::now();
        // As a session tool call: one background, one search for the term and one for the
        // symbols' callers, then the verdicts.
        let judged = judge::CallCache::default();
        let names: Vec<String> = symbols.iter().map(|s| lookup::bare_name(s)).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        judged.expect(&project.ctx.ws, &project.snapshot, &names);
        for symbol in symbols {
            let candidates = project.candidates(symbol, None, &judged);
            let grounds = judged.grounds(project.judged(), term);
            judge.verdict(term, &candidates, grounds.ground())?;
        }
        Ok(started.elapsed().as_secs_f64() * 1000.0)
    };
    let symbols_of = |term: &str| -> Vec<&str> {
        let of_term = pairs.iter().filter(|p| p.term == term);
        let others = pairs.iter().filter(|p| p.term != term);
        of_term
            .chain(others)
            .map(|p| p.symbol.as_str())
            .take(10)
            .collect()
    };
    let median = |mut times: Vec<f64>| {
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };
    let first = symbols_of(terms[0]);
    round(terms[0], &first)?;
    let judged_before = (0..5)
        .map(|_| round(terms[0], &first))
        .collect::<anyhow::Result<Vec<f64>>>()?;
    let new_term = terms[1..6]
        .iter()
        .map(|term| {
            judge::forget_kept(project.ctx.ws.root());
            round(term, &symbols_of(term))
        })
        .collect::<anyhow::Result<Vec<f64>>>()?;
    Ok(Some(Latency {
        judged_before: median(judged_before),
        new_term: median(new_term),
    }))
}

fn print_report(report: &Report) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let session = if report.session_mode {
        " (what the session tools use)"
    } else {
        ""
    };
    writeln!(out, "relevance judge: {}{session}", report.judge)?;
    writeln!(
        out,
        "{:<34} {:>5} {:>5} {:>8} {:>6} {:>9} {:>8} {:>8} {:>8} {:>10}",
        "group",
        "pairs",
        "rel",
        "accuracy",
        "AUC",
        "unrel>0.6",
        "rel kept",
        "rel>0.6",
        "unrel<.3",
        "terms>0.6"
    )?;
    let pct = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{:.1}%", v * 100.0));
    for (key, f) in &report.groups {
        writeln!(
            out,
            "{:<34} {:>5} {:>5} {:>8} {:>6} {:>9} {:>8} {:>8} {:>8} {:>10}",
            key,
            f.pairs,
            f.relevant,
            format!("{:.3}", f.accuracy),
            f.auc.map_or("-".to_string(), |a| format!("{a:.3}")),
            f.unrelated_at_fact,
            pct(f.relevant_kept),
            pct(f.relevant_fact),
            pct(f.unrelated_rejected),
            pct(f.terms_at_fact),
        )?;
    }
    if !report.unresolved.is_empty() {
        writeln!(
            out,
            "unresolved symbols (scored 0): {}",
            report.unresolved.join(", ")
        )?;
    }
    if let Some(Latency {
        judged_before,
        new_term,
    }) = report.latency
    {
        writeln!(
            out,
            "latency: a verdict on 10 symbols, warm: {judged_before:.1} ms for a term judged \
             before, {new_term:.1} ms for a new term"
        )?;
    }
    Ok(())
}
