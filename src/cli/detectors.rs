//! Every detector's flags, made from the registry: one flag group per detector (headed by
//! its name), each flag as its detector declares it ([`indexer::detect::Flag`]), so that a
//! new detector's flags need no code here. [`DetectorFlags`] keeps the values given and turns
//! them into the library's [`DetectorSettings`], and says which of them a run does not read.

use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Args, FromArgMatches};

use indexer::detect::{DetectorKind, DetectorSettings, FlagSpec, FlagValue};

/// Parses a share between 0 and 1 (the library's rule, for flags of the command line's own).
pub fn share(text: &str) -> Result<f64, String> {
    indexer::detect::flags::parse_share(text)
}

/// The detector flags given on the command line.
#[derive(Debug, Clone, Default)]
pub struct DetectorFlags {
    keep_title_headings: bool,
    /// Each detector flag given: its detector, its name and its value's text.
    given: Vec<(DetectorKind, &'static str, String)>,
}

/// The id of `--keep-title-headings`, the one detection flag of every detector.
const KEEP_TITLE_HEADINGS: &str = "keep-title-headings";

impl DetectorFlags {
    /// The settings of every detector, as the flags say (a model file named is read here, so
    /// a bad one fails before anything is written).
    pub fn settings(&self) -> anyhow::Result<DetectorSettings> {
        let mut settings = DetectorSettings {
            keep_title_headings: self.keep_title_headings,
            ..DetectorSettings::default()
        };
        for (kind, long, text) in &self.given {
            settings
                .set_flag(*kind, long, text)
                .map_err(anyhow::Error::msg)?;
        }
        Ok(settings)
    }

    /// The flags given that none of `detectors` reads, each as a sentence.
    pub fn idle(&self, detectors: &[DetectorKind]) -> Vec<String> {
        let listed: Vec<&str> = detectors.iter().map(|kind| kind.name()).collect();
        let mut warnings = Vec::new();
        if self.keep_title_headings && detectors.iter().all(|kind| kind.own_title_rule()) {
            warnings.push(format!(
                "--{KEEP_TITLE_HEADINGS} does nothing for {}, which keeps title headings \
                 itself (see --hybrid-no-title-rule)",
                listed.join(", ")
            ));
        }
        for (kind, long, _) in &self.given {
            if !detectors.contains(kind) {
                warnings.push(format!(
                    "--{long} does nothing here: it is a setting of {kind}, and this run uses {}",
                    listed.join(", ")
                ));
            }
        }
        warnings
    }
}

/// The command-line argument of a detector's flag (under a help heading of its detector's
/// name).
fn argument(flag: FlagSpec) -> Arg {
    let help = match &flag.default {
        Some(default) => format!("{} [default: {default}]", flag.help),
        None => flag.help.to_string(),
    };
    let argument = Arg::new(flag.long).long(flag.long).help(help);
    let check = flag.value.clone();
    let parser = move |text: &str| check.check(text).map(|()| text.to_string());
    match &flag.value {
        FlagValue::Switch => argument.action(ArgAction::SetTrue),
        FlagValue::Choice(names) => {
            argument.value_parser(clap::builder::PossibleValuesParser::new(
                names
                    .iter()
                    .map(|(name, about)| clap::builder::PossibleValue::new(name).help(about)),
            ))
        }
        FlagValue::Path => argument.value_name("FILE").value_parser(parser),
        FlagValue::Share => argument.value_name("SHARE").value_parser(parser),
        FlagValue::Count { .. } => argument.value_name("N").value_parser(parser),
        FlagValue::Number { .. } => argument.value_name("NUMBER").value_parser(parser),
    }
}

impl Args for DetectorFlags {
    fn augment_args(command: clap::Command) -> clap::Command {
        let mut command = command.arg(
            Arg::new(KEEP_TITLE_HEADINGS)
                .long(KEEP_TITLE_HEADINGS)
                .action(ArgAction::SetTrue)
                .help_heading("Detection")
                .help(
                    "Keep a heading made mostly of the page's own title words (the site's shared \
                     title words removed), whatever the detector says: off by default for the \
                     detectors of the papers, always on in hybrid (see --hybrid-no-title-rule).",
                ),
        );
        for &kind in DetectorKind::ALL {
            for flag in kind.flags() {
                command = command.arg(argument(flag).help_heading(kind.name()));
            }
        }
        command
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        Self::augment_args(command)
    }
}

impl FromArgMatches for DetectorFlags {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut flags = DetectorFlags {
            keep_title_headings: matches.get_flag(KEEP_TITLE_HEADINGS),
            given: Vec::new(),
        };
        for &kind in DetectorKind::ALL {
            for flag in kind.flags() {
                if matches.value_source(flag.long) != Some(ValueSource::CommandLine) {
                    continue;
                }
                let text = match flag.value {
                    FlagValue::Switch => String::new(),
                    _ => matches
                        .get_one::<String>(flag.long)
                        .cloned()
                        .unwrap_or_default(),
                };
                flags.given.push((kind, flag.long, text));
            }
        }
        Ok(flags)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        detectors: DetectorFlags,
    }

    fn parse(line: &[&str]) -> DetectorFlags {
        Flags::try_parse_from(std::iter::once("indexer").chain(line.iter().copied()))
            .unwrap()
            .detectors
    }

    fn json<T: serde::Serialize>(value: &T) -> String {
        serde_json::to_string(value).unwrap()
    }

    /// With no flags, every detector gets its library defaults.
    #[test]
    fn no_flags_give_the_library_defaults() {
        let settings = parse(&[]).settings().unwrap();
        let defaults = DetectorSettings::default();
        assert_eq!(json(&settings.bloom), json(&defaults.bloom));
        assert_eq!(json(&settings.sandwich), json(&defaults.sandwich));
        assert_eq!(json(&settings.table_chunk), json(&defaults.table_chunk));
        assert_eq!(json(&settings.incremental), json(&defaults.incremental));
        assert_eq!(json(&settings.menu), json(&defaults.menu));
        assert_eq!(json(&settings.hybrid), json(&defaults.hybrid));
    }

    /// Flags set their detector's settings; values out of range are usage errors.
    #[test]
    fn flags_set_settings_and_bad_values_are_refused() {
        let settings = parse(&[
            "--bloom-similarity",
            "0.5",
            "--bloom-paper-headings",
            "--menu-pages",
            "2",
            "--hybrid-threshold",
            "0.7",
        ])
        .settings()
        .unwrap();
        assert_eq!(settings.bloom.similarity, 0.5);
        assert!(!settings.bloom.keep_headings_of_kept_blocks);
        assert_eq!(settings.menu.pages, 2);
        assert_eq!(settings.hybrid.threshold, Some(0.7));
        for bad in [
            ["--bloom-similarity", "1.5"],
            ["--menu-pages", "0"],
            ["--sandwich-unit", "word"],
            ["--incremental-lifetime-factor", "0.5"],
        ] {
            let line = std::iter::once("indexer").chain(bad);
            assert!(Flags::try_parse_from(line).is_err(), "{bad:?}");
        }
    }

    /// Every choice's name parses back to itself.
    #[test]
    fn choices_round_trip() {
        use indexer::detect::Choice;
        use indexer::detect::sandwich::Unit;
        use indexer::detect::table_chunk::Cluster;
        for &unit in Unit::ALL {
            let flags = parse(&["--sandwich-unit", unit.name()]);
            assert_eq!(flags.settings().unwrap().sandwich.unit, unit);
        }
        for &cluster in Cluster::ALL {
            let flags = parse(&["--table-chunk-cluster", cluster.name()]);
            assert_eq!(flags.settings().unwrap().table_chunk.cluster, cluster);
        }
    }

    /// A flag is idle when its detector does not run; which detector owns a flag comes from
    /// the registry, not from help text.
    #[test]
    fn flags_of_detectors_that_do_not_run_are_named() {
        let flags = parse(&["--bloom-drop-ratio", "0.9", "--keep-title-headings"]);
        assert!(flags.idle(&[DetectorKind::Bloom]).is_empty());
        let idle = flags.idle(&[DetectorKind::Hybrid]);
        assert_eq!(idle.len(), 2, "{idle:?}");
        assert!(idle[0].starts_with("--keep-title-headings does nothing for hybrid"));
        assert!(idle[1].contains("--bloom-drop-ratio does nothing here: it is a setting of bloom"));
    }
}
