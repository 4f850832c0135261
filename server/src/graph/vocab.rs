//! The canonical technique vocabulary (`graph-data/techniques.toml`) and the relabelling of free-form
//! technique names onto it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::GraphError;
use super::learned::LearnedLabels;
use super::similarity::{normalize_phrase, phrase_set, weighted_containment};

/// Name of the root node: the serial code.
pub const INIT: &str = "init";

/// Below this score a free-form name is reported as unmatched rather than guessed.
pub const SIMILARITY_THRESHOLD: f64 = 0.6;

/// One canonical technique.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Technique {
    /// snake_case id, the node's name in the graph.
    pub name: String,
    pub title: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    /// One line, used in prompts and hovers.
    pub description: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct VocabularyFile {
    technique: Vec<Technique>,
}

/// How a free-form name was matched.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "how", content = "score")]
pub enum MatchKind {
    /// The canonical name itself.
    Exact,
    /// One of the aliases, ignoring case.
    Alias,
    /// Same meaningful words as the name, title or an alias, after normalization.
    Normalized,
    /// A model's earlier decision, kept in `graph-data/relabel.json` (`graph build --relabel-with-llm`).
    Learned,
    /// Token-set similarity over aliases and description, at or above [`SIMILARITY_THRESHOLD`].
    Similar(f64),
}

/// The result of relabelling one free-form name.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Relabel {
    /// Index of the technique in the vocabulary.
    pub index: usize,
    #[serde(flatten)]
    pub how: MatchKind,
}

/// The vocabulary, in file order (node order of the graph), with lookup tables.
#[derive(Debug, Clone)]
pub struct Vocabulary {
    techniques: Vec<Technique>,
    by_exact: BTreeMap<String, usize>,
    by_alias: BTreeMap<String, usize>,
    by_normalized: BTreeMap<String, usize>,
    /// Per technique: word sets of name, title and each alias; and of the description.
    phrases: Vec<(Vec<BTreeSet<String>>, BTreeSet<String>)>,
    /// Inverse technique frequency of every word of the names, titles and aliases: "thread" and
    /// "memory" occur everywhere and say little, "coarsening" names one technique.
    idf: BTreeMap<String, f64>,
    /// Decisions of a model by lowercased name: a technique, or `None` for "no technique fits".
    learned: BTreeMap<String, Option<usize>>,
}

impl Vocabulary {
    pub fn load(path: &Path) -> Result<Self, GraphError> {
        let text = std::fs::read_to_string(path).map_err(|source| GraphError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_toml(&text).map_err(|message| GraphError::Vocabulary {
            path: path.to_path_buf(),
            message,
        })
    }

    /// Parses and validates a vocabulary; the error says which technique and field is wrong.
    pub fn from_toml(text: &str) -> Result<Self, String> {
        let file: VocabularyFile = toml::from_str(text).map_err(|e| e.to_string())?;
        Self::new(file.technique)
    }

    pub fn new(techniques: Vec<Technique>) -> Result<Self, String> {
        if techniques.first().map(|t| t.name.as_str()) != Some(INIT) {
            return Err(format!(
                "the first technique must be `{INIT}` (the serial code)"
            ));
        }
        let mut by_exact = BTreeMap::new();
        let mut by_alias: BTreeMap<String, usize> = BTreeMap::new();
        let mut by_normalized: BTreeMap<String, usize> = BTreeMap::new();
        let mut phrases = Vec::with_capacity(techniques.len());
        for (index, t) in techniques.iter().enumerate() {
            if !is_snake_case(&t.name) {
                return Err(format!(
                    "technique `{}`: field `name` must be snake_case",
                    t.name
                ));
            }
            for (field, value) in [("title", &t.title), ("description", &t.description)] {
                if value.trim().is_empty() {
                    return Err(format!("technique `{}`: field `{field}` is empty", t.name));
                }
            }
            if t.description.contains('\n') {
                return Err(format!(
                    "technique `{}`: field `description` must be one line",
                    t.name
                ));
            }
            if by_exact.insert(t.name.clone(), index).is_some() {
                return Err(format!("technique `{}` is defined twice", t.name));
            }
            let mut sets = vec![phrase_set(&t.name), phrase_set(&t.title)];
            for alias in &t.aliases {
                let key = alias.trim().to_lowercase();
                if let Some(&other) = by_alias.get(&key)
                    && other != index
                {
                    return Err(format!(
                        "technique `{}`: alias `{alias}` is already an alias of `{}`",
                        t.name, techniques[other].name
                    ));
                }
                by_alias.insert(key, index);
                sets.push(phrase_set(alias));
            }
            for phrase in std::iter::once(&t.name)
                .chain(std::iter::once(&t.title))
                .chain(&t.aliases)
            {
                // A phrase that normalizes alike for two techniques is ambiguous: the first keeps it,
                // the similarity pass decides for the other.
                by_normalized
                    .entry(normalize_phrase(phrase))
                    .or_insert(index);
            }
            phrases.push((sets, phrase_set(&t.description)));
        }
        let mut document_frequency: BTreeMap<&str, usize> = BTreeMap::new();
        for (sets, _) in &phrases {
            let words: BTreeSet<&str> = sets.iter().flatten().map(String::as_str).collect();
            for w in words {
                *document_frequency.entry(w).or_insert(0) += 1;
            }
        }
        let n = techniques.len() as f64;
        let idf = document_frequency
            .into_iter()
            .map(|(w, df)| (w.to_string(), (1.0 + n / df as f64).ln()))
            .collect();
        Ok(Self {
            techniques,
            by_exact,
            by_alias,
            by_normalized,
            phrases,
            idf,
            learned: BTreeMap::new(),
        })
    }

    /// Adds a model's decisions (`graph-data/relabel.json`); they are consulted after the
    /// vocabulary's own names and before the similarity guess.
    pub fn learn(&mut self, labels: &LearnedLabels) -> Result<(), String> {
        for (name, label) in &labels.0 {
            let index = match &label.technique {
                Some(t) => Some(self.index_of(t).ok_or_else(|| {
                    format!("learned label `{name}` names the unknown technique `{t}`")
                })?),
                None => None,
            };
            self.learned.insert(name.trim().to_lowercase(), index);
        }
        Ok(())
    }

    /// Whether a model could say more about a name than the vocabulary does: it matches only by
    /// similarity (a guess) or not at all, and no model has decided on it yet.
    pub fn is_uncertain(&self, free: &str) -> bool {
        matches!(
            self.relabel(free).map(|r| r.how),
            None | Some(MatchKind::Similar(_))
        ) && !self.learned.contains_key(&free.trim().to_lowercase())
    }

    pub fn techniques(&self) -> &[Technique] {
        &self.techniques
    }

    pub fn len(&self) -> usize {
        self.techniques.len()
    }

    pub fn is_empty(&self) -> bool {
        self.techniques.is_empty()
    }

    pub fn get(&self, name: &str) -> Option<&Technique> {
        self.index_of(name).map(|i| &self.techniques[i])
    }

    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.by_exact.get(name).copied()
    }

    /// Maps a free-form technique name onto the vocabulary: exact name, alias, normalized phrase, a
    /// model's recorded decision, then the best token-set similarity if it reaches
    /// [`SIMILARITY_THRESHOLD`]. `None` means unmatched.
    pub fn relabel(&self, free: &str) -> Option<Relabel> {
        let trimmed = free.trim();
        if let Some(&index) = self.by_exact.get(trimmed) {
            return Some(Relabel {
                index,
                how: MatchKind::Exact,
            });
        }
        if let Some(&index) = self.by_alias.get(&trimmed.to_lowercase()) {
            return Some(Relabel {
                index,
                how: MatchKind::Alias,
            });
        }
        let normalized = normalize_phrase(trimmed);
        if normalized.is_empty() {
            return None;
        }
        if let Some(&index) = self.by_normalized.get(&normalized) {
            return Some(Relabel {
                index,
                how: MatchKind::Normalized,
            });
        }
        if let Some(&decided) = self.learned.get(&trimmed.to_lowercase()) {
            // "No technique fits" is a decision too: no similarity guess over it.
            return decided.map(|index| Relabel {
                index,
                how: MatchKind::Learned,
            });
        }
        self.closest(trimmed)
            .filter(|&(_, score)| score >= SIMILARITY_THRESHOLD)
            .map(|(index, score)| Relabel {
                index,
                how: MatchKind::Similar(score),
            })
    }

    /// The technique most similar to a free-form name and the score (rounded to 3 decimals), however
    /// low: for reports that suggest where an unmatched name might belong.
    pub fn closest(&self, free: &str) -> Option<(usize, f64)> {
        let query = phrase_set(free);
        if query.is_empty() {
            return None;
        }
        let mut best: Option<(usize, f64)> = None;
        for (index, (sets, description)) in self.phrases.iter().enumerate() {
            let score = (self.similarity(&query, sets, description) * 1000.0).round() / 1000.0;
            // Strictly greater: on a tie the technique listed first wins, so the result is stable.
            if best.is_none_or(|(_, s)| score > s) {
                best = Some((index, score));
            }
        }
        best
    }

    fn similarity(
        &self,
        query: &BTreeSet<String>,
        phrases: &[BTreeSet<String>],
        description: &BTreeSet<String>,
    ) -> f64 {
        let weight = |w: &str| self.weight(w);
        // Recall: how much of the query the technique's whole wording (name, title, all aliases)
        // explains, so evidence from several aliases adds up ("privatize bins in shared memory").
        // Precision: how much of its best single phrase the query contains, so a long free-form name
        // that holds a whole alias ("thread coarsening: several rows per thread") still scores well.
        let wording: BTreeSet<String> = phrases.iter().flatten().cloned().collect();
        let recall = weighted_containment(query, &wording, weight);
        let precision = phrases
            .iter()
            .map(|p| weighted_containment(p, query, weight))
            .fold(0.0, f64::max);
        let worded = 0.5 * (recall + precision);
        // The description is long and not written for matching: ask how much of the query it covers,
        // and trust that less.
        let described = 0.75 * weighted_containment(query, description, weight);
        worded.max(described)
    }
}

impl Vocabulary {
    /// A word no technique uses weighs as much as the rarest known one: it may well be telling.
    fn weight(&self, word: &str) -> f64 {
        let rarest = (1.0 + self.techniques.len() as f64).ln();
        self.idf.get(word).copied().unwrap_or(rarest)
    }
}

pub fn is_snake_case(s: &str) -> bool {
    !s.is_empty()
        && s.starts_with(|c: char| c.is_ascii_lowercase())
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped() -> Vocabulary {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../graph-data/techniques.toml");
        Vocabulary::load(&path).expect("shipped vocabulary loads")
    }

    fn name_of(v: &Vocabulary, free: &str) -> Option<String> {
        v.relabel(free)
            .map(|r| v.techniques()[r.index].name.clone())
    }

    #[test]
    fn learned_decisions_come_after_the_vocabulary_and_before_the_guess() {
        use crate::graph::learned::LearnedLabel;
        let mut v = shipped();
        let guessed = "several elements per thread";
        assert!(matches!(
            v.relabel(guessed).unwrap().how,
            MatchKind::Similar(_)
        ));
        assert!(v.is_uncertain(guessed) && !v.is_uncertain("loop_unrolling"));
        let label = |t: Option<&str>| LearnedLabel {
            technique: t.map(String::from),
            model: "m".into(),
            date: "2026-12-02".into(),
        };
        let mut labels = LearnedLabels::default();
        labels.insert(
            "Several elements per thread".into(),
            label(Some("loop_unrolling")),
        );
        labels.insert("restrict and __ldg".into(), label(None));
        // A learned label cannot overrule the vocabulary's own names.
        labels.insert("shared_memory_tiling".into(), label(Some("loop_unrolling")));
        v.learn(&labels).unwrap();
        let r = v.relabel(guessed).unwrap();
        assert_eq!(
            (v.techniques()[r.index].name.as_str(), r.how),
            ("loop_unrolling", MatchKind::Learned)
        );
        assert_eq!(v.relabel("restrict and __ldg"), None, "none fits: no guess");
        assert!(!v.is_uncertain(guessed) && !v.is_uncertain("restrict and __ldg"));
        assert_eq!(
            name_of(&v, "shared_memory_tiling").as_deref(),
            Some("shared_memory_tiling")
        );

        let mut bad = LearnedLabels::default();
        bad.insert("x".into(), label(Some("teleportation")));
        let err = shipped().learn(&bad).unwrap_err();
        assert!(err.contains("teleportation"), "{err}");
    }

    #[test]
    fn shipped_vocabulary_is_large_enough_and_rooted() {
        let v = shipped();
        assert!(v.len() >= 21, "need init + 20 techniques, have {}", v.len());
        assert_eq!(v.techniques()[0].name, INIT);
        for t in v.techniques() {
            assert!(!t.aliases.is_empty(), "{} has no aliases", t.name);
        }
    }

    #[test]
    fn relabel_by_exact_alias_and_normalized_phrase() {
        let v = shipped();
        let exact = v.relabel("shared_memory_tiling").unwrap();
        assert_eq!(exact.how, MatchKind::Exact);
        let alias = v.relabel("  Warp Shuffle ").unwrap();
        assert_eq!(alias.how, MatchKind::Alias);
        assert_eq!(v.techniques()[alias.index].name, "warp_shuffle_reduction");
        let normalized = v.relabel("use the 2-D grids").unwrap();
        assert_eq!(normalized.how, MatchKind::Normalized);
        assert_eq!(v.techniques()[normalized.index].name, "thread_mapping_2d");
        assert_eq!(
            name_of(&v, "Grid-Stride Loops").as_deref(),
            Some("grid_stride_loop")
        );
    }

    #[test]
    fn relabel_by_similarity_and_refuse_unrelated_names() {
        let v = shipped();
        let r = v.relabel("tiling with shared memory halos").unwrap();
        assert!(matches!(r.how, MatchKind::Similar(_)), "{r:?}");
        assert_eq!(v.techniques()[r.index].name, "shared_memory_tiling");
        assert_eq!(
            name_of(&v, "vectorized float4 loads and stores").as_deref(),
            Some("vectorized_loads")
        );
        let cases = [
            (
                "naive one thread per element",
                Some("parallelize_outer_loop"),
            ),
            (
                "thread coarsening: several rows per thread",
                Some("thread_coarsening"),
            ),
            ("several elements per thread", Some("thread_coarsening")),
            (
                "privatize bins in shared memory",
                Some("privatized_histogram"),
            ),
            (
                "pad shared memory to avoid bank conflicts",
                Some("bank_conflict_padding"),
            ),
            (
                "2.5D blocking: march along z with registers",
                Some("register_sliding_window"),
            ),
            (
                "separate interior and boundary kernels",
                Some("divergence_removal"),
            ),
            (
                "overlap copies with compute using streams",
                Some("streams_overlap"),
            ),
            ("parallel prefix sum with Blelloch", Some("parallel_scan")),
            ("improve performance", None),
            ("optimize memory", None),
        ];
        for (free, expected) in cases {
            assert_eq!(name_of(&v, free).as_deref(), expected, "{free}");
        }
        assert_eq!(name_of(&v, "bake a cake"), None);
        assert_eq!(name_of(&v, ""), None);
        assert_eq!(name_of(&v, "--"), None);
    }

    #[test]
    fn invalid_vocabularies_say_what_is_wrong() {
        let no_init = "[[technique]]\nname = \"tiling\"\ntitle = \"T\"\ndescription = \"d\"\n";
        assert!(Vocabulary::from_toml(no_init).unwrap_err().contains("init"));
        let bad_name = "[[technique]]\nname = \"init\"\ntitle = \"S\"\ndescription = \"d\"\n\
                        [[technique]]\nname = \"Tiling\"\ntitle = \"T\"\ndescription = \"d\"\n";
        assert!(
            Vocabulary::from_toml(bad_name)
                .unwrap_err()
                .contains("snake_case")
        );
        let clash = "[[technique]]\nname = \"init\"\ntitle = \"S\"\ndescription = \"d\"\naliases = [\"x\"]\n\
                     [[technique]]\nname = \"b\"\ntitle = \"T\"\ndescription = \"d\"\naliases = [\"X\"]\n";
        assert!(
            Vocabulary::from_toml(clash)
                .unwrap_err()
                .contains("already an alias")
        );
        let unknown =
            "[[technique]]\nname = \"init\"\ntitle = \"S\"\ndescription = \"d\"\ncolour = 1\n";
        assert!(
            Vocabulary::from_toml(unknown)
                .unwrap_err()
                .contains("colour")
        );
    }
}
