//! Language: a page's kept text in, its language out, as an ISO 639-3 code (`eng`, `deu`,
//! `cmn`: whatlang's codes, and what Common Crawl writes in `WARC-Identified-Content-Language`).
//! Also the codes `extract --lang` accepts: 639-3, or 639-1 (`en`, `de`) for the 70 languages
//! whatlang knows.

/// Characters of kept text the detector reads, at most: enough for trigram statistics, and
/// a long page costs no more than a short one.
const SAMPLE_BYTES: usize = 16 * 1024;

/// The language of `text` (whatlang's best guess; `None` for empty text or a script it cannot
/// tell).
pub fn language_of(text: &str) -> Option<&'static str> {
    let mut end = text.len().min(SAMPLE_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    whatlang::detect_lang(&text[..end]).map(|lang| lang.code())
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
