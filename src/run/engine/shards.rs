//! Shards: one detector of a two-pass read as several, each holding the sites whose key falls
//! to it, so that sites can be learned on several threads at once.
//!
//! In: the detectors a read was made with (one, or [`RunPlan::learning_threads`] of the same
//! kind and settings for a detector that decides site by site). Out: the detector of a site;
//! what the read's summary takes from the detector (state bytes, counters), over them all.
//!
//! A detector whose verdicts depend on a page's own site only
//! ([`Detector::DECIDES_SITE_BY_SITE`]) gives every page the same verdicts whichever of the
//! shards holds its site, as long as every page of that site goes to the same one: so the
//! number of shards changes no output.
//!
//! [`RunPlan::learning_threads`]: crate::run::RunPlan::learning_threads

use std::collections::BTreeMap;
use std::sync::{RwLock, RwLockReadGuard};

use crate::detect::{Counter, Detector, Merge};
use crate::run::prepare::read_lock;
use crate::segment::stable_hash_bytes;

/// A read's detectors, each holding its own sites.
pub(super) struct Shards<D> {
    detectors: Vec<RwLock<D>>,
}

impl<D: Detector> Shards<D> {
    /// The shards of `detectors` (at least one). More than one only for a detector that
    /// decides site by site.
    pub(super) fn new(detectors: Vec<D>) -> Self {
        assert!(!detectors.is_empty(), "a read has a detector");
        assert!(
            detectors.len() == 1 || D::DECIDES_SITE_BY_SITE,
            "{} learns across sites: one detector holds them all",
            D::NAME
        );
        Shards {
            detectors: detectors.into_iter().map(RwLock::new).collect(),
        }
    }

    /// How many there are.
    pub(super) fn len(&self) -> usize {
        self.detectors.len()
    }

    /// Which one holds `site`.
    pub(super) fn index_of(&self, site: &str) -> usize {
        if self.detectors.len() == 1 {
            return 0;
        }
        (stable_hash_bytes(site.as_bytes()) % self.detectors.len() as u64) as usize
    }

    /// The detector that holds `site`.
    pub(super) fn of(&self, site: &str) -> &RwLock<D> {
        &self.detectors[self.index_of(site)]
    }

    /// The shards, in order.
    pub(super) fn all(&self) -> &[RwLock<D>] {
        &self.detectors
    }

    /// The first: what every shard says alike (settings, segment options) is asked of it.
    pub(super) fn first(&self) -> &RwLock<D> {
        &self.detectors[0]
    }

    /// Every shard, read.
    pub(super) fn read(&self) -> ReadShards<'_, D> {
        ReadShards {
            guards: self.detectors.iter().map(read_lock).collect(),
            shards: self,
        }
    }
}

/// Every shard of a read, held for reading.
pub(super) struct ReadShards<'a, D> {
    guards: Vec<RwLockReadGuard<'a, D>>,
    shards: &'a Shards<D>,
}

impl<D: Detector> ReadShards<'_, D> {
    /// The detector that holds `site`.
    pub(super) fn of(&self, site: &str) -> &D {
        &self.guards[self.shards.index_of(site)]
    }

    /// Bytes of per-site state held now, over every shard.
    pub(super) fn state_bytes(&self) -> usize {
        self.guards
            .iter()
            .map(|detector| detector.state_bytes())
            .sum()
    }

    /// The detectors' counters, each combined over the shards as it combines across rounds
    /// (summed, or the largest), in the first shard's order.
    pub(super) fn counters(&self) -> Vec<Counter> {
        combined(self.guards.iter().flat_map(|detector| detector.counters()))
    }
}

/// `counters` of several detectors, one of each name: summed, or the largest, as each says.
fn combined(counters: impl IntoIterator<Item = Counter>) -> Vec<Counter> {
    let mut combined: Vec<Counter> = Vec::new();
    let mut at: BTreeMap<&'static str, usize> = BTreeMap::new();
    for counter in counters {
        match at.get(counter.name) {
            Some(&index) => {
                let held = &mut combined[index];
                held.value = match held.merge {
                    Merge::Sum => held.value + counter.value,
                    Merge::Max => held.value.max(counter.value),
                };
            }
            None => {
                at.insert(counter.name, combined.len());
                combined.push(counter);
            }
        }
    }
    combined
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_combine_over_shards_as_across_rounds() {
        let shard = |sites, peak| vec![Counter::sum("sites", sites), Counter::max("peak", peak)];
        let counters = combined(
            [shard(3, 40), shard(5, 70), shard(0, 10)]
                .into_iter()
                .flatten(),
        );
        let values: Vec<(&str, u64)> = counters
            .iter()
            .map(|counter| (counter.name, counter.value))
            .collect();
        assert_eq!(values, [("sites", 8), ("peak", 70)]);
    }
}
