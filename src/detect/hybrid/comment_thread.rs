//! The shape of a thread of reader comments, told from the texts of the blocks that follow a
//! block naming comments ("Comments", "Responses"): texts in, yes or no out. Each comment of a
//! thread carries a short byline of who wrote it and when — "Posted by: Ann | October 26, 2012
//! at 7:59 AM", "Bob 3 days ago", "1 November 2012 9:37PM" — so a thread is a run of blocks
//! in which short dated bylines come back again and again, starting right after its name. A
//! section of a reference that is also called "Comments" has its dates (an example's, a
//! changelog's) far apart, if at all.

use super::comments_heading;

/// Dates a thread's bylines hold at least.
pub const MIN_DATES: usize = 3;

/// Blocks holding those dates at least (one block may hold a dozen bylines run together).
pub const MIN_DATED_BLOCKS: usize = 2;

/// Dates a thread holds at least per block that follows its name.
pub const DATES_PER_BLOCK: f32 = 0.05;

/// Blocks after the name within which the thread's first dated byline comes.
pub const FIRST_DATE_WITHIN: usize = 10;

/// Words a byline has at most per date it holds: a longer block is prose that names a day.
pub const WORDS_PER_DATE: usize = 15;

/// Whether the blocks `after` a block that names reader comments read as their thread.
pub fn follows_as_thread(after: &[&str]) -> bool {
    let (mut dates, mut dated_blocks, mut first) = (0, 0, None);
    for (at, text) in after.iter().enumerate() {
        let in_block = byline_dates(text);
        if in_block > 0 {
            first.get_or_insert(at);
            dates += in_block;
            dated_blocks += 1;
        }
    }
    first.is_some_and(|at| at < FIRST_DATE_WITHIN)
        && dates >= MIN_DATES
        && dated_blocks >= MIN_DATED_BLOCKS
        && dates as f32 >= DATES_PER_BLOCK * after.len() as f32
}

/// The dates of the bylines `text` reads as: the dates it mentions — a month's name beside a
/// day or a year, a numeric date, "3 days ago" — or, when it mentions none, its clock times
/// with "am" or "pm" ("4:53 pm"); none when it has more than [`WORDS_PER_DATE`] words for each.
/// A date with its time ("October 26, 2012 at 7:59 AM") counts once.
pub fn byline_dates(text: &str) -> usize {
    let tokens: Vec<&str> = text
        .split_whitespace()
        .map(|token| token.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|token| !token.is_empty())
        .collect();
    let (mut dates, mut times) = (0, 0);
    for (at, &token) in tokens.iter().enumerate() {
        let back = |steps: usize| at.checked_sub(steps).map(|before| tokens[before]);
        let after = tokens.get(at + 1).copied();
        if is_numeric_date(token)
            || (is_month(token)
                && (after.is_some_and(is_day_or_year) || day_before(back(1), back(2))))
            || (token.eq_ignore_ascii_case("ago")
                && back(1).is_some_and(is_time_unit)
                && back(2).is_some_and(is_number))
        {
            dates += 1;
        } else if is_clock_time(token, after) {
            times += 1;
        }
    }
    let found = if dates > 0 { dates } else { times };
    let words = comments_heading::words(text).count();
    if found > 0 && words <= WORDS_PER_DATE * found {
        found
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

/// Units of "N units ago".
const TIME_UNITS: &[&str] = &[
    "second", "seconds", "minute", "minutes", "min", "mins", "hour", "hours", "hr", "hrs", "day",
    "days", "week", "weeks", "month", "months", "year", "years",
];

fn is_number(token: &str) -> bool {
    !token.is_empty() && token.bytes().all(|byte| byte.is_ascii_digit())
}

/// The number `token` spells, if it is one of at most four digits.
fn number(token: &str) -> Option<u32> {
    if is_number(token) && token.len() <= 4 {
        token.parse().ok()
    } else {
        None
    }
}

fn is_month(token: &str) -> bool {
    MONTHS.contains(&token.to_lowercase().as_str())
}

fn is_time_unit(token: &str) -> bool {
    TIME_UNITS.contains(&token.to_lowercase().as_str())
}

/// A day of the month: "9", "26", "1st", "22nd".
fn is_day(token: &str) -> bool {
    let digits = token.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = token[digits.len()..].to_ascii_lowercase();
    digits.len() <= 2
        && number(digits).is_some_and(|day| (1..=31).contains(&day))
        && ["", "st", "nd", "rd", "th"].contains(&suffix.as_str())
}

/// A day or a year of four digits, as after a month ("October 26", "October 2012").
fn is_day_or_year(token: &str) -> bool {
    is_day(token) || (token.len() == 4 && is_number(token))
}

/// Whether a day comes before a month: "26 October", "26. Oktober", "26 de octubre".
fn day_before(one_back: Option<&str>, two_back: Option<&str>) -> bool {
    match one_back {
        Some(word) if word.eq_ignore_ascii_case("de") => two_back.is_some_and(is_day),
        Some(word) => is_day(word),
        None => false,
    }
}

/// A time of day said with "am" or "pm": "9:37PM", "7:59 AM", "10:19:01 pm".
fn is_clock_time(token: &str, after: Option<&str>) -> bool {
    let clock = token.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &token[clock.len()..];
    let said_so = |word: &str| word.eq_ignore_ascii_case("am") || word.eq_ignore_ascii_case("pm");
    let meridiem = if suffix.is_empty() {
        after.is_some_and(said_so)
    } else {
        said_so(suffix)
    };
    let parts: Vec<&str> = clock.split(':').collect();
    meridiem
        && (2..=3).contains(&parts.len())
        && parts[0].len() <= 2
        && number(parts[0]).is_some_and(|hours| hours <= 23)
        && parts[1..]
            .iter()
            .all(|part| part.len() == 2 && number(part).is_some_and(|value| value <= 59))
}

/// "11/2/2012", "10/28/12", "14.04.2020", "2012-11-02": a day and a month of the year in
/// either order, then a year of two or four digits, or a year of four digits first; with dots
/// only beside a year of four digits ("2.2.27" is a version).
fn is_numeric_date(token: &str) -> bool {
    let Some(separator) = token.chars().find(|c| matches!(c, '/' | '.' | '-')) else {
        return false;
    };
    let parts: Vec<&str> = token.split(separator).collect();
    let [first, second, third] = parts[..] else {
        return false;
    };
    let (Some(a), Some(b), Some(c)) = (number(first), number(second), number(third)) else {
        return false;
    };
    let month = 1..=12;
    let day = 1..=31;
    if first.len() == 4 {
        return second.len() <= 2 && month.contains(&b) && third.len() <= 2 && day.contains(&c);
    }
    first.len() <= 2
        && second.len() <= 2
        && (third.len() == 4 || (third.len() == 2 && separator != '.'))
        && ((month.contains(&a) && day.contains(&b)) || (day.contains(&a) && month.contains(&b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bylines_count_their_dates() {
        for (line, dates) in [
            ("Posted by: Reed Hedges | Apr 6, 2007 1:11:01 PM", 1),
            ("November 5, 2012 at 7:59 am", 1),
            ("1 November 2012 9:37PM", 1),
            ("by biedergb 10 days ago", 1),
            ("Public Speaking Trainer says: 11/2/2012", 1),
            ("16. March, 2023 at 16:59", 1),
            ("Judd Levy 1 day ago", 1),
            ("22nd Oct reply", 1),
            ("Ana, 26 de octubre de 2012", 1),
            ("Brandt Schneider 10/28/12 5:41 PM", 1),
            ("Bob, 4:53 pm", 1),
            ("2012-11-02 Carla", 1),
        ] {
            assert_eq!(byline_dates(line), dates, "{line}");
        }
        let run_together = "1. James Cannon - October 26, 2012 2. The Keeper - October 26, 2012 \
                            3. CmdrR - October 26, 2012";
        assert_eq!(byline_dates(run_together), 3);
    }

    #[test]
    fn prose_versions_verses_and_scores_are_not_bylines() {
        for line in [
            "We may see the results in 2012, or so the board said on the morning call.",
            "Changed in Django 2.2.27:",
            "The 3-clause BSD licence.",
            "May I ask a question?",
            "Version 10.2 of the library, released with 4 fixes",
            "Read John 3:16 and Romans 8:28 again.",
            "Bake for 1:15, then rest the loaf.",
            "They won 98:87 at home.",
            "Stats: 22/35/280 and 078-05-1120",
            "Great post, thanks!",
            "",
        ] {
            assert_eq!(byline_dates(line), 0, "{line}");
        }
        let long = "On October 26, 2012 the committee met to decide what the project would do \
                    next, and after a long discussion of its budget, its staff and its aims it \
                    chose to go on as before";
        assert_eq!(byline_dates(long), 0, "a dated sentence of prose");
    }

    #[test]
    fn a_thread_repeats_dated_bylines_from_its_start() {
        let thread = [
            "Posted by: Ann | October 26, 2012 at 7:59 AM",
            "Great post!",
            "Posted by: Bob | October 26, 2012 at 8:10 AM",
            "I disagree with most of it.",
            "Posted by: Cy | October 27, 2012 at 9:00 AM",
            "Thanks.",
        ];
        assert!(follows_as_thread(&thread));
        assert!(!follows_as_thread(&thread[..4]), "two bylines");
        // Three dates in one block: a sentence, an example's headers, not a thread.
        let one_block = ["Released on March 3, 2010, updated June 5, 2011, retired May 1, 2012."];
        assert!(!follows_as_thread(&one_block));
        // The thread may start up to the tenth block after the name, not later.
        let mut soon = vec!["A paragraph."; FIRST_DATE_WITHIN - 1];
        soon.extend(thread);
        assert!(follows_as_thread(&soon));
        let mut late = vec!["A paragraph."; FIRST_DATE_WITHIN];
        late.extend(thread);
        assert!(!follows_as_thread(&late));
        // Three dates in a long section: too few for its length.
        let mut sparse: Vec<&str> = thread.to_vec();
        sparse.extend(["A paragraph of reference."; 100]);
        assert!(!follows_as_thread(&sparse));
        assert!(!follows_as_thread(&[]));
    }
}
