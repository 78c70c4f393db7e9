//! Sample: each site of a crawl cut down to K pages, as a crawl of 1–30 pages per host holds
//! it (`eval` and `train --pages-per-site`).
//!
//! A [`census`] reads the input once — records framed and decoded on the workers, nothing
//! segmented — and lists each site's pages. [`SiteCensus::sample`] then keeps, of each site,
//! the K pages whose URL has the smallest [`sample_rank`] under the seed: the sample depends
//! on the seed and the URLs alone, not on input order or threads, and the sample at K holds
//! the sample at every smaller K. The run reads only the sample's records
//! ([`crate::read::InputOptions::sample`]), so its detectors learn from those pages alone.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use indexer_pipeline::Pipeline;

use crate::read::{InputSet, UrlSample, page_from_record, site_of};
use crate::run::prepare::decode_cap;
use crate::run::{BuildError, BuildOptions, Progress};
use crate::segment::stable_hash_bytes;

/// How many pages of each site a sampled run keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PagesPerSite {
    /// At most this many (at least one).
    Pages(usize),
    /// Every page.
    All,
}

impl fmt::Display for PagesPerSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PagesPerSite::Pages(pages) => write!(f, "{pages}"),
            PagesPerSite::All => f.write_str("all"),
        }
    }
}

/// A number of pages per site that is neither a whole number of at least 1 nor `all`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("pages per site must be a whole number of at least 1, or all (not {0:?})")]
pub struct BadPagesPerSite(pub String);

impl FromStr for PagesPerSite {
    type Err = BadPagesPerSite;

    fn from_str(given: &str) -> Result<Self, Self::Err> {
        let given = given.trim();
        if given.eq_ignore_ascii_case("all") {
            return Ok(PagesPerSite::All);
        }
        match given.parse::<usize>() {
            Ok(pages) if pages >= 1 => Ok(PagesPerSite::Pages(pages)),
            _ => Err(BadPagesPerSite(given.to_string())),
        }
    }
}

/// A number, or the string `"all"`.
impl serde::Serialize for PagesPerSite {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            PagesPerSite::Pages(pages) => serializer.serialize_u64(*pages as u64),
            PagesPerSite::All => serializer.serialize_str("all"),
        }
    }
}

impl PagesPerSite {
    /// Reads what [`Serialize`](serde::Serialize) writes: a number of at least 1, or `"all"`.
    pub fn from_json(value: &serde_json::Value) -> Option<PagesPerSite> {
        match value {
            serde_json::Value::String(text) => text.parse().ok(),
            serde_json::Value::Number(number) => number
                .as_u64()
                .filter(|&pages| pages >= 1)
                .map(|pages| PagesPerSite::Pages(pages as usize)),
            _ => None,
        }
    }
}

/// A sampled run: each site cut down to each of [`pages_per_site`](Self::pages_per_site) in
/// turn, with one seed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sampling {
    /// The sizes, each a run of its own, in the order given (repeats left out).
    pub pages_per_site: Vec<PagesPerSite>,
    /// Seed of the choice of pages.
    pub seed: u64,
}

impl Sampling {
    /// Sampling at `pages_per_site` (repeats left out) with `seed`; `None` for no sizes.
    pub fn new(pages_per_site: &[PagesPerSite], seed: u64) -> Option<Sampling> {
        let mut sizes: Vec<PagesPerSite> = Vec::new();
        for &pages in pages_per_site {
            if !sizes.contains(&pages) {
                sizes.push(pages);
            }
        }
        (!sizes.is_empty()).then_some(Sampling {
            pages_per_site: sizes,
            seed,
        })
    }

    /// The sizes as given: "1,3,all".
    pub fn sizes(&self) -> String {
        self.pages_per_site
            .iter()
            .map(PagesPerSite::to_string)
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// Where `url` ranks in the sample of its site under `seed`: the pages of the smallest ranks
/// are kept.
pub fn sample_rank(seed: u64, url: &str) -> u64 {
    mix(stable_hash_bytes(url.as_bytes()) ^ mix(seed))
}

/// A bijective mix of 64 bits (the finaliser of SplitMix64), so that nearby inputs rank far
/// apart and each seed orders the URLs differently.
fn mix(value: u64) -> u64 {
    let mut z = value.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Every site's pages (distinct URLs) in the input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SiteCensus {
    sites: BTreeMap<String, BTreeSet<String>>,
}

impl SiteCensus {
    /// Counts `url` as a page of `site`.
    pub fn add(&mut self, site: String, url: String) {
        self.sites.entry(site).or_default().insert(url);
    }

    /// Sites counted.
    pub fn sites(&self) -> usize {
        self.sites.len()
    }

    /// Pages counted (distinct URLs).
    pub fn pages(&self) -> usize {
        self.sites.values().map(BTreeSet::len).sum()
    }

    /// Whether `url` is a page of the input.
    pub fn contains(&self, url: &str) -> bool {
        self.sites
            .get(&site_of(url))
            .is_some_and(|urls| urls.contains(url))
    }

    /// The URLs of `pages` pages of each site (all of a smaller site), chosen by `seed`.
    pub fn sample(&self, pages: PagesPerSite, seed: u64) -> UrlSample {
        self.sample_where(pages, seed, |_| true)
    }

    /// As [`sample`](Self::sample), leaving out every site of `pages` pages or fewer, whose
    /// sample would be the whole site: what a training set pooled over several sizes takes at
    /// every size but the largest, so that no site is read whole twice (a one-page site
    /// would otherwise be a row of the training set once per size, and outweigh the rest).
    pub fn sample_of_larger_sites(&self, pages: PagesPerSite, seed: u64) -> UrlSample {
        self.sample_where(pages, seed, |urls| match pages {
            PagesPerSite::Pages(pages) => urls > pages,
            PagesPerSite::All => true,
        })
    }

    /// Of every site of more than one page, its page of rank `draw` under `seed` (rank 0 is
    /// its page in [`sample`](Self::sample) at one page; a site of `draw` pages or fewer
    /// gives none): draws 0, 1, 2, … are different pages of each site, each one page of its
    /// site in its own read, as lone pages to learn from.
    pub fn lone_page_draw(&self, draw: usize, seed: u64) -> UrlSample {
        let one = PagesPerSite::Pages(1);
        match draw {
            0 => self.sample_of_larger_sites(one, seed),
            _ => self.draw(one, draw, seed),
        }
    }

    /// Draw `draw` of `pages` pages of each site under `seed`, for an evaluation that scores
    /// several disjoint samples of each size together: draw 0 is [`sample`](Self::sample);
    /// draw d > 0 holds, of every site of at least (d + 1) × `pages` pages, its pages of ranks
    /// d × `pages` to (d + 1) × `pages` − 1, so that no page is in two draws and each draw
    /// is a full sample of the sites it holds (at `all`, only draw 0 holds pages).
    pub fn draw(&self, pages: PagesPerSite, draw: usize, seed: u64) -> UrlSample {
        let per_site = match (pages, draw) {
            (_, 0) => return self.sample(pages, seed),
            (PagesPerSite::All, _) => return UrlSample::default(),
            (PagesPerSite::Pages(per_site), _) => per_site,
        };
        let start = draw.saturating_mul(per_site);
        let end = draw.saturating_add(1).saturating_mul(per_site);
        let mut kept = Vec::new();
        for urls in self.sites.values().filter(|urls| urls.len() >= end) {
            kept.extend(
                ranked(urls, seed)[start..end]
                    .iter()
                    .map(|url| (*url).clone()),
            );
        }
        kept.into_iter().collect()
    }

    fn sample_where(
        &self,
        pages: PagesPerSite,
        seed: u64,
        include: impl Fn(usize) -> bool,
    ) -> UrlSample {
        let mut kept = Vec::new();
        for urls in self.sites.values().filter(|urls| include(urls.len())) {
            match pages {
                PagesPerSite::Pages(pages) if pages < urls.len() => {
                    kept.extend(ranked(urls, seed)[..pages].iter().map(|url| (*url).clone()));
                }
                _ => kept.extend(urls.iter().cloned()),
            }
        }
        kept.into_iter().collect()
    }
}

/// A site's URLs from the smallest [`sample_rank`] under `seed` up.
fn ranked(urls: &BTreeSet<String>, seed: u64) -> Vec<&String> {
    let mut ranked: Vec<(u64, &String)> = urls
        .iter()
        .map(|url| (sample_rank(seed, url), url))
        .collect();
    ranked.sort_unstable();
    ranked.into_iter().map(|(_, url)| url).collect()
}

/// Lists each site's pages: one read of `inputs` as `options` say, each record decoded as a
/// run decodes it (HTTP, content encoding, HTML or not, character set) on the workers, so
/// that only records that are pages count. Nothing is segmented.
pub fn census(
    inputs: &[PathBuf],
    options: &BuildOptions,
    progress: &dyn Progress,
) -> Result<SiteCensus, BuildError> {
    let input_set = InputSet::open_with(inputs, &options.input)?;
    let cap = decode_cap(&options.limits);
    let total = input_set.total_bytes();
    let mut census = SiteCensus::default();
    progress.start_pass("listing each site's pages");
    Pipeline::new(options.threads).run(
        input_set
            .records()
            .take_while(|_| !options.stopped())
            .inspect(|item| {
                if let Ok(record) = item {
                    let position = input_set.position(record.source_input, record.source_offset);
                    progress.input_read(position, total);
                }
            }),
        |item| {
            let page = item
                .ok()
                .and_then(|record| page_from_record(record, cap).ok());
            Ok::<_, BuildError>(page.map(|page| (page.site, page.url)))
        },
        |page| {
            progress.record_done(0);
            if let Some((site, url)) = page {
                census.add(site, url);
            }
            Ok(())
        },
    )?;
    if options.stopped() {
        return Err(BuildError::Interrupted);
    }
    Ok(census)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::NoProgress;
    use crate::run::test_support::{html_response, page_url, request, site_pages, write_warc};

    fn census_of(sites: &[(&str, usize)]) -> SiteCensus {
        let mut census = SiteCensus::default();
        for &(site, pages) in sites {
            for n in 0..pages {
                census.add(site.to_string(), page_url(site, n));
            }
        }
        census
    }

    fn sorted(sample: &UrlSample, census: &SiteCensus) -> Vec<String> {
        let mut urls: Vec<String> = census
            .sites
            .values()
            .flatten()
            .filter(|url| sample.contains(url))
            .cloned()
            .collect();
        urls.sort();
        urls
    }

    #[test]
    fn pages_per_site_reads_numbers_and_all_and_refuses_the_rest() {
        assert_eq!("3".parse(), Ok(PagesPerSite::Pages(3)));
        assert_eq!(" all ".parse(), Ok(PagesPerSite::All));
        assert_eq!("ALL".parse(), Ok(PagesPerSite::All));
        for bad in ["0", "-1", "two", "", "1.5"] {
            assert!(bad.parse::<PagesPerSite>().is_err(), "{bad:?}");
        }
        assert_eq!(PagesPerSite::Pages(30).to_string(), "30");
        assert_eq!(
            serde_json::to_string(&PagesPerSite::All).unwrap(),
            "\"all\""
        );
        assert_eq!(serde_json::to_string(&PagesPerSite::Pages(3)).unwrap(), "3");
        for pages in [PagesPerSite::Pages(7), PagesPerSite::All] {
            let json = serde_json::to_value(pages).unwrap();
            assert_eq!(PagesPerSite::from_json(&json), Some(pages));
        }
        assert_eq!(PagesPerSite::from_json(&serde_json::json!(0)), None);
        assert!(PagesPerSite::Pages(1_000_000) < PagesPerSite::All);
    }

    #[test]
    fn sampling_keeps_the_sizes_in_order_without_repeats() {
        let sizes = [3, 1, 3].map(PagesPerSite::Pages);
        let sampling = Sampling::new(&sizes, 9).unwrap();
        assert_eq!(sampling.sizes(), "3,1");
        assert_eq!(sampling.seed, 9);
        assert_eq!(Sampling::new(&[], 1), None);
    }

    #[test]
    fn each_site_keeps_its_k_lowest_ranked_pages() {
        let census = census_of(&[("a.example", 10), ("b.example", 2)]);
        let sample = census.sample(PagesPerSite::Pages(3), 1);
        let kept = sorted(&sample, &census);
        assert_eq!(kept.len(), 5, "three of a, both of b: {kept:?}");
        let mut a: Vec<(u64, String)> = (0..10)
            .map(|n| page_url("a.example", n))
            .map(|url| (sample_rank(1, &url), url))
            .collect();
        a.sort();
        for (_, url) in &a[..3] {
            assert!(sample.contains(url), "{url}");
        }
        for (_, url) in &a[3..] {
            assert!(!sample.contains(url), "{url}");
        }
        assert!(sample.contains(&page_url("b.example", 0)));
        assert!(sample.contains(&page_url("b.example", 1)));
        let larger = census.sample_of_larger_sites(PagesPerSite::Pages(3), 1);
        assert_eq!(sorted(&larger, &census), sorted(&sample, &census)[..3]);
        assert!(!larger.contains(&page_url("b.example", 0)));
        let whole = census.sample_of_larger_sites(PagesPerSite::All, 1);
        assert_eq!(whole, census.sample(PagesPerSite::All, 1));
    }

    #[test]
    fn lone_page_draws_are_different_pages_of_each_larger_site() {
        let census = census_of(&[("a.example", 10), ("b.example", 2), ("c.example", 1)]);
        let first = census.lone_page_draw(0, 4);
        assert_eq!(
            first,
            census.sample_of_larger_sites(PagesPerSite::Pages(1), 4)
        );
        let mut seen = std::collections::HashSet::new();
        for draw in 0..10 {
            let sample = census.lone_page_draw(draw, 4);
            let expected_sites = if draw < 2 { 2 } else { 1 };
            assert_eq!(
                sorted(&sample, &census).len(),
                expected_sites,
                "draw {draw}"
            );
            assert!(!sample.contains(&page_url("c.example", 0)));
            for url in sorted(&sample, &census) {
                assert!(seen.insert(url.clone()), "{url} drawn twice");
            }
        }
        assert_eq!(seen.len(), 12);
        assert_eq!(sorted(&census.lone_page_draw(10, 4), &census).len(), 0);
    }

    #[test]
    fn draws_are_disjoint_full_samples_and_the_first_is_the_sample() {
        let census = census_of(&[("a.example", 10), ("b.example", 4), ("c.example", 1)]);
        let three = PagesPerSite::Pages(3);
        assert_eq!(census.draw(three, 0, 5), census.sample(three, 5));
        let counts: Vec<usize> = (0..5)
            .map(|draw| sorted(&census.draw(three, draw, 5), &census).len())
            .collect();
        // Draw 0: 3 of a, 3 of b, c whole; draw 1: 3 of a (b's 4 pages fill no second
        // draw); draw 2: 3 of a; then a's 10 pages are spent.
        assert_eq!(counts, [7, 3, 3, 0, 0]);
        let mut seen = std::collections::HashSet::new();
        for draw in 0..4 {
            for url in sorted(&census.draw(three, draw, 5), &census) {
                assert!(seen.insert(url.clone()), "{url} drawn twice");
            }
        }
        for draw in 1..12 {
            assert_eq!(
                census.draw(PagesPerSite::Pages(1), draw, 5),
                census.lone_page_draw(draw, 5),
                "draw {draw}"
            );
        }
        assert_eq!(census.draw(PagesPerSite::All, 1, 5), UrlSample::default());
        assert_eq!(census.draw(three, usize::MAX, 5), UrlSample::default());
    }

    #[test]
    fn the_seed_alone_chooses_and_larger_samples_hold_smaller_ones() {
        let census = census_of(&[("a.example", 40), ("b.example", 25)]);
        let at = |pages, seed| sorted(&census.sample(PagesPerSite::Pages(pages), seed), &census);
        assert_eq!(at(5, 1), at(5, 1));
        assert_ne!(at(5, 1), at(5, 2), "another seed, another sample");
        let (small, large) = (at(3, 7), at(10, 7));
        assert!(small.iter().all(|url| large.contains(url)));
        // K at or past a site's size, and `all`, keep every page.
        let every = census.sample(PagesPerSite::All, 1);
        assert_eq!(every.len(), 65);
        assert_eq!(census.sample(PagesPerSite::Pages(40), 3), every);
        assert_eq!(census.sample(PagesPerSite::Pages(1000), 3), every);
    }

    #[test]
    fn the_census_lists_pages_alone_whatever_the_order_and_threads() {
        let dir = tempfile::tempdir().unwrap();
        let mut records = site_pages("a.example", 4);
        records.extend(site_pages("b.example", 2));
        // A request, an image and a page seen twice: one page each, or none.
        records.push(request("http://a.example/"));
        records.push(crate::run::test_support::response(
            "http://a.example/logo.png",
            "200 OK",
            "image/png",
            "PNG",
        ));
        records.push(html_response(&page_url("a.example", 0), "<p>again</p>"));
        let forward = write_warc(dir.path(), "forward.warc", &records);
        records.reverse();
        let backward = write_warc(dir.path(), "backward.warc", &records);
        let options = |threads| BuildOptions {
            threads,
            ..BuildOptions::default()
        };
        let first = census(&[forward], &options(1), &NoProgress).unwrap();
        assert_eq!((first.sites(), first.pages()), (2, 6));
        assert!(first.contains(&page_url("b.example", 1)));
        assert!(!first.contains("http://a.example/logo.png"));
        let second = census(&[backward], &options(2), &NoProgress).unwrap();
        assert_eq!(first, second);
    }

    #[test]
    fn a_sampled_run_reads_the_sample_alone_in_one_read_and_in_rounds() {
        let dir = tempfile::tempdir().unwrap();
        let mut records = Vec::new();
        for n in 0..6 {
            for site in ["a.example", "b.example", "c.example"] {
                let html = format!("<!--{}--><p>{site} page {n}</p>", "padding ".repeat(25_000));
                records.push(html_response(&page_url(site, n), &html));
            }
        }
        let inputs = vec![write_warc(dir.path(), "sites.warc", &records)];
        let whole = census(&inputs, &BuildOptions::default(), &NoProgress).unwrap();
        let sample = std::sync::Arc::new(whole.sample(PagesPerSite::Pages(2), 5));
        for memory_budget in [2 << 30, 1 << 20] {
            let mut options = BuildOptions {
                detector: crate::detect::DetectorKind::Bloom,
                memory_budget,
                ..BuildOptions::default()
            };
            options.input.sample = Some(std::sync::Arc::clone(&sample));
            let mut read = Vec::new();
            let summary = crate::run::extract(
                &inputs,
                &options,
                crate::run::RenderedAhead::Nothing,
                &NoProgress,
                &mut |page| {
                    read.push(page.page.url);
                    Ok(())
                },
            )
            .unwrap();
            read.sort();
            assert_eq!(read, sorted(&sample, &whole), "budget {memory_budget}");
            assert_eq!((summary.pages, summary.records), (6, 6));
            assert_eq!(
                summary.rounds > 1,
                memory_budget == 1 << 20,
                "{}",
                summary.rounds
            );
            let sampled_census = census(&inputs, &options, &NoProgress).unwrap();
            assert_eq!(sampled_census.pages(), 6);
        }
    }
}
