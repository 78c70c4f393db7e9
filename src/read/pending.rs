//! The queue a file's reader hands its items out of. A record waits in it until the reader
//! knows where the next record starts (or where the file's data ends): that end, less the
//! record's offset, is its length ([`Record::source_length`]) — in a gzip file, the length of
//! the members holding it, so that the two give a range a replay tool can read alone.

use std::collections::VecDeque;

use super::{Record, Skip};

/// Items read from one file and not yet handed out, in file order.
#[derive(Debug, Default)]
pub(crate) struct PendingItems {
    items: VecDeque<(Result<Record, Skip>, Open)>,
}

/// Whether a queued item waits for its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    /// Ready to hand out.
    Closed,
    /// A record whose length the next record's start gives.
    UntilNext,
    /// A record that starts inside a gzip member holding bytes of the item before it: it
    /// has no range of its own, whatever follows.
    Sharing,
}

impl PendingItems {
    /// Queues a record, open until [`Self::close`] gives it its length; `own_members`: it
    /// starts at the start of a gzip member (or in a plain file), not inside one that holds
    /// bytes of the item before it.
    pub(crate) fn push_record(&mut self, record: Record, own_members: bool) {
        let open = if own_members {
            Open::UntilNext
        } else {
            Open::Sharing
        };
        self.items.push_back((Ok(record), open));
    }

    /// Queues a skip.
    pub(crate) fn push_skip(&mut self, skip: Skip) {
        self.items.push_back((Err(skip), Open::Closed));
    }

    /// Gives every open record its length: from its offset to `end`, the file offset where
    /// the next record starts or the file's data ends. A record that `end` does not lie past
    /// (one of several records in one gzip member), or that shares its first member with
    /// the item before it, has no length of its own.
    pub(crate) fn close(&mut self, end: u64) {
        self.close_with(|record| {
            end.checked_sub(record.source_offset)
                .filter(|&length| length > 0)
        });
    }

    /// Closes every open record without a length: the next record starts inside a gzip
    /// member that holds the end of the one before, so no range holds either alone.
    pub(crate) fn close_sharing(&mut self) {
        self.close_with(|_| None);
    }

    fn close_with(&mut self, length: impl Fn(&Record) -> Option<u64>) {
        for (item, open) in self
            .items
            .iter_mut()
            .filter(|(_, open)| *open != Open::Closed)
        {
            if let Ok(record) = item {
                record.source_length = match open {
                    Open::Sharing => None,
                    _ => length(record),
                };
            }
            *open = Open::Closed;
        }
    }

    /// The first item, unless it is a record still open.
    pub(crate) fn pop(&mut self) -> Option<Result<Record, Skip>> {
        match self.items.front() {
            Some((_, Open::Closed)) => self.items.pop_front().map(|(item, _)| item),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::{RecordKind, SkipReason};

    fn record(offset: u64) -> Record {
        Record {
            url: "http://a.example/".into(),
            kind: RecordKind::Response,
            content_type: None,
            block: Vec::new(),
            source_offset: offset,
            source_length: None,
            source_input: 0,
            truncated: false,
            date: None,
            record_id: None,
        }
    }

    #[test]
    fn a_record_waits_for_its_end_and_the_skips_behind_it_wait_too() {
        let mut pending = PendingItems::default();
        pending.push_record(record(100), true);
        pending.push_skip(Skip::new(SkipReason::NonPageRecord, None, "x").at(0, Some(150)));
        assert!(pending.pop().is_none());
        pending.close(180);
        assert_eq!(pending.pop().unwrap().unwrap().source_length, Some(80));
        assert!(pending.pop().unwrap().is_err());
        assert!(pending.pop().is_none());
    }

    #[test]
    fn records_sharing_a_gzip_member_have_no_length_of_their_own() {
        let mut pending = PendingItems::default();
        pending.push_record(record(0), true);
        pending.close(0);
        assert_eq!(pending.pop().unwrap().unwrap().source_length, None);
    }
}
