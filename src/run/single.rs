//! A page at a time: one page's HTML (or bytes) and URL in, a [`DecidedPage`] out — for
//! callers that hold pages rather than crawl files (the Python package's `extract` and
//! `Cleaner`).
//!
//! The page is read and segmented as a run reads a record ([`super::prepare::prepare`], the
//! same decoding, limits and segmenting), and decided as a run would decide it:
//! - [`decide_page`]: with the evidence of that page alone, as a run over a crawl holding only
//!   that page (a two-pass detector learns the page, then decides it; a one-pass detector
//!   decides it, knowing nothing yet);
//! - [`PageCleaner`]: pages one after another through one detector that keeps what it learned
//!   of each site, as the one-pass engine does (decide, then learn), or — made for two
//!   passes — learning each page before deciding it against everything learned so far.
//!
//! A detector that reads linked pages (`menu`) finds none here ([`NoPages`]).

use crate::detect::{Detector, DetectorVisitor, NoPages, Passes, Rule, Verdict};
use crate::read::{FetchTime, Record, RecordKind, RecordLocation, Skip};
use crate::run::prepare::prepare;
use crate::run::{BuildOptions, DecidedPage, NeedsOnePassDetector};
use crate::segment::{SegmentLimits, SegmentOptions};

/// Why a page could not be decided.
#[derive(Debug, thiserror::Error)]
pub enum PageError {
    /// The bytes hold no page a run would decide (not HTML, binary, too large, …): the
    /// reason a run would have counted the record as skipped for.
    #[error("{}: {}", .0.reason, .0.detail)]
    NoPage(Skip),
    /// One pass was asked of a detector that needs two.
    #[error(transparent)]
    NeedsOnePass(#[from] NeedsOnePassDetector),
}

/// One page as the caller holds it.
#[derive(Debug, Clone, Copy)]
pub enum PageInput<'a> {
    /// Text already decoded: read as HTML in UTF-8.
    Html(&'a str),
    /// Bytes as fetched: must look like HTML (as a WARC `resource` record with no
    /// Content-Type must); the character set is sniffed as for a record.
    Bytes(&'a [u8]),
}

/// `html` at `url` read as a run reads a record: a bare document (a WARC `resource` record).
fn record_of(html: PageInput<'_>, url: &str) -> Record {
    let (block, content_type) = match html {
        PageInput::Html(text) => (
            text.as_bytes().to_vec(),
            Some("text/html; charset=utf-8".to_string()),
        ),
        PageInput::Bytes(bytes) => (bytes.to_vec(), None),
    };
    Record {
        url: url.to_string(),
        kind: RecordKind::Resource,
        content_type,
        block,
        source_offset: 0,
        source_length: None,
        source_input: 0,
        truncated: false,
        date: None,
        record_id: None,
    }
}

/// Decides one page with `detector`: segmented as a run segments it, observed, then
/// `learn_first` (two passes) learned and decided, or (one pass) decided and learned.
fn decide_with<D: Detector>(
    detector: &mut D,
    learn_first: bool,
    html: PageInput<'_>,
    url: &str,
    limits: &SegmentLimits,
) -> Result<DecidedPage, PageError> {
    let options: SegmentOptions = detector.segment_options();
    let (page, html, origin) =
        prepare(Ok(record_of(html, url)), limits, options).map_err(PageError::NoPage)?;
    let verdicts = if origin.plain_text {
        vec![Verdict::kept(Rule::PLAIN_TEXT); page.blocks.len()]
    } else {
        let observation = detector.observe(&page, &html);
        if learn_first {
            detector.learn(&observation);
            detector.decide(&page, &observation, &NoPages)
        } else {
            let verdicts = detector.decide(&page, &observation, &NoPages);
            detector.learn(&observation);
            verdicts
        }
    };
    Ok(DecidedPage {
        page,
        verdicts,
        location: RecordLocation {
            input: 0,
            offset: 0,
        },
        record_length: None,
        source: None,
        fetched: None::<FetchTime>,
        date: origin.date,
        record_id: origin.record_id,
        charset: origin.charset,
        plain_text: origin.plain_text,
        digest: origin.digest,
        rendered: None,
    })
}

/// The passes a run with `options` makes: one under `one_pass` (refused for a detector that
/// cannot), the detector's own otherwise.
fn passes_of(options: &BuildOptions) -> Result<Passes, NeedsOnePassDetector> {
    options.check()?;
    Ok(match options.one_pass {
        true => Passes::One,
        false => options.detector.passes(),
    })
}

/// Decides one page with the evidence of that page alone, as a run of
/// `options.detector` over a crawl holding only this page decides it (one pass under
/// `options.one_pass`). Limits are `options.limits`.
pub fn decide_page(
    html: PageInput<'_>,
    url: &str,
    options: &BuildOptions,
) -> Result<DecidedPage, PageError> {
    struct Once<'a> {
        html: PageInput<'a>,
        url: &'a str,
        limits: &'a SegmentLimits,
        learn_first: bool,
    }
    impl DetectorVisitor for Once<'_> {
        type Output = Result<DecidedPage, PageError>;
        fn visit<D: Detector>(self, mut detector: D) -> Self::Output {
            decide_with(
                &mut detector,
                self.learn_first,
                self.html,
                self.url,
                self.limits,
            )
        }
    }
    let passes = passes_of(options)?;
    let once = Once {
        html,
        url,
        limits: &options.limits,
        learn_first: passes == Passes::Two,
    };
    options.detector.visit(&options.settings, passes, once)
}

/// A detector of any kind deciding pages one at a time and keeping what it learns: the
/// object-safe face of [`Detector`] that [`PageCleaner`] holds.
trait DecidesPages: Send {
    fn decide_next(
        &mut self,
        html: PageInput<'_>,
        url: &str,
        limits: &SegmentLimits,
    ) -> Result<DecidedPage, PageError>;
    fn name(&self) -> &'static str;
}

/// A detector and the order it learns and decides in.
struct Stateful<D> {
    detector: D,
    learn_first: bool,
}

impl<D: Detector> DecidesPages for Stateful<D> {
    fn decide_next(
        &mut self,
        html: PageInput<'_>,
        url: &str,
        limits: &SegmentLimits,
    ) -> Result<DecidedPage, PageError> {
        decide_with(&mut self.detector, self.learn_first, html, url, limits)
    }

    fn name(&self) -> &'static str {
        D::NAME
    }
}

/// Makes the [`Stateful`] detector a kind names (through the registry's dispatch).
struct MakeStateful {
    learn_first: bool,
}

impl DetectorVisitor for MakeStateful {
    type Output = Box<dyn DecidesPages>;
    fn visit<D: Detector>(self, detector: D) -> Self::Output {
        Box::new(Stateful {
            detector,
            learn_first: self.learn_first,
        })
    }
}

/// Pages one at a time through one detector that learns each site as it goes. Under
/// `one_pass` (the streaming case) each page is decided from what the site's earlier pages
/// taught, then learned — the one-pass engine's order, so a stream of a crawl's pages is
/// decided as `extract --one-pass` decides that crawl. Otherwise the two-pass detector learns
/// each page and then decides it against everything learned so far (earlier pages are not
/// decided again).
pub struct PageCleaner {
    detector: Box<dyn DecidesPages>,
    limits: SegmentLimits,
}

impl PageCleaner {
    /// A cleaner of `options.detector` with its settings, in one pass under
    /// `options.one_pass`; refuses one pass for a detector that needs two.
    pub fn new(options: &BuildOptions) -> Result<PageCleaner, NeedsOnePassDetector> {
        let passes = passes_of(options)?;
        let make = MakeStateful {
            learn_first: passes == Passes::Two,
        };
        Ok(PageCleaner {
            detector: options.detector.visit(&options.settings, passes, make),
            limits: options.limits,
        })
    }

    /// Decides the next page, then keeps what the detector learned of it.
    pub fn clean(&mut self, html: PageInput<'_>, url: &str) -> Result<DecidedPage, PageError> {
        self.detector.decide_next(html, url, &self.limits)
    }

    /// The detector's name.
    pub fn detector(&self) -> &'static str {
        self.detector.name()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::DetectorKind;

    /// A page of a site: its own paragraph between the site's navigation and footer.
    fn page_of(site: &str, own: &str) -> String {
        format!(
            "<html><head><title>{own}</title></head><body>\
             <nav><a href='/'>Home of {site}</a> <a href='/about'>About the {site} team</a></nav>\
             <p>{own}: a paragraph of this page alone, long enough to be read as text by any detector here.</p>\
             <footer>Copyright {site} all rights reserved, contact the webmaster of {site}</footer>\
             </body></html>"
        )
    }

    #[test]
    fn one_page_is_decided_with_its_own_evidence() {
        let html = page_of("a.example", "Sea otters");
        let decided = decide_page(
            PageInput::Html(&html),
            "http://a.example/otters",
            &BuildOptions::default(),
        )
        .unwrap();
        assert_eq!(decided.page.site, "a.example");
        assert_eq!(decided.page.title, "Sea otters");
        assert_eq!(decided.charset, "UTF-8");
        assert!(
            decided
                .kept_text()
                .contains("a paragraph of this page alone")
        );
        assert_eq!(decided.verdicts.len(), decided.page.blocks.len());
    }

    #[test]
    fn bytes_that_are_not_html_are_refused_with_the_reason() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x02\0\0\0";
        let error = decide_page(
            PageInput::Bytes(png),
            "http://a.example/x.png",
            &BuildOptions::default(),
        )
        .unwrap_err();
        assert!(matches!(error, PageError::NoPage(_)), "{error}");
        assert!(error.to_string().starts_with("not_html"), "{error}");
    }

    #[test]
    fn one_pass_is_refused_for_a_detector_that_needs_two() {
        let options = BuildOptions {
            detector: DetectorKind::Bloom,
            one_pass: true,
            ..BuildOptions::default()
        };
        assert!(PageCleaner::new(&options).is_err());
        let html = page_of("a.example", "x");
        assert!(decide_page(PageInput::Html(&html), "http://a.example/", &options).is_err());
    }

    /// The cleaner learns the site: the template that `incremental` keeps on a site's first
    /// page (nothing learned yet), and on any page decided alone, it drops once the site's
    /// pages have repeated it.
    #[test]
    fn the_cleaner_learns_each_site_as_it_goes() {
        let options = BuildOptions {
            detector: DetectorKind::Incremental,
            one_pass: true,
            ..BuildOptions::default()
        };
        let mut cleaner = PageCleaner::new(&options).unwrap();
        assert_eq!(cleaner.detector(), "incremental");
        let topics = [
            "Sea otters",
            "Badgers",
            "Herons",
            "Voles",
            "Beavers",
            "Moles",
            "Stoats",
            "Newts",
            "Toads",
            "Hares",
            "Swifts",
            "Martens",
        ];
        let mut decided = Vec::new();
        for (n, topic) in topics.iter().enumerate() {
            let html = page_of("a.example", topic);
            let url = format!("http://a.example/{n}");
            decided.push(cleaner.clean(PageInput::Html(&html), &url).unwrap());
        }
        let (first, last) = (&decided[0], &decided[topics.len() - 1]);
        let alone = decide_page(
            PageInput::Html(&page_of("a.example", "Martens")),
            "http://a.example/11",
            &options,
        )
        .unwrap();
        assert!(
            first.kept_text().contains("Copyright"),
            "{}",
            first.kept_text()
        );
        assert!(
            alone.kept_text().contains("Copyright"),
            "{}",
            alone.kept_text()
        );
        assert!(
            last.kept_text().contains("Martens: a paragraph"),
            "{}",
            last.kept_text()
        );
        assert!(
            !last.kept_text().contains("Copyright"),
            "{}",
            last.kept_text()
        );
    }
}
