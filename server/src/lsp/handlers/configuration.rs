//! Settings from `workspace/configuration` (section `cudaOffload`), pulled after `initialized`
//! and again on `workspace/didChangeConfiguration`.

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::{ConfigurationItem, DidChangeConfigurationParams};

use crate::lsp::state::{LspSettings, State};

pub async fn pull(client: &Client, state: &State) {
    if !*state.client_supports_configuration.read().expect("lock") {
        return;
    }
    let item = ConfigurationItem { scope_uri: None, section: Some("cudaOffload".into()) };
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
    let pushed = params.settings.get("cudaOffload").cloned().filter(|v| !v.is_null());
    match pushed {
        Some(v) => apply(state, v),
        None => pull(client, state).await,
    }
}

fn apply(state: &State, value: serde_json::Value) {
    // Merge over the current settings: a client may send only the keys the user set.
    let mut merged = serde_json::to_value(state.settings()).unwrap_or_default();
    if let (Some(base), Some(new)) = (merged.as_object_mut(), value.as_object()) {
        for (k, v) in new {
            if !v.is_null() {
                base.insert(k.clone(), v.clone());
            }
        }
    }
    match serde_json::from_value::<LspSettings>(merged) {
        Ok(s) => *state.settings.write().expect("settings lock") = s,
        Err(e) => tracing::warn!("ignoring invalid cudaOffload settings: {e}"),
    }
}
