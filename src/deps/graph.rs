//! The project-wide import graph: every file's imports resolved to project files, the reverse
//! edges (who imports a file), and circular dependencies.
//!
//! [`GraphStore`] builds the graph once from the outline snapshot and keeps it in memory and in
//! `.code-intel/imports.bin`, stamped with two fingerprints: the manifests (module resolution
//! rules) and the file set together with the names PHP and Java files declare (what FQCN lookups
//! can find). While both are unchanged, only files whose content hash changed are re-resolved;
//! when either changes, everything is (it takes milliseconds: resolution is set lookups).

use super::layout::Layout;
use super::resolve::{Resolution, Resolver};
use crate::analysis::outline::FileOutline;
use crate::index::outlines::{MANIFEST_NAMES, Manifest, OutlineSnapshot};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

const FORMAT_VERSION: u32 = 4;
const STORE_FILE: &str = "imports.bin";
/// Cycles reported per file; more add nothing an agent acts on.
pub const MAX_CYCLES: usize = 10;

/// One import of a file, resolved; aligned with the file's outline imports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResolvedImport {
    pub internal: bool,
    pub targets: Vec<String>,
    /// Erased before run time (`import type`, Python `if TYPE_CHECKING:`): a dependency, but
    /// not one that can form a cycle.
    pub type_only: bool,
}

#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct ImportGraph {
    /// Per file, one entry per outline import, in the same order.
    pub imports: HashMap<String, Vec<ResolvedImport>>,
    /// File → the files that import it, sorted.
    pub dependents: HashMap<String, Vec<String>>,
    /// Like `dependents`, over run-time imports only: the reverse edges cycles are found on.
    runtime_dependents: HashMap<String, Vec<String>>,
}

impl ImportGraph {
    /// The distinct project files `file` imports, in import order.
    pub fn targets(&self, file: &str) -> Vec<&str> {
        self.targets_where(file, false)
    }

    /// The files `file` imports at run time (type-only imports left out): the edges of cycles.
    pub fn runtime_targets(&self, file: &str) -> Vec<&str> {
        self.targets_where(file, true)
    }

    fn targets_where(&self, file: &str, runtime_only: bool) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for import in self.imports.get(file).into_iter().flatten() {
            if runtime_only && import.type_only {
                continue;
            }
            for target in &import.targets {
                if target != file && !out.contains(&target.as_str()) {
                    out.push(target);
                }
            }
        }
        out
    }

    fn build_dependents(&mut self) {
        let mut dependents: HashMap<String, Vec<String>> = HashMap::new();
        let mut runtime: HashMap<String, Vec<String>> = HashMap::new();
        for file in self.imports.keys() {
            for target in self.targets(file) {
                dependents
                    .entry(target.to_string())
                    .or_default()
                    .push(file.clone());
            }
            for target in self.runtime_targets(file) {
                runtime
                    .entry(target.to_string())
                    .or_default()
                    .push(file.clone());
            }
        }
        for list in dependents.values_mut().chain(runtime.values_mut()) {
            list.sort();
            list.dedup();
        }
        self.dependents = dependents;
        self.runtime_dependents = runtime;
    }

    /// Shortest cycles through `file`, one per imported file that leads back to it:
    /// `[file, b, c, file]`. One breadth-first search backwards from `file` gives every file's
    /// shortest way back to it.
    pub fn cycles_through(&self, file: &str) -> Vec<Vec<String>> {
        let mut cycles: Vec<Vec<String>> = Vec::new();
        if self.imports_itself(file) {
            cycles.push(vec![file.to_string(), file.to_string()]);
        }
        // next_hop[x] = the file x imports on its shortest run-time path to `file`.
        let mut next_hop: HashMap<&str, &str> = HashMap::new();
        let mut queue = VecDeque::from([file]);
        while let Some(node) = queue.pop_front() {
            for importer in self.runtime_dependents.get(node).into_iter().flatten() {
                if importer != file && !next_hop.contains_key(importer.as_str()) {
                    next_hop.insert(importer, node);
                    queue.push_back(importer);
                }
            }
        }
        for first in self.runtime_targets(file) {
            if first == file || !next_hop.contains_key(first) {
                continue;
            }
            let mut cycle = vec![file.to_string(), first.to_string()];
            let mut at = first;
            while let Some(&hop) = next_hop.get(at) {
                cycle.push(hop.to_string());
                if hop == file {
                    break;
                }
                at = hop;
            }
            if !cycles.contains(&cycle) {
                cycles.push(cycle);
            }
            if cycles.len() >= MAX_CYCLES {
                break;
            }
        }
        cycles
    }

    fn imports_itself(&self, file: &str) -> bool {
        self.imports.get(file).is_some_and(|imports| {
            imports
                .iter()
                .any(|i| !i.type_only && i.targets.iter().any(|t| t == file))
        })
    }

    /// One cycle per strongly connected component of more than one file, and one per file
    /// importing itself, each starting at its first file in path order.
    pub fn all_cycles(&self) -> Vec<Vec<String>> {
        let mut cycles = Vec::new();
        for component in self.components() {
            if let Some(cycle) = self.cycles_through(&component[0]).into_iter().next() {
                cycles.push(cycle);
            }
        }
        let mut files: Vec<&String> = self.imports.keys().collect();
        files.sort();
        for file in files {
            if self.imports_itself(file) {
                cycles.push(vec![file.clone(), file.clone()]);
            }
        }
        cycles.sort();
        cycles
    }

    /// Strongly connected components of the run-time edges with more than one file
    /// (Kosaraju, iterative), each sorted.
    fn components(&self) -> Vec<Vec<String>> {
        let mut nodes: Vec<&str> = self.imports.keys().map(String::as_str).collect();
        nodes.sort();
        let mut order = Vec::new();
        let mut visited: HashSet<&str> = HashSet::new();
        for &start in &nodes {
            if !visited.insert(start) {
                continue;
            }
            let mut stack = vec![(start, 0usize)];
            while let Some((node, i)) = stack.pop() {
                let next = self.runtime_targets(node);
                if i < next.len() {
                    stack.push((node, i + 1));
                    let n = next[i];
                    if visited.insert(n) {
                        stack.push((n, 0));
                    }
                } else {
                    order.push(node);
                }
            }
        }
        let mut assigned: HashSet<&str> = HashSet::new();
        let mut components = Vec::new();
        for &start in order.iter().rev() {
            if !assigned.insert(start) {
                continue;
            }
            let mut component = vec![start.to_string()];
            let mut stack = vec![start];
            while let Some(node) = stack.pop() {
                for source in self.runtime_dependents.get(node).into_iter().flatten() {
                    if assigned.insert(source.as_str()) {
                        component.push(source.clone());
                        stack.push(source);
                    }
                }
            }
            if component.len() > 1 {
                component.sort();
                components.push(component);
            }
        }
        components.sort();
        components
    }
}

/// An import cycle as seed 002 reports it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Cycle {
    /// The files, first one repeated at the end: `[a, b, c, a]`.
    pub cycle: Vec<String>,
    pub message: String,
}

/// `Circular dependency detected: A -> B -> C -> A`, with file stems, or paths when two files
/// of the cycle share a stem.
pub fn cycle_message(cycle: &[String]) -> String {
    let stem = |p: &str| {
        let name = p.rsplit('/').next().unwrap_or(p);
        name.split('.').next().unwrap_or(name).to_string()
    };
    let distinct: Vec<&String> = cycle[..cycle.len().saturating_sub(1)].iter().collect();
    let stems: Vec<String> = distinct.iter().map(|p| stem(p)).collect();
    let unique = stems.iter().collect::<HashSet<_>>().len() == stems.len();
    let names: Vec<String> = cycle
        .iter()
        .map(|p| if unique { stem(p) } else { p.clone() })
        .collect();
    format!("Circular dependency detected: {}", names.join(" -> "))
}

#[derive(Serialize, Deserialize)]
struct Stored {
    version: u32,
    tool_version: String,
    layout_fp: [u8; 32],
    files_fp: [u8; 32],
    shas: HashMap<String, [u8; 32]>,
    graph: ImportGraph,
}

/// The graph in memory, shared by every call until something changes.
struct Current {
    /// The snapshot generation this graph was last checked against (`None`: loaded from disk).
    /// The same generation means the same outlines and manifests, so no fingerprinting.
    generation: Option<u64>,
    layout_fp: [u8; 32],
    files_fp: [u8; 32],
    shas: HashMap<String, [u8; 32]>,
    graph: Arc<ImportGraph>,
}

/// What building the graph did (for logs and benchmarks).
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub struct GraphStats {
    pub files: usize,
    /// Files whose imports were resolved in this call.
    pub resolved: usize,
    /// Whether the whole graph was rebuilt (first build, or manifests / file set changed).
    pub rebuilt: bool,
}

pub struct GraphStore {
    store: PathBuf,
    root: PathBuf,
    current: Mutex<Option<Current>>,
    loaded: Mutex<bool>,
    /// The last resolver, with the snapshot generation it was built for and, when it was built
    /// from a file's ancestor manifests, that file's directory; reused for single files.
    resolver: Mutex<Option<CachedResolver>>,
}

/// A resolver and the single-file answers it gave, all valid for one snapshot generation (a
/// repeated `analyze_file` of a large file resolves none of its hundreds of imports again).
struct CachedResolver {
    generation: u64,
    scope: String,
    resolver: Arc<Resolver>,
    answers: HashMap<String, Arc<Vec<Resolution>>>,
}

impl CachedResolver {
    fn new(generation: u64, scope: &str, resolver: Arc<Resolver>) -> CachedResolver {
        CachedResolver {
            generation,
            scope: scope.to_string(),
            resolver,
            answers: HashMap::new(),
        }
    }
}

impl GraphStore {
    pub fn new(root: &Path, state_dir: &Path) -> GraphStore {
        GraphStore {
            store: state_dir.join(STORE_FILE),
            root: root.to_path_buf(),
            current: Mutex::new(None),
            loaded: Mutex::new(false),
            resolver: Mutex::new(None),
        }
    }

    /// Resolves one file's imports without building the graph, with a resolver over the current
    /// snapshot (reused while the snapshot is unchanged). Before any whole-project refresh the
    /// snapshot has no manifests, so the ones in the file's ancestor directories are read instead
    /// (enough for the prefix rules: relative paths, aliases, PSR-4 and Go module prefixes, crate
    /// names), which needs no walk of the project.
    pub fn resolve_imports(
        &self,
        snapshot: &OutlineSnapshot,
        file: &str,
        outline: &FileOutline,
    ) -> Arc<Vec<Resolution>> {
        let mut cached = self.resolver.lock().unwrap_or_else(|p| p.into_inner());
        let scope = if snapshot.manifests.is_empty() {
            super::layout::dir_of(file)
        } else {
            ""
        };
        let fresh = cached
            .as_ref()
            .is_some_and(|c| c.generation == snapshot.generation && c.scope == scope);
        if !fresh {
            let manifests = if snapshot.manifests.is_empty() {
                ancestor_manifests(&self.root, file)
            } else {
                snapshot.manifests.clone()
            };
            let resolver = Arc::new(Resolver::new(
                snapshot,
                Layout::from_manifests(&manifests),
                self.root.clone(),
            ));
            *cached = Some(CachedResolver::new(snapshot.generation, scope, resolver));
        }
        let cached = cached.as_mut().expect("set above");
        // The generation covers every outline, this file's included: its answer stays valid.
        if let Some(answer) = cached.answers.get(file) {
            return answer.clone();
        }
        let answer: Arc<Vec<Resolution>> = Arc::new(
            outline
                .imports
                .iter()
                .map(|import| cached.resolver.resolve(file, &outline.language, import))
                .collect(),
        );
        cached.answers.insert(file.to_string(), answer.clone());
        answer
    }

    /// The import graph for this snapshot, re-resolving only what changed since the last one.
    pub fn graph(&self, snapshot: &OutlineSnapshot) -> (Arc<ImportGraph>, GraphStats) {
        self.load_once();
        let mut current = self.current.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(same) = current
            .as_ref()
            .filter(|c| c.generation == Some(snapshot.generation))
        {
            let stats = GraphStats {
                files: snapshot.files.len(),
                resolved: 0,
                rebuilt: false,
            };
            return (same.graph.clone(), stats);
        }
        let layout_fp = layout_fingerprint(snapshot);
        let files_fp = files_fingerprint(snapshot);
        let previous = current
            .as_ref()
            .filter(|c| c.layout_fp == layout_fp && c.files_fp == files_fp);
        let changed: Vec<&String> = snapshot
            .files
            .iter()
            .filter(|(path, entry)| {
                previous.is_none_or(|p| p.shas.get(*path) != Some(&entry.sha256))
            })
            .map(|(path, _)| path)
            .collect();
        let mut stats = GraphStats {
            files: snapshot.files.len(),
            resolved: changed.len(),
            rebuilt: previous.is_none(),
        };
        if let Some(previous) = previous
            && changed.is_empty()
        {
            stats.resolved = 0;
            let graph = previous.graph.clone();
            if let Some(c) = current.as_mut() {
                c.generation = Some(snapshot.generation);
            }
            return (graph, stats);
        }
        let resolver = Arc::new(Resolver::new(
            snapshot,
            Layout::from_manifests(&snapshot.manifests),
            self.root.clone(),
        ));
        *self.resolver.lock().unwrap_or_else(|p| p.into_inner()) = Some(CachedResolver::new(
            snapshot.generation,
            "",
            resolver.clone(),
        ));
        let mut graph = previous.map(|p| (*p.graph).clone()).unwrap_or_default();
        graph
            .imports
            .retain(|path, _| snapshot.files.contains_key(path));
        for path in &changed {
            let outline = &snapshot.files[*path].outline;
            let resolved = outline
                .imports
                .iter()
                .map(|import| {
                    let r = resolver.resolve(path, &outline.language, import);
                    ResolvedImport {
                        internal: r.internal,
                        targets: r.targets,
                        type_only: import.type_only,
                    }
                })
                .collect();
            graph.imports.insert((*path).clone(), resolved);
        }
        graph.build_dependents();
        let shas: HashMap<String, [u8; 32]> = snapshot
            .files
            .iter()
            .map(|(p, e)| (p.clone(), e.sha256))
            .collect();
        let stored = Stored {
            version: FORMAT_VERSION,
            tool_version: env!("CARGO_PKG_VERSION").into(),
            layout_fp,
            files_fp,
            shas,
            graph,
        };
        if let Err(err) = bincode::serialize(&stored)
            .map_err(std::io::Error::other)
            .and_then(|bytes| crate::fsutil::write_atomic(&self.store, &bytes))
        {
            tracing::warn!("could not save the import graph: {err}");
        }
        let graph = Arc::new(stored.graph);
        *current = Some(Current {
            generation: Some(snapshot.generation),
            layout_fp,
            files_fp,
            shas: stored.shas,
            graph: graph.clone(),
        });
        (graph, stats)
    }

    fn load_once(&self) {
        let mut loaded = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        if *loaded {
            return;
        }
        *loaded = true;
        let Ok(bytes) = std::fs::read(&self.store) else {
            return;
        };
        match bincode::deserialize::<Stored>(&bytes) {
            Ok(stored)
                if stored.version == FORMAT_VERSION
                    && stored.tool_version == env!("CARGO_PKG_VERSION") =>
            {
                *self.current.lock().unwrap_or_else(|p| p.into_inner()) = Some(Current {
                    generation: None,
                    layout_fp: stored.layout_fp,
                    files_fp: stored.files_fp,
                    shas: stored.shas,
                    graph: Arc::new(stored.graph),
                });
            }
            Ok(_) => tracing::info!("import graph format changed; rebuilding"),
            Err(err) => tracing::warn!("import graph unreadable ({err}); rebuilding"),
        }
    }
}

/// The manifests in `file`'s directory and every directory above it, read from disk.
fn ancestor_manifests(root: &Path, file: &str) -> HashMap<String, Arc<Manifest>> {
    let mut out = HashMap::new();
    let mut dir = super::layout::dir_of(file).to_string();
    loop {
        for name in MANIFEST_NAMES {
            let rel = if dir.is_empty() {
                name.to_string()
            } else {
                format!("{dir}/{name}")
            };
            if let Ok(text) = std::fs::read_to_string(root.join(&rel)) {
                out.insert(
                    rel,
                    Arc::new(Manifest {
                        size: text.len() as u64,
                        mtime_ns: 0,
                        sha256: Sha256::digest(text.as_bytes()).into(),
                        text,
                    }),
                );
            }
        }
        if dir.is_empty() {
            break;
        }
        dir = super::layout::dir_of(&dir).to_string();
    }
    out
}

fn layout_fingerprint(snapshot: &OutlineSnapshot) -> [u8; 32] {
    let mut manifests: Vec<(&String, &[u8; 32])> = snapshot
        .manifests
        .iter()
        .map(|(p, m)| (p, &m.sha256))
        .collect();
    manifests.sort();
    let mut hasher = Sha256::new();
    for (path, sha) in manifests {
        hasher.update(path.as_bytes());
        hasher.update(sha);
    }
    hasher.finalize().into()
}

/// The file set, plus what PHP and Java files declare (FQCN lookups resolve against it).
fn files_fingerprint(snapshot: &OutlineSnapshot) -> [u8; 32] {
    let mut paths: Vec<&String> = snapshot.files.keys().collect();
    paths.sort();
    let mut hasher = Sha256::new();
    for path in paths {
        hasher.update(path.as_bytes());
        hasher.update([0]);
        let outline = &snapshot.files[path].outline;
        if matches!(outline.language.as_str(), "php" | "java") {
            hasher.update(outline.module.as_deref().unwrap_or("").as_bytes());
            for export in &outline.exports {
                hasher.update(export.name.as_bytes());
                hasher.update([1]);
            }
            for class in &outline.classes {
                hasher.update(class.name.as_bytes());
                hasher.update([2]);
            }
        }
    }
    hasher.finalize().into()
}
