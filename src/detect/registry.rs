//! The registry: the one list of detectors. A detector's name, passes, state per HTML byte,
//! settings type and construction come from its [`Detector`] implementation; this file lists
//! the implementations, and from that list come [`DetectorKind`] (what `--detector` names),
//! [`DetectorSettings`] (every detector's settings) and the dispatch from a kind to the
//! concrete detector ([`DetectorKind::visit`]).
//!
//! Adding a detector: its folder beside this file, its module in the `use` line below, and one
//! line in the `registry!` call.

use std::fmt;
use std::str::FromStr;

use super::{
    Choice, Detector, FlagSpec, Passes, Rule, bloom, hybrid, incremental, menu, none, sandwich,
    table_chunk, title,
};

/// Something to do with a concrete detector, whichever [`DetectorKind`] names: the build
/// runs its engine through this, so that the engine is generic over the detector.
pub trait DetectorVisitor {
    /// What the visit gives back.
    type Output;

    /// Called with the detector a [`DetectorKind`] names, freshly made from its settings.
    fn visit<D: Detector>(self, detector: D) -> Self::Output;

    /// Called with what makes that detector, each call a fresh one of the same settings, for
    /// a visitor that needs more than one (a read that learns sites on several threads). By
    /// default, [`visit`](Self::visit)s one.
    fn visit_made<D: Detector>(self, make: &dyn Fn() -> D) -> Self::Output
    where
        Self: Sized,
    {
        self.visit(make())
    }
}

macro_rules! registry {
    ($( $variant:ident => $field:ident : $detector:ty ),* $(,)?) => {
        /// The detectors `--detector` can name, in the order they are listed.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum DetectorKind {
            $(
                #[doc = concat!("[`", stringify!($detector), "`]")]
                $variant,
            )*
        }

        impl DetectorKind {
            /// Every detector.
            pub const ALL: &'static [DetectorKind] = &[$(DetectorKind::$variant),*];

            /// The name given to `--detector` ([`Detector::NAME`]).
            pub const fn name(self) -> &'static str {
                match self {
                    $(DetectorKind::$variant => <$detector as Detector>::NAME,)*
                }
            }

            /// One line saying how it decides ([`Detector::ABOUT`]).
            pub const fn about(self) -> &'static str {
                match self {
                    $(DetectorKind::$variant => <$detector as Detector>::ABOUT,)*
                }
            }

            /// One pass or two ([`Detector::PASSES`]), known without making the detector.
            pub const fn passes(self) -> Passes {
                match self {
                    $(DetectorKind::$variant => <$detector as Detector>::PASSES,)*
                }
            }

            /// Whether it can run in one pass ([`Passes::One`], or [`Detector::ONE_PASS_TOO`]).
            pub const fn runs_in_one_pass(self) -> bool {
                match self {
                    $(DetectorKind::$variant => {
                        matches!(<$detector as Detector>::PASSES, Passes::One)
                            || <$detector as Detector>::ONE_PASS_TOO
                    })*
                }
            }

            /// The rules its verdicts name ([`Detector::RULES`]).
            pub const fn rules(self) -> &'static [Rule] {
                match self {
                    $(DetectorKind::$variant => <$detector as Detector>::RULES,)*
                }
            }

            /// Whether it applies the title-heading rule itself ([`Detector::OWN_TITLE_RULE`]).
            pub const fn own_title_rule(self) -> bool {
                match self {
                    $(DetectorKind::$variant => <$detector as Detector>::OWN_TITLE_RULE,)*
                }
            }

            /// Its settings' flags, as a front end shows them ([`Detector::flags`]).
            pub fn flags(self) -> Vec<FlagSpec> {
                match self {
                    $(DetectorKind::$variant => <$detector as Detector>::flags()
                        .into_iter()
                        .map(|flag| flag.spec)
                        .collect(),)*
                }
            }

            /// [`Detector::DECIDES_SITE_BY_SITE`].
            pub const fn decides_site_by_site(self) -> bool {
                match self {
                    $(DetectorKind::$variant => <$detector as Detector>::DECIDES_SITE_BY_SITE,)*
                }
            }

            /// [`Detector::STATE_PER_HTML_BYTE`].
            pub const fn state_per_html_byte(self) -> f64 {
                match self {
                    $(DetectorKind::$variant => <$detector as Detector>::STATE_PER_HTML_BYTE,)*
                }
            }

            /// Makes the detector this kind names, for a run of `passes`, from its part of
            /// `settings` and hands it to `visitor` — inside [`title::KeepTitleHeadings`]
            /// when `settings` ask for the title-heading rule and the detector does not apply
            /// it itself.
            pub fn visit<V: DetectorVisitor>(
                self,
                settings: &DetectorSettings,
                passes: Passes,
                visitor: V,
            ) -> V::Output {
                match self {
                    $(DetectorKind::$variant => {
                        let make = || match passes {
                            Passes::Two => <$detector as Detector>::new(settings.$field.clone()),
                            Passes::One => {
                                <$detector as Detector>::new_one_pass(settings.$field.clone())
                            }
                        };
                        if settings.keep_title_headings
                            && !<$detector as Detector>::OWN_TITLE_RULE
                        {
                            visitor.visit_made(&|| {
                                $crate::detect::title::KeepTitleHeadings::new(make())
                            })
                        } else {
                            visitor.visit_made(&make)
                        }
                    })*
                }
            }
        }

        /// Every detector's settings, one field per detector (named as its module); a run uses
        /// the field of the detector it runs.
        #[derive(Debug, Clone, Default)]
        pub struct DetectorSettings {
            $(
                #[doc = concat!("Settings of [`", stringify!($detector), "`].")]
                pub $field: <$detector as Detector>::Settings,
            )*
            /// Keep a heading made mostly of the page's own title words, whatever the detector
            /// says ([`title::KeepTitleHeadings`]); `hybrid` applies the rule itself.
            pub keep_title_headings: bool,
        }

        impl DetectorSettings {
            /// Sets the flag `long` of `kind`'s settings from its value's text (a switch
            /// takes any text); the reason when the flag is unknown or the value refused.
            pub fn set_flag(&mut self, kind: DetectorKind, long: &str, text: &str) -> Result<(), String> {
                match kind {
                    $(DetectorKind::$variant => {
                        let flags = <$detector as Detector>::flags();
                        let flag = flags
                            .iter()
                            .find(|flag| flag.spec.long == long)
                            .ok_or_else(|| format!("{} has no flag --{long}", kind.name()))?;
                        flag.set(&mut self.$field, text).map_err(|reason| format!("--{long}: {reason}"))
                    })*
                }
            }
        }
    };
}

// Variant => settings field: detector type. The order is the order of `--help` and of
// every list of detectors.
registry! {
    Hybrid => hybrid: hybrid::Hybrid,
    Bloom => bloom: bloom::Bloom,
    Sandwich => sandwich: sandwich::Sandwich,
    TableChunk => table_chunk: table_chunk::TableChunk,
    Incremental => incremental: incremental::Incremental,
    Menu => menu: menu::Menu,
    None => none: none::KeepEverything,
}

/// Every rule a verdict can name: the shared ones (kept without a test, the title-heading
/// rule) and each detector's own.
pub fn every_rule() -> impl Iterator<Item = Rule> {
    [
        Rule::KEEPS_EVERYTHING,
        Rule::PLAIN_TEXT,
        title::TITLE_HEADING,
    ]
    .into_iter()
    .chain(
        DetectorKind::ALL
            .iter()
            .flat_map(|kind| kind.rules().iter().copied()),
    )
}

impl DetectorKind {
    /// The detectors that can decide each page as it arrives ([`Self::runs_in_one_pass`]).
    pub fn one_pass() -> impl Iterator<Item = DetectorKind> {
        Self::ALL
            .iter()
            .copied()
            .filter(|kind| kind.runs_in_one_pass())
    }
}

impl Choice for DetectorKind {
    const ALL: &'static [Self] = DetectorKind::ALL;

    fn name(self) -> &'static str {
        DetectorKind::name(self)
    }

    fn about(self) -> &'static str {
        DetectorKind::about(self)
    }
}

impl fmt::Display for DetectorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that no entry of a list of choices has.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} `{name}` (expected one of: {expected})")]
pub struct UnknownName {
    /// What was being named (`detector`).
    pub what: &'static str,
    /// The name given.
    pub name: String,
    /// The names that exist, comma-separated.
    pub expected: String,
}

impl FromStr for DetectorKind {
    type Err = UnknownName;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        <DetectorKind as Choice>::from_name(name).ok_or_else(|| UnknownName {
            what: "detector",
            name: name.to_string(),
            expected: DetectorKind::ALL
                .iter()
                .map(|kind| kind.name())
                .collect::<Vec<_>>()
                .join(", "),
        })
    }
}

impl serde::Serialize for DetectorKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for DetectorKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A detector's name is written once (its `NAME`); everything else is derived from it.
    #[test]
    fn every_name_round_trips() {
        let mut seen = std::collections::BTreeSet::new();
        for &kind in DetectorKind::ALL {
            assert!(seen.insert(kind.name()), "{} listed twice", kind.name());
            assert_eq!(kind.name().parse::<DetectorKind>(), Ok(kind));
            assert_eq!(kind.to_string(), kind.name());
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.name()));
            assert_eq!(serde_json::from_str::<DetectorKind>(&json).unwrap(), kind);
            assert!(!kind.about().is_empty());
        }
        let unknown = "blom".parse::<DetectorKind>().unwrap_err();
        assert!(unknown.to_string().contains("bloom, sandwich"), "{unknown}");
    }

    /// A rule's code means one rule: codes are what an index stores.
    #[test]
    fn rule_codes_are_unique_and_read_back() {
        let mut names_of_codes = std::collections::BTreeMap::new();
        for rule in every_rule() {
            let name = names_of_codes.entry(rule.code()).or_insert(rule.name());
            assert_eq!(*name, rule.name(), "code {} names two rules", rule.code());
            assert_eq!(Rule::from_code(rule.code()), Some(rule));
        }
        let names: std::collections::BTreeSet<_> = names_of_codes.values().collect();
        assert_eq!(names.len(), names_of_codes.len(), "a name with two codes");
        assert_eq!(Rule::from_code(250), None);
    }

    /// Flag names are unique across detectors, and each flag's default is a value it takes.
    #[test]
    fn flags_are_unique_and_their_defaults_are_valid() {
        let mut seen = std::collections::BTreeSet::new();
        let mut settings = DetectorSettings::default();
        for &kind in DetectorKind::ALL {
            for flag in kind.flags() {
                assert!(seen.insert(flag.long), "--{} twice", flag.long);
                if let Some(default) = &flag.default {
                    flag.value.check(default).unwrap();
                    settings.set_flag(kind, flag.long, default).unwrap();
                }
            }
        }
        assert!(
            settings
                .set_flag(DetectorKind::Bloom, "menu-pages", "3")
                .is_err()
        );
    }

    struct Facts;

    impl DetectorVisitor for Facts {
        type Output = (&'static str, Passes, serde_json::Value);

        fn visit<D: Detector>(self, detector: D) -> Self::Output {
            (D::NAME, D::PASSES, detector.settings())
        }
    }

    /// The dispatch makes the detector the kind names, with that detector's settings.
    #[test]
    fn a_kind_makes_its_own_detector() {
        let settings = DetectorSettings::default();
        for &kind in DetectorKind::ALL {
            let (name, passes, json) = kind.visit(&settings, kind.passes(), Facts);
            assert_eq!(name, kind.name());
            assert_eq!(passes, kind.passes());
            assert!(json.is_object(), "{name}: settings {json}");
        }
        let names: Vec<_> = DetectorKind::one_pass().map(DetectorKind::name).collect();
        assert_eq!(names, ["hybrid", "sandwich", "incremental", "none"]);
    }

    /// A page's observation, before and after it is trimmed for waiting: what
    /// `trimmed_observation_bytes` says of it and what `observation_bytes` counts after; and
    /// the detector's type (a wrapper's names the detector it wraps).
    struct TrimmedBytes<'a>(&'a crate::segment::SegmentedPage);

    impl DetectorVisitor for TrimmedBytes<'_> {
        type Output = (&'static str, usize, usize, usize);

        fn visit<D: Detector>(self, detector: D) -> Self::Output {
            let mut observation = detector.observe(self.0, "");
            let whole = detector.observation_bytes(&observation);
            let said = detector.trimmed_observation_bytes(&observation);
            detector.trim_for_waiting(&mut observation);
            (
                std::any::type_name::<D>(),
                whole,
                said,
                detector.observation_bytes(&observation),
            )
        }
    }

    /// A two-pass run counts a waiting page's bytes before its observation is trimmed: every
    /// detector says exactly what trimming leaves.
    #[test]
    fn each_detector_says_what_trimming_leaves() {
        let html = "<html><head><title>A page</title></head><body>\
            <nav><a href=\"/\">Home</a> <a href=\"/about\">About us</a></nav>\
            <h1>A page</h1><p>Some words of the page, and some more of them.</p>\
            <footer>Copyright the site</footer></body></html>";
        let page = super::super::test_page(
            "https://a.example/docs/page.html",
            html,
            crate::segment::SegmentOptions::default(),
        );
        let mut trimmed = Vec::new();
        // With `--keep-title-headings`, a detector without its own title rule is wrapped.
        for keep_title_headings in [false, true] {
            let settings = DetectorSettings {
                keep_title_headings,
                ..DetectorSettings::default()
            };
            for &kind in DetectorKind::ALL {
                for passes in [Passes::Two, Passes::One] {
                    if passes == Passes::One && !kind.runs_in_one_pass() {
                        continue;
                    }
                    let (detector, whole, said, after) =
                        kind.visit(&settings, passes, TrimmedBytes(&page));
                    assert_eq!(said, after, "{detector} in {passes:?}");
                    if after < whole {
                        trimmed.push(detector);
                    }
                }
            }
        }
        let wrapped = |name: &str| {
            trimmed
                .iter()
                .any(|detector| detector.contains("KeepTitleHeadings") && detector.contains(name))
        };
        assert!(wrapped("Bloom"), "{trimmed:?}");
        assert!(
            trimmed.iter().any(|detector| detector.ends_with("Bloom")),
            "{trimmed:?}"
        );
        assert!(
            trimmed.iter().any(|detector| detector.contains("Hybrid")),
            "{trimmed:?}"
        );
    }
}

/// The recipe ARCHITECTURE.md gives for adding a detector, followed for a trivial one: its
/// own module (its folder), its rules and flags declared there, and one line in a
/// `registry!` call — which gives it a kind, a settings field, its flags, its rules and the
/// dispatch, with nothing else written.
#[cfg(test)]
mod adding_a_detector {
    use super::super::{
        Detector, DetectorVisitor, Flag, FlagSpec, PageSource, Passes, Rule, Verdict,
    };
    use crate::segment::SegmentedPage;

    /// The trivial detector's folder: it drops blocks shorter than a number of words.
    mod shortest {
        use super::*;

        /// A block shorter than the minimum: dropped.
        pub const TOO_SHORT: Rule = Rule::new(77, "too_short");

        #[derive(Debug, Clone, Default, serde::Serialize)]
        pub struct ShortestSettings {
            pub min_words: u32,
        }

        pub struct DropShortest(pub ShortestSettings);

        impl Detector for DropShortest {
            const NAME: &'static str = "drop-shortest";
            const ABOUT: &'static str = "Drops blocks of fewer words than a minimum";
            const PASSES: Passes = Passes::One;
            const RULES: &'static [Rule] = &[TOO_SHORT];
            const STATE_PER_HTML_BYTE: f64 = 0.0;
            type Settings = ShortestSettings;
            type Observation = ();

            fn flags() -> Vec<Flag<ShortestSettings>> {
                vec![Flag::count(
                    "drop-shortest-min-words",
                    "Blocks of fewer words are dropped.",
                    0,
                    |s| &mut s.min_words,
                )]
            }

            fn new(settings: ShortestSettings) -> Self {
                DropShortest(settings)
            }

            fn observe(&self, _page: &SegmentedPage, _html: &str) {}

            fn learn(&mut self, _observation: &()) {}

            fn decide(&self, page: &SegmentedPage, _: &(), _: &dyn PageSource) -> Vec<Verdict> {
                let min = self.0.min_words as f32;
                page.blocks
                    .iter()
                    .map(|block| {
                        let words = block.text.split_whitespace().count() as f32;
                        Verdict::scored(words >= min, TOO_SHORT, words, min)
                    })
                    .collect()
            }

            fn state_bytes(&self) -> usize {
                0
            }

            fn settings(&self) -> serde_json::Value {
                serde_json::to_value(&self.0).unwrap()
            }
        }
    }

    registry! {
        DropShortest => shortest: shortest::DropShortest,
    }

    struct Decide<'a>(&'a SegmentedPage);

    impl DetectorVisitor for Decide<'_> {
        type Output = Vec<Verdict>;

        fn visit<D: Detector>(self, detector: D) -> Vec<Verdict> {
            let observation = detector.observe(self.0, "");
            detector.decide(self.0, &observation, &super::super::NoPages)
        }
    }

    #[test]
    fn one_registry_line_gives_the_detector_everything_it_needs() {
        let kind = DetectorKind::DropShortest;
        assert_eq!(DetectorKind::ALL, &[kind]);
        assert_eq!(kind.name(), "drop-shortest");
        assert_eq!(kind.about(), "Drops blocks of fewer words than a minimum");
        assert_eq!(kind.passes(), Passes::One);
        assert!(kind.runs_in_one_pass() && !kind.own_title_rule());
        assert!(!kind.decides_site_by_site());
        assert_eq!(kind.state_per_html_byte(), 0.0);
        assert_eq!(kind.rules(), &[shortest::TOO_SHORT]);
        let flags: Vec<FlagSpec> = kind.flags();
        assert_eq!(flags[0].long, "drop-shortest-min-words");
        let mut settings = DetectorSettings::default();
        settings
            .set_flag(kind, "drop-shortest-min-words", "3")
            .unwrap();
        assert_eq!(settings.shortest.min_words, 3);
        let page = crate::detect::test_page(
            "http://a.example/",
            "<p>Home</p><p>A block of several words of content.</p>",
            crate::segment::SegmentOptions::default(),
        );
        let verdicts = kind.visit(&settings, Passes::One, Decide(&page));
        let keeps: Vec<bool> = verdicts.iter().map(|verdict| verdict.keep).collect();
        assert_eq!(keeps, [false, true]);
        assert_eq!(verdicts[0].rule.name(), "too_short");
    }
}
