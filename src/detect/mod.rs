//! Detect: the blocks of a site's pages in, a keep/drop decision per block out.
//!
//! Every detector implements [`Detector`]: an *observe* step that turns one segmented page
//! into what the detector learns from (run on worker threads), a *learn* step that folds
//! observations into per-site statistics (run in input order), and a *decide* step. Whether a
//! build makes one pass or two follows from [`Detector::PASSES`] (and `--one-pass` for a
//! detector with [`Detector::ONE_PASS_TOO`]); it is decided once, in the build's run plan
//! ([`crate::run::RunPlan`]), and acted on in one place, the build's engine. [`title`] holds
//! the page-title evidence and the title-heading rule any detector can be wrapped in.
//!
//! Adding a detector means a folder here (the detector, its settings type, its [`Rule`]s and
//! its settings' [`Flag`]s) and one entry in [`registry`], the only list of detectors; the
//! command line makes the detector's flag group from the registry.

/// Declares an enum of named choices ([`Choice`]): each variant's name and its one line of
/// help (its doc comment) are written once, beside it.
macro_rules! named_choices {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[doc = $about:literal])+ $variant:ident = $text:literal, )+
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $( $(#[doc = $about])+ $variant, )+
        }

        impl $crate::detect::Choice for $name {
            const ALL: &'static [Self] = &[$($name::$variant),+];

            fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            fn about(self) -> &'static str {
                match self {
                    $($name::$variant => concat!($($about),+).trim().trim_end_matches('.'),)+
                }
            }
        }
    };
}
pub(crate) use named_choices;

pub mod bloom;
pub mod flags;
pub mod hybrid;
pub mod incremental;
pub mod menu;
pub mod none;
mod registry;
pub mod sandwich;
pub mod site_model;
pub mod table_chunk;
pub mod title;
mod verdict;

pub use flags::{Flag, FlagSpec, FlagValue};
pub use registry::{DetectorKind, DetectorSettings, DetectorVisitor, UnknownName, every_rule};
pub use site_model::BadSiteModel;
pub use verdict::{BadDecisionRecord, DecisionRecord, Rule, Verdict};

use crate::segment::{SegmentOptions, SegmentedPage};

/// Other pages of the input, found by URL: what a detector that compares a page with the
/// pages it links to reads (segmented as the detector asked).
pub trait PageSource: Sync {
    /// The page at `url`, if the input holds it and it can be read.
    fn load(&self, url: &str) -> Option<SegmentedPage>;

    /// The HTML of the page at `url`, decoded, as far as segmentation reads it (the source a
    /// detector's `observe` saw), without segmenting it; `None` when the source cannot give it.
    fn load_html(&self, url: &str) -> Option<String> {
        let _ = url;
        None
    }
}

/// A [`PageSource`] with no pages.
pub struct NoPages;

impl PageSource for NoPages {
    fn load(&self, _url: &str) -> Option<SegmentedPage> {
        None
    }
}

/// Splits a URL into its directory (scheme, host and path up to the last `/`, query
/// dropped) and its file name (after the last `/`, query kept). A path ending in `/` names
/// a page by its last segment (`/guide/caching/` is `caching/` in `/guide/`), as sites with
/// such URLs mean it.
pub fn url_directory(url: &str) -> (&str, &str) {
    let without_fragment = url.split('#').next().unwrap_or(url);
    let path_end = without_fragment.find('?').unwrap_or(without_fragment.len());
    let authority_start = authority_start(without_fragment);
    let path = &without_fragment[..path_end];
    // Where to look for the directory's last `/`: before a trailing `/` that ends a
    // segment of the path (not the `/` right after the host).
    let search_end = match path.strip_suffix('/') {
        Some(trimmed)
            if trimmed
                .get(authority_start..)
                .is_some_and(|p| p.contains('/')) =>
        {
            trimmed.len()
        }
        _ => path.len(),
    };
    match path[..search_end].rfind('/') {
        Some(slash) if slash >= authority_start => {
            (&without_fragment[..=slash], &without_fragment[slash + 1..])
        }
        _ => (without_fragment, ""),
    }
}

/// The path of a URL's directory ([`url_directory`]) without scheme and host: one section
/// of a site whether it is reached by `http://` or `https://`, with or without the port.
pub fn url_directory_path(url: &str) -> &str {
    let directory = url_directory(url).0;
    let authority = authority_start(directory);
    directory[authority..]
        .find('/')
        .map_or("/", |slash| &directory[authority + slash..])
}

/// Where a URL's host begins: after its `://`, or at 0 when it has none.
fn authority_start(url: &str) -> usize {
    url.find("://").map_or(0, |at| at + 3)
}

#[cfg(test)]
mod tests {
    use super::{Choice, url_directory, url_directory_path};

    /// A choice's name is the name its settings are written with.
    fn names_match_serde<T: Choice + serde::Serialize + std::fmt::Debug>() {
        for &value in T::ALL {
            assert_eq!(serde_json::to_value(value).unwrap(), value.name());
            assert!(!value.about().is_empty() && !value.about().ends_with('.'));
            assert_eq!(T::from_name(value.name()), Some(value));
        }
    }

    #[test]
    fn choices_are_written_by_their_names() {
        names_match_serde::<super::sandwich::Unit>();
        names_match_serde::<super::sandwich::OnePassPeer>();
        names_match_serde::<super::table_chunk::Cluster>();
        names_match_serde::<crate::learn::Family>();
        names_match_serde::<crate::learn::Evidence>();
    }

    #[test]
    fn directories_of_urls() {
        let cases = [
            (
                "http://a.example/docs/x.html",
                "http://a.example/docs/",
                "x.html",
            ),
            (
                "http://a.example/docs/x.html?q=1#f",
                "http://a.example/docs/",
                "x.html?q=1",
            ),
            (
                "http://a.example/guide/caching/",
                "http://a.example/guide/",
                "caching/",
            ),
            ("http://a.example/", "http://a.example/", ""),
            ("http://a.example", "http://a.example", ""),
            ("http://a.example/top/", "http://a.example/", "top/"),
        ];
        for (url, directory, name) in cases {
            assert_eq!(url_directory(url), (directory, name), "{url}");
        }
    }

    #[test]
    fn a_directory_path_is_a_path_within_the_site() {
        for (url, directory) in [
            ("http://a.example:80/news/2013/story.html", "/news/2013/"),
            ("https://a.example/news/2013/story.html#top", "/news/2013/"),
            ("https://a.example/news/2013/", "/news/"),
            ("https://a.example/index.html?next=/a/b/", "/"),
            ("https://a.example/", "/"),
            ("https://a.example", "/"),
        ] {
            assert_eq!(url_directory_path(url), directory, "{url}");
        }
    }
}

/// A URL as links to it are written once resolved: parsed and serialised by the `url`
/// crate (host lower-cased, default port and empty path normalised), fragment dropped. An
/// unparsable URL is returned as it is.
pub fn normalized_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            parsed.set_fragment(None);
            parsed.into()
        }
        Err(_) => url.to_string(),
    }
}

/// The value of the counter `name`, for detector tests.
#[cfg(test)]
pub(crate) fn counter(counters: &[Counter], name: &str) -> u64 {
    counters
        .iter()
        .find(|counter| counter.name == name)
        .map(|counter| counter.value)
        .unwrap_or_else(|| panic!("no counter {name}"))
}

/// Pages `0..count` of the site `a.example`, page `n` made of `html(n)`, for detector tests.
#[cfg(test)]
pub(crate) fn test_site(
    count: usize,
    html: impl Fn(usize) -> String,
    options: SegmentOptions,
) -> Vec<SegmentedPage> {
    (0..count)
        .map(|n| test_page(&format!("http://a.example/{n}"), &html(n), options))
        .collect()
}

/// Segments `html` as `options` say, for detector tests.
#[cfg(test)]
pub(crate) fn test_page(url: &str, html: &str, options: SegmentOptions) -> SegmentedPage {
    let page = crate::read::Page {
        url: url.to_string(),
        site: crate::read::site_of(url),
        html: html.to_string(),
        raw_bytes: html.len(),
        record_id: None,
        date: None,
        charset: "UTF-8",
        plain_text: false,
    };
    crate::segment::segment_with(&page, &crate::segment::SegmentLimits::default(), options)
        .expect("test HTML segments")
}

/// How many passes over the input a detector needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Passes {
    /// Learns from every page first, then decides every page.
    Two,
    /// Decides each page as it arrives, then learns from it.
    One,
}

impl Passes {
    /// How many passes, as a build summary records them.
    pub const fn count(self) -> u32 {
        match self {
            Passes::One => 1,
            Passes::Two => 2,
        }
    }
}

/// A setting that takes one of a few named values (`--sandwich-unit line|token`): what a
/// command line needs to offer and parse it, without the library knowing the command line.
pub trait Choice: Copy + PartialEq + Sized + 'static {
    /// Every value, in the order they are listed.
    const ALL: &'static [Self];

    /// The value's name on the command line and in settings (kebab-case).
    fn name(self) -> &'static str;

    /// One line saying what the value means.
    fn about(self) -> &'static str;

    /// The value called `name`.
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|value| value.name() == name)
    }
}

/// How a counter of two rounds of the same run (or two shards) combines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Merge {
    /// Counts of events or things: added.
    Sum,
    /// Peaks (the largest site, a high-water mark): the larger is kept.
    Max,
}

/// A figure a detector reports in the build summary (see [`Detector::counters`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counter {
    /// Its name in the summary (snake_case).
    pub name: &'static str,
    /// Its value.
    pub value: u64,
    /// How it combines across rounds and shards.
    pub merge: Merge,
}

impl Counter {
    /// A count: summed across rounds.
    pub fn sum(name: &'static str, value: u64) -> Self {
        Counter {
            name,
            value,
            merge: Merge::Sum,
        }
    }

    /// A peak: the largest across rounds.
    pub fn max(name: &'static str, value: u64) -> Self {
        Counter {
            name,
            value,
            merge: Merge::Max,
        }
    }
}

/// A template detector.
pub trait Detector: Send + Sync + Sized + 'static {
    /// The detector's name, as given to `--detector` and stored in build summaries.
    const NAME: &'static str;

    /// One line, in plain words, saying how it decides (for `--help`).
    const ABOUT: &'static str;

    /// One pass or two, by default.
    const PASSES: Passes;

    /// The rules its verdicts name (declared in its folder; each with a code of its own
    /// across every detector, as an index stores it).
    const RULES: &'static [Rule];

    /// Whether a page's verdicts depend on its own site's pages only, so that a two-pass read
    /// may decide a site as soon as the site's every page is learned, and then let go of it
    /// ([`forget_site`](Self::forget_site)). Not for a detector that follows links across
    /// sites (`menu`).
    const DECIDES_SITE_BY_SITE: bool = false;

    /// Whether a two-pass detector can also run in one pass (`--one-pass`): deciding each
    /// page as it arrives from what the site's earlier pages taught it.
    const ONE_PASS_TOO: bool = false;

    /// About how many bytes of state the detector holds per byte of HTML learned; plans how
    /// many sites a build handles at once within its memory budget (0: no state).
    const STATE_PER_HTML_BYTE: f64;

    /// Its thresholds and options; the defaults are the detector's defaults.
    type Settings: Clone + Default + serde::Serialize + Send + Sync + 'static;

    /// Its settings as flags (`--bloom-similarity`), for front ends to offer: declared here,
    /// beside the settings, so that the command line needs no code of its own per detector.
    fn flags() -> Vec<Flag<Self::Settings>> {
        Vec::new()
    }

    /// What the learn step takes from one page; made on worker threads.
    type Observation: Send;

    /// Whether the detector applies the title-heading rule itself, so that
    /// `--keep-title-headings` does not wrap it in [`title::KeepTitleHeadings`].
    const OWN_TITLE_RULE: bool = false;

    /// A detector with no state yet.
    fn new(settings: Self::Settings) -> Self;

    /// A detector with no state yet, for a one-pass run (called only when [`PASSES`] is one
    /// or [`ONE_PASS_TOO`] is set).
    ///
    /// [`PASSES`]: Self::PASSES
    /// [`ONE_PASS_TOO`]: Self::ONE_PASS_TOO
    fn new_one_pass(settings: Self::Settings) -> Self {
        Self::new(settings)
    }

    /// How pages are cut into blocks for this detector.
    fn segment_options(&self) -> SegmentOptions {
        SegmentOptions::default()
    }

    /// Whether [`decide`](Self::decide) reads other pages through its [`PageSource`].
    fn loads_pages(&self) -> bool {
        false
    }

    /// Extracts what [`learn`](Self::learn) needs from one page; `html` is the page's
    /// source (as segmented: after any cut at the page-size limit).
    fn observe(&self, page: &SegmentedPage, html: &str) -> Self::Observation;

    /// Folds one page's observation into the per-site statistics. Called in input order.
    fn learn(&mut self, observation: &Self::Observation);

    /// Drops from a learned observation what [`decide`](Self::decide) can do without: a
    /// two-pass run calls it once the page is learned, while the page waits for its
    /// decision, so that waiting pages hold less. What is dropped must be remade in `decide` from the page's blocks, so that
    /// every verdict is the one the whole observation gives.
    fn trim_for_waiting(&self, observation: &mut Self::Observation) {
        let _ = observation;
    }

    /// Whether to keep each block of `page`, and why: one [`Verdict`] per block, in block
    /// order. A two-pass detector is asked after
    /// every page was learned (from many threads at once); a one-pass detector before the
    /// page is learned, in input order.
    ///
    /// `observation` is what [`observe`](Self::observe) made of this page. A page waiting for
    /// a two-pass decision keeps its blocks' text but not their word lists: what a detector
    /// needs of the words belongs in its observation.
    ///
    /// `pages` gives other pages of the input by URL (see [`loads_pages`](Self::loads_pages)).
    fn decide(
        &self,
        page: &SegmentedPage,
        observation: &Self::Observation,
        pages: &dyn PageSource,
    ) -> Vec<Verdict>;

    /// Only the keep/drop part of [`decide`](Self::decide).
    fn keeps(
        &self,
        page: &SegmentedPage,
        observation: &Self::Observation,
        pages: &dyn PageSource,
    ) -> Vec<bool> {
        Verdict::keeps(&self.decide(page, observation, pages))
    }

    /// Approximate bytes held by one observation.
    fn observation_bytes(&self, observation: &Self::Observation) -> usize {
        let _ = observation;
        std::mem::size_of::<Self::Observation>()
    }

    /// The bytes [`observation_bytes`](Self::observation_bytes) will count once
    /// [`trim_for_waiting`](Self::trim_for_waiting) has trimmed `observation`: a two-pass run
    /// counts a waiting page's bytes when it hands the page to be learned, before the
    /// trimming that follows the learning. A detector that trims says what is left.
    fn trimmed_observation_bytes(&self, observation: &Self::Observation) -> usize {
        self.observation_bytes(observation)
    }

    /// Approximate bytes of per-site state held now.
    fn state_bytes(&self) -> usize;

    /// The detector's settings, for the build summary.
    fn settings(&self) -> serde_json::Value;

    /// Figures worth reporting in the build summary (for example, pages decided by a
    /// fallback), each saying how it combines across rounds.
    fn counters(&self) -> Vec<Counter> {
        Vec::new()
    }

    /// What the detector learned of `site`, as bytes an index keeps for a later run over it
    /// ([`restore_site`](Self::restore_site); layouts in [`site_model`]): `None` when it
    /// has learned nothing of the site, or keeps nothing between runs — the default, for a
    /// detector whose evidence is the site's other pages themselves (`sandwich`, `menu`,
    /// `table-chunk`), which a later run does not have.
    fn save_site(&self, site: &str) -> Option<Vec<u8>> {
        let _ = site;
        None
    }

    /// Starts `site` from what [`save_site`](Self::save_site) wrote, before this run learns
    /// any page of it.
    fn restore_site(&mut self, site: &str, saved: &[u8]) -> Result<(), BadSiteModel> {
        let _ = (site, saved);
        Ok(())
    }

    /// Lets go of what was learned of `site`. A two-pass read calls it once every page of the
    /// site is learned and decided (and its model saved), so that it holds the state of the
    /// sites it is in the middle of, not of every site it has met; no page of the site comes
    /// after. The default keeps everything.
    fn forget_site(&mut self, site: &str) {
        let _ = site;
    }
}
