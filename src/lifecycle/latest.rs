//! Latest: the decided pages of a build in, one verdict per page out — the first record of its
//! URL, a later crawl of a URL already indexed (which replaces it), or an earlier crawl than
//! the one indexed (left out) — so that an index holds one document per URL.
//!
//! The later `WARC-Date` wins; a record without a readable date counts as older than any
//! dated one; on equal dates the later record in input order wins. Pages reach the index
//! stage in input order (within a round, and all records of a URL are of one site and so of
//! one round), so "later in input order" is "seen later here". URLs are compared exactly as
//! the reader gives them (no normalisation: `url:` search takes them so too).

use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};

use rustc_hash::FxHashMap;

use crate::read::FetchTime;

/// What to do with a page given the records of its URL seen before it in the build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Latest {
    /// The first record of its URL: add it.
    First,
    /// As late as or later than the one indexed: replace that one with it.
    Replaces,
    /// Earlier than the one indexed: leave it out.
    Earlier,
}

/// The fetch time of the record indexed so far for each URL seen, keyed by a 64-bit hash of
/// the URL: 16 bytes a URL (about 20 in the table) instead of the URL itself. Two URLs of
/// one build share a hash with a chance of about n²/2⁶⁵ (3·10⁻⁶ at ten million pages); the
/// one such would cost is a page left out as "earlier" when its date is.
#[derive(Default)]
pub(super) struct LatestByUrl {
    indexed: FxHashMap<u64, i64>,
}

/// The key of a record without a readable date: before every date.
const UNDATED: i64 = i64::MIN;

/// The 64-bit key of `url` in these tables. SipHash (the standard hasher, fixed keys) rather
/// than Fx: its 64 bits are spread well enough for the collision figure above.
pub(super) fn url_key(url: &str) -> u64 {
    BuildHasherDefault::<DefaultHasher>::default().hash_one(url)
}

impl LatestByUrl {
    /// Notes a page of `url` fetched at `fetched` (seconds, `i64::MIN` when undated) that
    /// the index holds before this run (`add`), so that a page of the run replaces it only
    /// when fetched as late or later.
    pub(super) fn seed(&mut self, url: &str, fetched: i64) {
        self.indexed.insert(url_key(url), fetched);
    }

    /// Notes the record of `url` fetched at `fetched`, and says what to do with it.
    pub(super) fn offer(&mut self, url: &str, fetched: Option<FetchTime>) -> Latest {
        let time = fetched.map_or(UNDATED, |time| time.0);
        match self.indexed.entry(url_key(url)) {
            std::collections::hash_map::Entry::Vacant(entry) => {
                entry.insert(time);
                Latest::First
            }
            std::collections::hash_map::Entry::Occupied(mut entry) => {
                if time >= *entry.get() {
                    entry.insert(time);
                    Latest::Replaces
                } else {
                    Latest::Earlier
                }
            }
        }
    }
}

/// The pages an index held when an `add` began: a hash of each one's HTML, by URL (keyed as
/// [`LatestByUrl`] keys them, 16 bytes a URL).
#[derive(Default)]
pub(super) struct IndexedPages {
    digests: FxHashMap<u64, u64>,
}

impl IndexedPages {
    /// Notes that the index holds the page of `url` whose HTML hashes to `digest`.
    pub(super) fn note(&mut self, url: &str, digest: u64) {
        self.digests.insert(url_key(url), digest);
    }

    /// Whether the index holds a page of `url`.
    pub(super) fn holds(&self, url: &str) -> bool {
        self.digests.contains_key(&url_key(url))
    }

    /// Whether the index holds the page of `url` as it is (its HTML hashes to `digest`).
    pub(super) fn unchanged(&self, url: &str, digest: u64) -> bool {
        self.digests.get(&url_key(url)) == Some(&digest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Option<FetchTime> {
        FetchTime::parse(text)
    }

    #[test]
    fn the_latest_date_wins_whatever_the_order() {
        let mut latest = LatestByUrl::default();
        let url = "http://a.example/";
        assert_eq!(latest.offer(url, at("2024-05-02")), Latest::First);
        assert_eq!(latest.offer(url, at("2024-05-01")), Latest::Earlier);
        assert_eq!(latest.offer(url, at("2024-05-03")), Latest::Replaces);
        assert_eq!(latest.offer(url, at("2024-05-02")), Latest::Earlier);
        assert_eq!(
            latest.offer("http://b.example/", at("2024-05-01")),
            Latest::First
        );
    }

    #[test]
    fn equal_dates_go_to_the_later_record_and_undated_ones_are_oldest() {
        let mut latest = LatestByUrl::default();
        let url = "http://a.example/";
        assert_eq!(latest.offer(url, None), Latest::First);
        assert_eq!(latest.offer(url, None), Latest::Replaces);
        assert_eq!(latest.offer(url, at("1900-01-01")), Latest::Replaces);
        assert_eq!(latest.offer(url, None), Latest::Earlier);
        assert_eq!(latest.offer(url, at("1900-01-01")), Latest::Replaces);
    }

    #[test]
    fn a_seeded_page_is_replaced_only_by_a_page_as_late_or_later() {
        let mut latest = LatestByUrl::default();
        let url = "http://a.example/";
        latest.seed(url, at("2024-05-02").unwrap().0);
        assert_eq!(latest.offer(url, at("2024-05-01")), Latest::Earlier);
        assert_eq!(latest.offer(url, None), Latest::Earlier);
        assert_eq!(latest.offer(url, at("2024-05-02")), Latest::Replaces);
        assert_eq!(latest.offer("http://b.example/", None), Latest::First);
        let mut indexed = IndexedPages::default();
        indexed.note(url, 7);
        assert!(indexed.holds(url) && indexed.unchanged(url, 7));
        assert!(!indexed.unchanged(url, 8));
        assert!(!indexed.holds("http://b.example/"));
    }

    #[test]
    fn urls_are_compared_exactly() {
        let mut latest = LatestByUrl::default();
        let when = at("2024-05-01");
        for url in [
            "http://a.example/",
            "http://a.example/#top",
            "http://a.example",
            "HTTP://a.example/",
        ] {
            assert_eq!(latest.offer(url, when), Latest::First, "{url}");
        }
    }
}
