//! Fetch times: a `WARC-Date` header value in, a [`FetchTime`] that orders records by when
//! their page was fetched out (a build keeps the latest record of a URL).
//!
//! The WARC standard writes the date in W3C-ISO8601 (`2024-05-01T10:00:00Z`, WARC 1.1 with
//! fractions of a second); read leniently: any of that format's precisions (`2024`, `2024-05`,
//! …), a `±hh:mm` offset or none (UTC), and the 14 digits `YYYYMMDDhhmmss` of ARC files.

/// When a record's page was fetched: nanoseconds since 1970-01-01 UTC (saturating outside
/// the years 1678–2262). Ordered by time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FetchTime(pub i64);

impl FetchTime {
    /// The time a `WARC-Date` value says, or `None` when it is not a date.
    pub fn parse(text: &str) -> Option<FetchTime> {
        let text = text.trim();
        let (civil, rest) = if text.len() >= 4 && text.bytes().all(|b| b.is_ascii_digit()) {
            (compact_civil(text)?, "")
        } else {
            civil_parts(text)?
        };
        let (nanos, rest) = fraction(rest);
        let offset_seconds = zone_offset(rest)?;
        let seconds = civil.seconds()? - offset_seconds;
        let nanos = i128::from(seconds) * 1_000_000_000 + i128::from(nanos);
        Some(FetchTime(
            nanos.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64,
        ))
    }
}

/// A date and time of day as written, before any zone offset.
#[derive(Default)]
struct Civil {
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
}

impl Civil {
    /// Seconds since 1970-01-01, or `None` for a field out of its range.
    fn seconds(&self) -> Option<i64> {
        let valid = (1..=12).contains(&self.month)
            && (1..=31).contains(&self.day)
            && (0..=23).contains(&self.hour)
            && (0..=59).contains(&self.minute)
            && (0..=60).contains(&self.second);
        if !valid {
            return None;
        }
        // Days from civil (Howard Hinnant's algorithm).
        let year = self.year - i64::from(self.month <= 2);
        let era = year.div_euclid(400);
        let year_of_era = year.rem_euclid(400);
        let month_index = (self.month + 9) % 12;
        let day_of_year = (153 * month_index + 2) / 5 + self.day - 1;
        let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
        let days = era * 146_097 + day_of_era - 719_468;
        Some(days * 86_400 + self.hour * 3_600 + self.minute * 60 + self.second)
    }
}

/// `YYYY[MM[DD[hh[mm[ss]]]]]`, digits alone.
fn compact_civil(digits: &str) -> Option<Civil> {
    if digits.len() > 14 || !digits.len().is_multiple_of(2) {
        return None;
    }
    let number = |at: usize, len: usize| -> Option<i64> {
        digits
            .get(at..at + len)
            .map_or(Some(0), |part| part.parse().ok())
    };
    Some(Civil {
        year: number(0, 4)?,
        month: number(4, 2)?.max(1),
        day: number(6, 2)?.max(1),
        hour: number(8, 2)?,
        minute: number(10, 2)?,
        second: number(12, 2)?,
    })
}

/// `YYYY[-MM[-DD[Thh:mm[:ss]]]]` and what follows it.
fn civil_parts(text: &str) -> Option<(Civil, &str)> {
    let (year, mut rest) = digits(text, 4)?;
    let mut civil = Civil {
        year,
        month: 1,
        day: 1,
        ..Civil::default()
    };
    let fields: [(&str, &mut i64); 5] = [
        ("-", &mut civil.month),
        ("-", &mut civil.day),
        ("T", &mut civil.hour),
        (":", &mut civil.minute),
        (":", &mut civil.second),
    ];
    for (separator, field) in fields {
        let Some(after) = rest
            .strip_prefix(separator)
            .or_else(|| (separator == "T").then(|| rest.strip_prefix(' ')).flatten())
        else {
            break;
        };
        let (value, after) = digits(after, 2)?;
        *field = value;
        rest = after;
    }
    Some((civil, rest))
}

/// The number written by the first `count` characters of `text` (all digits), and the rest.
fn digits(text: &str, count: usize) -> Option<(i64, &str)> {
    let part = text.get(..count)?;
    if !part.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((part.parse().ok()?, &text[count..]))
}

/// `.f…` as nanoseconds (digits past the ninth ignored), and the rest.
fn fraction(text: &str) -> (i64, &str) {
    let Some(after) = text.strip_prefix('.').or_else(|| text.strip_prefix(',')) else {
        return (0, text);
    };
    let end = after
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(after.len());
    let mut nanos = 0;
    for (place, digit) in after[..end].bytes().take(9).enumerate() {
        nanos += i64::from(digit - b'0') * 10_i64.pow(8 - place as u32);
    }
    (nanos, &after[end..])
}

/// The zone designator's offset from UTC in seconds: `Z`, nothing, or `±hh:mm` (`±hhmm`).
fn zone_offset(text: &str) -> Option<i64> {
    let sign = match text.as_bytes().first() {
        None => return Some(0),
        Some(b'Z' | b'z') if text.len() == 1 => return Some(0),
        Some(b'+') => 1,
        Some(b'-') => -1,
        Some(_) => return None,
    };
    let (hours, rest) = digits(&text[1..], 2)?;
    let rest = rest.strip_prefix(':').unwrap_or(rest);
    let (minutes, rest) = digits(rest, 2)?;
    (rest.is_empty() && hours <= 23 && minutes <= 59)
        .then_some(sign * (hours * 3_600 + minutes * 60))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seconds(text: &str) -> Option<i64> {
        FetchTime::parse(text).map(|time| time.0.div_euclid(1_000_000_000))
    }

    #[test]
    fn reads_the_warc_format_as_seconds_since_the_epoch() {
        assert_eq!(seconds("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(seconds("2017-03-06T16:54:09Z"), Some(1_488_819_249));
        assert_eq!(seconds(" 2024-02-29T23:59:59Z "), Some(1_709_251_199));
        assert_eq!(seconds("1969-12-31T23:59:59Z"), Some(-1));
    }

    #[test]
    fn fractions_offsets_and_shorter_precisions_order_as_times() {
        let time = |text| FetchTime::parse(text).unwrap();
        assert!(time("2024-05-01T10:00:00.5Z") > time("2024-05-01T10:00:00Z"));
        assert!(time("2024-05-01T10:00:00.5Z") < time("2024-05-01T10:00:01Z"));
        assert_eq!(
            time("2024-05-01T12:00:00+02:00"),
            time("2024-05-01T10:00:00Z")
        );
        assert_eq!(time("2024-05-01T10:00:00"), time("2024-05-01T10:00:00Z"));
        assert_eq!(time("2024-05-01"), time("2024-05-01T00:00:00Z"));
        assert_eq!(time("2024"), time("2024-01-01T00:00:00Z"));
        assert_eq!(time("20240501100000"), time("2024-05-01T10:00:00Z"));
        assert_eq!(time("2024-05-01T10:00Z"), time("2024-05-01T10:00:00Z"));
    }

    #[test]
    fn what_is_not_a_date_is_none() {
        for text in [
            "",
            "yesterday",
            "2024-13-01T00:00:00Z",
            "2024-05-01T25:00:00Z",
            "2024-05-01T10:00:00Q",
            "2024-05-01T10:00:00+2",
            "24-05-01",
            "2024-5-1",
            "123456789012345678",
        ] {
            assert_eq!(FetchTime::parse(text), None, "{text:?}");
        }
    }

    #[test]
    fn years_far_away_saturate_rather_than_wrap() {
        let far = FetchTime::parse("9999-12-31T23:59:59Z").unwrap();
        assert_eq!(far, FetchTime(i64::MAX));
        assert!(FetchTime::parse("0001-01-01T00:00:00Z").unwrap() < FetchTime(0));
    }
}
