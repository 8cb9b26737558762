//! What the runs are made of: state directories, configs, the events each case
//! sends.

#[allow(unused_imports)]
use super::*;

/// The state directories of one run, removed at the end.
pub(crate) struct WorkDir {
    pub(crate) root: PathBuf,
}

impl WorkDir {
    pub(crate) fn new() -> Self {
        let base = std::env::var_os("PACE_HOOK_BENCH_DIR")
            .filter(|p| !p.is_empty())
            .map_or_else(std::env::temp_dir, PathBuf::from);
        let root = base.join(format!("pace-hook-bench-{}", std::process::id()));
        fs::create_dir_all(&root).expect("bench directory");
        Self { root }
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if std::env::var_os("PACE_HOOK_BENCH_KEEP").is_none() {
            let _ = fs::remove_dir_all(&self.root);
        }
    }
}

/// `path` copied to `work/bin/NAME/`, as an install places a binary, and the
/// copy's path: every program the bench times runs from such a copy.
///
/// How a binary got into the page cache changes what a start costs: on
/// Linux 6 with ext4, a file written whole (`cp`, `cargo install`, or read
/// back from disk) is cached in large folios, and a fault on its code maps
/// the folio; the file a linker has just written page by page is cached in
/// 4 KB pages and faults on each 64 KB window. Seen here: a paced navigate
/// touched 15 code windows from the linker's output and 9 from a copy of it.
/// Timing builds some of which are fresh from the linker and some copied
/// would favour the copies.
pub(crate) fn installed(work: &Path, name: &str, path: &Path) -> PathBuf {
    let dir = work.join("bin").join(name);
    fs::create_dir_all(&dir).expect("bench bin directory");
    let copy = dir.join(path.file_name().expect("a binary has a file name"));
    fs::copy(path, &copy).unwrap_or_else(|e| panic!("copy {}: {e}", path.display()));
    copy
}

/// A state directory with its config: the environment one pace-hook sees.
pub(crate) struct Home {
    pub(crate) root: PathBuf,
    pub(crate) config: PathBuf,
    pub(crate) backend: Option<String>,
}

impl Home {
    pub(crate) fn new(work: &Path, name: &str, config: &str) -> Self {
        let root = work.join(name);
        fs::create_dir_all(&root).expect("state directory");
        let config_path = work.join(format!("{name}.toml"));
        fs::write(&config_path, config).expect("config");
        Self {
            root,
            config: config_path,
            backend: None,
        }
    }

    /// This home, its gate on `backend` (a Redis URL) if any.
    pub(crate) fn on(mut self, backend: Option<String>) -> Self {
        self.backend = backend;
        self
    }

    pub(crate) fn env(&self) -> Vec<(&'static str, PathBuf)> {
        let mut env = vec![
            ("PACE_HOOK_HOME", self.root.clone()),
            ("PACE_HOOK_CONFIG", self.config.clone()),
        ];
        if let Some(url) = &self.backend {
            env.push(("PACE_HOOK_BACKEND", PathBuf::from(url)));
        }
        env
    }

    pub(crate) fn log(&self) -> Vec<LogLine> {
        let text = fs::read_to_string(self.root.join("gate.log")).unwrap_or_default();
        text.lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .enumerate()
            .map(|(line, v)| LogLine::from_json(line, &v))
            .collect()
    }
}

pub(crate) fn one_site_config() -> String {
    // An interval of zero: the gate does all its work (the lock, the state,
    // the decision, the write) and every paced event is due at once, even a
    // script's Pre started right after the Post before it. (With 1 ms, a
    // Pre that came within a millisecond of that Post had to queue.)
    "interval = \"0ms\"\n[[site]]\nname = \"s1\"\ndomains = [\"s1.test\"]\n\
     [[site]]\nname = \"two\"\ndomains = [\"two.test\", \"two-cdn.test\"]\n"
        .to_owned()
}

pub(crate) fn contention_config() -> String {
    format!(
        "interval = \"{CONTENTION_INTERVAL_MS}ms\"\nin_flight_hold = \"120s\"\nmax_wait = \"270s\"\n\
         [[site]]\nname = \"s1\"\ndomains = [\"s1.test\"]\n"
    )
}

/// A thousand sites of two domains each; the first 64 have a long interval so
/// that their waiters stay waiting for the whole per-event run.
pub(crate) fn scale_config() -> String {
    let mut c = String::from("interval = \"1ms\"\nmax_wait = \"600s\"\nstale_after = \"20m\"\n");
    for i in 0..SCALE_SITES {
        let _ = write!(
            c,
            "\n[[site]]\nname = \"site{i:04}\"\ndomains = [\"site{i:04}.test\", \"site{i:04}-cdn.test\"]\n"
        );
        if i < SCALE_WAITERS {
            c.push_str("interval = \"10m\"\n");
        }
    }
    c
}

/// The paced site of the scale run: configured, due, and far down the list.
pub(crate) fn scale_url() -> String {
    format!("https://www.site{:04}.test/a", SCALE_SITES / 2)
}

/// Event templates, made from the captured fixtures; [`ID`] marks where each
/// run's tool_use_id goes.
pub(crate) struct Events {
    pub(crate) skip: Template,
    pub(crate) screenshot: Template,
    /// javascript_tool Pre and Post with a one-line script.
    pub(crate) script_line: (Template, Template),
    /// The same with a realistic script of [`SCRIPT_BYTES`].
    pub(crate) script_10k: (Template, Template),
    /// And of [`SCRIPT_HUGE_BYTES`].
    pub(crate) script_100k: (Template, Template),
    /// Bash Pre of a command with no fetcher's name, `$` or `://`: decided
    /// by the shell profile's pre-filter before any parser runs; and its Post.
    pub(crate) bash_plain: (Template, Template),
    /// Bash Pre of a command the pre-filter sends to the parser (a `$`),
    /// which makes no request.
    pub(crate) bash_parsed: Template,
    /// Bash Pre and Post of one `curl` to one URL.
    pub(crate) bash_curl: (Template, Template),
}

impl Events {
    pub(crate) fn load() -> Self {
        let mut skip = fixture("PreToolUse.navigate.json");
        skip["tool_name"] = json!("mcp__claude-in-chrome__computer");
        skip["tool_input"] = json!({"action": "screenshot", "tabId": 1});
        skip["tool_use_id"] = json!(ID);
        let mut shot = fixture("PostToolUse.computer-screenshot.json");
        shot["tool_use_id"] = json!(ID);
        let data = base64_noise(SCREENSHOT_BYTES);
        let image = shot["tool_response"]
            .as_array_mut()
            .and_then(|blocks| blocks.iter_mut().find(|b| b["type"] == "image"))
            .expect("the screenshot fixture has an image block");
        image["source"]["data"] = json!(data);
        Self {
            skip: Template::new(&skip),
            screenshot: Template::new(&shot),
            script_line: Self::script("document.title"),
            script_10k: Self::script(&realistic_script(SCRIPT_BYTES)),
            script_100k: Self::script(&realistic_script(SCRIPT_HUGE_BYTES)),
            bash_plain: Self::bash(BASH_PLAIN),
            bash_parsed: Self::bash(BASH_PARSED).0,
            bash_curl: Self::bash(BASH_CURL),
        }
    }

    /// Bash's Pre and Post running `command`.
    pub(crate) fn bash(command: &str) -> (Template, Template) {
        let event = |name: &str| {
            let mut e = fixture(name);
            e["tool_input"]["command"] = json!(command);
            e["tool_use_id"] = json!(ID);
            Template::new(&e)
        };
        (
            event("PreToolUse.Bash.json"),
            event("PostToolUse.Bash.json"),
        )
    }

    /// A PreToolUse of javascript_tool running `code` on tab 1, in the
    /// fixture's session (after its navigate), and its PostToolUse.
    pub(crate) fn script(code: &str) -> (Template, Template) {
        let event = |name: &str| {
            let mut e = fixture(name);
            e["tool_input"]["text"] = json!(code);
            e["tool_use_id"] = json!(ID);
            Template::new(&e)
        };
        (
            event("PreToolUse.javascript_tool.json"),
            event("PostToolUse.javascript_tool.json"),
        )
    }

    /// A PreToolUse of navigate to `url`, in the fixture's session.
    pub(crate) fn pre(&self, url: &str) -> Template {
        Self::navigate("PreToolUse.navigate.json", url, None)
    }

    /// A PostToolUse of navigate, with the Tab Context block Claude in Chrome
    /// appends to every result.
    pub(crate) fn post(&self, url: &str) -> Template {
        Self::navigate("PostToolUse.navigate.json", url, None)
    }

    /// [`Self::pre`] from another session. Calls that stand for different
    /// agents must say so: pace-hook takes a new call from an agent as the end
    /// of that agent's previous one.
    pub(crate) fn pre_in(&self, url: &str, session: &str) -> Template {
        Self::navigate("PreToolUse.navigate.json", url, Some(session))
    }

    /// [`Self::post`] from another session.
    pub(crate) fn post_in(&self, url: &str, session: &str) -> Template {
        Self::navigate("PostToolUse.navigate.json", url, Some(session))
    }

    pub(crate) fn navigate(fixture_name: &str, url: &str, session: Option<&str>) -> Template {
        let mut e = fixture(fixture_name);
        // The result's Tab Context shows the tab where the call took it, as
        // the extension's does: a Post that showed another site would
        // finish the call there too.
        let shown = e["tool_input"]["url"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if let Some(blocks) = e["tool_response"].as_array_mut() {
            for block in blocks {
                if let Some(text) = block["text"].as_str() {
                    block["text"] = json!(text.replace(&shown, url));
                }
            }
        }
        e["tool_input"]["url"] = json!(url);
        e["tool_use_id"] = json!(ID);
        if let Some(session) = session {
            e["session_id"] = json!(session);
        }
        Template::new(&e)
    }
}

/// A script of about `size` bytes in the shape agents write to read a page:
/// helpers that scrape tables, objects, templates, loops and callbacks, and
/// no request, so that the build before the parser (whose scanner blocks a
/// request near a loop) paces it too, on its tab, as today's does. The same
/// shape as `src/read/script/timing.rs` without its fetch.
pub(crate) fn realistic_script(size: usize) -> String {
    let mut code =
        String::from("const started = performance.now();\nconst origin = location.origin;\n");
    let mut i = 0;
    while code.len() < size {
        let _ = write!(
            code,
            r#"// section {i}: the rows of table {i}
function collect{i}(root) {{
  const rows = [...root.querySelectorAll('tr')].map((tr, n) => {{
    const cells = [...tr.querySelectorAll('td')].map(td => td.textContent.trim());
    return {{ n, id: `row-{i}-${{n}}`, cells, link: tr.querySelector('a')?.href ?? null }};
  }});
  const byKey = {{}};
  for (const row of rows) {{
    if (!row.cells.length) continue;
    const key = row.cells[0].toLowerCase().replace(/\s+/g, '-');
    byKey[key] = (byKey[key] || []).concat(row);
  }}
  return {{ rows, byKey, total: rows.length }};
}}
const summary{i} = collect{i}(document.querySelector('#t{i}') || document.body);
const labels{i} = Object.keys(summary{i}.byKey).sort((a, b) => a.localeCompare(b));
if (labels{i}.length > 3 && summary{i}.total % 2 === 0) {{
  console.log('section {i}', labels{i}.slice(0, 3).join(', '), origin);
}} else {{
  console.debug({{ section: {i}, empty: true }});
}}
"#
        );
        i += 1;
    }
    let _ = writeln!(
        code,
        "JSON.stringify({{ sections: {i}, ms: performance.now() - started }});"
    );
    code
}

pub(crate) fn fixture(name: &str) -> Value {
    let path = Path::new(FIXTURES).join(name);
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Base64 text that does not repeat, like a real PNG's.
pub(crate) fn base64_noise(len: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ALPHABET[(x % 64) as usize] as char
        })
        .collect()
}

/// An event as bytes around the place of its tool_use_id.
#[derive(Clone)]
pub(crate) struct Template {
    pub(crate) before: Vec<u8>,
    pub(crate) after: Vec<u8>,
}

impl Template {
    pub(crate) fn new(event: &Value) -> Self {
        let text = serde_json::to_string(event).expect("event serializes");
        let (before, after) = text.split_once(ID).expect("template has an id");
        Self {
            before: before.as_bytes().to_vec(),
            after: after.as_bytes().to_vec(),
        }
    }

    pub(crate) fn with_id(&self, id: &str) -> Vec<u8> {
        [&self.before[..], id.as_bytes(), &self.after[..]].concat()
    }
}
