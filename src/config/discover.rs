//! Where the config is found: `PACE_HOOK_CONFIG`, the project's file, the
//! user's file, else the defaults; `PACE_HOOK_BACKEND` over the backend.

use std::{
    env,
    path::{Path, PathBuf},
};

use super::{Config, cache, parse_backend};
use crate::error::{Error, Result};

/// The backend URL from `PACE_HOOK_BACKEND`, which overrides the config's.
const BACKEND_VAR: &str = "PACE_HOOK_BACKEND";

/// Whether a load uses the parsed copy in the state directory.
#[derive(Clone, Copy)]
enum ParsedCopy {
    /// Read it while the file is unchanged, write it after a parse: hooks.
    Kept,
    /// Parse the file and write nothing: `status` and `doctor`.
    None,
}

impl Config {
    /// Find and load the config: `PACE_HOOK_CONFIG`, else
    /// `$CLAUDE_PROJECT_DIR/.claude/pace-hook.toml`, else
    /// `$XDG_CONFIG_HOME/pace-hook/config.toml` (`~/.config/...`), else the
    /// defaults. A file named by `PACE_HOOK_CONFIG` must exist.
    /// `PACE_HOOK_BACKEND` overrides the backend.
    pub fn discover() -> Result<Self> {
        let project = env::var_os("CLAUDE_PROJECT_DIR").filter(|p| !p.is_empty());
        Self::discover_for(project.as_deref().map(Path::new))
    }

    /// [`Config::discover`] as a hook of the Claude Code project `project`
    /// would: `project` stands for `$CLAUDE_PROJECT_DIR`, which only hooks
    /// have (`install` runs in a plain shell).
    pub fn discover_for(project: Option<&Path>) -> Result<Self> {
        Self::find(project, ParsedCopy::Kept)
    }

    /// The config a hook run for `project_dir` would load (as
    /// [`Self::discover`] with `CLAUDE_PROJECT_DIR` set to it), read fresh
    /// from its file: nothing is written, not even the parsed copy kept in
    /// the state directory. For `status` and `doctor`, which run from a
    /// terminal where `CLAUDE_PROJECT_DIR` is not set, and must not write.
    pub fn read_for(project_dir: Option<&Path>) -> Result<Self> {
        Self::find(project_dir, ParsedCopy::None)
    }

    /// The project a hook would run for, seen from a terminal:
    /// `CLAUDE_PROJECT_DIR` when set, else the current directory.
    pub fn project_dir() -> Option<PathBuf> {
        env::var_os("CLAUDE_PROJECT_DIR")
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
            .or_else(|| env::current_dir().ok())
    }

    /// The one discovery: the file `PACE_HOOK_CONFIG` names, else the first
    /// of [`candidate_paths`] that exists, else the defaults; then
    /// `PACE_HOOK_BACKEND` over the backend.
    fn find(project: Option<&Path>, copy: ParsedCopy) -> Result<Self> {
        let load = |path: &Path| match copy {
            ParsedCopy::Kept => Self::load(path),
            ParsedCopy::None => Self::load_text(path),
        };
        let mut config = match env::var_os("PACE_HOOK_CONFIG").filter(|p| !p.is_empty()) {
            Some(path) => load(Path::new(&path))?,
            None => {
                let mut found = Self::default();
                for path in candidate_paths(project) {
                    match load(&path) {
                        Err(Error::ConfigRead { source, .. })
                            if source.kind() == std::io::ErrorKind::NotFound =>
                        {
                            continue;
                        }
                        other => {
                            found = other?;
                            break;
                        }
                    }
                }
                found
            }
        };
        if let Some(url) = env::var(BACKEND_VAR).ok().filter(|v| !v.trim().is_empty()) {
            config.backend = parse_backend(&url).map_err(|message| Error::Config {
                path: PathBuf::from(format!("${BACKEND_VAR}")),
                line: None,
                message,
            })?;
        }
        Ok(config)
    }

    /// Load the config at `path`, from the parsed copy in the state
    /// directory while the file is unchanged.
    pub fn load(path: &Path) -> Result<Self> {
        let cached = cache::read(path);
        if let Some(c) = cached.0 {
            return Ok(c);
        }
        let c = Self::load_text(path)?;
        if let Some(key) = cached.1 {
            cache::write(path, &key, &c);
        }
        Ok(c)
    }

    /// The config at `path` parsed again, for a cached one found damaged
    /// after it was loaded; with `write`, cached again in its place.
    pub(super) fn reload(path: &Path, write: bool) -> Result<Self> {
        let key = if write { cache::key_of(path) } else { None };
        let c = Self::load_text(path)?;
        if let Some(key) = key {
            cache::write(path, &key, &c);
        }
        Ok(c)
    }

    fn load_text(path: &Path) -> Result<Self> {
        let text = read_regular(path).map_err(|source| Error::ConfigRead {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(&text, path)
    }
}

/// The text of the regular file at `path`. Anything else (a FIFO would hang
/// the hook until its timeout, which lets the call through) is refused.
fn read_regular(path: &Path) -> std::io::Result<String> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    if !f.metadata()?.is_file() {
        return Err(std::io::Error::other(
            "not a regular file; a config must be a plain TOML file",
        ));
    }
    // Read to the same bound as the state's files (a config of 100,000
    // sites is a few megabytes): reading a planted giant whole could hold
    // the hook past its client's timeout, which lets the call through.
    let mut bytes = Vec::new();
    crate::state_dir::read_all(&f, &mut bytes)?;
    String::from_utf8(bytes)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))
}

fn candidate_paths(project: Option<&Path>) -> Vec<PathBuf> {
    let mut paths = Vec::with_capacity(2);
    if let Some(dir) = project {
        paths.push(dir.join(".claude").join("pace-hook.toml"));
    }
    paths.extend(user_config_path());
    paths
}

/// `$XDG_CONFIG_HOME/pace-hook/config.toml`, else `~/.config/…`.
fn user_config_path() -> Option<PathBuf> {
    env::var_os("XDG_CONFIG_HOME")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|h| Path::new(&h).join(".config")))
        .map(|dir| dir.join("pace-hook").join("config.toml"))
}
