//! Site models: what a detector learned of one site, as bytes an index keeps beside its
//! documents ([`crate::index::site_models`]) and a later run over that index reads back
//! ([`Detector::save_site`](super::Detector::save_site),
//! [`Detector::restore_site`](super::Detector::restore_site)).
//!
//! A detector writes its own layout with a [`SiteModelWriter`]: a version byte of its own
//! first, then fixed-width hashes and signatures and variable-width counts. Reading checks
//! every length, so damaged or foreign bytes give a [`BadSiteModel`], never a panic.
//!
//! What is kept is bounded: an entry seen once (a word, text or segment of one page) is not
//! written — it is what makes up most of a site's state and almost none of its template —
//! and a table holds at most [`MAX_SAVED_ENTRIES`] entries, the most frequent.

/// Entries of one table of one site written at most (the most frequent are kept).
pub const MAX_SAVED_ENTRIES: usize = 1 << 16;

/// Pages (or blocks) an entry must have been seen in to be written.
pub const MIN_SAVED_COUNT: u32 = 2;

/// A site model that cannot be read back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("site model of {site}: {problem}")]
pub struct BadSiteModel {
    /// The site.
    pub site: String,
    /// What is wrong.
    pub problem: String,
}

/// Writes a site model.
#[derive(Debug, Default)]
pub struct SiteModelWriter {
    bytes: Vec<u8>,
}

impl SiteModelWriter {
    /// A model that starts with `version`, the layout's version of its detector.
    pub fn new(version: u8) -> Self {
        SiteModelWriter {
            bytes: vec![version],
        }
    }

    /// A hash or key, as its 8 bytes.
    pub fn hash(&mut self, value: u64) {
        self.bytes.extend_from_slice(&value.to_le_bytes());
    }

    /// A count, in as few bytes as it needs (7 bits a byte).
    pub fn count(&mut self, mut value: u64) {
        while value >= 0x80 {
            self.bytes.push((value as u8) | 0x80);
            value >>= 7;
        }
        self.bytes.push(value as u8);
    }

    /// A table of `(key, count)` pairs: those counted at least [`MIN_SAVED_COUNT`] times, at
    /// most [`MAX_SAVED_ENTRIES`] of them (the highest counts), sorted by key.
    pub fn counts(&mut self, table: impl Iterator<Item = (u64, u32)>) {
        self.counts_from(table, MIN_SAVED_COUNT);
    }

    /// A table as [`counts`](Self::counts) writes it, of the pairs counted at least
    /// `min_count` times.
    pub fn counts_from(&mut self, table: impl Iterator<Item = (u64, u32)>, min_count: u32) {
        let kept = most_frequent(table.filter(|&(_, count)| count >= min_count));
        self.count(kept.len() as u64);
        for (key, count) in kept {
            self.hash(key);
            self.count(u64::from(count));
        }
    }

    /// The bytes written.
    pub fn finish(self) -> Vec<u8> {
        self.bytes
    }
}

/// The entries of `table` with the highest counts, at most [`MAX_SAVED_ENTRIES`], sorted by
/// key (ties on the cut go to the smaller key, so a save is the same whatever the table's
/// order).
pub fn most_frequent(table: impl Iterator<Item = (u64, u32)>) -> Vec<(u64, u32)> {
    let mut entries: Vec<(u64, u32)> = table.collect();
    if entries.len() > MAX_SAVED_ENTRIES {
        entries.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        entries.truncate(MAX_SAVED_ENTRIES);
    }
    entries.sort_unstable();
    entries
}

/// Reads a site model written by a [`SiteModelWriter`].
pub struct SiteModelReader<'a> {
    site: &'a str,
    bytes: &'a [u8],
}

impl<'a> SiteModelReader<'a> {
    /// Reads the model of `site`, checking that its layout is `version`.
    pub fn new(site: &'a str, bytes: &'a [u8], version: u8) -> Result<Self, BadSiteModel> {
        let mut reader = SiteModelReader { site, bytes };
        let found = reader.take(1)?[0];
        if found != version {
            return Err(reader.bad(format!(
                "layout version {found}, this version reads {version}"
            )));
        }
        Ok(reader)
    }

    /// The error of this site's model, saying `problem`.
    pub fn bad(&self, problem: impl Into<String>) -> BadSiteModel {
        BadSiteModel {
            site: self.site.to_string(),
            problem: problem.into(),
        }
    }

    fn take(&mut self, length: usize) -> Result<&'a [u8], BadSiteModel> {
        if self.bytes.len() < length {
            return Err(self.bad("it ends early"));
        }
        let (taken, rest) = self.bytes.split_at(length);
        self.bytes = rest;
        Ok(taken)
    }

    /// A hash written by [`SiteModelWriter::hash`].
    pub fn hash(&mut self) -> Result<u64, BadSiteModel> {
        let bytes = self.take(8)?;
        Ok(u64::from_le_bytes(bytes.try_into().unwrap_or_default()))
    }

    /// A count written by [`SiteModelWriter::count`].
    pub fn count(&mut self) -> Result<u64, BadSiteModel> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.take(1)?[0];
            value |= u64::from(byte & 0x7F) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(self.bad("a count runs past 64 bits"))
    }

    /// A count that must fit in 32 bits.
    pub fn count32(&mut self) -> Result<u32, BadSiteModel> {
        let value = self.count()?;
        u32::try_from(value).map_err(|_| self.bad(format!("count {value} is out of range")))
    }

    /// A table written by [`SiteModelWriter::counts`], handed to `insert` pair by pair.
    pub fn counts(&mut self, mut insert: impl FnMut(u64, u32)) -> Result<(), BadSiteModel> {
        let entries = self.count()?;
        // Each entry takes at least 9 bytes: a length past that is damage, not a table.
        if entries > (self.bytes.len() / 9) as u64 {
            return Err(self.bad(format!("a table of {entries} entries in fewer bytes")));
        }
        for _ in 0..entries {
            let key = self.hash()?;
            insert(key, self.count32()?);
        }
        Ok(())
    }

    /// Checks that every byte was read.
    pub fn end(self) -> Result<(), BadSiteModel> {
        if self.bytes.is_empty() {
            Ok(())
        } else {
            Err(self.bad(format!("{} bytes past its end", self.bytes.len())))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_tables_read_back_as_written() {
        let mut writer = SiteModelWriter::new(3);
        writer.count(0);
        writer.count(300);
        writer.count(u64::MAX);
        writer.hash(0xDEAD_BEEF_0000_0001);
        writer.counts([(9, 1), (7, 2), (5, 40)].into_iter());
        let bytes = writer.finish();

        let mut reader = SiteModelReader::new("s", &bytes, 3).unwrap();
        assert_eq!(reader.count().unwrap(), 0);
        assert_eq!(reader.count().unwrap(), 300);
        assert_eq!(reader.count().unwrap(), u64::MAX);
        assert_eq!(reader.hash().unwrap(), 0xDEAD_BEEF_0000_0001);
        let mut table = Vec::new();
        reader
            .counts(|key, count| table.push((key, count)))
            .unwrap();
        // The entry seen once is not written; the rest are sorted by key.
        assert_eq!(table, [(5, 40), (7, 2)]);
        reader.end().unwrap();
    }

    #[test]
    fn damaged_models_are_errors() {
        let mut writer = SiteModelWriter::new(1);
        writer.counts([(1, 5), (2, 6)].into_iter());
        let bytes = writer.finish();
        assert!(SiteModelReader::new("s", &bytes, 2).is_err());
        for cut in 0..bytes.len() {
            let read = SiteModelReader::new("s", &bytes[..cut], 1)
                .and_then(|mut reader| reader.counts(|_, _| {}).and_then(|()| reader.end()));
            assert!(read.is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        let mut reader = SiteModelReader::new("s", &longer, 1).unwrap();
        reader.counts(|_, _| {}).unwrap();
        assert!(reader.end().is_err());
        let endless = [
            1u8, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        ];
        assert!(
            SiteModelReader::new("s", &endless, 1)
                .unwrap()
                .count()
                .is_err()
        );
    }

    #[test]
    fn a_large_table_keeps_its_most_frequent_entries() {
        let table = (0..MAX_SAVED_ENTRIES as u64 + 10).map(|key| (key, 2 + (key % 3) as u32));
        let kept = most_frequent(table);
        assert_eq!(kept.len(), MAX_SAVED_ENTRIES);
        assert!(kept.windows(2).all(|pair| pair[0].0 < pair[1].0));
        // Ten entries of count 2 (the lowest) were cut.
        let twos = kept.iter().filter(|&&(_, count)| count == 2).count();
        let all_twos = (0..MAX_SAVED_ENTRIES as u64 + 10)
            .filter(|key| key % 3 == 0)
            .count();
        assert_eq!(twos, all_twos - 10);
    }
}
