//! The decided page: what a read hands to its caller (the index writer, `extract`, Python),
//! a segmented page with a keep/drop verdict for each block and where its record lies.

use std::borrow::Cow;
use std::sync::Arc;

use crate::analyze::language::DetectedLanguage;
use crate::detect::{DecisionRecord, Verdict};
use crate::read::{FetchTime, RecordLocation};
use crate::segment::SegmentedPage;

/// A page with a keep/drop decision for each of its blocks.
#[derive(Debug, Clone)]
pub struct DecidedPage {
    /// The segmented page.
    pub page: SegmentedPage,
    /// Whether each block is kept, and why, in block order.
    pub verdicts: Vec<Verdict>,
    /// Where the page's record lies in the run's inputs.
    pub location: RecordLocation,
    /// [`crate::read::Record::source_length`]: with [`RecordLocation::offset`], the bytes
    /// of the record in its file.
    pub record_length: Option<u64>,
    /// The input file the record is in, as given to the run (a folder's file by its path
    /// within the folder, `-` for standard input), when the run names it
    /// ([`crate::read::InputSet::path_of`]); `None` for a page given alone.
    pub source: Option<Arc<str>>,
    /// When the page was fetched (its record's `WARC-Date`), if the record says so readably.
    pub fetched: Option<FetchTime>,
    /// The record's date as it gives it ([`crate::read::Page::date`]).
    pub date: Option<String>,
    /// The record's `WARC-Record-ID` ([`crate::read::Page::record_id`]).
    pub record_id: Option<String>,
    /// The character set the page was decoded from ([`crate::read::Page::charset`]).
    pub charset: &'static str,
    /// A page of plain text (a WET record): every block kept by [`Rule::PLAIN_TEXT`].
    ///
    /// [`Rule::PLAIN_TEXT`]: crate::detect::Rule::PLAIN_TEXT
    pub plain_text: bool,
    /// A stable 64-bit hash of the page's decoded HTML.
    pub digest: u64,
    /// [`kept_text`](Self::kept_text), when it was rendered where the page was decided (on
    /// a worker: [`RunPlan::rendered_ahead`](crate::run::RunPlan::rendered_ahead));
    /// `None` has it rendered when asked. Set by the read that decided the page: it follows
    /// the verdicts as they were decided, so only the read sets it.
    pub(crate) rendered_text: Option<String>,
    /// The language of [`rendered_text`](Self::rendered_text), when it was detected where
    /// the page was decided ([`RenderedAhead::KeptTextAndLanguage`]); `None` has the caller
    /// detect it.
    pub(crate) rendered_language: Option<Option<DetectedLanguage>>,
}

/// What a two-pass read prepares of each page where it decides it, on the workers, so that
/// the one thread that receives pages in order does less: what the caller will ask of every
/// page. A one-pass read, which decides on that thread, and a page of plain text prepare
/// nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RenderedAhead {
    /// Nothing: the caller renders what it needs.
    #[default]
    Nothing,
    /// The kept text as lines ([`DecidedPage::kept_text`]).
    KeptText,
    /// The kept text as lines and its language ([`crate::analyze::language::detect_language`]).
    KeptTextAndLanguage,
}

impl RenderedAhead {
    /// Whether the kept text is rendered ahead.
    pub fn renders_kept_text(self) -> bool {
        self != RenderedAhead::Nothing
    }

    /// Whether the kept text's language is detected ahead.
    pub fn detects_language(self) -> bool {
        self == RenderedAhead::KeptTextAndLanguage
    }
}

impl DecidedPage {
    /// The kept text as lines ([`Verdict::kept_text`]): [`rendered_text`](Self::rendered_text)
    /// when the page has it, rendered now otherwise.
    pub fn kept_text(&self) -> Cow<'_, str> {
        match &self.rendered_text {
            Some(text) => Cow::Borrowed(text),
            None => Cow::Owned(Verdict::kept_text(&self.page, &self.verdicts)),
        }
    }

    /// Whether the detector found main content on the page
    /// ([`Verdict::found_main_content`]).
    pub fn found_main_content(&self) -> bool {
        Verdict::found_main_content(&self.page, &self.verdicts)
    }

    /// The kept text as CommonMark with GitHub tables ([`crate::segment::Layout::markdown`]),
    /// with links and images when asked.
    pub fn kept_markdown(&self, links: bool, images: bool) -> String {
        let options = crate::segment::MarkdownOptions {
            links,
            images,
            base_url: self.page.url.clone(),
        };
        let keep = |block: usize| self.verdicts.get(block).is_some_and(|verdict| verdict.keep);
        if self.page.layout.is_empty() {
            return self.kept_text().into_owned();
        }
        self.page.layout.markdown(&self.page.blocks, keep, &options)
    }

    /// The page's decisions as the index stores them ([`DecisionRecord`]).
    pub fn decision_bytes(&self) -> Vec<u8> {
        DecisionRecord::of(&self.verdicts).to_bytes()
    }

    /// Bytes of text kept and dropped.
    pub fn text_bytes(&self) -> (u64, u64) {
        let (mut kept, mut dropped) = (0, 0);
        for (block, verdict) in self.page.blocks.iter().zip(&self.verdicts) {
            if verdict.keep {
                kept += block.text.len() as u64;
            } else {
                dropped += block.text.len() as u64;
            }
        }
        (kept, dropped)
    }

    /// How many blocks are kept.
    pub fn kept_blocks(&self) -> u64 {
        self.verdicts.iter().filter(|verdict| verdict.keep).count() as u64
    }
}
