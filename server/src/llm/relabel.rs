//! The model's relabel pass (`graph build --relabel-with-llm`): where the vocabulary itself can
//! only guess which technique a free-form step name denotes, the model is shown the vocabulary and
//! the step and names one technique, or says none fits. Its answer is checked against the
//! vocabulary; anything else is an error for that name, never a guess.

use crate::graph::Vocabulary;
use crate::graph::vocab::INIT;

use super::{CallControl, ChatModel, ChatRequest, LlmError, Message};

#[derive(Debug, thiserror::Error)]
pub enum RelabelError {
    #[error(transparent)]
    Model(#[from] LlmError),
    #[error("the model's answer names no technique of the vocabulary: {0:?}")]
    Unusable(String),
}

/// What the model is asked about: the name as written and what the step did.
#[derive(Debug, Clone, Copy)]
pub struct Question<'a> {
    pub name: &'a str,
    pub detail: &'a str,
}

const SYSTEM: &str = "You sort the steps of CUDA kernel optimizations into a fixed list of \
techniques. Answer with exactly one technique name from the list, written as in the list, or \
with `none` if no technique in the list fits the step. Write nothing else.";

/// The request for one name: the techniques (without `init`, the serial code) with their
/// one-line descriptions, then the step.
pub fn request(vocab: &Vocabulary, q: Question<'_>) -> ChatRequest {
    let mut user = String::from("Techniques:\n");
    for t in vocab.techniques().iter().filter(|t| t.name != INIT) {
        user.push_str(&format!("- {}: {}\n", t.name, t.description));
    }
    user.push_str(&format!(
        "\nStep name: {}\nWhat the step did: {}\n\nWhich technique of the list is this step? \
         Answer with its name only.",
        q.name.trim(),
        q.detail.trim()
    ));
    let mut r = ChatRequest::new(vec![Message::system(SYSTEM), Message::user(user)]);
    r.max_tokens = 32;
    r
}

/// The technique the answer names (the first word that is one), `None` for `none`.
pub fn parse(vocab: &Vocabulary, answer: &str) -> Result<Option<String>, RelabelError> {
    let words: Vec<&str> = answer
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    if let Some(t) = words
        .iter()
        .find(|w| **w != INIT && vocab.index_of(w).is_some())
    {
        return Ok(Some((*t).to_string()));
    }
    if words
        .first()
        .is_some_and(|w| w.eq_ignore_ascii_case("none"))
    {
        return Ok(None);
    }
    Err(RelabelError::Unusable(answer.chars().take(200).collect()))
}

/// Asks the model about one name.
pub async fn ask(
    model: &dyn ChatModel,
    vocab: &Vocabulary,
    q: Question<'_>,
    control: &CallControl,
) -> Result<Option<String>, RelabelError> {
    let response = model.chat(&request(vocab, q), control).await?;
    parse(vocab, &response.text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab() -> Vocabulary {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../graph-data/techniques.toml");
        Vocabulary::load(&path).unwrap()
    }

    #[test]
    fn the_request_lists_every_technique_but_init_and_the_step() {
        let v = vocab();
        let r = request(
            &v,
            Question {
                name: "  unroll the row loop by two ",
                detail: "two rows per iteration",
            },
        );
        let user = &r.messages[1].content;
        assert_eq!(user.matches("\n- ").count(), v.len() - 1, "{user}");
        assert!(!user.contains("- init:"));
        assert!(user.contains("Step name: unroll the row loop by two\n"));
        assert!(user.contains("What the step did: two rows per iteration\n"));
        assert_eq!(r.temperature, 0.0, "decisions must be reproducible");
    }

    #[test]
    fn answers_are_held_to_the_vocabulary() {
        let v = vocab();
        assert_eq!(
            parse(&v, "loop_unrolling").unwrap().as_deref(),
            Some("loop_unrolling")
        );
        assert_eq!(
            parse(&v, "`thread_coarsening`.").unwrap().as_deref(),
            Some("thread_coarsening")
        );
        assert_eq!(
            parse(&v, "The technique is: warp_per_row")
                .unwrap()
                .as_deref(),
            Some("warp_per_row")
        );
        assert_eq!(parse(&v, "none").unwrap(), None);
        assert_eq!(parse(&v, "None.").unwrap(), None);
        assert!(matches!(
            parse(&v, "loop unrolling"),
            Err(RelabelError::Unusable(_))
        ));
        assert!(parse(&v, "init").is_err(), "the serial code is not a step");
        assert!(parse(&v, "").is_err());
    }
}
