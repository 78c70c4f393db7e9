//! Output of `extract` for corpus pipelines: [`DecidedPage`]s in,
//! records out, as an [`OutputPlan`] made once from the caller's options says.
//!
//! | module | in | out |
//! |---|---|---|
//! | [`page`] | a decided page | an [`ExtractedPage`]: URL, site, title, record id, date, charset, language, block counts, kept text — the JSON line's keys, in order |
//! | [`crate::analyze::language`] (re-exported) | kept text | its language, ISO 639-3 (whatlang) |
//! | [`wet`] | extracted pages | WARC/1.0 `warcinfo` and `conversion` records, as Common Crawl's WET files |
//! | [`dolma`] | a decided page and its extracted page | dolma's `documents` row (the whole visible text) and its `attributes` row (each block's span, its template probability and whether it was kept) |
//! | [`file`](mod@file) | records as bytes | a file compressed by its extension (`.gz`, `.zst`), renamed into place when complete |
//!
//! Which pages are written is the plan's: pages with no kept text are left out unless
//! [`OutputPlan::keep_empty`], and under [`OutputPlan::languages`] pages of other languages
//! (or of none detected) are left out; [`OutputCounts`] counts both.

pub mod dolma;
mod file;
mod page;
mod wet;

pub use crate::analyze::language::{
    DetectedLanguage, detect_language, detect_language_in, language_code, language_filter,
    language_of,
};
pub use file::{
    Compression, GZIP_PIECE, OutputFile, ZSTD_PIECE, compressing_threads, is_special,
    is_standard_output,
};
pub use page::ExtractedPage;
pub use wet::{conversion_record, hashed_uuid, warcinfo_record};

use std::collections::BTreeMap;
use std::path::PathBuf;

pub use crate::run::TextForm;

use crate::run::{DecidedPage, RenderedAhead};

/// What `extract` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// One JSON object a line: [`ExtractedPage`]'s fields.
    #[default]
    Jsonl,
    /// A WET file: WARC `conversion` records ([`wet`]).
    Wet,
    /// dolma's `documents` and `attributes` files ([`dolma`]).
    Dolma,
}

/// Why the output cannot be planned or written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// A language code that names none of the languages detected.
    #[error(
        "unknown language {0:?}: give ISO 639-1 or 639-3 codes (en, de, fr or eng, deu, fra) of the 70 languages whatlang detects, each with a least score from 0 to 1 if wanted (en:0.65)"
    )]
    UnknownLanguage(String),
    /// The output file cannot be created.
    #[error("cannot create {}: {source}", path.display())]
    Create {
        /// The file asked for.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Writing the output file failed (disk full, ...): nothing is left under its name.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file asked for.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// What `extract` writes and which pages, resolved once before the run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OutputPlan {
    /// The record format.
    pub format: Format,
    /// Lines or Markdown.
    pub text: TextForm,
    /// Write pages with no kept text too.
    pub keep_empty: bool,
    /// Write only pages on which the detector found main content
    /// ([`ExtractedPage::main_content`]).
    pub main_content_only: bool,
    /// Detect each page's language (the `lang` field).
    pub detect_language: bool,
    /// Only pages in these languages (ISO 639-3), each detected with at least its score,
    /// when set.
    pub languages: Option<BTreeMap<&'static str, f64>>,
}

impl OutputPlan {
    /// The plan for `format`, keeping empty pages if `keep_empty`, detecting languages if
    /// `detect_language` or a language filter is given, and writing only the pages of
    /// `languages` (ISO 639-1 or 639-3 codes, each with a least score: `en:0.65`) when there
    /// are any.
    pub fn new(
        format: Format,
        keep_empty: bool,
        detect_language: bool,
        languages: &[String],
    ) -> Result<OutputPlan, OutputError> {
        let languages = if languages.is_empty() {
            None
        } else {
            let codes = languages.iter().map(|spec| {
                language_filter(spec).ok_or_else(|| OutputError::UnknownLanguage(spec.clone()))
            });
            Some(codes.collect::<Result<BTreeMap<_, _>, _>>()?)
        };
        Ok(OutputPlan {
            format,
            text: TextForm::Lines,
            keep_empty,
            main_content_only: false,
            detect_language: detect_language || languages.is_some(),
            languages,
        })
    }

    /// The plan with the text written in `form`.
    pub fn with_text(self, form: TextForm) -> OutputPlan {
        OutputPlan { text: form, ..self }
    }

    /// The plan writing only pages with main content when `main_content_only`.
    pub fn with_main_content_only(self, main_content_only: bool) -> OutputPlan {
        OutputPlan {
            main_content_only,
            ..self
        }
    }

    /// What a read can prepare of each page on its workers for this plan
    /// ([`crate::run::extract`]): the kept text in the plan's form, and its language when
    /// it is detected.
    pub fn rendered_ahead(&self) -> RenderedAhead {
        match self.detect_language {
            false => RenderedAhead::KeptText(self.text),
            true => RenderedAhead::KeptTextAndLanguage(self.text),
        }
    }

    /// The record of `decided` as this plan writes it ([`ExtractedPage::of`]), counted in
    /// `counts`; `None` when the plan leaves it out ([`left_out`](Self::left_out)).
    pub fn extracted(
        &self,
        decided: &DecidedPage,
        counts: &mut OutputCounts,
    ) -> Option<ExtractedPage> {
        let page = ExtractedPage::of(decided, self.detect_language, self.text);
        let left_out = self.left_out(&page);
        counts.count(&page, left_out);
        left_out.is_none().then_some(page)
    }

    /// Why `page` is left out, or `None` when it is written.
    pub fn left_out(&self, page: &ExtractedPage) -> Option<LeftOut> {
        if !self.keep_empty && page.text.is_empty() {
            return Some(LeftOut::Empty);
        }
        if self.main_content_only && !page.main_content {
            return Some(LeftOut::NoMainContent);
        }
        match &self.languages {
            Some(languages)
                if !page.lang.is_some_and(|lang| {
                    languages
                        .get(lang)
                        .is_some_and(|&least| page.language_score.unwrap_or(0.0) >= least)
                }) =>
            {
                Some(LeftOut::OtherLanguage)
            }
            _ => None,
        }
    }
}

/// Why a page is not written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeftOut {
    /// No kept text (and no `keep_empty`).
    Empty,
    /// No main content found, and only pages with it asked for.
    NoMainContent,
    /// Not in the languages asked for, or detected with less than their least score (or none
    /// detected).
    OtherLanguage,
}

/// Pages written and left out, by reason.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OutputCounts {
    /// Pages written.
    pub written: u64,
    /// Pages left out with no kept text.
    pub empty: u64,
    /// Pages left out without main content.
    pub no_main_content: u64,
    /// Pages written without main content (`"main_content": false`).
    pub written_without_main_content: u64,
    /// Pages left out for their language.
    pub other_language: u64,
}

impl OutputCounts {
    /// Counts `page`: written, or left out for `reason`.
    pub fn count(&mut self, page: &ExtractedPage, left_out: Option<LeftOut>) {
        match left_out {
            None => {
                self.written += 1;
                self.written_without_main_content += u64::from(!page.main_content);
            }
            Some(LeftOut::Empty) => self.empty += 1,
            Some(LeftOut::NoMainContent) => self.no_main_content += 1,
            Some(LeftOut::OtherLanguage) => self.other_language += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(text: &str, lang: Option<&'static str>) -> ExtractedPage {
        ExtractedPage {
            url: "http://a.example/".into(),
            site: "a.example".into(),
            title: String::new(),
            record_id: None,
            date: None,
            warc_filename: None,
            warc_record_offset: None,
            warc_record_length: None,
            charset: "UTF-8",
            lang,
            language_score: lang.map(|_| 0.9),
            blocks_kept: 1,
            blocks_dropped: 0,
            main_content: !text.is_empty(),
            text: text.into(),
        }
    }

    #[test]
    fn empty_pages_and_other_languages_are_left_out_as_planned() {
        let plan = OutputPlan::new(Format::Jsonl, false, false, &["de".into(), "eng".into()]);
        let plan = plan.unwrap();
        assert!(
            plan.detect_language,
            "a language filter needs the languages"
        );
        assert_eq!(plan.left_out(&page("", Some("deu"))), Some(LeftOut::Empty));
        assert_eq!(plan.left_out(&page("Hallo", Some("deu"))), None);
        assert_eq!(plan.left_out(&page("Hello", Some("eng"))), None);
        let french = page("Bonjour", Some("fra"));
        assert_eq!(plan.left_out(&french), Some(LeftOut::OtherLanguage));
        assert_eq!(
            plan.left_out(&page("?", None)),
            Some(LeftOut::OtherLanguage)
        );
        let sure = OutputPlan::new(Format::Jsonl, false, false, &["en:0.95".into()]).unwrap();
        assert_eq!(
            sure.left_out(&page("Hello", Some("eng"))),
            Some(LeftOut::OtherLanguage),
            "0.9 is under the least score"
        );
        let keep_all = OutputPlan::new(Format::Wet, true, false, &[]).unwrap();
        assert_eq!(keep_all.left_out(&page("", None)), None);
        let mut counts = OutputCounts::default();
        let mut flagged = page("Sign in", Some("eng"));
        flagged.main_content = false;
        for (page, left_out) in [
            (page("Hello", None), None),
            (page("", None), Some(LeftOut::Empty)),
            (page("Bonjour", None), Some(LeftOut::OtherLanguage)),
            (flagged.clone(), None),
            (flagged.clone(), Some(LeftOut::NoMainContent)),
        ] {
            counts.count(&page, left_out);
        }
        assert_eq!(
            (counts.written, counts.empty, counts.other_language),
            (2, 1, 1)
        );
        assert_eq!(
            (counts.no_main_content, counts.written_without_main_content),
            (1, 1)
        );
    }

    #[test]
    fn pages_without_main_content_are_flagged_or_left_out_as_planned() {
        let mut login_wall = page("Sign in\nForgot your password?", Some("eng"));
        login_wall.main_content = false;
        let flagging = OutputPlan::new(Format::Jsonl, false, false, &[]).unwrap();
        assert_eq!(flagging.left_out(&login_wall), None);
        let only = flagging.with_main_content_only(true);
        assert_eq!(only.left_out(&login_wall), Some(LeftOut::NoMainContent));
        assert_eq!(only.left_out(&page("An article.", None)), None);
        assert_eq!(
            only.left_out(&page("", None)),
            Some(LeftOut::Empty),
            "an empty page is counted as empty"
        );
    }

    #[test]
    fn an_unknown_language_is_refused_by_name() {
        let error = OutputPlan::new(Format::Jsonl, false, true, &["klingon".into()]).unwrap_err();
        assert!(error.to_string().contains("\"klingon\""), "{error}");
    }
}
