//! What `hybrid` counts of a site's pages in two passes (texts, styles, title words, URL
//! directories), and how a site model saves and restores those counts.

use rustc_hash::FxHashMap;

use super::directory_text_key;
use crate::detect::site_model::{BadSiteModel, SiteModelReader, SiteModelWriter};

/// Pages of a directory a text must be on for a site model to keep its count.
const MIN_SAVED_DIRECTORY_TEXT_COUNT: u32 = 3;

/// What the site's pages say, so far.
#[derive(Debug, Default)]
pub(super) struct SiteTable {
    pub(super) pages: u32,
    pub(super) texts: FxHashMap<u64, u32>,
    pub(super) styles: FxHashMap<u64, u32>,
    pub(super) title_words: FxHashMap<u64, u32>,
    /// Pages learned in each URL directory.
    pub(super) directories: FxHashMap<u64, u32>,
    /// Pages of a directory that hold a block with a text, by [`directory_text_key`].
    pub(super) directory_texts: FxHashMap<u64, u32>,
}

impl SiteTable {
    pub(super) fn heap_bytes(&self) -> usize {
        (self.texts.capacity()
            + self.styles.capacity()
            + self.title_words.capacity()
            + self.directories.capacity()
            + self.directory_texts.capacity())
            * 16
    }

    /// Writes the tables. A site of one directory counts each text in it as often as in
    /// the site, so its directory's table is left out and made again when read. Of a
    /// directory's texts, those on [`MIN_SAVED_DIRECTORY_TEXT_COUNT`] pages or more are
    /// written: the directory's figures refine the site's, and news sites of many small
    /// directories would otherwise double their model.
    pub(super) fn save(&self, writer: &mut SiteModelWriter) {
        writer.count(u64::from(self.pages));
        let one_directory = self.directories.len() == 1;
        writer.count(u64::from(one_directory));
        for table in [
            &self.texts,
            &self.styles,
            &self.title_words,
            &self.directories,
        ] {
            writer.counts(table.iter().map(|(&key, &count)| (key, count)));
        }
        let directory_texts = (!one_directory).then_some(&self.directory_texts);
        let directory_texts = directory_texts
            .into_iter()
            .flatten()
            .map(|(&key, &count)| (key, count));
        writer.counts_from(directory_texts, MIN_SAVED_DIRECTORY_TEXT_COUNT);
    }

    pub(super) fn restore(reader: &mut SiteModelReader<'_>) -> Result<SiteTable, BadSiteModel> {
        let mut table = SiteTable {
            pages: reader.count32()?,
            ..SiteTable::default()
        };
        let one_directory = reader.count32()? == 1;
        for counts in [
            &mut table.texts,
            &mut table.styles,
            &mut table.title_words,
            &mut table.directories,
            &mut table.directory_texts,
        ] {
            reader.counts(|key, count| {
                counts.insert(key, count);
            })?;
        }
        if one_directory {
            let directory = table.directories.keys().next().copied().unwrap_or_default();
            table.directory_texts = (table.texts.iter())
                .map(|(&text, &count)| (directory_text_key(directory, text), count))
                .collect();
        }
        Ok(table)
    }
}
