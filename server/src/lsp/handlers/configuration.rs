//! Settings from `workspace/configuration` (section `cudaOffload`), pulled after `initialized`
//! and again on `workspace/didChangeConfiguration`.

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::{ConfigurationItem, DidChangeConfigurationParams};

use crate::lsp::state::{LspSettings, State};

pub async fn pull(client: &Client, state: &State) {
    if !*state.client_supports_configuration.read().expect("lock") {
        return;
    }
    let item = ConfigurationItem {
        scope_uri: None,
        section: Some("cudaOffload".into()),
    };
    match client.configuration(vec![item]).await {
        Ok(values) => {
            if let Some(value) = values.into_iter().next().filter(|v| !v.is_null()) {
                apply(state, value);
            }
        }
        Err(e) => tracing::warn!("workspace/configuration failed: {e}"),
    }
}

pub async fn changed(client: &Client, state: &State, params: DidChangeConfigurationParams) {
    // Some clients push the settings, others send null and expect a pull.
    let pushed = params
        .settings
        .get("cudaOffload")
        .cloned()
        .filter(|v| !v.is_null());
    match pushed {
        Some(v) => apply(state, v),
        None => pull(client, state).await,
    }
}

fn apply(state: &State, value: serde_json::Value) {
    match merge(&state.settings(), &value) {
        Ok(s) => {
            *state.settings.write().expect("settings lock") = s;
            state.settings_changed();
        }
        Err(e) => tracing::warn!("ignoring invalid cudaOffload settings: {e}"),
    }
}

/// Merges over the current settings: a client may send only the keys the user set. A null clears
/// an optional setting (`nvccPath: null` goes back to discovery) and leaves the others alone.
pub fn merge(
    current: &LspSettings,
    value: &serde_json::Value,
) -> Result<LspSettings, serde_json::Error> {
    let defaults = serde_json::to_value(LspSettings::default()).unwrap_or_default();
    let mut merged = serde_json::to_value(current).unwrap_or_default();
    if let (Some(base), Some(new)) = (merged.as_object_mut(), value.as_object()) {
        for (k, v) in new {
            let optional = defaults.get(k).is_some_and(serde_json::Value::is_null);
            if !v.is_null() || optional {
                base.insert(k.clone(), v.clone());
            }
        }
    }
    serde_json::from_value::<LspSettings>(merged)
}
