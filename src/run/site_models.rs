//! Site models of a read: an index's stored models in — each restored into the detector when
//! the first page of its site arrives, before the detector learns or decides that page — and
//! the detector's models of every site the read saw out, for the generation the run writes.
//! So a run over an existing index (`indexer add`) judges a known site's new pages with what
//! its earlier pages taught, and a build leaves what the next run needs.

use std::ops::DerefMut;

use rustc_hash::FxHashSet;

use crate::detect::Detector;
use crate::index::{SiteModelsWriter, StoredSiteModels};
use crate::report::SiteModelFigures;

/// What a run does with site models: starts from `stored` (if any), leaves its own in
/// `saved` (if asked: a build does, `extract` does not).
#[derive(Default)]
pub(crate) struct SiteModelStore<'a> {
    pub(crate) stored: Option<&'a StoredSiteModels>,
    pub(crate) saved: Option<&'a mut SiteModelsWriter>,
}

impl SiteModelStore<'_> {
    /// The same, borrowed for one read (a round).
    pub(super) fn reborrow(&mut self) -> SiteModelStore<'_> {
        SiteModelStore {
            stored: self.stored,
            saved: self.saved.as_deref_mut(),
        }
    }
}

/// What wrote a set of site models: a model is read back only by the same detector, passes
/// and settings (a hybrid model file's provenance is part of its settings).
pub(super) fn fingerprint(detector: &str, passes: u32, settings: &serde_json::Value) -> String {
    format!("{detector}; passes {passes}; {settings}")
}

/// The site models of one read.
pub(super) struct SiteModelLedger<'a> {
    stored: Option<&'a StoredSiteModels>,
    saved: Option<&'a mut SiteModelsWriter>,
    seen: FxHashSet<String>,
    /// Sites saved already, once the read had learned their every page.
    finished: FxHashSet<String>,
    figures: SiteModelFigures,
}

impl<'a> SiteModelLedger<'a> {
    /// Begins a read of a detector whose models carry `fingerprint`: stored models of another
    /// fingerprint are not used (and the figures say why).
    pub(super) fn new(models: SiteModelStore<'a>, fingerprint: &str) -> Self {
        let SiteModelStore { stored, mut saved } = models;
        let mut figures = SiteModelFigures::default();
        let stored = stored.filter(|stored| {
            let same = stored.fingerprint() == fingerprint;
            if !same {
                figures.not_used = Some(format!(
                    "they were written by {}, and this run is {fingerprint}",
                    stored.fingerprint()
                ));
            }
            same
        });
        if let Some(saved) = saved.as_deref_mut() {
            saved.set_fingerprint(fingerprint);
        }
        SiteModelLedger {
            stored,
            saved,
            seen: FxHashSet::default(),
            finished: FxHashSet::default(),
            figures,
        }
    }

    /// A page of `site` arrives: the first time, the site's stored model (if any) is
    /// restored into the detector `detector` gives — asked for only then, so that a caller
    /// holding it behind a lock takes the lock only then.
    pub(super) fn arrive<D: Detector, Held: DerefMut<Target = D>>(
        &mut self,
        detector: impl FnOnce() -> Held,
        site: &str,
    ) {
        if (self.stored.is_none() && self.saved.is_none())
            || self.seen.contains(site)
            || self.finished.contains(site)
        {
            return;
        }
        self.seen.insert(site.to_string());
        let Some(model) = self.stored.and_then(|stored| stored.get(site)) else {
            return;
        };
        let restored = model.map_err(|error| error.to_string()).and_then(|model| {
            detector()
                .restore_site(site, &model)
                .map_err(|error| error.to_string())
        });
        match restored {
            Ok(()) => self.figures.restored += 1,
            Err(_) => self.figures.unreadable += 1,
        }
    }

    /// Saves the model of `site`, whose every page the read has learned, before the detector
    /// lets go of it; [`finish`](Self::finish) does not save it again.
    pub(super) fn finish_site<D: Detector>(&mut self, detector: &D, site: &str) {
        if !self.seen.remove(site) {
            return;
        }
        self.finished.insert(site.to_string());
        if let Some(saved) = self.saved.as_deref_mut() {
            let model = detector.save_site(site);
            if let Some(Ok(())) = model.map(|model| saved.insert(site, &model)) {
                self.figures.saved += 1;
            }
        }
    }

    /// Saves the model of every site the read saw and has not saved yet, each from the
    /// detector `detector_of` gives for it; the figures of the read.
    pub(super) fn finish<'d, D: Detector>(
        self,
        detector_of: impl Fn(&str) -> &'d D,
    ) -> SiteModelFigures {
        let mut figures = self.figures;
        if let Some(saved) = self.saved {
            for site in &self.seen {
                let model = detector_of(site).save_site(site);
                if let Some(Ok(())) = model.map(|model| saved.insert(site, &model)) {
                    figures.saved += 1;
                }
            }
        }
        figures
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::DetectorKind;
    use crate::read::InputSet;
    use crate::report::BuildSummary;
    use crate::run::engine::ReadJob;
    use crate::run::rounds::RecordSource;
    use crate::run::test_support::{MENU, site_pages, write_warc};
    use crate::run::{BuildOptions, DecidedPage, NoProgress, Output, RenderedAhead, RunPlan};

    /// One read of `records` as `options` say, with `models`: the pages decided and the
    /// summary.
    fn read(
        records: &[Vec<u8>],
        options: &BuildOptions,
        models: SiteModelStore<'_>,
    ) -> (Vec<DecidedPage>, BuildSummary) {
        let dir = tempfile::tempdir().unwrap();
        let path = write_warc(dir.path(), "input.warc", records);
        let inputs = InputSet::open(&[path], None).unwrap();
        let plan = RunPlan::new(options, &inputs, Output::Caller(RenderedAhead::Nothing));
        let mut pages = Vec::new();
        let mut emit = |page: DecidedPage| {
            pages.push(page);
            Ok(())
        };
        let summary = ReadJob {
            inputs: &inputs,
            options,
            plan: &plan,
            source: RecordSource::Input(&inputs),
            progress: &NoProgress,
            emit: &mut emit,
            site_models: models,
            unchanged: None,
        }
        .run()
        .unwrap();
        (pages, summary)
    }

    fn keeps(pages: &[DecidedPage]) -> Vec<Vec<bool>> {
        pages
            .iter()
            .map(|page| page.verdicts.iter().map(|verdict| verdict.keep).collect())
            .collect()
    }

    fn keeps_menu(page: &DecidedPage) -> bool {
        page.page
            .blocks
            .iter()
            .zip(&page.verdicts)
            .any(|(block, verdict)| block.text == MENU && verdict.keep)
    }

    /// A site read in two runs, the second starting from the models the first saved, is
    /// decided as one run over all its pages decides it; started afresh, `incremental` keeps
    /// the second run's first template.
    #[test]
    fn a_second_run_from_saved_models_decides_as_one_run() {
        let pages = site_pages("a.example", 8);
        let (earlier, later) = pages.split_at(4);
        for (detector, one_pass) in [
            (DetectorKind::Hybrid, false),
            (DetectorKind::Hybrid, true),
            (DetectorKind::Bloom, false),
            (DetectorKind::Incremental, false),
        ] {
            let options = BuildOptions {
                detector,
                one_pass,
                threads: 2,
                ..BuildOptions::default()
            };
            let what = format!("{detector:?}, one pass {one_pass}");
            let (all, _) = read(&pages, &options, SiteModelStore::default());

            let mut saved = SiteModelsWriter::default();
            let models = SiteModelStore {
                stored: None,
                saved: Some(&mut saved),
            };
            let (_, first) = read(earlier, &options, models);
            assert_eq!(first.site_models.saved, 1, "{what}");
            let dir = tempfile::tempdir().unwrap();
            saved.write(dir.path()).unwrap();
            let stored = StoredSiteModels::open(dir.path()).unwrap().unwrap();
            let models = SiteModelStore {
                stored: Some(&stored),
                saved: None,
            };
            let (continued, second) = read(later, &options, models);
            assert_eq!(second.site_models.restored, 1, "{what}");
            assert_eq!(keeps(&continued), keeps(&all[4..]), "{what}");
            assert!(!keeps_menu(&continued[0]), "{what}");

            if detector == DetectorKind::Incremental {
                let (afresh, _) = read(later, &options, SiteModelStore::default());
                assert!(keeps_menu(&afresh[0]), "{what}");
            }
        }
    }

    #[test]
    fn models_of_other_settings_are_not_used() {
        let pages = site_pages("a.example", 4);
        let two_passes = BuildOptions {
            threads: 2,
            ..BuildOptions::default()
        };
        let mut saved = SiteModelsWriter::default();
        let models = SiteModelStore {
            stored: None,
            saved: Some(&mut saved),
        };
        read(&pages, &two_passes, models);
        let dir = tempfile::tempdir().unwrap();
        saved.write(dir.path()).unwrap();
        let stored = StoredSiteModels::open(dir.path()).unwrap().unwrap();

        let one_pass = BuildOptions {
            one_pass: true,
            ..two_passes
        };
        let models = SiteModelStore {
            stored: Some(&stored),
            saved: None,
        };
        let (_, summary) = read(&pages, &one_pass, models);
        assert_eq!(summary.site_models.restored, 0);
        assert!(summary.site_models.not_used.is_some());
    }
}
