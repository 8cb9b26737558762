//! Claude Code's plugins as its own records say, and pace-hook's plugin
//! placed where it lasts.
//!
//! **How Claude Code loads a plugin** (2.1.332, checked by `tests/plugin.rs`
//! against the real `claude plugin` commands): a plugin is enabled by
//! `enabledPlugins` in a settings file (user, project, local; the later
//! wins), and comes from a marketplace recorded in
//! `<plugins>/known_marketplaces.json`, where `<plugins>` is
//! `$CLAUDE_CODE_PLUGIN_CACHE_DIR`, else `plugins/` in Claude Code's
//! directory. What it loads depends on the marketplace's source:
//!
//! - a **directory** marketplace (`claude plugin marketplace add DIR`) is
//!   read in place: the plugin runs from `DIR/<its source>`, and the copy in
//!   `<plugins>/cache/` is not used. Moving or deleting `DIR` stops the
//!   plugin with no word at all; only `claude plugin list` says "failed to
//!   load: cache-miss".
//! - any other marketplace (a git URL, `owner/repo`) is cloned, and the
//!   plugin runs from its copy in the cache (`installPath` in
//!   `<plugins>/installed_plugins.json`), which lasts when the source goes.
//!
//! So a plugin added from a checkout lasts as long as the checkout. `pace-hook
//! install --plugin` writes the plugin (the same files as `plugin/` in the
//! repository, built into the binary) to a directory of pace-hook's own that
//! nothing else moves, and adds that directory as the marketplace.
//!
//! Invariant: reading the records writes nothing; what cannot be read is
//! said, never taken as "no plugin".

use std::{
    fs,
    io::ErrorKind,
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::Command,
};

use serde_json::Value;

use crate::{
    commands::settings::{self, Scope},
    error::{Error, Result},
};

/// The plugin's name, and its marketplace's, as `.claude-plugin/` says.
pub(crate) const NAME: &str = "pace-hook";

/// The plugin's id in Claude Code: `plugin@marketplace`.
pub(crate) const ID: &str = "pace-hook@pace-hook";

/// The plugin's files, as they are in the repository, relative to the
/// marketplace's root.
const FILES: [(&str, &str, u32); 4] = [
    (
        ".claude-plugin/marketplace.json",
        include_str!("../../.claude-plugin/marketplace.json"),
        0o644,
    ),
    (
        "plugin/.claude-plugin/plugin.json",
        include_str!("../../plugin/.claude-plugin/plugin.json"),
        0o644,
    ),
    (
        "plugin/hooks/hooks.json",
        include_str!("../../plugin/hooks/hooks.json"),
        0o644,
    ),
    (
        "plugin/hooks/pace-hook-launcher",
        include_str!("../../plugin/hooks/pace-hook-launcher"),
        0o755,
    ),
];

/// Claude Code's plugins directory for the user directory `user_dir`.
pub(crate) fn plugins_dir(user_dir: &Path) -> PathBuf {
    match std::env::var_os("CLAUDE_CODE_PLUGIN_CACHE_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => user_dir.join("plugins"),
    }
}

/// An enabled plugin, and where Claude Code loads it from.
#[derive(Debug, Clone)]
pub(crate) struct Plugin {
    /// `name@marketplace`.
    pub(crate) id: String,
    /// The settings file whose `enabledPlugins` enables it.
    pub(crate) enabled_in: PathBuf,
    /// The folder it runs from, or why Claude Code cannot load it.
    pub(crate) loads: std::result::Result<Folder, String>,
}

/// The folder a plugin runs from (its `${CLAUDE_PLUGIN_ROOT}`).
#[derive(Debug, Clone)]
pub(crate) struct Folder {
    pub(crate) root: PathBuf,
    /// Read in place from a directory marketplace (so it lasts as long as
    /// that directory), rather than from Claude Code's cache.
    pub(crate) in_place: bool,
}

impl Plugin {
    /// Whether this is pace-hook's plugin, by its name (a plugin that fails
    /// to load cannot be read to tell otherwise).
    pub(crate) fn is_pace_hook(&self) -> bool {
        self.id.split('@').next() == Some(NAME)
    }
}

/// Every plugin the settings files enable for `project`, with where each
/// loads from. `Err` for a record that exists and cannot be read.
pub(crate) fn enabled(
    user_dir: Option<&Path>,
    project: Option<&Path>,
) -> std::result::Result<Vec<Plugin>, String> {
    let mut on: Vec<(String, PathBuf, Scope)> = Vec::new();
    for (scope, path) in settings::files(user_dir, project) {
        let Some(json) = read_json(&path)? else {
            continue;
        };
        let Some(map) = json.get("enabledPlugins").and_then(Value::as_object) else {
            continue;
        };
        for (id, value) in map {
            on.retain(|(i, _, _)| i != id);
            // `false` disables; Claude Code's older lists and anything else
            // are read as enabled, so that doctor never misses a route.
            if value != &Value::Bool(false) {
                on.push((id.clone(), path.clone(), scope));
            }
        }
    }
    let Some(user_dir) = user_dir else {
        return Ok(Vec::new());
    };
    let dir = plugins_dir(user_dir);
    let known = read_json(&dir.join("known_marketplaces.json"))?;
    let installed = read_json(&dir.join("installed_plugins.json"))?;
    Ok(on
        .into_iter()
        .filter(|(id, _, _)| !id.ends_with("@builtin"))
        .map(|(id, enabled_in, scope)| {
            let loads = folder(&id, scope, project, known.as_ref(), installed.as_ref());
            Plugin {
                id,
                enabled_in,
                loads,
            }
        })
        .collect())
}

/// Where plugin `id` runs from, or why it cannot be loaded.
fn folder(
    id: &str,
    scope: Scope,
    project: Option<&Path>,
    known: Option<&Value>,
    installed: Option<&Value>,
) -> std::result::Result<Folder, String> {
    let (name, market) = id
        .split_once('@')
        .ok_or_else(|| format!("`{id}` is not a `plugin@marketplace` id"))?;
    let record = known.and_then(|k| k.get(market)).ok_or_else(|| {
        format!("its marketplace `{market}` is not in Claude Code's known_marketplaces.json")
    })?;
    let directory = record["source"]["source"] == "directory";
    if directory {
        let location = record["installLocation"]
            .as_str()
            .or_else(|| record["source"]["path"].as_str())
            .map(PathBuf::from)
            .ok_or_else(|| format!("its marketplace `{market}` has no directory recorded"))?;
        let manifest = location.join(".claude-plugin").join("marketplace.json");
        let market_json = match read_json(&manifest) {
            Ok(Some(v)) => v,
            Ok(None) => {
                return Err(format!(
                    "its marketplace is the directory `{}`, which Claude Code reads in place, and `{}` is gone (moved or deleted), so Claude Code cannot load it (`claude plugin list`: \"failed to load: cache-miss\")",
                    location.display(),
                    manifest.display()
                ));
            }
            Err(e) => return Err(e),
        };
        let entry = market_json["plugins"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| p["name"] == name)
            .ok_or_else(|| format!("`{}` lists no plugin `{name}`", manifest.display()))?;
        if let Some(source) = entry["source"].as_str() {
            let root = location.join(source.trim_start_matches("./"));
            if !root.is_dir() {
                return Err(format!(
                    "it is read in place from `{}`, which does not exist",
                    root.display()
                ));
            }
            return Ok(Folder {
                root,
                in_place: true,
            });
        }
    }
    let installs = installed
        .and_then(|i| i["plugins"].get(id))
        .and_then(Value::as_array)
        .ok_or_else(|| "it is enabled but not installed (`claude plugin install`)".to_owned())?;
    let wanted = match scope {
        Scope::User => "user",
        Scope::Project => "project",
        Scope::Local => "local",
    };
    let install = installs
        .iter()
        .find(|i| {
            i["scope"] == wanted
                && (scope == Scope::User
                    || project.is_some_and(|p| i["projectPath"].as_str() == p.to_str()))
        })
        .or_else(|| installs.first())
        .ok_or_else(|| "it is enabled but not installed (`claude plugin install`)".to_owned())?;
    let root = install["installPath"]
        .as_str()
        .map(PathBuf::from)
        .ok_or_else(|| "its install has no path recorded".to_owned())?;
    if !root.is_dir() {
        return Err(format!(
            "its copy in Claude Code's cache, `{}`, is gone",
            root.display()
        ));
    }
    Ok(Folder {
        root,
        in_place: false,
    })
}

/// A JSON file: `None` when missing, `Err` when unreadable.
fn read_json(path: &Path) -> std::result::Result<Option<Value>, String> {
    match fs::read_to_string(path) {
        // As Claude Code reads its JSON files (`settings::parse`): a lone
        // surrogate escape is read, a BOM is not.
        Ok(text) => match crate::commands::settings::parse(
            &crate::commands::settings::Format::CLAUDE,
            &text,
        ) {
            Ok(v) => Ok(Some(v.unwrap_or_else(|| Value::Object(Default::default())))),
            Err(p) => Err(format!("`{}` {}", path.display(), p.problem)),
        },
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("`{}` cannot be read ({e})", path.display())),
    }
}

/// The pace-hook plugin, when the settings enable it and it loads: the
/// folder it runs from.
pub(crate) fn loaded_pace_hook(
    user_dir: Option<&Path>,
    project: Option<&Path>,
) -> Option<(Plugin, Folder)> {
    enabled(user_dir, project)
        .ok()?
        .into_iter()
        .filter(Plugin::is_pace_hook)
        .find_map(|p| p.loads.clone().ok().map(|f| (p, f)))
}

/// Where `install --plugin` puts the marketplace: pace-hook's own data
/// directory (`$XDG_DATA_HOME/pace-hook`, else `~/.local/share/pace-hook`;
/// `~/Library/Application Support/pace-hook` on macOS), which no checkout,
/// `cargo clean` or `claude plugin uninstall` touches.
pub(crate) fn lasting_dir() -> Result<PathBuf> {
    let home = || {
        std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
    };
    let base = if cfg!(target_os = "macos") {
        home().map(|h| h.join("Library").join("Application Support"))
    } else {
        std::env::var_os("XDG_DATA_HOME")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| home().map(|h| h.join(".local").join("share")))
    };
    base.map(|b| b.join("pace-hook").join("claude-plugin"))
        .ok_or_else(|| Error::Settings {
            path: PathBuf::from("~/.local/share/pace-hook"),
            problem: "cannot be found: HOME is not set".into(),
            fix: "set HOME (or XDG_DATA_HOME)".into(),
        })
}

/// `pace-hook install --plugin`: write the plugin where it lasts, add that
/// directory as the `pace-hook` marketplace and install the plugin from it,
/// through the `claude` command on PATH.
pub(crate) fn install() -> Result<String> {
    let dir = lasting_dir()?;
    for (name, text, mode) in FILES {
        write_file(&dir.join(name), text, mode)?;
    }
    let mut out = format!(
        "placed pace-hook's Claude Code plugin in `{}`, where it lasts (Claude Code reads a directory marketplace in place)\n",
        dir.display()
    );
    let dir_text = dir.to_string_lossy().into_owned();
    let claude = claude_program().ok_or_else(|| Error::Settings {
        path: dir.clone(),
        problem: "holds the plugin, but `claude` is not on PATH to add it".into(),
        fix: format!(
            "run `claude plugin marketplace add {}` and `claude plugin install {ID}`",
            settings::shell_quote(&dir_text)
        ),
    })?;
    for args in [
        &["plugin", "marketplace", "add", dir_text.as_str()][..],
        &["plugin", "install", ID],
    ] {
        let said = run_claude(&claude, args, &dir)?;
        out += &format!("  claude {}: {said}\n", args.join(" "));
    }
    out += "  the hook runs at Claude Code's next session start; `pace-hook doctor` checks it\n";
    Ok(out)
}

/// `pace-hook uninstall --plugin`: uninstall the plugin, forget the
/// marketplace when it is the directory `install --plugin` made, and
/// remove that directory.
pub(crate) fn uninstall() -> Result<String> {
    let dir = lasting_dir()?;
    let dir_text = dir.to_string_lossy().into_owned();
    let claude = claude_program().ok_or_else(|| Error::Settings {
        path: dir.clone(),
        problem: "cannot be taken out of Claude Code: `claude` is not on PATH".into(),
        fix: format!(
            "run `claude plugin uninstall {ID}` and `claude plugin marketplace remove {NAME}`"
        ),
    })?;
    let mut out = String::new();
    let records = settings::claude_home().ok().map(|u| plugins_dir(&u));
    let record = |name: &str| {
        records
            .as_ref()
            .and_then(|d| read_json(&d.join(name)).ok().flatten())
    };
    if record("installed_plugins.json").is_some_and(|i| i["plugins"].get(ID).is_some()) {
        let said = run_claude(&claude, &["plugin", "uninstall", ID], &dir)?;
        out += &format!("claude plugin uninstall {ID}: {said}\n");
    } else {
        out += &format!("the plugin {ID} is not installed in Claude Code\n");
    }
    let ours = record("known_marketplaces.json")
        .is_some_and(|k| k[NAME]["installLocation"].as_str() == Some(dir_text.as_str()));
    if ours {
        let said = run_claude(&claude, &["plugin", "marketplace", "remove", NAME], &dir)?;
        out += &format!("claude plugin marketplace remove {NAME}: {said}\n");
    }
    match fs::remove_dir_all(&dir) {
        Ok(()) => out += &format!("removed `{}`\n", dir.display()),
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io("remove", &dir, e)),
    }
    Ok(out)
}

/// `claude` on PATH.
fn claude_program() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("claude"))
        .find(|p| p.is_file())
}

/// Run `claude ARGS`; its last line of output, or an error with all of it.
fn run_claude(claude: &Path, args: &[&str], dir: &Path) -> Result<String> {
    let out = Command::new(claude)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| Error::io("run", claude, e))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let last = text
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or("")
        .to_owned();
    if out.status.success() {
        Ok(last)
    } else {
        Err(Error::Settings {
            path: dir.to_owned(),
            problem: format!(
                "holds the plugin, but `claude {}` failed: {}",
                args.join(" "),
                text.trim()
            ),
            fix: "fix what it says".into(),
        })
    }
}

/// Write `text` to `path` (made private to this user's writes: others may
/// read, nobody else may write), through a temporary file and a rename.
fn write_file(path: &Path, text: &str, mode: u32) -> Result<()> {
    let dir = path.parent().expect("a file in a directory");
    fs::create_dir_all(dir).map_err(|e| Error::io("create directory", dir, e))?;
    let temp = dir.join(format!(
        ".{}.pace-hook-{}.tmp",
        path.file_name().unwrap_or_default().to_string_lossy(),
        std::process::id()
    ));
    let done = fs::write(&temp, text)
        .and_then(|()| fs::set_permissions(&temp, fs::Permissions::from_mode(mode)))
        .and_then(|()| fs::rename(&temp, path));
    if let Err(e) = done {
        let _ = fs::remove_file(&temp);
        return Err(Error::io("write", path, e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let p =
            std::env::temp_dir().join(format!("pace-hook-plugin-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&p);
        fs::create_dir_all(&p).unwrap();
        p
    }

    #[test]
    fn the_files_written_are_the_repositorys_plugin() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        for (name, text, mode) in FILES {
            assert_eq!(fs::read_to_string(root.join(name)).unwrap(), text, "{name}");
            let on_disk = fs::metadata(root.join(name)).unwrap().permissions().mode() & 0o111;
            assert_eq!(on_disk != 0, mode & 0o111 != 0, "{name}");
        }
    }

    #[test]
    fn a_directory_marketplace_that_moved_does_not_load() {
        let t = temp("moved");
        let known = serde_json::json!({"pace-hook": {
            "source": {"source": "directory", "path": t.join("gone")},
            "installLocation": t.join("gone"),
        }});
        let e = folder(ID, Scope::User, None, Some(&known), None).unwrap_err();
        assert!(e.contains("is gone (moved or deleted)"), "{e}");
        for (name, text, _) in FILES {
            write_file(&t.join("here").join(name), text, 0o644).unwrap();
        }
        let known = serde_json::json!({"pace-hook": {
            "source": {"source": "directory", "path": t.join("here")},
            "installLocation": t.join("here"),
        }});
        let f = folder(ID, Scope::User, None, Some(&known), None).unwrap();
        assert_eq!(f.root, t.join("here").join("plugin"));
        assert!(f.in_place);
        let _ = fs::remove_dir_all(&t);
    }

    #[test]
    fn a_cloned_marketplace_loads_from_the_cache() {
        let t = temp("cache");
        let known = serde_json::json!({"pace-hook": {
            "source": {"source": "git", "url": "https://example.com/x.git"},
            "installLocation": t.join("clone"),
        }});
        let installed = serde_json::json!({"version": 2, "plugins": {ID: [
            {"scope": "user", "installPath": t.join("cache")}
        ]}});
        let e = folder(ID, Scope::User, None, Some(&known), Some(&installed)).unwrap_err();
        assert!(e.contains("is gone"), "{e}");
        fs::create_dir_all(t.join("cache")).unwrap();
        let f = folder(ID, Scope::User, None, Some(&known), Some(&installed)).unwrap();
        assert_eq!((f.root, f.in_place), (t.join("cache"), false));
        assert!(folder(ID, Scope::User, None, None, Some(&installed)).is_err());
        let _ = fs::remove_dir_all(&t);
    }
}
