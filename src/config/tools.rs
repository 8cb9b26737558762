//! Tools the user declares with `[[tool]]`: how each is treated.

use serde::{Deserialize, Serialize};

/// How a declared tool is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolClass {
    /// Paced on its site.
    Pace,
    /// Passed at once, uncounted.
    Skip,
    /// Blocked with the declared reason.
    Block,
}

/// A tool the user declared with `[[tool]]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolRule {
    /// A regex over the full tool name, anchored at both ends.
    pub pattern: String,
    /// How its calls are treated.
    pub class: ToolClass,
    /// JSON pointer into the input to the URL the call goes to.
    pub url: Option<String>,
    /// JSON pointer into the input to JavaScript to analyse.
    pub code: Option<String>,
    /// For `block`: what the model is told.
    pub reason: Option<String>,
    /// For `pace`: the host its calls reach, when the input names no URL
    /// (a hosted service's MCP server: GitHub's `create_issue` is a request
    /// to github.com). From the rule's `site`, or a `[[site]]`'s preset.
    #[serde(default)]
    pub site: Option<String>,
}
