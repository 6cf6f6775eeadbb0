//! Search engines. `text` is ripgrep's engine in-process (the only user of the grep crates).

pub mod text;
