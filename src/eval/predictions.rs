//! Predictions: kept text by URL from a file — JSON lines with `url` and `text`, as `indexer
//! extract` or `indexer train --cross-validate` write them — measured as an index of its
//! own. Lines of a sampled training run also say the `pages_per_site` their page was decided
//! at, and count at that size alone.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use super::{EvalError, for_each_line};
use crate::run::PagesPerSite;

/// Kept text by URL, read from a file.
#[derive(Debug, Clone, Default)]
pub struct Predictions {
    /// The row's name.
    pub name: String,
    /// Kept text by URL, of the lines that name no pages per site: used at every size.
    pub texts: HashMap<String, String>,
    /// Kept text by URL, of the lines decided with their site sampled down to a number of
    /// pages: used at that size.
    pub sampled: BTreeMap<PagesPerSite, HashMap<String, String>>,
}

impl Predictions {
    /// The kept text of `url` at `pages` per site (`None`: whole sites, as `all`): its line
    /// written at that size, or else its line that names no size.
    pub fn text_at(&self, url: &str, pages: Option<PagesPerSite>) -> Option<&str> {
        let pages = pages.unwrap_or(PagesPerSite::All);
        (self.sampled.get(&pages))
            .and_then(|texts| texts.get(url))
            .or_else(|| self.texts.get(url))
            .map(String::as_str)
    }

    /// Refuses a size that predictions written at other sizes do not hold (predictions
    /// that name no size hold every size).
    pub fn check_written_at(&self, pages: Option<PagesPerSite>) -> Result<(), EvalError> {
        let pages = pages.unwrap_or(PagesPerSite::All);
        if self.sampled.is_empty() || self.sampled.contains_key(&pages) {
            return Ok(());
        }
        let written: Vec<String> = self.sampled.keys().map(PagesPerSite::to_string).collect();
        Err(EvalError::PredictionsNotSampledAt {
            name: self.name.clone(),
            pages,
            written: written.join(","),
        })
    }
}

/// Reads a predictions file (JSON lines with `url`, `text` and, from a sampled training run,
/// `pages_per_site`).
pub fn load_predictions(name: &str, path: &Path) -> Result<Predictions, EvalError> {
    let mut predictions = Predictions {
        name: name.to_string(),
        ..Predictions::default()
    };
    for_each_line(&[path.to_path_buf()], |value| {
        let (Some(url), Some(text)) = (
            value.get("url").and_then(|v| v.as_str()),
            value.get("text").and_then(|v| v.as_str()),
        ) else {
            return;
        };
        let texts = match value
            .get("pages_per_site")
            .and_then(PagesPerSite::from_json)
        {
            Some(pages) => predictions.sampled.entry(pages).or_default(),
            None => &mut predictions.texts,
        };
        texts.insert(url.to_string(), text.to_string());
    })?;
    Ok(predictions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_named_gz_and_zst_are_read_through_their_compression() {
        let dir = tempfile::tempdir().unwrap();
        let line = b"{\"url\": \"u1\", \"text\": \"kept\"}\n";
        let zst = dir.path().join("cv.jsonl.zst");
        std::fs::write(&zst, zstd::encode_all(&line[..], 3).unwrap()).unwrap();
        let gz = dir.path().join("cv.jsonl.gz");
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut encoder, line).unwrap();
        std::fs::write(&gz, encoder.finish().unwrap()).unwrap();
        for path in [zst, gz] {
            let predictions = load_predictions("cv", &path).unwrap();
            assert_eq!(predictions.text_at("u1", None), Some("kept"), "{path:?}");
        }
    }

    #[test]
    fn lines_count_at_their_pages_per_site_and_lines_without_at_every_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cv.jsonl");
        std::fs::write(
            &path,
            concat!(
                "{\"url\": \"u1\", \"text\": \"one at 1\", \"pages_per_site\": 1}\n",
                "{\"url\": \"u1\", \"text\": \"one at all\", \"pages_per_site\": \"all\"}\n",
                "{\"url\": \"u2\", \"text\": \"two anywhere\"}\n",
                "{\"url\": \"u3\"}\n",
            ),
        )
        .unwrap();
        let predictions = load_predictions("cv", &path).unwrap();
        let one = Some(PagesPerSite::Pages(1));
        assert_eq!(predictions.text_at("u1", one), Some("one at 1"));
        assert_eq!(predictions.text_at("u1", None), Some("one at all"));
        assert_eq!(predictions.text_at("u2", one), Some("two anywhere"));
        assert_eq!(predictions.text_at("u3", one), None);
        assert!(predictions.check_written_at(one).is_ok());
        assert!(predictions.check_written_at(None).is_ok());
        let refused = predictions
            .check_written_at(Some(PagesPerSite::Pages(3)))
            .unwrap_err();
        assert!(
            refused.to_string().contains("written at 1,all"),
            "{refused}"
        );

        let unsampled = Predictions {
            texts: HashMap::from([("u".to_string(), "t".to_string())]),
            ..Predictions::default()
        };
        assert!(
            unsampled
                .check_written_at(Some(PagesPerSite::Pages(3)))
                .is_ok()
        );
        assert_eq!(
            unsampled.text_at("u", Some(PagesPerSite::Pages(3))),
            Some("t")
        );
    }
}
