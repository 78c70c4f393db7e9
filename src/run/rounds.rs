//! Rounds: the input and a scratch directory in, one [`RecordSource`] per round of sites out.
//!
//! Detector state grows with the sites learned. When the [`RunPlan`] says the input might need
//! more state than the budget leaves, a first read counts the record bytes of each site
//! bucket (a hash of the host; nothing decoded), and the buckets are grouped into rounds
//! whose expected state fits. A second read writes each record to its round's partition file
//! ([`super::partition`]); each round then reads its own file with a fresh detector. Sites
//! never share state, so this decides every page as one pass over everything would. The cost
//! is two more reads of the input and one write of it, whatever the number of rounds, and
//! temporary disk space for the records (gzip); pages are emitted round by round.

use std::path::Path;

use crate::read::{Blocks, InputSet, Parts, PlacedItem, Record, RecordPlaces, Skip, site_of};
use crate::report::BuildSummary;
use crate::run::partition::{PartitionWriter, Partitions};
use crate::run::{BuildError, BuildOptions, Progress, RunPlan};
use crate::segment::stable_hash_bytes;

/// Rounds at most (each is a temporary file open while the input is split): past this, a
/// round's expected state may exceed the budget.
const MAX_ROUNDS: usize = 256;

/// Site buckets: a site's bucket is a hash of its host; rounds are made of whole buckets.
pub const SITE_BUCKETS: usize = 4096;

/// The bucket of a page's site among `buckets`: a stable hash of its host, so that a site's
/// pages always share one bucket — the rounds of a build ([`SITE_BUCKETS`] of them) and the
/// files of `partition` alike.
pub fn bucket_of_site(url: &str, buckets: usize) -> usize {
    (stable_hash_bytes(site_of(url).as_bytes()) % buckets as u64) as usize
}

/// Where one read of a run takes its records from.
#[derive(Clone, Copy)]
pub(crate) enum RecordSource<'a> {
    /// Every record of the input.
    Input(&'a InputSet),
    /// The records of one round's sites, split off the input beforehand.
    Partition(&'a Partitions, usize),
}

impl<'a> RecordSource<'a> {
    pub(super) fn records(self) -> Box<dyn Iterator<Item = Result<Record, Skip>> + Send + 'a> {
        match self {
            RecordSource::Input(inputs) => Box::new(inputs.records()),
            RecordSource::Partition(partitions, round) => Box::new(partitions.records(round)),
        }
    }

    /// The items of [`records`](Self::records), those of the input's gzip records left to be
    /// read where they are prepared when `places` (from a first read of this source) says
    /// where they lie ([`InputSet::placed_records`]).
    pub(super) fn placed_records(
        self,
        places: Option<&'a RecordPlaces>,
    ) -> Box<dyn Iterator<Item = PlacedItem> + Send + 'a> {
        match (self, places) {
            (RecordSource::Input(inputs), Some(places)) => Box::new(inputs.placed_records(places)),
            _ => Box::new(self.records().map(PlacedItem::Read)),
        }
    }

    /// The items of [`records`](Self::records) for a read that wants their headers only (a
    /// count of each site's records): the inputs leave blocks out where their gzip framing
    /// allows ([`Blocks::MayBeLeftOut`]).
    pub(super) fn records_to_count(
        self,
    ) -> Box<dyn Iterator<Item = Result<Record, Skip>> + Send + 'a> {
        match self {
            RecordSource::Input(inputs) => Box::new(inputs.records_with(Blocks::MayBeLeftOut)),
            RecordSource::Partition(..) => self.records(),
        }
    }

    /// Places for a read of this source to note ([`RecordPlaces::note`]), at most `most`:
    /// `None` for a round's partition, whose records a round reads once.
    pub(super) fn record_places(self, most: usize) -> Option<RecordPlaces> {
        match self {
            RecordSource::Input(_) => Some(RecordPlaces::holding_at_most(most)),
            RecordSource::Partition(..) => None,
        }
    }

    /// The records of [`records_to_count`](Self::records_to_count) cut in at most `parts`
    /// parts, to be read at once ([`InputSet::parts`]); `None` for a round's partition, and
    /// for an input too small to be worth it.
    pub(super) fn parts_to_count(self, parts: usize) -> Option<Parts<'a>> {
        match self {
            RecordSource::Input(inputs) => inputs.parts(parts, Blocks::MayBeLeftOut),
            RecordSource::Partition(..) => None,
        }
    }

    /// How progress names a pass over this source: empty, or "round 2 of 5: ".
    pub(super) fn label(self) -> String {
        match self {
            RecordSource::Input(_) => String::new(),
            RecordSource::Partition(partitions, round) => {
                format!("round {} of {}: ", round + 1, partitions.len())
            }
        }
    }
}

/// The input split into rounds of sites, in `scratch`; skips met while splitting are
/// counted in the returned summary (the rounds see only records).
pub(super) fn split_into_rounds(
    inputs: &InputSet,
    options: &BuildOptions,
    plan: &RunPlan,
    scratch: tempfile::TempDir,
    progress: &dyn Progress,
) -> Result<(Partitions, BuildSummary), BuildError> {
    progress.start_pass("sizing sites");
    let bucket_bytes = bucket_bytes(inputs, options, progress)?;
    let per_html_byte = plan.per_html_byte;
    let total_state = bucket_bytes.iter().sum::<u64>() as f64 * per_html_byte;
    let round_budget = plan.state_budget.max(total_state / MAX_ROUNDS as f64);
    let (round_of_bucket, rounds) = plan_rounds(&bucket_bytes, per_html_byte, round_budget);
    progress.start_pass("splitting sites into rounds");
    partition(inputs, &round_of_bucket, rounds, options, scratch, progress)
}

/// A failure of the scratch files in `dir`.
pub(crate) fn scratch_error(dir: &Path) -> impl FnOnce(std::io::Error) -> BuildError + '_ {
    move |source| BuildError::Scratch {
        dir: dir.to_path_buf(),
        source,
    }
}

/// Record bytes of each site bucket: one read of the input, framing records only.
fn bucket_bytes(
    inputs: &InputSet,
    options: &BuildOptions,
    progress: &dyn Progress,
) -> Result<Vec<u64>, BuildError> {
    let mut bytes = vec![0u64; SITE_BUCKETS];
    for item in inputs.records() {
        if options.stopped() {
            return Err(BuildError::Interrupted);
        }
        if let Ok(record) = item {
            bytes[bucket_of_site(&record.url, SITE_BUCKETS)] += record.block.len() as u64;
        }
        progress.record_done(0);
    }
    Ok(bytes)
}

/// Groups site buckets, in order, into rounds whose expected state fits `state_budget`
/// (a bucket larger than that is a round of its own). Returns each bucket's round and the
/// number of rounds.
fn plan_rounds(bucket_bytes: &[u64], per_html_byte: f64, state_budget: f64) -> (Vec<u32>, usize) {
    let mut round_of_bucket = vec![0u32; bucket_bytes.len()];
    let mut round = 0u32;
    let mut expected = 0.0;
    let mut used = false;
    for (bucket, &bytes) in bucket_bytes.iter().enumerate() {
        if bytes == 0 {
            continue;
        }
        let next = bytes as f64 * per_html_byte;
        if used && expected + next > state_budget {
            round += 1;
            expected = 0.0;
        }
        expected += next;
        used = true;
        round_of_bucket[bucket] = round;
    }
    (round_of_bucket, round as usize + 1)
}

/// Writes every record to the partition of its site's round.
fn partition(
    inputs: &InputSet,
    round_of_bucket: &[u32],
    rounds: usize,
    options: &BuildOptions,
    scratch: tempfile::TempDir,
    progress: &dyn Progress,
) -> Result<(Partitions, BuildSummary), BuildError> {
    let dir = scratch.path().to_path_buf();
    let mut writer = PartitionWriter::new(rounds, scratch).map_err(scratch_error(&dir))?;
    let mut skips = BuildSummary::default();
    for item in inputs.records() {
        if options.stopped() {
            return Err(BuildError::Interrupted);
        }
        match item {
            Ok(record) => {
                let round = round_of_bucket[bucket_of_site(&record.url, SITE_BUCKETS)] as usize;
                writer.write(round, &record).map_err(scratch_error(&dir))?;
            }
            Err(skip) => {
                skips.records += 1;
                skips.count_skip(&skip);
            }
        }
        progress.record_done(0);
    }
    let partitions = writer.finish().map_err(scratch_error(&dir))?;
    Ok((partitions, skips))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_group_buckets_in_order_within_the_state_budget() {
        let (round_of_bucket, rounds) = plan_rounds(&[40, 0, 50, 30, 100, 10], 1.0, 100.0);
        assert_eq!(rounds, 4);
        assert_eq!(round_of_bucket, [0, 0, 0, 1, 2, 3]);
        let (_, one) = plan_rounds(&[40, 50, 10], 1.0, 100.0);
        assert_eq!(one, 1);
    }
}
