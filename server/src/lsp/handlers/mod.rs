//! One file per request or notification (the ruff_server layout).

pub mod code_action;
pub mod configuration;
pub mod did_change;
pub mod did_close;
pub mod did_open;
pub mod did_save;
pub mod execute_command;
pub mod hover;
pub mod initialize;
pub mod progress_cancel;
pub mod publish;
