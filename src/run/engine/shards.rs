//! Shards: one detector of a read as several, each holding the sites whose key falls to it,
//! so that sites can be learned (in one pass, decided and learned) on several threads at once.
//!
//! In: the detectors a read was made with (one, or [`RunPlan::learning_threads`] of the same
//! kind and settings for a detector that decides site by site). Out: the detector of a site;
//! their state bytes, over them all.
//!
//! A detector whose verdicts depend on a page's own site only
//! ([`Detector::DECIDES_SITE_BY_SITE`]) gives every page the same verdicts whichever of the
//! shards holds its site, as long as every page of that site goes to the same one: so the
//! number of shards changes no output.
//!
//! [`RunPlan::learning_threads`]: crate::run::RunPlan::learning_threads

use std::sync::{RwLock, RwLockReadGuard};

use crate::detect::Detector;
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

    /// Each shard's detector, in order.
    pub(super) fn each(&self) -> impl Iterator<Item = &D> {
        self.guards.iter().map(|detector| &**detector)
    }
}
