//! Language: a page's kept text in, its language out, as an ISO 639-3 code (`eng`, `deu`,
//! `cmn`: whatlang's codes, and what Common Crawl writes in `WARC-Identified-Content-Language`).
//! Also the codes `extract --lang` accepts: 639-3, or 639-1 (`en`, `de`) for the 70 languages
//! whatlang knows. Used by `run` (a page's language detected on the worker that decides it)
//! and re-exported by `output`, whose records carry it.

/// Characters of kept text the detector reads, at most: enough for trigram statistics, and
/// a long page costs no more than a short one.
const SAMPLE_BYTES: usize = 16 * 1024;

/// A language detected, with the detector's confidence in it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DetectedLanguage {
    /// ISO 639-3 code.
    pub code: &'static str,
    /// whatlang's confidence, 0–1: how far the best language's score stands above the
    /// second's, and how much text there was to tell them by.
    pub score: f64,
}

/// The language of `text` (whatlang's best guess; `None` for empty text or a script it cannot
/// tell).
pub fn language_of(text: &str) -> Option<&'static str> {
    detect_language(text).map(|detected| detected.code)
}

/// The language of `text` and the confidence in it.
pub fn detect_language(text: &str) -> Option<DetectedLanguage> {
    detect_language_in(text, SAMPLE_BYTES)
}

/// The language of the first `sample_bytes` of `text` (cut back to a character boundary) and
/// the confidence in it: [`detect_language`] with another sample, for measuring the sample.
pub fn detect_language_in(text: &str, sample_bytes: usize) -> Option<DetectedLanguage> {
    let mut end = text.len().min(sample_bytes);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    whatlang::detect(&text[..end]).map(|info| DetectedLanguage {
        code: info.lang().code(),
        score: info.confidence(),
    })
}

/// ISO 639-1 codes of whatlang's languages and their 639-3 codes.
const ISO_639_1: [(&str, &str); 70] = [
    ("af", "afr"),
    ("ak", "aka"),
    ("am", "amh"),
    ("ar", "ara"),
    ("az", "aze"),
    ("be", "bel"),
    ("bg", "bul"),
    ("bn", "ben"),
    ("ca", "cat"),
    ("cs", "ces"),
    ("cy", "cym"),
    ("da", "dan"),
    ("de", "deu"),
    ("el", "ell"),
    ("en", "eng"),
    ("eo", "epo"),
    ("es", "spa"),
    ("et", "est"),
    ("fa", "pes"),
    ("fi", "fin"),
    ("fr", "fra"),
    ("gu", "guj"),
    ("he", "heb"),
    ("hi", "hin"),
    ("hr", "hrv"),
    ("hu", "hun"),
    ("hy", "hye"),
    ("id", "ind"),
    ("it", "ita"),
    ("ja", "jpn"),
    ("jv", "jav"),
    ("ka", "kat"),
    ("km", "khm"),
    ("kn", "kan"),
    ("ko", "kor"),
    ("la", "lat"),
    ("lt", "lit"),
    ("lv", "lav"),
    ("mk", "mkd"),
    ("ml", "mal"),
    ("mr", "mar"),
    ("my", "mya"),
    ("nb", "nob"),
    ("ne", "nep"),
    ("nl", "nld"),
    ("or", "ori"),
    ("pa", "pan"),
    ("pl", "pol"),
    ("pt", "por"),
    ("ro", "ron"),
    ("ru", "rus"),
    ("si", "sin"),
    ("sk", "slk"),
    ("sl", "slv"),
    ("sn", "sna"),
    ("sr", "srp"),
    ("sv", "swe"),
    ("ta", "tam"),
    ("te", "tel"),
    ("th", "tha"),
    ("tk", "tuk"),
    ("tl", "tgl"),
    ("tr", "tur"),
    ("uk", "ukr"),
    ("ur", "urd"),
    ("uz", "uzb"),
    ("vi", "vie"),
    ("yi", "yid"),
    ("zh", "cmn"),
    ("zu", "zul"),
];

/// A language `--lang` asks for, and the least confidence a page's detected language must
/// have: `en`, `deu`, `en:0.65` (the score as FineWeb and DCLM filter on).
pub fn language_filter(spec: &str) -> Option<(&'static str, f64)> {
    let (code, score) = match spec.split_once(':') {
        Some((code, score)) => (code, score.trim().parse::<f64>().ok()?),
        None => (spec, 0.0),
    };
    if !(0.0..=1.0).contains(&score) {
        return None;
    }
    Some((language_code(code)?, score))
}

/// The 639-3 code [`language_of`] gives for the language `code` names (639-1 or 639-3, any
/// case), or `None` when it names none of whatlang's languages.
pub fn language_code(code: &str) -> Option<&'static str> {
    let code = code.trim().to_ascii_lowercase();
    if let Some(lang) = whatlang::Lang::from_code(code.as_str()) {
        return Some(lang.code());
    }
    ISO_639_1
        .iter()
        .find(|(two, _)| *two == code)
        .map(|&(_, three)| three)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_of_plain_sentences() {
        let german =
            "Der Rundweg beginnt am Bahnhof und führt zuerst durch einen schattigen Buchenwald.";
        assert_eq!(language_of(german), Some("deu"));
        let english = "The old stone bridge was built to carry carts across the water.";
        assert_eq!(language_of(english), Some("eng"));
        assert_eq!(language_of(""), None);
    }

    #[test]
    fn a_long_text_is_sampled_at_a_character_boundary() {
        let text = "é".repeat(SAMPLE_BYTES);
        let _ = language_of(&text);
    }

    #[test]
    fn a_language_comes_with_a_confidence_that_grows_with_the_text() {
        let short = detect_language("The bridge").unwrap();
        let long = detect_language(
            "The old stone bridge was built to carry carts across the water, and it still \
             stands at the end of the village, where the road turns towards the mill.",
        )
        .unwrap();
        assert_eq!(long.code, "eng");
        assert!((0.0..=1.0).contains(&short.score), "{short:?}");
        assert!(long.score > short.score, "{short:?} {long:?}");
        assert_eq!(
            language_of("The old stone bridge was built to carry carts."),
            Some("eng")
        );
    }

    #[test]
    fn a_filter_names_a_language_and_the_least_score() {
        assert_eq!(language_filter("en"), Some(("eng", 0.0)));
        assert_eq!(language_filter("deu:0.65"), Some(("deu", 0.65)));
        assert_eq!(language_filter("en:1"), Some(("eng", 1.0)));
        for bad in ["en:", "en:x", "en:1.5", "en:-0.1", "xx:0.5", "xx"] {
            assert_eq!(language_filter(bad), None, "{bad}");
        }
    }

    #[test]
    fn codes_of_both_standards_name_the_same_language() {
        assert_eq!(language_code("de"), Some("deu"));
        assert_eq!(language_code("DEU"), Some("deu"));
        assert_eq!(language_code("zh"), Some("cmn"));
        assert_eq!(language_code("xx"), None);
        assert_eq!(language_code("german"), None);
        for (two, three) in ISO_639_1 {
            assert_eq!(
                whatlang::Lang::from_code(three).map(|l| l.code()),
                Some(three),
                "{two}"
            );
        }
        assert_eq!(whatlang::Lang::all().len(), ISO_639_1.len());
    }
}
