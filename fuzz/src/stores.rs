//! The persisted caches under `.code-intel/` (symbol store, outline store, import graph), read
//! back by the stores themselves. A file is written with a sound header around the fuzzed
//! parts (so the checksum and version checks pass and the stores' own decoding runs) or, for
//! one input in two, as raw bytes (the header checks). Whatever a file holds, a load must give
//! a store or a rebuild, never a panic; the symbol store's lazily read blobs are read too.

use code_intel::deps::GraphStore;
use code_intel::index::SymbolIndex;
use code_intel::index::outlines::OutlineIndex;
use code_intel::workspace::Workspace;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The stores' files, in the order the input's first byte picks them.
const FILES: [&str; 3] = ["symbols.bin", "outlines.json", "imports.bin"];
/// Magic, kind tag and format version: the first bytes of every store file's header.
const TAGGED: usize = 16;
/// The header's fixed part: the above, two u64 lengths, the CRC-32 and the tool version's length.
const FIXED: usize = TAGGED + 8 + 8 + 4 + 2;

struct Fixture {
    root: PathBuf,
    ws: Workspace,
    /// Per store: its header's magic, tag and version, and the tool version, as this build
    /// writes them (read from files the real stores wrote, so no layout is copied here).
    headers: Vec<(Vec<u8>, Vec<u8>)>,
}

thread_local! {
    static FIXTURE: Fixture = fixture();
}

fn fixture() -> Fixture {
    let root = crate::project(&[
        (
            "app/models.py",
            "class User:\n    def save(self):\n        pass\n",
        ),
        (
            "app/views.py",
            "from app.models import User\n\ndef show():\n    return User()\n",
        ),
    ]);
    // A fixed mtime, so that a fuzzed entry can match the file it names and keep its symbols.
    for rel in ["app/models.py", "app/views.py"] {
        let file = std::fs::File::options()
            .append(true)
            .open(root.join(rel))
            .unwrap();
        file.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(1_600_000_000))
            .unwrap();
    }
    let ws = Workspace::open(&root).expect("the project opens");
    let state = ws.state_dir();
    SymbolIndex::new(&state)
        .refresh(&ws, &root)
        .expect("symbols");
    let outlines = OutlineIndex::new(&state);
    let (snapshot, _) = outlines.refresh(&ws, &root).expect("outlines");
    GraphStore::new(&root, &state).graph(&snapshot);
    drop(outlines);
    let mut headers = Vec::new();
    let mut seeds = Vec::new();
    for (i, name) in FILES.iter().enumerate() {
        let bytes = std::fs::read(state.join(name))
            .unwrap_or_else(|err| panic!("the {name} the store wrote: {err}"));
        let lengths = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
        let (eager_len, lazy_len) = (lengths(TAGGED) as usize, lengths(TAGGED + 8) as usize);
        let tool_len = usize::from(u16::from_le_bytes([bytes[FIXED - 2], bytes[FIXED - 1]]));
        let body = FIXED + tool_len;
        assert_eq!(
            body + eager_len + lazy_len,
            bytes.len(),
            "{name}: header layout"
        );
        headers.push((bytes[..TAGGED].to_vec(), bytes[FIXED..body].to_vec()));
        let mut seed = vec![i as u8];
        seed.extend_from_slice(&(eager_len.min(usize::from(u16::MAX)) as u16).to_le_bytes());
        seed.extend_from_slice(&bytes[body..]);
        seeds.push(seed);
    }
    // `CODE_INTEL_FUZZ_SEEDS=DIR` writes one input per store, from the files just written.
    if let Some(dir) = std::env::var_os("CODE_INTEL_FUZZ_SEEDS") {
        for (name, seed) in FILES.iter().zip(&seeds) {
            std::fs::write(Path::new(&dir).join(name), seed).expect("a seed");
        }
        std::process::exit(0);
    }
    Fixture { root, ws, headers }
}

/// Input: a byte choosing the store (bit 2: raw file), then for a sound header the eager part's
/// length (u16) and the eager and lazy parts.
pub fn load(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    FIXTURE.with(|f| {
        let store = usize::from(which & 3) % FILES.len();
        let file = if which & 4 != 0 {
            rest.to_vec()
        } else {
            let (eager, lazy) = match rest {
                [a, b, parts @ ..] => {
                    parts.split_at(usize::from(u16::from_le_bytes([*a, *b])).min(parts.len()))
                }
                _ => (rest, &[][..]),
            };
            let (tagged, tool) = &f.headers[store];
            let mut file = tagged.clone();
            file.extend_from_slice(&(eager.len() as u64).to_le_bytes());
            file.extend_from_slice(&(lazy.len() as u64).to_le_bytes());
            file.extend_from_slice(&crc32fast::hash(eager).to_le_bytes());
            file.extend_from_slice(&(tool.len() as u16).to_le_bytes());
            file.extend_from_slice(tool);
            file.extend_from_slice(eager);
            file.extend_from_slice(lazy);
            file
        };
        let state = f.ws.state_dir();
        std::fs::write(state.join(FILES[store]), &file).expect("the store file");
        match store {
            0 => {
                let (snapshot, _) = SymbolIndex::new(&state)
                    .refresh(&f.ws, &f.root)
                    .expect("a refresh");
                for entry in snapshot.files.values() {
                    // Reads and decodes the blob the entry kept.
                    let _ = entry.symbols.symbols.len();
                }
            }
            1 => {
                OutlineIndex::new(&state)
                    .refresh(&f.ws, &f.root)
                    .expect("a refresh");
            }
            _ => {
                let outlines = OutlineIndex::new(&state);
                let (snapshot, _) = outlines.refresh(&f.ws, &f.root).expect("a refresh");
                GraphStore::new(&f.root, &state).graph(&snapshot);
            }
        }
    });
}
