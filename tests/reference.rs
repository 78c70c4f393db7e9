//! The generated references: `docs/CLI.md` and `docs/indexer.1` are what the binary generates
//! from its own clap definitions (regenerate them with `indexer --generate reference >
//! docs/CLI.md` and `indexer --generate man > docs/indexer.1`); shell completions know every
//! command; the detector names the Python stub and the docs give are the registry's.

mod common;

use common::{NO_INPUTS, indexer, ok, repo};
use indexer::detect::DetectorKind;

fn committed(path: &str) -> String {
    std::fs::read_to_string(repo().join(path)).unwrap_or_else(|error| panic!("{path}: {error}"))
}

fn generated(what: &str) -> String {
    ok(indexer(&["--generate", what], NO_INPUTS))
}

#[test]
fn the_committed_references_are_what_the_binary_generates() {
    for (what, path) in [("reference", "docs/CLI.md"), ("man", "docs/indexer.1")] {
        assert!(
            generated(what) == committed(path),
            "{path} differs from `indexer --generate {what}`: run `cargo run --release -- \
             --generate {what} > {path}` and commit it"
        );
    }
}

#[test]
fn the_reference_and_the_completions_know_every_command() {
    let reference = committed("docs/CLI.md");
    let help = ok(indexer(&["--help"], NO_INPUTS));
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .collect();
    assert!(commands.len() >= 12, "{commands:?}");
    for shell in [
        "complete-bash",
        "complete-zsh",
        "complete-fish",
        "complete-powershell",
    ] {
        let script = generated(shell);
        for command in &commands {
            assert!(script.contains(command), "{shell} lacks {command}");
        }
        assert!(script.contains("detector"), "{shell} lacks --detector");
    }
    for command in &commands {
        let heading = format!("\n## indexer {command}\n");
        assert!(reference.contains(&heading), "docs/CLI.md lacks {command}");
        let own = ok(indexer(&[command, "--help"], NO_INPUTS));
        let first = own.lines().next().unwrap();
        assert!(
            reference.contains(first),
            "docs/CLI.md lacks {command}'s help"
        );
    }
}

#[test]
fn detector_names_in_the_python_stub_and_the_docs_are_the_registry_s() {
    let names: Vec<&str> = DetectorKind::ALL.iter().map(|kind| kind.name()).collect();
    let stub = committed("python/indexer/_indexer.pyi");
    let start = stub
        .find("DetectorName = Literal[")
        .expect("the stub names its detectors");
    let end = start + stub[start..].find(']').unwrap();
    let listed: Vec<&str> = stub[start..end].split('"').skip(1).step_by(2).collect();
    assert_eq!(listed, names, "python/indexer/_indexer.pyi's DetectorName");
    let (readme, reference) = (committed("README.md"), committed("docs/CLI.md"));
    for name in &names {
        assert!(
            readme.contains(&format!("`{name}`")),
            "README.md lacks `{name}`"
        );
        assert!(reference.contains(name), "docs/CLI.md lacks {name}");
    }
}

#[test]
fn generate_takes_no_command_and_a_bare_call_is_an_argument_error() {
    let with_command = indexer(&["--generate", "man", "build"], NO_INPUTS);
    assert_eq!(with_command.status.code(), Some(2));
    let bare = indexer(&["-q"], NO_INPUTS);
    assert_eq!(bare.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bare.stderr).contains("give a command"));
    let unknown = indexer(&["--generate", "pdf"], NO_INPUTS);
    assert_eq!(unknown.status.code(), Some(2));
}
