//! A request term's words as the judge matches them against the code: its keys, each the forms
//! that count as the word being present ([`TermKeys`]), and the keys that name one of the
//! project's entities ([`TermEntities`]).

use super::lexicon::{Bag, Lexicon, forms_meet};
use crate::lexical;
use crate::search::dictionary::{self, Dictionary, ProjectWord};
use crate::search::glossary;
use std::collections::BTreeSet;

/// English renderings of a Japanese word that count as the word being present. The glossary
/// lists more for search recall (ログイン: login, auth, signin, session); its later ones name
/// neighbours of the word (every FastAPI route takes a `session`), which proves nothing about a
/// symbol. On the development split, the first two beat all of them and the first alone.
pub(super) const MAX_RENDERINGS: usize = 2;

/// A request term's words as lexical keys: each key is the set of forms that count as that word
/// being present (stemmed, lower-case). An English word stands for itself and the words the
/// glossary renders the same Japanese word by; a Japanese word the glossary knows stands for its
/// first English renderings, light words (処理) for nothing. A Japanese word the glossary does not
/// read is a key with no form, which nothing matches (see [`TermKeys::in_project`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TermKeys {
    pub keys: Vec<Vec<String>>,
    /// The words found for the term's loanwords, each with its byte offset in the term: what
    /// [`glossary::render`] adds to the term's English rendering.
    pub loanwords: Vec<(usize, String)>,
    /// The byte spans of the compounds the project's translations read instead of the
    /// glossary's words ([`glossary::Cover`]), which the rendering leaves to `loanwords`.
    pub covered: Vec<(usize, usize)>,
}

impl TermKeys {
    /// The keys of `term` with no project to look its loanwords up in.
    pub fn of(term: &str) -> TermKeys {
        TermKeys::in_project(term, None)
    }

    /// The keys of `term`, with the Japanese words the glossary does not read
    /// ([`glossary::unread`]) looked up in the project's names: a katakana word by its sound
    /// ([`crate::search::loanword::find`]: ペット is `pet` in a clinic's code), each word it
    /// splits into a key. A word found nowhere, katakana or a kanji word of two or more
    /// characters, is a key with no form: the term has a word the server cannot see in any name,
    /// so a name holding the term's other words holds only part of it (「ペットの登録」 is not
    /// "register" alone, which the owner's registration holds as well). A lone kanji (時, 数, 用)
    /// is a suffix more often than a word and counts for nothing.
    pub fn in_project(term: &str, lexicon: Option<&Lexicon>) -> TermKeys {
        TermKeys::bridged(term, lexicon, None, |_| None)
    }

    /// [`TermKeys::in_project`], with more bridges for the words the glossary does not read, in
    /// this order: the project's own translation of the word, which `dictionary` holds when the
    /// project has some ([`crate::search::translations`]: 授乳 is `feeding` in a baby tracker
    /// translated into Japanese); a katakana word by its sound
    /// ([`crate::search::loanword::find`]); a kanji word of two or more characters by `meaning`,
    /// the model's bridge to the words of the term's field ([`super::FieldSearch::meaning`]: 体重
    /// is `weight` in a baby tracker whose search shows weight code for the term); then any word
    /// through `dictionary`, as the English words of its senses that the project's names use
    /// ([`dictionary::in_project`]: 飼い主 is `owner` in a clinic's code). The first three come
    /// first because each has read the project itself.
    pub fn bridged(
        term: &str,
        lexicon: Option<&Lexicon>,
        dictionary: Option<&Dictionary>,
        meaning: impl Fn(&str) -> Option<String>,
    ) -> TermKeys {
        let mut keys: Vec<Vec<String>> = Vec::new();
        let mut loanwords: Vec<(usize, String)> = Vec::new();
        let in_dictionary = match (dictionary, lexicon) {
            (Some(dictionary), Some(lexicon)) => {
                dictionary::in_project(term, dictionary, lexicon.vocabulary(), MAX_RENDERINGS)
            }
            _ => Vec::new(),
        };
        let runs = dictionary::unread_runs(term, &in_dictionary, lexicon.map(Lexicon::vocabulary));
        let as_found = |w: &ProjectWord| {
            let stems = w.english.iter().map(|(_, stem)| stem.clone()).collect();
            (w.at, w.english[0].0.clone(), stems)
        };
        for run in runs {
            let glossary::Unread { at, word, script } = run.unread;
            let end = at + word.len();
            // Each find as the word the rendering uses and the forms that count as present: the
            // dictionary's words that overlap this run (飼い主 overlaps 飼 and 主), or only the
            // project's own translations among them.
            let from_dictionary = |project_only: bool| -> Vec<(usize, String, Vec<String>)> {
                in_dictionary
                    .iter()
                    .filter(|w| !project_only || w.project)
                    .filter(|w| w.overlaps(at, end))
                    .map(as_found)
                    .collect()
            };
            // The project's own translations first: the project has said what the word means.
            let mut found = from_dictionary(true);
            // A katakana word the dictionary has, in a sense the project's names use, is that
            // sense: JMdict glosses a loanword by the English it came from, where its sound can
            // land on a neighbour (プリセット on `reset` in a music player that has `preset`,
            // ブラウザ on `value`).
            let katakana = script == glossary::Script::Katakana;
            if found.is_empty() && katakana {
                found = from_dictionary(false);
            }
            if found.is_empty() {
                found = run
                    .loanwords
                    .into_iter()
                    .map(|forms| {
                        (
                            at,
                            forms[0].to_string(),
                            forms.into_iter().map(str::to_string).collect(),
                        )
                    })
                    .collect();
            }
            // Not for a katakana word the loanwords miss: by its sound the model bridges it
            // wrongly more often than not (デモ as `theme`, ホット as `hats` on the development
            // split, before the glossary read them). Before the dictionary: the model answers
            // only when one of the field's words stands out, and then it has read the project
            // (二段階 as `twofactor`, where the dictionary's senses give `level`).
            if found.is_empty() && script == glossary::Script::Kanji && word.chars().count() >= 2 {
                found = meaning(word)
                    .map(|english| (at, english.clone(), vec![lexical::stem(&english)]))
                    .into_iter()
                    .collect();
            }
            // Any other word through the dictionary last (a katakana word was looked up there
            // before its sound).
            if found.is_empty() && !katakana {
                found = from_dictionary(false);
            }
            // A word the dictionary found is not a lone kanji, whatever run it starts in
            // (飼い主 is the runs 飼 and 主).
            if found.is_empty() && script == glossary::Script::Kanji && word.chars().count() < 2 {
                continue;
            }
            tracing::debug!("term {term:?}: unread word {word:?} found as {found:?}");
            if found.is_empty() {
                keys.push(Vec::new());
            }
            for (at, rendered, forms) in found {
                if !loanwords.contains(&(at, rendered.clone())) {
                    loanwords.push((at, rendered));
                }
                if !keys.contains(&forms) {
                    keys.push(forms);
                }
            }
        }
        // The project's translations of compounds over the glossary's words, read instead of
        // those words: 編集履歴 is `revision` in a wiki whose catalogue says "Revisions", where the
        // glossary reads "edit" and "history", which the wiki's editor and its audit log hold.
        // A glossary word the project translates is read both ways, the project's word first
        // (in the rendering too): 記事 is `entry` in a feed reader, and still `article`.
        let mut covered: Vec<(usize, usize)> = Vec::new();
        for word in in_dictionary.iter().filter(|w| w.over.is_some()) {
            covered.push((word.at, word.end));
            let (at, rendered, mut forms) = as_found(word);
            if word.over == Some(glossary::Cover::Word) {
                for (_, english) in glossary::expand_groups(&term[word.at..word.end]) {
                    for stem in english
                        .iter()
                        .take(MAX_RENDERINGS)
                        .map(|e| lexical::stem(e))
                    {
                        if !forms.contains(&stem) {
                            forms.push(stem);
                        }
                    }
                }
            }
            if !loanwords.contains(&(at, rendered.clone())) {
                loanwords.push((at, rendered));
            }
            if !keys.contains(&forms) {
                keys.push(forms);
            }
        }
        for (japanese, english) in glossary::expand_groups_outside(term, &covered) {
            if glossary::is_light(japanese) {
                continue;
            }
            let forms: Vec<String> = english
                .iter()
                .take(MAX_RENDERINGS)
                .map(|e| lexical::stem(e))
                .collect();
            if !keys.contains(&forms) {
                keys.push(forms);
            }
        }
        // Stop words stay until the pairs are read: "log in" is `login`, not a log.
        let words: Vec<String> = lexical::index_terms(term)
            .into_iter()
            .filter(|w| w.bytes().all(|b| b.is_ascii_alphanumeric()) && w.len() >= 2)
            .filter(|w| !w.bytes().all(|b| b.is_ascii_digit()))
            .collect();
        let mut i = 0;
        while i < words.len() {
            // Two words the glossary knows as one ("sign up" → signup) make one key.
            let pair = words.get(i + 1).map(|next| format!("{}{next}", words[i]));
            let (word, step) = match pair {
                Some(p) if !glossary::english_synonyms(&p, MAX_RENDERINGS).is_empty() => (p, 2),
                _ => (words[i].clone(), 1),
            };
            i += step;
            if step == 1 && lexical::is_stop_word(&word) {
                continue;
            }
            // An English word counts as present in its glossary synonyms too ("sign up" in
            // `register`, "delete" in `remove`): the same bridge Japanese words get.
            let mut forms = vec![lexical::stem(&word)];
            for synonym in glossary::english_synonyms(&word, MAX_RENDERINGS) {
                let stem = lexical::stem(synonym);
                if !forms.contains(&stem) {
                    forms.push(stem);
                }
            }
            if !keys.contains(&forms) {
                keys.push(forms);
            }
        }
        TermKeys {
            keys,
            loanwords,
            covered,
        }
    }

    /// Share of a name's words that none of the keys' forms is, leaving out the words that
    /// say nothing by themselves ([`is_function_word`]); zero for a name without other words.
    /// With the other signals held, the fit weighs it up: a name made of the term's words
    /// alone (`ban`, `remove`, `update`) is as often the neighbour that does the term's action
    /// to another thing, while the right definition's name says more (`banLink`).
    pub fn unexplained(&self, name: &str) -> f32 {
        let words = name_words(name);
        if words.is_empty() {
            return 0.0;
        }
        let stray = words.iter().filter(|w| !self.explains(w)).count();
        stray as f32 / words.len() as f32
    }

    /// The words of a name that none of the keys' forms is ([`Self::unexplained`]), stemmed,
    /// each once: what [`super::word_odds`] looks up.
    pub fn stray_words(&self, name: &str) -> Vec<String> {
        let mut stray: Vec<String> = name_words(name)
            .into_iter()
            .filter(|w| !self.explains(w))
            .collect();
        stray.sort_unstable();
        stray.dedup();
        stray
    }

    /// The term's words (each key by its first form) that `bag` holds in none of their forms.
    pub fn missing_in(&self, bag: &Bag) -> Vec<String> {
        self.keys
            .iter()
            .filter(|forms| !forms.iter().any(|f| bag.has(f)))
            .filter_map(|forms| forms.first().cloned())
            .collect()
    }

    fn explains(&self, word: &str) -> bool {
        self.keys.iter().flatten().any(|f| forms_meet(f, word))
    }

    /// The best share of the term's words any definition's name, scope and path hold.
    pub fn best_in(&self, lexicon: &Lexicon) -> f32 {
        lexicon
            .bags()
            .map(|bag| self.coverage(bag))
            .fold(0.0, f32::max)
    }

    /// Share of the keys present in `bag` (a key with no form is never present).
    pub fn coverage(&self, bag: &Bag) -> f32 {
        if self.keys.is_empty() {
            return 0.0;
        }
        let hit = self
            .keys
            .iter()
            .filter(|forms| forms.iter().any(|f| bag.has(f)))
            .count();
        hit as f32 / self.keys.len() as f32
    }
}

/// The term's words that name one of the project's entities ([`Lexicon`]), with the project's
/// entities: a definition named for another entity and not for the term's (`VetRepository.findAll`
/// for 「飼い主の検索」, "owner search") does the term's action on something else.
#[derive(Debug, Clone, Default)]
pub struct TermEntities {
    /// The term's keys that are one of the project's entities.
    keys: Vec<Vec<String>>,
    /// The project's entities that are no form of the term's words.
    others: BTreeSet<String>,
}

impl TermEntities {
    pub(super) fn new(keys: &TermKeys, lexicon: &Lexicon) -> TermEntities {
        let in_term = |w: &String| keys.keys.iter().flatten().any(|f| f == w);
        TermEntities {
            keys: keys
                .keys
                .iter()
                .filter(|forms| forms.iter().any(|f| lexicon.entities.contains(f)))
                .cloned()
                .collect(),
            others: lexicon
                .entities
                .iter()
                .filter(|e| !in_term(e))
                .cloned()
                .collect(),
        }
    }

    /// Whether a definition whose name and scope are `name` (outside any scope, its file's name
    /// stands in: [`super::owned_text`]) and whose name, scope and path are `named` holds none of the
    /// term's entities while `name` holds another of the project's.
    pub(super) fn other_in(&self, name: &Bag, named: &Bag) -> bool {
        !self.keys.is_empty()
            && !self.keys.iter().flatten().any(|f| named.has(f))
            && name.0.iter().any(|w| self.others.contains(w))
    }
}

/// A name's words as the term's keys are compared with them: stemmed, without the words that
/// say nothing by themselves.
fn name_words(name: &str) -> Vec<String> {
    lexical::split_identifier(name)
        .into_iter()
        .filter(|w| !is_function_word(w))
        .map(|w| lexical::stem(&w))
        .collect()
}

/// Whether a word of a name says nothing by itself: an article, a preposition or a
/// conjunction, or an accessor's prefix (`get`, `set`, `is`, `has`).
pub(super) fn is_function_word(word: &str) -> bool {
    const WORDS: &[&str] = &[
        "a", "an", "and", "at", "by", "for", "from", "get", "has", "in", "is", "of", "on", "or",
        "set", "the", "to", "with",
    ];
    WORDS.contains(&word)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::lexicon::FileNames;
    use crate::lexical;
    use std::sync::Arc;

    #[test]
    fn a_japanese_words_keys_are_present_in_its_english() {
        let keys = TermKeys::of("ログイン");
        assert!(keys.coverage(&Bag::of("login_access_token")) > 0.99);
        assert_eq!(keys.coverage(&Bag::of("read_config")), 0.0);
    }

    #[test]
    fn term_keys_bridge_japanese_words() {
        let keys = TermKeys::of("ログイン処理");
        assert!(keys.keys.iter().any(|k| k.contains(&"login".to_string())));
        let keys = TermKeys::of("reset the password");
        assert_eq!(
            keys.keys,
            vec![vec!["reset".to_string()], vec!["password".to_string()]]
        );
        // English synonyms through the glossary, and two words it knows as one.
        let keys = TermKeys::of("sign up");
        assert!(
            keys.keys
                .iter()
                .any(|k| k.contains(&lexical::stem("register"))),
            "{keys:?}"
        );
        assert!(TermKeys::of("delete comment").keys[0].contains(&lexical::stem("remove")));
        // Even when the second word is one a request's words leave out.
        let log_in = TermKeys::of("log in");
        assert_eq!(log_in.keys.len(), 1);
        assert!(log_in.keys[0].contains(&"login".to_string()), "{log_in:?}");
        assert!(TermKeys::of("ほげ").keys.is_empty());
    }

    #[test]
    fn the_lexicon_knows_which_definition_holds_most_of_the_term() {
        let lexicon = Lexicon::of_names(&[
            "reset_password api/login",
            "update_password_me api/users",
            "read_user api/users",
        ]);
        // 「パスワード変更」: the change of one's own password holds both words, the reset flow
        // one of them.
        let keys = TermKeys::of("パスワード変更");
        assert_eq!(keys.best_in(&lexicon), 1.0);
        assert_eq!(keys.coverage(&Bag::of("reset_password api/login")), 0.5);
        assert_eq!(keys.best_in(&Lexicon::default()), 0.0);
    }

    #[test]
    fn a_loanword_the_glossary_lacks_is_looked_up_in_the_projects_names() {
        let lexicon = Lexicon::of_names(&[
            "PetController.register owner/PetController",
            "OwnerController.register owner/OwnerController",
            "Pet owner/Pet",
        ]);
        // 「ペットの登録」: ペット is no glossary word but the project's `pet`; the owner's
        // registration holds only the other word.
        let keys = TermKeys::in_project("ペットの登録", Some(&lexicon));
        assert_eq!(keys.loanwords, vec![(0, "pet".to_string())]);
        let pet = Bag::of("PetController.register owner/PetController");
        let owner = Bag::of("OwnerController.register owner/OwnerController");
        assert_eq!(keys.coverage(&pet), 1.0);
        assert_eq!(keys.coverage(&owner), 0.5);
        // Without the project, the word is still counted, as one no name holds.
        let alone = TermKeys::of("ペットの登録");
        assert_eq!(alone.coverage(&pet), 0.5);
        assert_eq!(alone.coverage(&owner), 0.5);
        // 獣医 (a kanji word the glossary lacks) is a word too; a lone kanji (時) is not.
        assert_eq!(TermKeys::of("獣医一覧").keys.len(), 2);
        assert_eq!(TermKeys::of("登録時").keys.len(), 1);
        let rendered = glossary::render("ペットの登録", &[(0, "pet".to_string())]);
        assert_eq!(rendered.as_deref(), Some("pet register"));
    }

    #[test]
    fn a_kanji_word_the_glossary_lacks_is_bridged_by_its_meaning() {
        let weight = Bag::of("record_weight core/views");
        let height = Bag::of("record_height core/views");
        // 「体重を記録」: 体重 is no glossary word; the model finds `weight` among the field's
        // words, so a weight view holds both words and a height view only 記録's.
        let bridged = TermKeys::bridged("体重を記録", None, None, |word| {
            (word == "体重").then(|| "weight".to_string())
        });
        assert_eq!(bridged.loanwords, vec![(0, "weight".to_string())]);
        assert_eq!(bridged.coverage(&weight), 1.0);
        assert_eq!(bridged.coverage(&height), 0.5);
        // Without a bridge the word is still a key, one no name holds.
        let unbridged = TermKeys::in_project("体重を記録", None);
        assert_eq!(unbridged.coverage(&weight), 0.5);
        assert_eq!(unbridged.coverage(&height), 0.5);
        // A katakana word is left to the loanwords, a lone kanji to nothing.
        let asked = std::cell::RefCell::new(Vec::new());
        TermKeys::bridged("ペットの登録時", None, None, |word| {
            asked.borrow_mut().push(word.to_string());
            None
        });
        assert!(asked.borrow().is_empty(), "{:?}", asked.borrow());
    }

    #[test]
    fn a_dictionary_word_stands_for_the_english_the_projects_names_use() {
        let lexicon = Lexicon::of_names(&[
            "OwnerController.findOwners owner/OwnerController",
            "VetController.showVetList vet/VetController",
            "Visit visit/Visit",
        ]);
        let dictionary = Dictionary::parse(String::from(
            "飼い主\t(pet) owner; keeper\n\
             獣医\tveterinarian; veterinary surgeon; vet\n\
             来院\tvisit to a hospital, temple, school, etc.\n\
             通報\treport; notification\n",
        ))
        .unwrap();
        let owners = Bag::of("OwnerController.findOwners owner/OwnerController");
        let vets = Bag::of("VetController.showVetList vet/VetController");
        // 「飼い主の検索」 (owner search): 飼い主 is no glossary word; the dictionary's `owner`
        // is one the project's names hold, `keeper` is not.
        let keys = TermKeys::bridged("飼い主の検索", Some(&lexicon), Some(&dictionary), |_| None);
        assert_eq!(keys.loanwords, vec![(0, "owner".to_string())]);
        assert!(keys.keys.contains(&vec![lexical::stem("owner")]));
        assert!(keys.coverage(&owners) > keys.coverage(&vets));
        // The dictionary's later sense's word, the one the project uses.
        let keys = TermKeys::bridged("獣医一覧", Some(&lexicon), Some(&dictionary), |_| None);
        assert_eq!(keys.loanwords, vec![(0, "vet".to_string())]);
        let rendered = glossary::render("獣医一覧", &keys.loanwords);
        assert!(rendered.is_some_and(|r| r.starts_with("vet ")));
        // A word none of whose English any name holds goes to the model's bridge, and without
        // one it is a key no name holds.
        let asked = std::cell::RefCell::new(Vec::new());
        let keys = TermKeys::bridged("通報", Some(&lexicon), Some(&dictionary), |word| {
            asked.borrow_mut().push(word.to_string());
            None
        });
        assert_eq!(*asked.borrow(), vec!["通報".to_string()]);
        assert_eq!(keys.keys, vec![Vec::<String>::new()]);
        // A katakana run inside a longer dictionary word is no loanword: ゴミ (in ゴミ箱, "trash
        // can") is not the project's `dummy`, which it sounds like.
        let vault = Lexicon::of_names(&["purge_trash api/ciphers", "dummy_user tests/util"]);
        let bin = Dictionary::parse("ゴミ箱\trubbish bin; trash can\n".to_string()).unwrap();
        let keys = TermKeys::bridged("ゴミ箱の自動削除", Some(&vault), Some(&bin), |_| {
            None
        });
        assert_eq!(keys.loanwords, vec![(0, "trash".to_string())]);
        let keys = TermKeys::bridged("ゴミ箱の自動削除", Some(&vault), None, |_| None);
        assert_eq!(keys.loanwords, vec![(0, "dummy".to_string())]);
        // Without the dictionary, 飼い主 is two lone kanji and reads as nothing.
        let keys = TermKeys::bridged("飼い主の検索", Some(&lexicon), None, |_| None);
        assert!(keys.loanwords.is_empty());
        // A katakana word the dictionary glosses, in a word the project's names use, is that
        // word, neither the name it sounds like (イコライザー is not `equal`) nor a shorter
        // glossary word inside it (プリセット is not リセット, `reset`).
        let player = Lexicon::of_names(&[
            "EqualizerPresetService.addPresetForUser app/Services/EqualizerPresetService",
            "PasswordController.reset app/Http/Controllers/PasswordController",
            "equalsIgnoreCase app/Values/Str",
            "ZipArchive.super app/Services/Zip",
        ]);
        let presets = Dictionary::parse(
            "プリセット\tpreset\nイコライザー\tequalizer; equaliser\n".to_string(),
        )
        .unwrap();
        let term = "イコライザープリセットの保存";
        let by_sound = TermKeys::bridged(term, Some(&player), None, |_| None);
        assert!(by_sound.keys.contains(&vec!["reset".to_string()]));
        let keys = TermKeys::bridged(term, Some(&player), Some(&presets), |_| None);
        assert!(
            keys.keys.contains(&vec!["equalizer".to_string()]),
            "{:?}",
            keys.keys
        );
        assert!(
            keys.keys.contains(&vec!["preset".to_string()]),
            "{:?}",
            keys.keys
        );
        assert!(
            !keys
                .keys
                .iter()
                .flatten()
                .any(|f| f == "reset" || f == "equal")
        );
    }

    #[test]
    fn a_name_about_another_entity_than_the_terms_is_found() {
        let source = "class Owner:\n    pass\n\n\nclass Vet:\n    pass\n\n\nclass VetRepository:\n    def find_all(self):\n        pass\n\n\nclass OwnerRepository:\n    def find_by_last_name(self):\n        pass\n";
        let file = file_names("clinic/models.py", source);
        // Only a class named by one word is an entity: `VetRepository` is a role of `Vet`.
        assert_eq!(file.entities, vec!["owner".to_string(), "vet".to_string()]);
        let lexicon = Lexicon::new(vec![Arc::new(file)]);
        let other = |term: &str, name: &str, path: &str| {
            let keys = TermKeys::in_project(term, Some(&lexicon));
            TermEntities::new(&keys, &lexicon)
                .other_in(&Bag::of(name), &Bag::of(&format!("{name} {path}")))
        };
        assert!(other(
            "search owners",
            "find_all VetRepository",
            "clinic/vet"
        ));
        assert!(!other(
            "search owners",
            "find_by_last_name OwnerRepository",
            "clinic/owner"
        ));
        // The term's entity in the path is enough; a term with no entity is left alone.
        assert!(!other(
            "search owners",
            "find_all Repository",
            "clinic/owner/repository"
        ));
        assert!(!other(
            "search by name",
            "find_all VetRepository",
            "clinic/vet"
        ));
        // A name that names the term's entity among others is about it too.
        assert!(!other("list vets", "vet_owner_report", "clinic/report"));
    }

    /// The project's translation of a word comes before the model's bridge and the general
    /// dictionary: a baby tracker's catalogue says 授乳 is "Feeding", JMdict "breastfeeding".
    #[test]
    fn a_word_the_project_translates_is_read_as_the_projects_word() {
        let source = "class Feeding:\n    pass\n\n\ndef breastfeeding_report():\n    pass\n";
        let lexicon = Lexicon::new(vec![Arc::new(file_names("core/models.py", source))]);
        let general = Arc::new(Dictionary::parse("授乳\tbreastfeeding\n".into()).unwrap());
        let bridge = |_: &str| Some("nursing".to_string());
        let keys = |dictionary: &Dictionary| {
            TermKeys::bridged("授乳の記録", Some(&lexicon), Some(dictionary), bridge).keys
        };
        assert!(keys(&general).contains(&vec!["nurs".to_string()]));
        let translated = Dictionary::layered("授乳\tFeeding\n".into(), Some(general)).unwrap();
        let keys = keys(&translated);
        assert!(keys.iter().any(|k| k[0] == "feed"), "{keys:?}");
        assert!(!keys.iter().flatten().any(|f| f == "nurs"), "{keys:?}");
    }

    /// A compound the project translates as one is read as the project's word, not as the
    /// glossary's words it is made of: 編集履歴 is "Revisions" in a wiki, not "edit history".
    #[test]
    fn a_compound_the_project_translates_replaces_the_glossarys_words() {
        let source = "class PageRevision:\n    pass\n\n\ndef edit_page():\n    pass\n";
        let lexicon = Lexicon::new(vec![Arc::new(file_names("entities/models.py", source))]);
        let translated = Dictionary::layered("編集履歴\tRevisions\n".into(), None).unwrap();
        let keys = TermKeys::bridged(
            "編集履歴の一覧",
            Some(&lexicon),
            Some(&translated),
            |_| None,
        );
        assert!(
            keys.keys.contains(&vec!["revision".to_string()]),
            "{keys:?}"
        );
        assert!(!keys.keys.iter().flatten().any(|f| f == "edit"), "{keys:?}");
        assert!(keys.keys.iter().flatten().any(|f| f == "list"), "{keys:?}");
        assert_eq!(
            glossary::render_outside("編集履歴の一覧", &keys.loanwords, &keys.covered).as_deref(),
            Some("revisions list")
        );
        // Without the translation, the glossary's words.
        let plain = TermKeys::bridged("編集履歴の一覧", Some(&lexicon), None, |_| None);
        assert!(
            plain.keys.iter().flatten().any(|f| f == "edit"),
            "{plain:?}"
        );
        assert!(plain.covered.is_empty());
    }

    /// A glossary word the project translates is read both ways, the project's word first:
    /// 記事 is `entry` in a feed reader, and a name that says `article` still holds it.
    #[test]
    fn a_glossary_word_the_project_translates_is_read_both_ways() {
        let source = "def list_entries():\n    pass\n\n\ndef article_feed():\n    pass\n";
        let lexicon = Lexicon::new(vec![Arc::new(file_names("reader/entries.py", source))]);
        let translated = Dictionary::layered("記事\tEntries\n".into(), None).unwrap();
        let keys = TermKeys::bridged("記事の一覧", Some(&lexicon), Some(&translated), |_| {
            None
        });
        let key = keys
            .keys
            .iter()
            .find(|forms| forms.contains(&"entry".to_string()))
            .unwrap_or_else(|| panic!("{keys:?}"));
        assert!(key.contains(&"articl".to_string()), "{keys:?}");
        assert_eq!(
            glossary::render_outside("記事の一覧", &keys.loanwords, &keys.covered).as_deref(),
            Some("entries list")
        );
        let plain = TermKeys::bridged("記事の一覧", Some(&lexicon), None, |_| None);
        assert!(
            !plain.keys.iter().flatten().any(|f| f == "entry"),
            "{plain:?}"
        );
    }

    /// The names of one source file, as the project's lexicon keeps them.
    fn file_names(file: &str, source: &str) -> FileNames {
        let lang = crate::lang::detect(file).unwrap();
        Lexicon::of_file(file, &crate::analysis::analyze_source(lang, source).symbols)
    }

    /// A word that plays several of the project's roles is one of its entities: kutt names its
    /// modules `<entity>.<role>.js`, Laravel its classes `<Entity><Role>`.
    #[test]
    fn a_word_playing_several_roles_is_an_entity() {
        let function = "function ban() {}\n";
        let files = [
            "server/handlers/links.handler.js",
            "server/handlers/users.handler.js",
            "server/handlers/domains.handler.js",
            "server/handlers/validators.handler.js",
            "server/models/link.model.js",
            "server/models/user.model.js",
            "server/models/visit.model.js",
            // Two files are no role: `settings` is not made an entity by them.
            "server/routes/settings.route.js",
            "server/views/settings.view.js",
        ];
        let classes = "class ArticleController:\n    pass\n\n\nclass ProfileController:\n    pass\n\n\n\
                       class TagController:\n    pass\n\n\nclass ArticleRequest:\n    pass\n\n\n\
                       class CommentRequest:\n    pass\n\n\nclass TagRequest:\n    pass\n";
        let lexicon = Lexicon::new(
            files
                .iter()
                .map(|file| Arc::new(file_names(file, function)))
                .chain([Arc::new(file_names("app/http.py", classes))])
                .collect(),
        );
        let entities: Vec<&str> = lexicon.entities.iter().map(String::as_str).collect();
        assert_eq!(entities, vec!["articl", "link", "tag", "user"]);
        // `ban` in the users' handler bans users, not links.
        let keys = TermKeys::in_project("ban a link", Some(&lexicon));
        let users = "ban users";
        assert!(TermEntities::new(&keys, &lexicon).other_in(
            &Bag::of(users),
            &Bag::of("ban server/handlers/users.handler")
        ));
        assert!(!TermEntities::new(&keys, &lexicon).other_in(
            &Bag::of("ban links"),
            &Bag::of("ban server/handlers/links.handler")
        ));
    }

    /// The words of a name that are none of the term's: the reset beside the change of a
    /// password, nothing for the name that says the term and an accessor's prefix.
    #[test]
    fn a_names_words_the_term_does_not_say_are_counted() {
        let keys = TermKeys::of("change password");
        assert_eq!(keys.unexplained("reset_password"), 0.5);
        assert_eq!(keys.unexplained("updatePassword"), 0.0);
        assert_eq!(keys.unexplained("getPasswordChange"), 0.0);
        assert_eq!(keys.unexplained("sendWelcomeMail"), 1.0);
        assert_eq!(keys.unexplained("get"), 0.0);
    }

    #[test]
    fn the_stray_and_missing_words_are_listed_for_their_odds() {
        let keys = TermKeys::of("change password");
        // `update` is one of "change"'s forms; each stray word once, stemmed.
        assert_eq!(keys.stray_words("updatePassword"), Vec::<String>::new());
        assert_eq!(keys.stray_words("resetPasswordReset"), vec!["reset"]);
        assert_eq!(keys.stray_words("sendWelcomeMail").len(), 3);
        // A key is missing when none of its forms is in the bag, named by its first form.
        let missing = keys.missing_in(&Bag::of("UserController resetPassword"));
        assert_eq!(missing.len(), 1);
        assert_eq!(Some(&missing[0]), keys.keys[0].first());
        assert!(keys.missing_in(&Bag::of("update_password")).is_empty());
    }
}
