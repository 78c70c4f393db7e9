//! Detect: the blocks of a site's pages in, a keep/drop decision per block out.
//!
//! Every detector implements [`Detector`]: an *observe* step that turns one segmented page
//! into what the detector learns from (run on worker threads), a *learn* step that folds
//! observations into per-site statistics (run in input order), and a *decide* step. Whether a
//! build makes one pass or two follows from [`Detector::passes`] and is acted on in one
//! place, [`crate::build`]. Adding a detector means a folder here and a line in
//! [`DetectorKind`].

pub mod bloom;
pub mod incremental;
pub mod menu;
pub mod none;
pub mod sandwich;
pub mod table_chunk;

use std::collections::BTreeMap;

use crate::segment::{SegmentOptions, SegmentedPage};

/// Other pages of the input, found by URL: what a detector that compares a page with the
/// pages it links to reads (segmented as the detector asked).
pub trait PageSource: Sync {
    /// The page at `url`, if the input holds it and it can be read.
    fn load(&self, url: &str) -> Option<SegmentedPage>;
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
    let authority_start = without_fragment.find("://").map_or(0, |at| at + 3);
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

#[cfg(test)]
mod tests {
    use super::url_directory;

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

/// Segments `html` as `options` say, for detector tests.
#[cfg(test)]
pub(crate) fn test_page(url: &str, html: &str, options: SegmentOptions) -> SegmentedPage {
    let page = crate::read::Page {
        url: url.to_string(),
        site: crate::read::site_of(url),
        html: html.to_string(),
        raw_bytes: html.len(),
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

/// A template detector.
pub trait Detector: Send + Sync {
    /// What the learn step takes from one page; made on worker threads.
    type Observation: Send;

    /// The detector's name as given to `--detector`.
    fn name(&self) -> &'static str;

    /// One pass or two.
    fn passes(&self) -> Passes;

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

    /// Whether to keep each block of `page`, in block order. A two-pass detector is asked after
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
    ) -> Vec<bool>;

    /// Approximate bytes held by one observation.
    fn observation_bytes(&self, observation: &Self::Observation) -> usize {
        let _ = observation;
        std::mem::size_of::<Self::Observation>()
    }

    /// Approximate bytes of per-site state held now.
    fn state_bytes(&self) -> usize;

    /// About how many bytes of state the detector holds per byte of HTML learned; plans how
    /// many sites a build handles at once within its memory budget (0: no state).
    fn state_per_html_byte(&self) -> f64 {
        1.0
    }

    /// The detector's thresholds, for the build summary.
    fn settings(&self) -> serde_json::Value;

    /// Counts worth reporting in the build summary (for example, pages decided by a
    /// fallback), by name.
    fn counters(&self) -> BTreeMap<String, u64> {
        BTreeMap::new()
    }
}

/// The detectors `--detector` can name.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum DetectorKind {
    /// Chen, Ye & Li (2006): offset signatures within block-style clusters.
    Bloom,
    /// Rowlands, Thomas & Wan (2009): lines shared with a peer page of the same directory.
    Sandwich,
    /// Ma, Goharian & Chowdhury (2003): frequent text chunks between table tags.
    TableChunk,
    /// Wang, Fang, Cheng, Guo & Xu (2008): one pass, a text-segment table with shrinkage.
    Incremental,
    /// Alarte, Insa, Silva & Tamarit (2015): tree mapping with mutually linked menu pages.
    Menu,
    /// Keeps every block: the baseline.
    None,
}

impl DetectorKind {
    /// The name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            DetectorKind::Bloom => "bloom",
            DetectorKind::Sandwich => "sandwich",
            DetectorKind::TableChunk => "table-chunk",
            DetectorKind::Incremental => "incremental",
            DetectorKind::Menu => "menu",
            DetectorKind::None => "none",
        }
    }
}
