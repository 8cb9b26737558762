//! OpenAI Codex CLI. Its events are Claude Code's (`PreToolUse`,
//! `PostToolUse`; no `PostToolUseFailure`: a failed call gets no Post), with
//! `turn_id` and `model` beside them; MCP tools reach the hook as
//! `mcp__<server>__<tool>` (seen with 0.169.0), and its shell tool
//! (`exec_command`) as `Bash` with `command`, its Post's `tool_response` the
//! output as a string (seen with 0.171.0, which the end-to-end suite runs).
//!
//! Its answers are checked against a schema with `additionalProperties:
//! false`, and its parser fails the hook (and the call then runs) for
//! `permissionDecision: "allow"` without `updatedInput`, for `ask`, for a
//! deny without a reason, and for `continue: false`, `stopReason` or
//! `suppressOutput` on a Pre. So pace-hook answers with the least that
//! works: a block is exit 2 with the reason on stderr (which must not be
//! empty, or the exit does not block), a note for the model is
//! `hookSpecificOutput: {hookEventName, additionalContext}`, a pass is exit
//! 0 with nothing on stdout. Its timeout is `timeout` in seconds (600 by
//! default).
//!
//! Those are the answers Claude Code reads too, so `Client::answer` gives
//! Codex Claude Code's; `every_codex_answer_fits_its_schema_and_parser`
//! holds them to Codex's schema.
