//! The extracted page: a [`DecidedPage`] in, the record `extract` writes of it out — as one
//! JSON line, or the fields of a WET record ([`super::wet`]). Its fields, in this order, are
//! the JSON keys, and the order is part of the output's contract (docs/GUIDE.md, "Extracting text for corpora").

use std::time::{Duration, UNIX_EPOCH};

use serde::Serialize;

use super::TextForm;
use crate::report::utc_timestamp;
use crate::run::DecidedPage;

/// One page as `extract` writes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExtractedPage {
    /// The record's URL.
    pub url: String,
    /// Its site (host).
    pub site: String,
    /// The first `<title>`, whitespace collapsed ("" for a page of plain text).
    pub title: String,
    /// The source record's `WARC-Record-ID` (`<urn:uuid:…>`); `None` for ARC records and
    /// folder files, which have none.
    pub record_id: Option<String>,
    /// When the page was fetched: RFC 3339 UTC to the second when the record's date reads as
    /// a date, as the record gives it otherwise; `None` for folder files.
    pub date: Option<String>,
    /// The file the page's record is in, as given to the run (a folder's file by its path);
    /// `None` for a page given alone.
    pub warc_filename: Option<std::sync::Arc<str>>,
    /// The record's byte offset in that file (in a gzip file, of the member holding it).
    pub warc_record_offset: Option<u64>,
    /// The record's bytes from that offset (in a gzip file, of the members holding it): the
    /// range that reads it back alone. `None` when it shares a gzip member with others.
    pub warc_record_length: Option<u64>,
    /// The character set the page was decoded from (`UTF-8`, `windows-1252`, …).
    pub charset: &'static str,
    /// The language of [`Self::text`] as an ISO 639-3 code; `None` when not detected (or
    /// not asked for).
    pub lang: Option<&'static str>,
    /// The language detector's confidence in [`Self::lang`], 0–1, to four decimals.
    pub language_score: Option<f64>,
    /// Blocks kept and dropped.
    pub blocks_kept: usize,
    pub blocks_dropped: usize,
    /// Whether the detector found main content ([`DecidedPage::found_main_content`]): false
    /// for a page it kept nothing of, or kept anything of by a fallback (a login wall, a bare
    /// list of links), whose text then holds what the fallback kept.
    pub main_content: bool,
    /// The kept text: lines (block-level elements start a line, table cells are separated by
    /// tabs, code keeps its lines), or Markdown under [`TextForm::Markdown`].
    pub text: String,
}

impl ExtractedPage {
    /// The record of `decided`, its text in `form`, with the language of its kept text when
    /// `detect_language`.
    pub fn of(decided: &DecidedPage, detect_language: bool, form: TextForm) -> ExtractedPage {
        let text = decided.kept_text_as(form).into_owned();
        let blocks_kept = decided.verdicts.iter().filter(|v| v.keep).count();
        let date = match decided.fetched {
            Some(time) => Some(rfc3339(time.0)),
            None => decided.date.clone(),
        };
        let language = match decided.rendered_language(form) {
            _ if !detect_language => None,
            Some(detected_ahead) => detected_ahead,
            None => super::detect_language(&text),
        };
        ExtractedPage {
            url: decided.page.url.clone(),
            site: decided.page.site.clone(),
            title: decided.page.title.clone(),
            record_id: decided.record_id.clone(),
            date,
            warc_filename: decided.source.clone(),
            warc_record_offset: decided.source.is_some().then_some(decided.location.offset),
            warc_record_length: decided.source.as_ref().and(decided.record_length),
            charset: decided.charset,
            lang: language.map(|detected| detected.code),
            language_score: language.map(|detected| (detected.score * 1e4).round() / 1e4),
            blocks_kept,
            blocks_dropped: decided.verdicts.len() - blocks_kept,
            main_content: decided.found_main_content(),
            text,
        }
    }

    /// The page as one JSON line (without the line end), with `blocks` after its fields
    /// when given (`extract --explain`).
    pub fn json_line(&self, blocks: Option<&serde_json::Value>) -> serde_json::Result<String> {
        #[derive(Serialize)]
        struct Explained<'a> {
            #[serde(flatten)]
            page: &'a ExtractedPage,
            blocks: &'a serde_json::Value,
        }
        match blocks {
            Some(blocks) => serde_json::to_string(&Explained { page: self, blocks }),
            None => serde_json::to_string(self),
        }
    }
}

/// Nanoseconds since 1970 as an RFC 3339 UTC timestamp to the second (the epoch for earlier
/// times).
pub(super) fn rfc3339(nanos: i64) -> String {
    let seconds = u64::try_from(nanos.div_euclid(1_000_000_000)).unwrap_or(0);
    utc_timestamp(UNIX_EPOCH + Duration::from_secs(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page() -> ExtractedPage {
        ExtractedPage {
            url: "http://a.example/".into(),
            site: "a.example".into(),
            title: "A".into(),
            record_id: Some("<urn:uuid:1>".into()),
            date: Some("2020-08-08T17:27:41Z".into()),
            warc_filename: Some("crawl.warc.gz".into()),
            warc_record_offset: Some(784),
            warc_record_length: Some(1203),
            charset: "UTF-8",
            lang: Some("eng"),
            language_score: Some(0.97),
            blocks_kept: 1,
            blocks_dropped: 2,
            main_content: true,
            text: "kept".into(),
        }
    }

    #[test]
    fn json_keys_come_in_the_documented_order() {
        let line = page().json_line(None).unwrap();
        assert_eq!(
            line,
            r#"{"url":"http://a.example/","site":"a.example","title":"A","record_id":"<urn:uuid:1>","date":"2020-08-08T17:27:41Z","warc_filename":"crawl.warc.gz","warc_record_offset":784,"warc_record_length":1203,"charset":"UTF-8","lang":"eng","language_score":0.97,"blocks_kept":1,"blocks_dropped":2,"main_content":true,"text":"kept"}"#
        );
        let blocks = serde_json::json!([{"text": "kept"}]);
        let explained = page().json_line(Some(&blocks)).unwrap();
        assert!(
            explained.ends_with(r#""text":"kept","blocks":[{"text":"kept"}]}"#),
            "{explained}"
        );
    }

    #[test]
    fn dates_are_written_in_utc_to_the_second() {
        assert_eq!(rfc3339(1_596_907_661_500_000_000), "2020-08-08T17:27:41Z");
        assert_eq!(rfc3339(-5), "1970-01-01T00:00:00Z");
    }
}
