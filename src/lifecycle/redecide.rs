//! Re-deciding sites after an `add`: the sites its [`Redecision`] names, every page of
//! theirs decided again together — read back from the files the index recorded, learned from
//! scratch, and put in place of their documents where a decision changed.
//!
//! A two-pass detector judges a page by everything its site's pages hold. An `add` judges its
//! new pages with all of them, but the pages of earlier runs keep the decisions made when the
//! site was smaller (a first crawl of 25 pages of a site that now has 300). By default
//! ([`Redecision::Grown`]) a site is decided again each time its page count reaches a power of
//! two, which keeps every page decided with at least half of the site's pages, at a cost of
//! reading each page again at most about twice over the life of the index (the reads double
//! with the site). One-pass detectors decide each page from the pages before it, in a build
//! as in an add, and go on from the stored models; they are not re-decided by default.
//! [`Redecision::Touched`] decides again every known site an add brings pages to, in either
//! mode: the index then holds what one build over all its pages would, at the cost of reading
//! those sites again whole at every add.

use std::collections::BTreeMap;
use std::hash::BuildHasher;
use std::path::{Path, PathBuf};

use rustc_hash::{FxHashMap, FxHashSet};

use super::latest::Latest;
use super::sink::IndexSink;
use crate::detect::Passes;
use crate::index::{IndexBuild, IndexError, SiteModelsWriter};
use crate::read::{InputSet, Record, RecordLocation};
use crate::report::{RedecidedFigures, Redecision};
use crate::run::{
    BuildError, BuildOptions, DecidedPage, Output, PartitionWriter, Progress, ReadJob,
    RecordSource, RenderedAhead, RunPlan, SiteModelStore, scratch_error,
};

/// Whether a site of `before` indexed pages that an add gives `added` new URLs is decided
/// again whole: when the add takes its page count past a power of two.
pub(super) fn grows_past_power_of_two(before: u64, added: u64) -> bool {
    before > 0 && added > 0 && before.ilog2() < (before + added).ilog2()
}

/// Where one page of a site lies: the absolute path of its file (`None`: standard input) and
/// the offset of its record.
#[derive(Debug, Clone)]
pub(super) struct IndexedRecord {
    pub(super) url: String,
    pub(super) source: Option<String>,
    pub(super) offset: u64,
    /// The digest of the HTML it was decided from: a record read again with another is not
    /// the page indexed (its file changed since).
    pub(super) digest: u64,
    /// A hash of the decisions its document holds ([`DecidedPage::decision_bytes`]): a page
    /// decided again the same way is left in place.
    pub(super) decisions: u64,
}

/// The hash of a page's decision record that [`IndexedRecord::decisions`] holds (a hash, not the
/// record, to keep an add's list of pages small).
pub(super) fn decisions_hash(record: &[u8]) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(record)
}

/// The pages of an `add`'s sites, counted and located as the add goes.
#[derive(Default)]
pub(super) struct SitePages {
    /// Pages of each site the index held when the add began.
    before: FxHashMap<String, u64>,
    /// New URLs of each site in this add.
    added: FxHashMap<String, u64>,
    /// Every page this add wrote, by site, in the order written (the latest of a URL last).
    written: FxHashMap<String, Vec<IndexedRecord>>,
}

impl SitePages {
    /// A page of `site` the index held when the add began.
    pub(super) fn note_indexed(&mut self, site: &str) {
        *self.before.entry(site.to_string()).or_default() += 1;
    }

    /// A page the add decided, with the decision record `decisions`, which `verdict` says what
    /// became of (`First`: a URL new to the index), from the file `source`.
    pub(super) fn note_written(
        &mut self,
        decided: &DecidedPage,
        decisions: &[u8],
        verdict: Latest,
        source: Option<&str>,
    ) {
        if verdict == Latest::Earlier {
            return;
        }
        let site = &decided.page.site;
        if verdict == Latest::First {
            *self.added.entry(site.clone()).or_default() += 1;
        }
        self.written
            .entry(site.clone())
            .or_default()
            .push(IndexedRecord {
                url: decided.page.url.clone(),
                source: source.map(str::to_string),
                offset: decided.location.offset,
                digest: decided.digest,
                decisions: decisions_hash(decisions),
            });
    }

    /// The sites `rule` decides again after an add with a detector of `passes`, in name
    /// order.
    pub(super) fn sites_to_redecide(&self, rule: Redecision, passes: Passes) -> Vec<String> {
        let before = |site: &str| self.before.get(site).copied().unwrap_or(0);
        let mut sites: Vec<String> = match (rule, passes) {
            (Redecision::Grown, Passes::Two) => self
                .added
                .iter()
                .filter(|(site, added)| grows_past_power_of_two(before(site), **added))
                .map(|(site, _)| site.clone())
                .collect(),
            // A site new to the index was decided by the add as a build decides it.
            (Redecision::Touched, _) => self
                .written
                .keys()
                .filter(|site| before(site) > 0)
                .cloned()
                .collect(),
            (Redecision::Grown, Passes::One) | (Redecision::Never, _) => Vec::new(),
        };
        sites.sort();
        sites
    }
}

/// Decides every page of `sites` again, as one read of those pages alone decides them, and
/// puts those decided otherwise in place of their documents in `writer`; their models
/// replace the add's in `saved`. `rule` chose the sites.
/// `indexed` are the pages of those sites the index held when the add began (in crawl
/// order); the add's own come from `pages`, and win over an indexed page of the same URL.
#[allow(clippy::too_many_arguments)]
pub(super) fn redecide_sites(
    writer: &mut IndexBuild,
    rule: Redecision,
    sites: &[String],
    indexed: Vec<(String, IndexedRecord)>,
    pages: &SitePages,
    options: &BuildOptions,
    saved: &mut SiteModelsWriter,
    progress: &dyn Progress,
) -> Result<RedecidedFigures, BuildError> {
    let mut figures = RedecidedFigures {
        rule: Some(rule),
        ..RedecidedFigures::default()
    };
    if sites.is_empty() {
        return Ok(figures);
    }
    let by_site = pages_by_site(sites, indexed, pages);

    // Their files, those still there: one input set, so that pages are read again (by the
    // two-pass batch too) and recorded by their own file and offset.
    let mut files: Vec<PathBuf> = by_site
        .values()
        .flatten()
        .filter_map(|page| page.source.as_deref().map(PathBuf::from))
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files.dedup();
    let inputs = InputSet::open_with(&files, &options.input)?;
    let input_of: FxHashMap<&Path, u32> = files
        .iter()
        .enumerate()
        .map(|(input, path)| (path.as_path(), input as u32))
        .collect();

    let mut streamed = streamed_records(&by_site, &input_of, options);

    // The records read again, into a partition of their own, in the order listed.
    let scratch = writer
        .scratch_dir()
        .map_err(scratch_error(writer.generation_directory()))?;
    let dir = scratch.path().to_path_buf();
    let mut partition = PartitionWriter::new(1, scratch).map_err(scratch_error(&dir))?;
    let mut read_again = 0;
    for list in by_site.values() {
        let mut read_any = false;
        for page in list {
            let record = page
                .source
                .as_deref()
                .and_then(|source| input_of.get(Path::new(source)))
                .and_then(
                    |&input| match streamed.remove(&(input, page.url.as_str())) {
                        Some(record) => Some(record),
                        None => inputs.record_at(
                            RecordLocation {
                                input,
                                offset: page.offset,
                            },
                            &page.url,
                        ),
                    },
                );
            let Some(mut record) = record else {
                figures.not_read_again += 1;
                continue;
            };
            // A page read from a folder is named by the URL it was indexed under.
            record.url.clone_from(&page.url);
            partition.write(0, &record).map_err(scratch_error(&dir))?;
            read_again += 1;
            read_any = true;
        }
        figures.sites += u64::from(read_any);
    }
    let partitions = partition.finish().map_err(scratch_error(&dir))?;
    if read_again == 0 {
        return Ok(figures);
    }

    let recorded: FxHashMap<&str, &IndexedRecord> = by_site
        .values()
        .flatten()
        .map(|page| (page.url.as_str(), page))
        .collect();
    // Most pages decided again come back with the decisions they had and are not written:
    // their kept text is rendered by the sink for those that are, not by the workers for all.
    let plan = RunPlan {
        rendered_ahead: RenderedAhead::Nothing,
        ..RunPlan::new(options, &inputs, Output::Index)
    };
    let mut sink = IndexSink::new(writer, &inputs);
    let (mut redecided, mut replaced, mut changed) = (0, 0, 0);
    ReadJob {
        inputs: &inputs,
        options,
        plan: &plan,
        source: RecordSource::Partition(&partitions, 0),
        progress,
        emit: &mut |decided: DecidedPage| {
            let Some(page) = recorded
                .get(decided.page.url.as_str())
                .filter(|page| page.digest == decided.digest)
            else {
                changed += 1;
                return Ok(());
            };
            redecided += 1;
            let decisions = decided.decision_bytes();
            if decisions_hash(&decisions) == page.decisions {
                return Ok(());
            }
            replaced += 1;
            sink.write(&decided, &decisions, Latest::Replaces)
        },
        site_models: SiteModelStore {
            stored: None,
            saved: Some(saved),
        },
        unchanged: None,
    }
    .run()?;
    progress.finish();
    figures.pages = redecided;
    figures.replaced = replaced;
    figures.not_read_again += changed;
    Ok(figures)
}

/// The pages of `sites` to decide again, by site: those the index held (`indexed`, in crawl
/// order) whose URL the add did not write, then the add's own, the last of a URL written
/// twice.
fn pages_by_site(
    sites: &[String],
    indexed: Vec<(String, IndexedRecord)>,
    pages: &SitePages,
) -> BTreeMap<String, Vec<IndexedRecord>> {
    let wanted: FxHashSet<&str> = sites.iter().map(String::as_str).collect();
    let written = |site: &str| pages.written.get(site).into_iter().flatten();
    let written_urls: FxHashSet<&str> = sites
        .iter()
        .flat_map(|site| written(site))
        .map(|page| page.url.as_str())
        .collect();
    let mut by_site: BTreeMap<String, Vec<IndexedRecord>> = BTreeMap::new();
    for (site, page) in indexed {
        if wanted.contains(site.as_str()) && !written_urls.contains(page.url.as_str()) {
            by_site.entry(site).or_default().push(page);
        }
    }
    for site in sites {
        // The add's pages after the indexed ones; of a URL written twice, the last.
        let last_of_url: FxHashMap<&str, usize> = written(site)
            .enumerate()
            .map(|(at, page)| (page.url.as_str(), at))
            .collect();
        let list = by_site.entry(site.clone()).or_default();
        for (at, page) in written(site).enumerate() {
            if last_of_url[page.url.as_str()] == at {
                list.push(page.clone());
            }
        }
    }
    by_site
}

/// The wanted records of files read through rather than at their offsets, by input and URL.
/// A file whose wanted records share an offset is one gzip stream (every record of it lies at
/// offset 0): finding each record again would inflate the file from its start, so such a file
/// is read once, through, and its wanted records kept by URL.
fn streamed_records<'p>(
    by_site: &'p BTreeMap<String, Vec<IndexedRecord>>,
    input_of: &FxHashMap<&Path, u32>,
    options: &BuildOptions,
) -> FxHashMap<(u32, &'p str), Record> {
    let mut offsets_seen: FxHashSet<(&str, u64)> = FxHashSet::default();
    let mut one_stream: FxHashSet<&str> = FxHashSet::default();
    for page in by_site.values().flatten() {
        if let Some(source) = page.source.as_deref()
            && !offsets_seen.insert((source, page.offset))
        {
            one_stream.insert(source);
        }
    }
    let mut streamed: FxHashMap<(u32, &str), Record> = FxHashMap::default();
    for source in &one_stream {
        let Some(&input) = input_of.get(Path::new(source)) else {
            continue;
        };
        let urls_of_file: FxHashSet<&str> = by_site
            .values()
            .flatten()
            .filter(|page| page.source.as_deref() == Some(*source))
            .map(|page| page.url.as_str())
            .collect();
        // Gone since it was listed: its pages are counted as not read again below.
        let Ok(file) = InputSet::open_with(&[PathBuf::from(source)], &options.input) else {
            continue;
        };
        for mut record in file.records().filter_map(Result::ok) {
            if let Some(&url) = urls_of_file.get(record.url.as_str()) {
                record.source_input = input;
                streamed.insert((input, url), record);
            }
        }
    }
    streamed
}

/// The pages of `sites` in the index `writer` began from, each with its site, in crawl
/// order (by file, then offset).
pub(super) fn indexed_pages_of(
    writer: &IndexBuild,
    sites: &[String],
) -> Result<Vec<(String, IndexedRecord)>, IndexError> {
    let mut pages = Vec::new();
    writer.for_each_indexed_source(sites, |site, url, source, offset, digest, decisions| {
        pages.push((
            site.to_string(),
            IndexedRecord {
                url: url.to_string(),
                source: source.map(str::to_string),
                offset,
                digest,
                decisions: decisions_hash(decisions),
            },
        ));
    })?;
    pages.sort_by(|a, b| {
        (a.1.source.as_deref(), a.1.offset).cmp(&(b.1.source.as_deref(), b.1.offset))
    });
    Ok(pages)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_site_is_decided_again_when_an_add_takes_it_past_a_power_of_two() {
        assert!(grows_past_power_of_two(25, 25));
        assert!(grows_past_power_of_two(1, 1));
        assert!(grows_past_power_of_two(100, 200));
        assert!(!grows_past_power_of_two(75, 25));
        assert!(!grows_past_power_of_two(129, 100));
        assert!(!grows_past_power_of_two(0, 30));
        assert!(!grows_past_power_of_two(40, 0));
    }

    #[test]
    fn each_rule_chooses_its_sites() {
        let page = || IndexedRecord {
            url: String::new(),
            source: None,
            offset: 0,
            digest: 0,
            decisions: 0,
        };
        let owned = |pairs: &[(&str, u64)]| -> FxHashMap<String, u64> {
            pairs
                .iter()
                .map(|(site, n)| (site.to_string(), *n))
                .collect()
        };
        // a: taken past 32; b: not past 128; c: new to the index; d: a page replaced.
        let pages = SitePages {
            before: owned(&[("a", 25), ("b", 75), ("d", 10)]),
            added: owned(&[("a", 25), ("b", 5), ("c", 3)]),
            written: ["a", "b", "c", "d"]
                .into_iter()
                .map(|site| (site.to_string(), vec![page()]))
                .collect(),
        };
        let chosen = |rule, passes| pages.sites_to_redecide(rule, passes);
        assert_eq!(chosen(Redecision::Grown, Passes::Two), ["a"]);
        assert!(chosen(Redecision::Grown, Passes::One).is_empty());
        for passes in [Passes::One, Passes::Two] {
            assert_eq!(chosen(Redecision::Touched, passes), ["a", "b", "d"]);
            assert!(chosen(Redecision::Never, passes).is_empty());
        }
    }

    #[test]
    fn over_a_life_of_adds_each_page_is_read_again_at_most_about_twice() {
        // Sites growing by one page, by 7 and by a tenth of their final size: the pages read
        // again, over the final size.
        for step in [1, 7, 30] {
            let (mut pages, mut read_again) = (step, 0);
            while pages < 300 {
                if grows_past_power_of_two(pages, step) {
                    read_again += pages + step;
                }
                pages += step;
            }
            assert!(
                read_again <= 2 * pages + 2 * step,
                "step {step}: {read_again} of {pages}"
            );
        }
    }
}
