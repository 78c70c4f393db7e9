use super::*;

/// `append_collapsed` a character at a time, as it was first written.
fn collapsed_by_characters(out: &mut String, text: &str) {
    for c in text.chars() {
        if c == SOFT_HYPHEN {
            continue;
        }
        if c.is_whitespace() {
            if !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
        } else {
            out.push(c);
        }
    }
}

#[test]
fn whitespace_collapses_to_one_space_and_soft_hyphens_go() {
    let texts = [
        "",
        "  leading and trailing  ",
        "tab\tnew\nline\r\nform\x0cfeed vertical\x0btab",
        "no\u{a0}break\u{2003}em\u{3000}ideographic\u{85}next",
        "Mit\u{ad}tel\u{ad}al\u{ad}ter \u{ad} \u{ad}",
        "\u{1c}\u{1f} are not whitespace; 東京 café",
    ];
    for before in ["", "kept", "kept "] {
        for text in texts {
            let mut fast = before.to_string();
            append_collapsed(&mut fast, text);
            let mut slow = before.to_string();
            collapsed_by_characters(&mut slow, text);
            assert_eq!(fast, slow, "{before:?} + {text:?}");
        }
    }
    let mut out = String::new();
    append_collapsed(&mut out, " a \t\n b\u{ad}c ");
    assert_eq!(out, "a bc ");
}
