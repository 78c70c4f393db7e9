//! A layout's marks packed into a few bytes each, for a page that waits for its decision.
//!
//! A [`Mark`] takes 16 bytes in memory; most are an element's start or end, which need one or
//! two. A two-pass build holds every page of a site until the site is decided, and the marks
//! were half of what those pages held (docs/MEASUREMENTS.md, "Two-pass memory"). Marks in,
//! bytes out, and the same marks back: each mark is a tag byte followed by its numbers as
//! LEB128 varints (a text span as its start and its length).

use super::{Mark, Shape, StoredText};

/// The marks of one layout, packed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct PackedMarks {
    bytes: Box<[u8]>,
    count: usize,
}

const CLOSE: u8 = 0;
const BREAK: u8 = 1;
const TEXT: u8 = 2;
const LITERAL: u8 = 3;
const IMAGE: u8 = 4;
const BLOCK: u8 = 5;
const PARAGRAPH: u8 = 6;
const HEADING: u8 = 7;
const LIST: u8 = 8;
const ITEM: u8 = 9;
const TERM: u8 = 10;
const DEFINITION: u8 = 11;
const QUOTE: u8 = 12;
const PREFORMATTED: u8 = 13;
const TABLE: u8 = 14;
const CAPTION: u8 = 15;
const ROW: u8 = 16;
const CELL: u8 = 17;
const CODE: u8 = 18;
const EMPHASIS: u8 = 19;
const STRONG: u8 = 20;
const LINK: u8 = 21;
const GUTTER: u8 = 22;

impl PackedMarks {
    /// `marks`, packed.
    pub(super) fn pack(marks: &[Mark]) -> Self {
        let mut bytes = Vec::with_capacity(marks.len() * 3);
        for &mark in marks {
            pack_mark(&mut bytes, mark);
        }
        PackedMarks {
            bytes: bytes.into_boxed_slice(),
            count: marks.len(),
        }
    }

    /// The marks packed, in order.
    pub(super) fn unpack(&self) -> Vec<Mark> {
        let mut reader = Reader {
            bytes: &self.bytes,
            at: 0,
        };
        let mut marks = Vec::with_capacity(self.count);
        while reader.at < reader.bytes.len() {
            // Only `pack` writes these bytes; were they cut short, the marks read so far are
            // still the page's first ones.
            let Some(mark) = reader.mark() else { break };
            marks.push(mark);
        }
        marks
    }

    /// Heap bytes held.
    pub(super) fn heap_bytes(&self) -> usize {
        self.bytes.len()
    }
}

fn pack_mark(bytes: &mut Vec<u8>, mark: Mark) {
    match mark {
        Mark::Close => bytes.push(CLOSE),
        Mark::Break => bytes.push(BREAK),
        Mark::Text { block, start, end } => {
            bytes.push(TEXT);
            write_varint(bytes, block);
            write_varint(bytes, start);
            write_varint(bytes, end.wrapping_sub(start));
        }
        Mark::Literal { block, text } => {
            bytes.push(LITERAL);
            write_varint(bytes, block);
            write_stored(bytes, text);
        }
        Mark::Image { block, image } => {
            bytes.push(IMAGE);
            write_varint(bytes, block);
            write_varint(bytes, image);
        }
        Mark::Open(shape) => pack_shape(bytes, shape),
    }
}

fn pack_shape(bytes: &mut Vec<u8>, shape: Shape) {
    match shape {
        Shape::Block => bytes.push(BLOCK),
        Shape::Paragraph => bytes.push(PARAGRAPH),
        Shape::Heading(level) => bytes.extend([HEADING, level]),
        Shape::List {
            ordered,
            start,
            reversed,
        } => {
            let flags =
                u8::from(ordered) | u8::from(reversed) << 1 | u8::from(start.is_some()) << 2;
            bytes.extend([LIST, flags]);
            if let Some(start) = start {
                write_varint(bytes, zigzag(start));
            }
        }
        Shape::Item(value) => {
            bytes.extend([ITEM, u8::from(value.is_some())]);
            if let Some(value) = value {
                write_varint(bytes, zigzag(value));
            }
        }
        Shape::Term => bytes.push(TERM),
        Shape::Definition => bytes.push(DEFINITION),
        Shape::Quote => bytes.push(QUOTE),
        Shape::Preformatted(language) => {
            bytes.extend([PREFORMATTED, u8::from(language.is_some())]);
            if let Some(language) = language {
                write_stored(bytes, language);
            }
        }
        Shape::Table { presentation } => bytes.extend([TABLE, u8::from(presentation)]),
        Shape::Caption => bytes.push(CAPTION),
        Shape::Row => bytes.push(ROW),
        Shape::Cell { header, colspan } => {
            bytes.extend([CELL, u8::from(header)]);
            write_varint(bytes, u32::from(colspan));
        }
        Shape::Code => bytes.push(CODE),
        Shape::Emphasis => bytes.push(EMPHASIS),
        Shape::Strong => bytes.push(STRONG),
        Shape::Link(target) => {
            bytes.push(LINK);
            write_stored(bytes, target);
        }
        Shape::Gutter => bytes.push(GUTTER),
    }
}

fn write_stored(bytes: &mut Vec<u8>, stored: StoredText) {
    write_varint(bytes, stored.start);
    write_varint(bytes, stored.end.wrapping_sub(stored.start));
}

fn write_varint(bytes: &mut Vec<u8>, mut value: u32) {
    while value >= 0x80 {
        bytes.push(value as u8 | 0x80);
        value >>= 7;
    }
    bytes.push(value as u8);
}

fn zigzag(value: i32) -> u32 {
    ((value << 1) ^ (value >> 31)) as u32
}

fn unzigzag(value: u32) -> i32 {
    (value >> 1) as i32 ^ -((value & 1) as i32)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Option<u8> {
        let byte = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(byte)
    }

    fn varint(&mut self) -> Option<u32> {
        let mut value = 0u32;
        for shift in (0..35).step_by(7) {
            let byte = self.byte()?;
            value |= u32::from(byte & 0x7f).checked_shl(shift)?;
            if byte & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    }

    fn stored(&mut self) -> Option<StoredText> {
        let start = self.varint()?;
        let end = start.wrapping_add(self.varint()?);
        Some(StoredText { start, end })
    }

    fn flag(&mut self) -> Option<bool> {
        Some(self.byte()? != 0)
    }

    fn mark(&mut self) -> Option<Mark> {
        let shape = match self.byte()? {
            CLOSE => return Some(Mark::Close),
            BREAK => return Some(Mark::Break),
            TEXT => {
                let block = self.varint()?;
                let start = self.varint()?;
                let end = start.wrapping_add(self.varint()?);
                return Some(Mark::Text { block, start, end });
            }
            LITERAL => {
                let block = self.varint()?;
                let text = self.stored()?;
                return Some(Mark::Literal { block, text });
            }
            IMAGE => {
                let block = self.varint()?;
                let image = self.varint()?;
                return Some(Mark::Image { block, image });
            }
            BLOCK => Shape::Block,
            PARAGRAPH => Shape::Paragraph,
            HEADING => Shape::Heading(self.byte()?),
            LIST => {
                let flags = self.byte()?;
                let start = if flags & 4 != 0 {
                    Some(unzigzag(self.varint()?))
                } else {
                    None
                };
                Shape::List {
                    ordered: flags & 1 != 0,
                    start,
                    reversed: flags & 2 != 0,
                }
            }
            ITEM => {
                let value = if self.flag()? {
                    Some(unzigzag(self.varint()?))
                } else {
                    None
                };
                Shape::Item(value)
            }
            TERM => Shape::Term,
            DEFINITION => Shape::Definition,
            QUOTE => Shape::Quote,
            PREFORMATTED => {
                let language = if self.flag()? {
                    Some(self.stored()?)
                } else {
                    None
                };
                Shape::Preformatted(language)
            }
            TABLE => Shape::Table {
                presentation: self.flag()?,
            },
            CAPTION => Shape::Caption,
            ROW => Shape::Row,
            CELL => {
                let header = self.flag()?;
                let colspan = u16::try_from(self.varint()?).ok()?;
                Shape::Cell { header, colspan }
            }
            CODE => Shape::Code,
            EMPHASIS => Shape::Emphasis,
            STRONG => Shape::Strong,
            LINK => Shape::Link(self.stored()?),
            GUTTER => Shape::Gutter,
            _ => return None,
        };
        Some(Mark::Open(shape))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Numbers at the edges of each field's range, and a few between.
    const NUMBERS: [u32; 8] = [0, 1, 127, 128, 16_383, 16_384, 1 << 28, u32::MAX];
    const VALUES: [i32; 6] = [0, 1, -1, 1_000_000_000, i32::MIN, i32::MAX];

    fn stored(at: usize) -> StoredText {
        StoredText {
            start: NUMBERS[at % NUMBERS.len()],
            end: NUMBERS[(at * 5 + 3) % NUMBERS.len()],
        }
    }

    /// Every kind of mark with every edge value in some field (a start past its end too: the
    /// span is kept as given).
    fn every_kind_of_mark() -> Vec<Mark> {
        let mut marks = vec![Mark::Close, Mark::Break];
        for (at, &number) in NUMBERS.iter().enumerate() {
            let other = NUMBERS[(at * 3 + 1) % NUMBERS.len()];
            marks.extend([
                Mark::Text {
                    block: number,
                    start: other,
                    end: number,
                },
                Mark::Literal {
                    block: other,
                    text: stored(at),
                },
                Mark::Image {
                    block: number,
                    image: other,
                },
                Mark::Open(Shape::Link(stored(at + 1))),
                Mark::Open(Shape::Preformatted(Some(stored(at + 2)))),
                Mark::Open(Shape::Cell {
                    header: at % 2 == 0,
                    colspan: number as u16,
                }),
                Mark::Open(Shape::Heading(number as u8)),
            ]);
        }
        for (at, &value) in VALUES.iter().enumerate() {
            marks.extend([
                Mark::Open(Shape::List {
                    ordered: at % 2 == 0,
                    start: Some(value),
                    reversed: at % 3 == 0,
                }),
                Mark::Open(Shape::Item(Some(value))),
            ]);
        }
        marks.extend(
            [
                Shape::Block,
                Shape::Paragraph,
                Shape::List {
                    ordered: true,
                    start: None,
                    reversed: true,
                },
                Shape::Item(None),
                Shape::Term,
                Shape::Definition,
                Shape::Quote,
                Shape::Preformatted(None),
                Shape::Table { presentation: true },
                Shape::Table {
                    presentation: false,
                },
                Shape::Caption,
                Shape::Row,
                Shape::Code,
                Shape::Emphasis,
                Shape::Strong,
                Shape::Gutter,
            ]
            .map(Mark::Open),
        );
        marks
    }

    #[test]
    fn every_kind_of_mark_reads_back_the_same() {
        let marks = every_kind_of_mark();
        assert_eq!(PackedMarks::pack(&marks).unpack(), marks);
        assert!(PackedMarks::pack(&[]).unpack().is_empty());
    }

    #[test]
    fn element_ends_take_a_byte_each() {
        let marks = vec![Mark::Close; 100];
        let packed = PackedMarks::pack(&marks);
        assert_eq!(packed.heap_bytes(), 100);
        assert_eq!(packed.unpack(), marks);
    }

    #[test]
    fn cut_bytes_read_back_their_whole_marks_only() {
        let marks = every_kind_of_mark();
        let packed = PackedMarks::pack(&marks);
        for cut in [1, packed.bytes.len() / 3, packed.bytes.len() - 1] {
            let short = PackedMarks {
                bytes: packed.bytes[..cut].into(),
                count: 0,
            };
            let read = short.unpack();
            assert!(read.len() < marks.len());
            assert_eq!(read[..], marks[..read.len()]);
        }
    }
}
