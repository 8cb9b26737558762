//! Writes the seed corpus of every fuzz target: `seeds REPO SHARED OUT`
//! reads the captured events in `REPO/tests/fixtures` and `SHARED/captured`,
//! `REPO/tests/fixtures/urls.toml` and `REPO/README.md`, and writes each seed
//! to `OUT/<target>/<name>`. What each target's input looks like is
//! `pace_hook::fuzz::seeds`'s business.

use std::{fs, path::Path, process::ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [repo, shared, out] = args.as_slice() else {
        eprintln!("usage: seeds REPO SHARED OUT");
        return ExitCode::from(2);
    };
    let (repo, out) = (Path::new(repo), Path::new(out));
    let mut sources = pace_hook::fuzz::Sources::default();
    for dir in [
        repo.join("tests/fixtures"),
        Path::new(shared).join("captured"),
    ] {
        let Ok(entries) = fs::read_dir(&dir) else {
            eprintln!("seeds: no `{}`; its events are not seeds", dir.display());
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".json")
                && let Ok(bytes) = fs::read(e.path())
            {
                sources.events.push((name, bytes));
            }
        }
    }
    let read = |p: &Path| fs::read_to_string(p).unwrap_or_default();
    sources.urls_toml = read(&repo.join("tests/fixtures/urls.toml"));
    sources.readme = read(&repo.join("README.md"));
    sources.scripts_toml = read(&repo.join("tests/fixtures/scripts.toml"));
    let seeds = pace_hook::fuzz::seeds(&sources);
    for s in &seeds {
        let dir = out.join(s.target);
        if let Err(e) =
            fs::create_dir_all(&dir).and_then(|()| fs::write(dir.join(&s.name), &s.bytes))
        {
            eprintln!("seeds: cannot write to `{}`: {e}", dir.display());
            return ExitCode::FAILURE;
        }
    }
    println!("{} seeds written to {}", seeds.len(), out.display());
    ExitCode::SUCCESS
}
