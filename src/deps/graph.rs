//! The project-wide import graph: every file's imports resolved to project files, the reverse
//! edges (who imports a file), and circular dependencies.
//!
//! [`GraphStore`] builds the graph once from the outline snapshot and keeps it in memory and in
//! `.code-intel/imports.bin`, stamped with two fingerprints: the manifests (module resolution
//! rules) and the file set together with the names PHP and Java files declare (what FQCN lookups
//! can find). While both are unchanged, only files whose content hash changed are re-resolved;
//! when either changes, everything is (it takes milliseconds: resolution is set lookups). The
//! file is a [`CacheFile`]: of another version or damaged, it is rebuilt from the outlines.

use super::layout::Layout;
use super::resolve::{Resolution, Resolver};
use crate::analysis::outline::FileOutline;
use crate::index::cache_file::{self, CacheFile, DecodeError, Encoder, Format, Kind, LazyPart};
use crate::index::outlines::{MANIFEST_NAMES, Manifest, OutlineSnapshot};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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
    store: CacheFile<GraphFile>,
    root: PathBuf,
    current: Mutex<Option<Current>>,
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
            store: CacheFile::new(state_dir.join(STORE_FILE)),
            root: root.to_path_buf(),
            current: Mutex::new(None),
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
            layout_fp,
            files_fp,
            shas,
            graph,
        };
        if let Err(err) = self.store.persist(&stored) {
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
        self.store.load_once(|stored| {
            *self.current.lock().unwrap_or_else(|p| p.into_inner()) = Some(Current {
                generation: None,
                layout_fp: stored.layout_fp,
                files_fp: stored.files_fp,
                shas: stored.shas,
                graph: Arc::new(stored.graph),
            });
        });
    }
}

/// How the graph is kept in its [`CacheFile`].
struct GraphFile;

impl Format for GraphFile {
    type Value = Stored;
    const KIND: Kind = Kind {
        name: "import graph",
        tag: *b"IMPG",
        // Bumped whenever the stored layout or the resolution rules change.
        version: 5,
        // Versions 1 to 4 were bare bincode that began with their version.
        legacy: |bytes| cache_file::headerless_bincode_version(bytes).is_some_and(|v| v <= 4),
    };

    fn encode(stored: &Stored, out: &mut Encoder) -> std::io::Result<()> {
        bincode::serialize_into(out.bytes(), stored).map_err(std::io::Error::other)
    }

    fn decode(eager: &[u8], _: LazyPart) -> Result<Stored, DecodeError> {
        Ok(bincode::deserialize(eager)?)
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

/// The file set, plus what the files of package-scoped languages (PHP, Java) declare: FQCN
/// lookups resolve against it.
fn files_fingerprint(snapshot: &OutlineSnapshot) -> [u8; 32] {
    let mut paths: Vec<&String> = snapshot.files.keys().collect();
    paths.sort();
    let mut hasher = Sha256::new();
    for path in paths {
        hasher.update(path.as_bytes());
        hasher.update([0]);
        let outline = &snapshot.files[path].outline;
        if crate::lang::by_id(&outline.language).is_some_and(|l| l.package_scoped) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::cache_file::Loaded;
    use crate::index::cache_file::testing::{Variant, check_each, variants, warnings};
    use crate::index::outlines::OutlineIndex;
    use crate::workspace::Workspace;

    /// A project where `a.ts` imports `./b`, and a stored graph that says it imports `c.ts`
    /// instead, with fingerprints that match the project: a process that trusts the store
    /// answers `c.ts`, one that rebuilt it `b.ts`. Returns the store's bytes as written.
    fn store_that_lies() -> (tempfile::TempDir, Workspace, Arc<OutlineSnapshot>, Vec<u8>) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("a.ts"), "import { b } from \"./b\";\n").unwrap();
        std::fs::write(root.join("b.ts"), "export const b = 1;\n").unwrap();
        std::fs::write(root.join("c.ts"), "export const c = 2;\n").unwrap();
        let ws = Workspace::open(root).unwrap();
        let (snapshot, _) = OutlineIndex::new(&ws.state_dir())
            .refresh(&ws, ws.root())
            .unwrap();
        let (graph, _) = GraphStore::new(root, &ws.state_dir()).graph(&snapshot);
        assert_eq!(graph.targets("a.ts"), ["b.ts"]);

        let file = CacheFile::<GraphFile>::new(ws.state_dir().join(STORE_FILE));
        let Loaded::Ready(mut stored) = file.read() else {
            panic!("the graph was not stored");
        };
        stored.graph.imports.get_mut("a.ts").unwrap()[0].targets = vec!["c.ts".into()];
        stored.graph.build_dependents();
        file.persist(&stored).unwrap();
        let bytes = std::fs::read(file.path()).unwrap();
        (dir, ws, snapshot, bytes)
    }

    /// What a new process answers for `a.ts`, whether it rebuilt the graph, what it warned.
    fn new_process_answer(
        ws: &Workspace,
        snapshot: &OutlineSnapshot,
    ) -> (Vec<String>, bool, String) {
        let ((graph, stats), logged) =
            warnings(|| GraphStore::new(ws.root(), &ws.state_dir()).graph(snapshot));
        let targets = graph
            .targets("a.ts")
            .iter()
            .map(|t| t.to_string())
            .collect();
        (targets, stats.rebuilt, logged)
    }

    #[test]
    fn old_cut_short_or_damaged_stores_are_rebuilt_never_misread() {
        let (_dir, ws, snapshot, stored) = store_that_lies();
        let path = ws.state_dir().join(STORE_FILE);
        // As written, the store is trusted: the trap is set.
        assert_eq!(
            new_process_answer(&ws, &snapshot),
            (vec!["c.ts".into()], false, String::new())
        );

        // The previous format (4): bare bincode, the version and the tool version first.
        let Loaded::Ready(lie) = CacheFile::<GraphFile>::new(path.clone()).read() else {
            panic!("the lie does not read");
        };
        let v4 = bincode::serialize(&(
            4u32,
            env!("CARGO_PKG_VERSION"),
            lie.layout_fp,
            lie.files_fp,
            &lie.shas,
            &lie.graph,
        ))
        .unwrap();
        let mut variants = variants(&stored);
        variants.push(Variant {
            what: "format 4, before the common header".into(),
            bytes: v4,
            warns: false,
        });

        check_each(&path, variants, |variant| {
            let (targets, rebuilt, logged) = new_process_answer(&ws, &snapshot);
            if (targets.as_slice(), rebuilt) != (&["b.ts".to_string()][..], true) {
                return Err(format!("answered {targets:?}, rebuilt {rebuilt}"));
            }
            if logged.contains("import graph") != variant.warns {
                return Err(format!("logged {logged:?}"));
            }
            Ok(())
        });
    }
}
