//! The readers: what a tool call will do to which sites, read from the
//! event alone (and the tab map it is handed). Pure: no state I/O, no clock.
//!
//! Default deny: a reader that cannot show an input harmless never concludes
//! "no site" or "no request"; it answers "every known site" or a block with
//! its reason.

pub(crate) mod matcher;
pub(crate) mod profile;
pub(crate) mod resolve;
pub(crate) mod script;
pub(crate) mod site;
pub(crate) mod url;
