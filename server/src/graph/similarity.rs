//! Token sets and their similarity: enough to match technique names and to rank examples by how close
//! their code is to the code being optimized, without a model.

use std::collections::BTreeSet;

/// Words that carry no meaning in a technique name ("use shared memory for the tile").
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "apply", "applied", "by", "for", "from", "in", "into", "of", "on", "the",
    "then", "to", "use", "using", "via", "with", "add", "added", "step",
];

/// Lower-cases a free-form phrase and splits it into words: every run of ASCII letters and digits is a
/// word, everything else separates (so `__shfl_down_sync`, `shfl-down` and `Shfl down` agree).
pub fn words(text: &str) -> Vec<String> {
    join_dimension_hyphens(text)
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_lowercase())
        .collect()
}

/// `2-D` and `3-d` are written with and without the hyphen: drop a hyphen between a digit and a letter.
fn join_dimension_hyphens(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    chars
        .iter()
        .enumerate()
        .filter(|&(i, &c)| {
            !(c == '-'
                && i > 0
                && chars[i - 1].is_ascii_digit()
                && chars.get(i + 1).is_some_and(|n| n.is_ascii_alphabetic()))
        })
        .map(|(_, &c)| c)
        .collect()
}

/// The phrase reduced to its meaningful words, stemmed, in order: `"Use the 2-D grids"` → `"2d grid"`.
pub fn normalize_phrase(text: &str) -> String {
    phrase_tokens(text).join(" ")
}

/// Meaningful words of a phrase, crudely stemmed, in order.
pub fn phrase_tokens(text: &str) -> Vec<String> {
    words(text)
        .into_iter()
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .map(|w| stem(&w))
        .collect()
}

/// A crude stem: the regular plural, then one common verb/noun suffix, so that tile/tiled/tiling and
/// privatize/privatized/privatization agree. A wrong stem ("bias" → "bia") is harmless because both
/// sides of every comparison are stemmed alike.
fn stem(word: &str) -> String {
    let mut w = word;
    if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") {
        w = &w[..w.len() - 1];
    }
    for suffix in ["ization", "ation", "ized", "ize", "ing", "ed", "e"] {
        if w.len() >= suffix.len() + 3 && w.ends_with(suffix) {
            w = &w[..w.len() - suffix.len()];
            break;
        }
    }
    w.to_string()
}

/// The meaningful words of a phrase and its word pairs (`"per thread"`), so that word order counts
/// a little: "elements per thread" (coarsening) is not "thread per element" (the naive port).
pub fn phrase_set(text: &str) -> BTreeSet<String> {
    let tokens = phrase_tokens(text);
    let pairs = tokens.windows(2).map(|w| format!("{} {}", w[0], w[1]));
    tokens.iter().cloned().chain(pairs).collect()
}

/// Identifier-like tokens of source code (keywords included: they say what the code does), for
/// comparing kernels. Numbers are kept because launch shapes and tile sizes differ by them.
pub fn code_set(code: &str) -> BTreeSet<String> {
    code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// |A ∩ B| / |A ∪ B|, 0 for two empty sets.
pub fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

/// 2|A ∩ B| / (|A| + |B|): kinder than Jaccard to short phrases that differ by one word.
pub fn dice(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let total = a.len() + b.len();
    if total == 0 {
        return 0.0;
    }
    2.0 * a.intersection(b).count() as f64 / total as f64
}

/// [`dice`] with a weight per token, so that rare, telling words count more than common ones.
pub fn weighted_dice(
    a: &BTreeSet<String>,
    b: &BTreeSet<String>,
    weight: impl Fn(&str) -> f64,
) -> f64 {
    let total: f64 = a.iter().chain(b).map(|w| weight(w)).sum();
    if total <= 0.0 {
        return 0.0;
    }
    2.0 * a.intersection(b).map(|w| weight(w)).sum::<f64>() / total
}

/// [`containment`] with a weight per token.
pub fn weighted_containment(
    part: &BTreeSet<String>,
    whole: &BTreeSet<String>,
    weight: impl Fn(&str) -> f64,
) -> f64 {
    let total: f64 = part.iter().map(|w| weight(w)).sum();
    if total <= 0.0 {
        return 0.0;
    }
    part.intersection(whole).map(|w| weight(w)).sum::<f64>() / total
}

/// Fraction of `part` found in `whole`: how well a short query is covered by a longer text.
pub fn containment(part: &BTreeSet<String>, whole: &BTreeSet<String>) -> f64 {
    if part.is_empty() {
        return 0.0;
    }
    part.intersection(whole).count() as f64 / part.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(words: &[&str]) -> BTreeSet<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn normalization_drops_case_punctuation_stop_words_and_plurals() {
        assert_eq!(normalize_phrase("Use the 2-D Grids"), "2d grid");
        assert_eq!(normalize_phrase("tiled"), normalize_phrase("tiling"));
        assert_eq!(
            normalize_phrase("privatize"),
            normalize_phrase("privatization")
        );
        assert_eq!(normalize_phrase("x-3"), "x 3");
        assert_eq!(normalize_phrase("__shfl_down_sync"), "shfl down sync");
        assert_eq!(normalize_phrase("bank conflicts"), "bank conflict");
        assert_eq!(normalize_phrase("pass"), "pass");
        assert_eq!(normalize_phrase("tile"), normalize_phrase("tiles"));
    }

    #[test]
    fn set_measures() {
        let a = set(&["shared", "memory", "tiling"]);
        let b = set(&["shared", "memory"]);
        assert!((jaccard(&a, &b) - 2.0 / 3.0).abs() < 1e-12);
        assert!((dice(&a, &b) - 0.8).abs() < 1e-12);
        assert!((containment(&b, &a) - 1.0).abs() < 1e-12);
        assert_eq!(jaccard(&BTreeSet::new(), &BTreeSet::new()), 0.0);
        let heavy = |w: &str| if w == "tiling" { 4.0 } else { 1.0 };
        assert!((weighted_dice(&a, &set(&["tiling"]), heavy) - 8.0 / 10.0).abs() < 1e-12);
        assert!((weighted_containment(&set(&["tiling", "x"]), &a, heavy) - 0.8).abs() < 1e-12);
        assert_eq!(containment(&BTreeSet::new(), &a), 0.0);
    }

    #[test]
    fn phrase_sets_hold_word_pairs() {
        let s = phrase_set("elements per thread");
        assert!(s.contains("per thread") && s.contains("element per") && s.contains("thread"));
        assert!(!phrase_set("thread per element").contains("per thread"));
    }

    #[test]
    fn code_tokens_keep_identifiers_whole() {
        let s = code_set("out[i] = __ldg(&in[i]) * 2.0f;");
        assert!(s.contains("__ldg"));
        assert!(s.contains("out"));
        assert!(s.contains("0f"));
    }
}
