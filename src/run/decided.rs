//! The decided page: what a read hands to its caller (the index writer, `extract`, Python),
//! a segmented page with a keep/drop verdict for each block and where its record lies.

use std::borrow::Cow;
use std::sync::Arc;

use crate::analyze::language::{DetectedLanguage, detect_language};
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
    /// The kept text in the form the caller writes it, and its language, when they were made
    /// where the page was decided (on a worker: [`RunPlan::rendered_ahead`]); `None` has
    /// them made when asked. Set by the read that decided the page: it follows the verdicts
    /// as they were decided, so only the read sets it.
    ///
    /// [`RunPlan::rendered_ahead`]: crate::run::RunPlan::rendered_ahead
    pub(crate) rendered: Option<RenderedText>,
}

/// How a page's kept text is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TextForm {
    /// Lines ([`crate::segment::Layout::plain_text`]): what a build indexes.
    #[default]
    Lines,
    /// CommonMark with GitHub tables ([`crate::segment::Layout::markdown`]), with links and
    /// images when asked.
    Markdown {
        /// Links as `[text](absolute URL)`.
        links: bool,
        /// Images as `![alt](absolute URL)`.
        images: bool,
    },
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
    /// The kept text in this form ([`DecidedPage::kept_text_as`]).
    KeptText(TextForm),
    /// The kept text in this form and its language
    /// ([`crate::analyze::language::detect_language`]).
    KeptTextAndLanguage(TextForm),
}

impl RenderedAhead {
    /// The form the kept text is rendered in ahead, if it is.
    pub fn text_form(self) -> Option<TextForm> {
        match self {
            RenderedAhead::Nothing => None,
            RenderedAhead::KeptText(form) | RenderedAhead::KeptTextAndLanguage(form) => Some(form),
        }
    }

    /// Whether the kept text's language is detected ahead.
    pub fn detects_language(self) -> bool {
        matches!(self, RenderedAhead::KeptTextAndLanguage(_))
    }

    /// The kept text of `page` under `verdicts` and its language, as this says to make
    /// them; `None` when it says nothing.
    pub(crate) fn render(self, page: &SegmentedPage, verdicts: &[Verdict]) -> Option<RenderedText> {
        let form = self.text_form()?;
        let text = render(page, verdicts, form);
        let language = self.detects_language().then(|| detect_language(&text));
        Some(RenderedText {
            form,
            text,
            language,
        })
    }
}

/// A page's kept text, rendered in one form where the page was decided.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RenderedText {
    /// The form it is in.
    pub(crate) form: TextForm,
    /// The text.
    pub(crate) text: String,
    /// Its language, when it was detected ([`RenderedAhead::KeptTextAndLanguage`]).
    pub(crate) language: Option<Option<DetectedLanguage>>,
}

impl RenderedText {
    /// Bytes it holds.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.text.capacity()
    }
}

/// The kept text of `page` under `verdicts`, in `form`.
fn render(page: &SegmentedPage, verdicts: &[Verdict], form: TextForm) -> String {
    let TextForm::Markdown { links, images } = form else {
        return Verdict::kept_text(page, verdicts);
    };
    if page.layout.is_empty() {
        return Verdict::kept_text(page, verdicts);
    }
    let options = crate::segment::MarkdownOptions {
        links,
        images,
        base_url: page.url.clone(),
    };
    let keep = |block: usize| verdicts.get(block).is_some_and(|verdict| verdict.keep);
    page.layout.markdown(&page.blocks, keep, &options)
}

impl DecidedPage {
    /// The kept text as lines ([`Verdict::kept_text`]): rendered where the page was decided
    /// when it was rendered there as lines, now otherwise.
    pub fn kept_text(&self) -> Cow<'_, str> {
        self.kept_text_as(TextForm::Lines)
    }

    /// The kept text in `form`: rendered where the page was decided when it was in that
    /// form ([`RenderedAhead`]), now otherwise.
    pub fn kept_text_as(&self, form: TextForm) -> Cow<'_, str> {
        match &self.rendered {
            Some(rendered) if rendered.form == form => Cow::Borrowed(&rendered.text),
            _ => Cow::Owned(render(&self.page, &self.verdicts, form)),
        }
    }

    /// The language of the kept text in `form`, when it was detected where the page was
    /// decided: `Some(None)` when none was found there, `None` when it was not looked for.
    pub(crate) fn rendered_language(&self, form: TextForm) -> Option<Option<DetectedLanguage>> {
        self.rendered
            .as_ref()
            .filter(|rendered| rendered.form == form)
            .and_then(|rendered| rendered.language)
    }

    /// Whether the detector found main content on the page
    /// ([`Verdict::found_main_content`]).
    pub fn found_main_content(&self) -> bool {
        Verdict::found_main_content(&self.page, &self.verdicts)
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
