//! `graph build --relabel-with-llm`: asks a model about the technique names the vocabulary can only
//! guess or cannot place, and records its decisions in `graph-data/relabel.json` before the build
//! (which, like every later build, reads them).

use std::collections::BTreeMap;

use anyhow::Context;

use crate::config::{ModelArgs, Settings};
use crate::graph::GraphData;
use crate::graph::learned::{LearnedLabel, LearnedLabels};
use crate::graph::trajectory::load_dir;
use crate::graph::verification::today_utc;
use crate::graph::vocab::MatchKind;
use crate::llm::relabel::{Question, RelabelError, ask};
use crate::llm::{CallControl, connect};

pub fn relabel_with_llm(data: &GraphData, flags: &ModelArgs) -> anyhow::Result<()> {
    let vocab = data.vocabulary()?;
    // Each uncertain name once, with the detail of its first step: trajectory order, so that the
    // questions (and a replayed cassette) are the same from run to run.
    let mut questions: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for located in load_dir(&data.trajectories())? {
        for step in &located.trajectory.steps {
            if vocab.is_uncertain(&step.technique) && !questions.contains_key(&step.technique) {
                let order = questions.len();
                questions.insert(step.technique.clone(), (order, step.detail.clone()));
            }
        }
    }
    let mut ordered: Vec<(&String, &(usize, String))> = questions.iter().collect();
    ordered.sort_by_key(|(_, (order, _))| *order);
    if ordered.is_empty() {
        eprintln!("relabel: the vocabulary places every technique name; nothing to ask");
        return Ok(());
    }
    let (settings, _) = Settings::load(&data.root, |k| std::env::var(k).ok(), &flags.layer())?;
    let model = connect(&settings.backend_config()).context("cannot reach the model")?;
    eprintln!(
        "relabel: asking {} about {} name(s) the vocabulary can only guess or cannot place",
        model.describe(),
        ordered.len()
    );
    let path = data.learned_labels();
    let mut labels = LearnedLabels::load(&path)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let control = CallControl::default();
    let (mut decided, mut failed) = (0, 0);
    let save = |labels: &LearnedLabels| {
        labels
            .save(&path)
            .with_context(|| format!("cannot write {}", path.display()))
    };
    for (name, (_, detail)) in ordered {
        let q = Question { name, detail };
        match runtime.block_on(ask(model.as_ref(), &vocab, q, &control)) {
            Ok(technique) => {
                // Beside the vocabulary's own guess, for whoever reviews relabel.json.
                let guess = match vocab.relabel(name) {
                    Some(r) => format!(
                        "similarity guessed {} ({:.2})",
                        vocab.techniques()[r.index].name,
                        match r.how {
                            MatchKind::Similar(score) => score,
                            _ => 1.0,
                        }
                    ),
                    None => "no similarity guess".into(),
                };
                eprintln!(
                    "relabel: `{name}` → {}; {guess}",
                    technique.as_deref().unwrap_or("none (stays unmatched)")
                );
                labels.insert(
                    name.clone(),
                    LearnedLabel {
                        technique,
                        model: model.model().to_string(),
                        date: today_utc(),
                    },
                );
                decided += 1;
            }
            Err(RelabelError::Unusable(answer)) => {
                // Not recorded: the next run asks again; the build relabels it as before.
                eprintln!(
                    "relabel: `{name}`: the answer names no technique of the vocabulary: {answer:?}"
                );
                failed += 1;
            }
            Err(RelabelError::Model(e)) => {
                // A model that is down or failing answers no further question either: keep what
                // was decided and stop before the build.
                if decided > 0 {
                    save(&labels)?;
                }
                return Err(e).context(format!(
                    "relabel: asking about `{name}` ({decided} decision(s) kept)"
                ));
            }
        }
    }
    if decided > 0 {
        save(&labels)?;
    }
    eprintln!(
        "relabel: {decided} decision(s) written to {}, {failed} name(s) left as they were",
        path.display()
    );
    Ok(())
}
