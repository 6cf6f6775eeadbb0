//! The real model for tests, loaded once per test binary.
//!
//! Tests of behaviour that depends on the model (similarities, calibration, thresholds) run
//! against the provisioned model (`scripts/model/provision.sh`, run by `scripts/setup.sh` and
//! CI). They fail, with the setup command in the message, when it is missing: a model test that
//! silently passes without a model would prove nothing.

use super::{E5Embedder, E5Options, ModelDir};
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// The model directory the tests use: `$CODE_INTEL_MODEL_DIR` or the default location.
pub(crate) fn model_dir() -> ModelDir {
    ModelDir::resolve(None, Path::new(".")).expect("HOME or CODE_INTEL_MODEL_DIR must be set")
}

/// The shared real embedder, with the server's default options.
pub(crate) fn real() -> Arc<E5Embedder> {
    static MODEL: OnceLock<Arc<E5Embedder>> = OnceLock::new();
    MODEL
        .get_or_init(
            || match E5Embedder::load(&model_dir(), E5Options::default()) {
                Ok(model) => Arc::new(model),
                Err(err) => panic!(
                    "these tests need the provisioned embedding model \
                 (run scripts/model/provision.sh): {err}"
                ),
            },
        )
        .clone()
}
