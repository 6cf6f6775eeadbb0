//! Vue single-file components: the `<script>` blocks are TypeScript or JavaScript (see
//! [`crate::lang::vue_script_language`]), and each file is one component.

use super::{Chunking, Embedding, LanguageDef, ModuleSystem, Parsing};
use tree_sitter::Language as Grammar;

fn grammar() -> Grammar {
    tree_sitter_vue_next::LANGUAGE.into()
}

pub const VUE: LanguageDef = LanguageDef {
    id: "vue",
    name: "Vue",
    extensions: &["vue"],
    parsing: Parsing::Embedded {
        host: grammar,
        embed: Embedding::VueScript,
    },
    chunking: Chunking::Vue,
    modules: ModuleSystem::EsModules,
    file_noun: Some("Vue component"),
    component_file: true,
    ..LanguageDef::DEFAULT
};
