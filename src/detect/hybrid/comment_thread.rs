//! The shape of a thread of reader comments, told from the texts of the blocks that follow a
//! block naming comments ("Comments", "Responses"): texts in, yes or no out. Each comment of a
//! thread carries a short line of who wrote it and when — "Posted by: Ann | October 26, 2012
//! at 7:59 AM", "Bob 3 days ago", "1 November 2012 9:37PM" — so a thread is a run of blocks
//! in which short dated lines come back again and again, starting right after its name. A
//! section of a reference that is also called "Comments" has its dates (a changelog's, an
//! example's) far apart, if at all.

/// Dated lines a thread holds at least.
pub const MIN_DATED_LINES: usize = 3;

/// Dated lines a thread holds at least per block that follows its name.
pub const DATED_LINES_PER_BLOCK: f32 = 0.05;

/// Blocks after the name within which the thread's first dated line comes.
pub const FIRST_DATED_LINE_WITHIN: usize = 10;

/// Words a dated line has at most per date or time it holds (a block holding a dozen comments'
/// bylines run together counts each).
pub const WORDS_PER_DATE: usize = 15;

/// Whether the blocks `after` a block that names reader comments read as their thread.
pub fn follows_as_thread(after: &[&str]) -> bool {
    let mut dated_lines = 0;
    let mut first = None;
    for (at, text) in after.iter().enumerate() {
        let lines = dated_lines_in(text);
        if lines > 0 && first.is_none() {
            first = Some(at);
        }
        dated_lines += lines;
    }
    first.is_some_and(|at| at < FIRST_DATED_LINE_WITHIN)
        && dated_lines >= MIN_DATED_LINES
        && dated_lines as f32 >= DATED_LINES_PER_BLOCK * after.len() as f32
}

/// How many dated lines `text` counts for: the dates and times it mentions, when it has no
/// more than [`WORDS_PER_DATE`] words for each; otherwise none (prose that names a day).
pub fn dated_lines_in(text: &str) -> usize {
    let tokens: Vec<&str> = text
        .split_whitespace()
        .map(|token| token.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|token| !token.is_empty())
        .collect();
    let mut dates = 0;
    for (at, &token) in tokens.iter().enumerate() {
        let before = at.checked_sub(1).map(|before| tokens[before]);
        let after = tokens.get(at + 1).copied();
        let dated = is_time(token)
            || is_numeric_date(token)
            || (is_month(token)
                && (before.is_some_and(is_day) || after.is_some_and(is_day_or_year)))
            || (token.eq_ignore_ascii_case("ago")
                && before.is_some_and(is_time_unit)
                && at >= 2
                && is_number(tokens[at - 2]));
        dates += usize::from(dated);
    }
    let words = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .count();
    if dates > 0 && words <= WORDS_PER_DATE * dates {
        dates
    } else {
        0
    }
}

/// Month names and their short forms, in the languages of most bylines.
const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    "januar",
    "februar",
    "märz",
    "mai",
    "juni",
    "juli",
    "oktober",
    "dezember",
    "janvier",
    "février",
    "mars",
    "avril",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
    "gennaio",
    "febbraio",
    "aprile",
    "maggio",
    "giugno",
    "luglio",
    "settembre",
    "ottobre",
    "dicembre",
    "januari",
    "februari",
    "maart",
    "mei",
    "augustus",
];

const TIME_UNITS: &[&str] = &[
    "second", "seconds", "minute", "minutes", "min", "mins", "hour", "hours", "hr", "hrs", "day",
    "days", "week", "weeks", "month", "months", "year", "years",
];

fn is_number(token: &str) -> bool {
    !token.is_empty() && token.bytes().all(|byte| byte.is_ascii_digit())
}

fn is_month(token: &str) -> bool {
    MONTHS.contains(&token.to_lowercase().as_str())
}

fn is_time_unit(token: &str) -> bool {
    TIME_UNITS.contains(&token.to_ascii_lowercase().as_str())
}

/// A day of the month: "9", "26", "1st", "22nd".
fn is_day(token: &str) -> bool {
    let digits = token.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &token[digits.len()..];
    (1..=2).contains(&digits.len())
        && is_number(digits)
        && (suffix.is_empty()
            || ["st", "nd", "rd", "th"].contains(&suffix.to_ascii_lowercase().as_str()))
}

fn is_day_or_year(token: &str) -> bool {
    is_day(token) || (token.len() == 4 && is_number(token))
}

/// "7:59", "10:19:01", "9:37PM".
fn is_time(token: &str) -> bool {
    let clock = token.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let mut parts = clock.split(':');
    let hours = parts.next().unwrap_or("");
    let rest: Vec<&str> = parts.collect();
    (1..=2).contains(&hours.len())
        && is_number(hours)
        && (1..=2).contains(&rest.len())
        && rest.iter().all(|part| part.len() == 2 && is_number(part))
}

/// "11/2/2012", "10/28/12", "14.04.2020", "2012-11-02"; with dots only when a part is a year
/// of four digits ("2.2.27" is a version).
fn is_numeric_date(token: &str) -> bool {
    let Some(separator) = token.chars().find(|c| matches!(c, '/' | '.' | '-')) else {
        return false;
    };
    let parts: Vec<&str> = token.split(separator).collect();
    parts.len() == 3
        && parts.iter().all(|part| is_number(part))
        && (1..=4).contains(&parts[0].len())
        && (1..=2).contains(&parts[1].len())
        && (2..=4).contains(&parts[2].len())
        && (separator != '.' || parts[0].len() == 4 || parts[2].len() == 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bylines_of_comments_are_dated_lines() {
        for (line, dates) in [
            ("Posted by: Reed Hedges | Apr 6, 2007 1:11:01 PM", 2),
            ("November 5, 2012 at 7:59 am", 2),
            ("1 November 2012 9:37PM", 2),
            ("by biedergb 10 days ago", 1),
            ("Public Speaking Trainer says: 11/2/2012", 1),
            ("16. March, 2023 at 16:59", 2),
            ("Judd Levy 1 day ago", 1),
            ("22nd Oct reply", 1),
        ] {
            assert_eq!(dated_lines_in(line), dates, "{line}");
        }
        let run_together = "1. James Cannon - October 26, 2012 2. The Keeper - October 26, 2012 \
                            3. CmdrR - October 26, 2012";
        assert_eq!(dated_lines_in(run_together), 3);
    }

    #[test]
    fn prose_and_numbers_that_are_not_dates_are_not() {
        for line in [
            "We may see the results in 2012, or so the board said on the morning call.",
            "Changed in Django 2.2.27:",
            "The 3-clause BSD licence.",
            "May I ask a question?",
            "Version 10.2 of the library, released with 4 fixes",
            "Great post, thanks!",
            "",
        ] {
            assert_eq!(dated_lines_in(line), 0, "{line}");
        }
        let long = "On October 26, 2012 the committee met to decide what the project would do \
                    next, and after a long discussion of its budget, its staff and its aims it \
                    chose to go on as before";
        assert_eq!(dated_lines_in(long), 0, "a dated sentence of prose");
    }

    #[test]
    fn a_thread_repeats_dated_lines_from_its_start() {
        let thread = [
            "Posted by: Ann | October 26, 2012 at 7:59 AM",
            "Great post!",
            "Posted by: Bob | October 26, 2012 at 8:10 AM",
            "I disagree with most of it.",
            "Posted by: Cy | October 27, 2012 at 9:00 AM",
            "Thanks.",
        ];
        assert!(follows_as_thread(&thread));
        assert!(
            !follows_as_thread(&thread[..2]),
            "one byline: a date and a time"
        );
        // The same lines far down a long section: not where the name is.
        let mut late = vec!["A paragraph of reference."; FIRST_DATED_LINE_WITHIN];
        late.extend(thread);
        assert!(!follows_as_thread(&late));
        // Three dates in a long section: too few for its length.
        let mut sparse: Vec<&str> = thread.to_vec();
        sparse.extend(["A paragraph of reference."; 200]);
        assert!(!follows_as_thread(&sparse));
        assert!(!follows_as_thread(&[]));
    }
}
