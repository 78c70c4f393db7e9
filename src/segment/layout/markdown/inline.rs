//! Inline Markdown: a line's text, code spans, emphasis and links written with what Markdown
//! would read as syntax escaped, and emphasis delimiters checked once the line is whole.

use std::collections::{HashMap, HashSet};

use super::{Context, longest_run};

/// Inline Markdown being written: whitespace collapsed, text escaped.
pub(super) struct Inline {
    out: String,
    pub(super) context: Context,
    /// Whitespace came since the last character written.
    space: bool,
    /// Whitespace came before the first character (an emphasis' inner text moves it out).
    leading_space: bool,
    /// Writing inside emphasis or a link: a line break is a space.
    pub(super) in_line: bool,
    /// The delimiters of the emphasis written, checked once the line is whole
    /// ([`resolve_emphasis`]).
    emphasis: Vec<Delimiters>,
    /// The last code span, when it is the last thing written: where it starts, and its code.
    /// A code span right after it joins it, as two runs of backticks side by side would read
    /// as one.
    code_span: Option<(usize, String)>,
}

/// Where an emphasis' delimiters are in the output: start and length of each.
#[derive(Debug, Clone, Copy)]
struct Delimiters {
    open: (usize, usize),
    close: (usize, usize),
}

impl Inline {
    pub(super) fn new(context: Context) -> Self {
        Inline {
            out: String::new(),
            context,
            space: false,
            leading_space: false,
            in_line: false,
            emphasis: Vec::new(),
            code_span: None,
        }
    }

    fn at_line_start(&self) -> bool {
        self.out.is_empty() || self.out.ends_with('\n')
    }

    /// Writes the space owed before the next character, if any.
    fn space_before(&mut self) {
        if self.space {
            if self.out.is_empty() {
                self.leading_space = true;
            } else if !self.at_line_start() {
                self.out.push(' ');
            }
            self.code_span = None;
        }
        self.space = false;
    }

    pub(super) fn text(&mut self, text: &str) {
        for (index, word) in text.split(char::is_whitespace).enumerate() {
            if index > 0 {
                self.space = true;
            }
            if word.is_empty() {
                continue;
            }
            self.space_before();
            self.code_span = None;
            escape_into(word, self.context, &mut self.out);
        }
    }

    /// Markup written as it is (an image).
    pub(super) fn markup(&mut self, markup: &str) {
        self.space_before();
        self.code_span = None;
        self.out.push_str(markup);
    }

    pub(super) fn code(&mut self, code: &str) {
        // White space at the ends of the code element separates it from the words around
        // it (the text after it may hold no space of its own: it collapsed into this one).
        let trimmed = code.trim();
        if trimmed.len() < code.len() && code.starts_with(char::is_whitespace) {
            self.space = true;
        }
        let ends_with_space = trimmed.len() < code.len() && code.ends_with(char::is_whitespace);
        let code = trimmed;
        if code.is_empty() {
            return;
        }
        self.space_before();
        let code = match self.code_span.take() {
            Some((start, before)) => {
                self.out.truncate(start);
                before + code
            }
            None => code.to_string(),
        };
        let start = self.out.len();
        let ticks = "`".repeat(longest_run(&code, '`') + 1);
        let pad = if code.starts_with('`') || code.ends_with('`') {
            " "
        } else {
            ""
        };
        let written = if self.context == Context::Cell {
            code.replace('|', "\\|")
        } else {
            code.clone()
        };
        self.out
            .push_str(&format!("{ticks}{pad}{written}{pad}{ticks}"));
        self.code_span = Some((start, code));
        self.space = ends_with_space;
    }

    /// `inner` between `open` and `close`, its outer whitespace moved outside them; nothing
    /// when it holds no text. `emphasis` delimiters are checked when the line is whole.
    pub(super) fn wrapped(&mut self, inner: Inline, open: &str, close: &str, emphasis: bool) {
        let (leading, trailing) = (inner.leading_space, inner.space);
        let text = inner.out;
        if leading {
            self.space = true;
        }
        if text.trim().is_empty() {
            self.space |= trailing;
            return;
        }
        self.space_before();
        self.code_span = None;
        if open == "[" && self.out.ends_with('!') && !self.out.ends_with("\\!") {
            // `![` would open an image.
            self.out.pop();
            self.out.push_str("\\!");
        }
        let open_at = self.out.len();
        self.out.push_str(open);
        let text_at = self.out.len();
        self.out.push_str(&text);
        let close_at = self.out.len();
        self.out.push_str(close);
        self.emphasis
            .extend(inner.emphasis.into_iter().map(|inside| Delimiters {
                open: (inside.open.0 + text_at, inside.open.1),
                close: (inside.close.0 + text_at, inside.close.1),
            }));
        if emphasis {
            self.emphasis.push(Delimiters {
                open: (open_at, open.len()),
                close: (close_at, close.len()),
            });
        }
        self.space = trailing;
    }

    pub(super) fn line_break(&mut self) {
        self.code_span = None;
        if self.context == Context::Paragraph && !self.in_line {
            if !self.at_line_start() {
                self.out.push_str("\\\n");
            }
            self.space = false;
        } else {
            self.space = true;
        }
    }

    pub(super) fn block_boundary(&mut self) {
        self.code_span = None;
        if self.context == Context::Paragraph && !self.in_line {
            if !self.at_line_start() {
                self.out.push('\n');
            }
            self.space = false;
        } else {
            self.space = true;
        }
    }

    pub(super) fn finish(self) -> String {
        let mut out = resolve_emphasis(self.out, self.emphasis);
        out.truncate(out.trim_end().len());
        out
    }
}

/// Passes of [`resolve_emphasis`] before every delimiter left is taken out.
const EMPHASIS_PASSES: usize = 8;

/// `out` without the emphasis delimiters CommonMark would not read as opening and closing
/// their emphasis, where the text around them decides it: an opening delimiter must not
/// follow a closing one, nor come before punctuation unless whitespace or punctuation comes
/// before it; a closing delimiter after punctuation must come before whitespace or
/// punctuation. Taking a pair out changes its neighbours', so the check repeats.
fn resolve_emphasis(mut out: String, mut emphasis: Vec<Delimiters>) -> String {
    for pass in 0.. {
        if emphasis.is_empty() {
            break;
        }
        // Delimiters side by side make one run, and CommonMark reads a run as a whole: the
        // characters around the run decide, and a run holding a closing delimiter cannot
        // open anything after it.
        let mut delimiters: Vec<(usize, usize, bool)> = (emphasis.iter())
            .flat_map(|pair| {
                [
                    (pair.open.0, pair.open.1, true),
                    (pair.close.0, pair.close.1, false),
                ]
            })
            .collect();
        delimiters.sort_unstable();
        let mut runs: HashMap<usize, (usize, usize, bool)> = HashMap::new();
        let mut index = 0;
        while index < delimiters.len() {
            let run_start = delimiters[index].0;
            let mut end = index;
            while end + 1 < delimiters.len()
                && delimiters[end].0 + delimiters[end].1 == delimiters[end + 1].0
            {
                end += 1;
            }
            let run_end = delimiters[end].0 + delimiters[end].1;
            let mut closed = false;
            for &(at, _, opens) in &delimiters[index..=end] {
                runs.insert(at, (run_start, run_end, closed));
                closed |= !opens;
            }
            index = end + 1;
        }
        // Emphasis inside other emphasis: an opening delimiter there that could also close
        // would close the outer one instead.
        let mut by_open: Vec<(usize, usize)> = (emphasis.iter())
            .map(|pair| (pair.open.0, pair.close.0))
            .collect();
        by_open.sort_unstable();
        let mut enclosing: Vec<usize> = Vec::new();
        let mut enclosed: HashSet<usize> = HashSet::new();
        for (open, close) in by_open {
            while enclosing.last().is_some_and(|&end| end <= open) {
                enclosing.pop();
            }
            if !enclosing.is_empty() {
                enclosed.insert(open);
            }
            enclosing.push(close);
        }
        let before = |at: usize| out[..at].chars().next_back().unwrap_or(' ');
        let after = |at: usize| out[at..].chars().next().unwrap_or(' ');
        let valid = |pair: &Delimiters| {
            let (open_start, open_end, after_a_close) = runs[&pair.open.0];
            let (close_start, close_end, _) = runs[&pair.close.0];
            let (ahead, first) = (before(open_start), after(open_end));
            let (last, next) = (before(close_start), after(close_end));
            let opens = !first.is_whitespace()
                && !after_a_close
                && (!maybe_punctuation(first)
                    || ahead.is_whitespace()
                    || ahead.is_ascii_punctuation());
            let closes = !last.is_whitespace()
                && (!maybe_punctuation(last)
                    || next.is_whitespace()
                    || next.is_ascii_punctuation());
            let could_close = !ahead.is_whitespace()
                && (!ahead.is_ascii_punctuation()
                    || first.is_whitespace()
                    || maybe_punctuation(first));
            opens && closes && !(could_close && enclosed.contains(&pair.open.0))
        };
        let (kept, dropped): (Vec<Delimiters>, Vec<Delimiters>) = if pass < EMPHASIS_PASSES {
            emphasis.iter().partition(|pair| valid(pair))
        } else {
            (Vec::new(), emphasis.clone())
        };
        if dropped.is_empty() {
            break;
        }
        let mut cuts: Vec<(usize, usize)> = (dropped.iter())
            .flat_map(|pair| [pair.open, pair.close])
            .filter(|&(_, length)| length > 0)
            .collect();
        cuts.sort_unstable();
        let cut_before: Vec<usize> = std::iter::once(0)
            .chain(cuts.iter().scan(0, |sum, &(_, length)| {
                *sum += length;
                Some(*sum)
            }))
            .collect();
        let shift = |at: usize| at - cut_before[cuts.partition_point(|&(cut, _)| cut < at)];
        emphasis = kept
            .into_iter()
            .map(|pair| Delimiters {
                open: (shift(pair.open.0), pair.open.1),
                close: (shift(pair.close.0), pair.close.1),
            })
            .collect();
        let mut resolved = String::with_capacity(out.len());
        let mut from = 0;
        for (at, length) in cuts {
            resolved.push_str(&out[from..at]);
            from = at + length;
        }
        resolved.push_str(&out[from..]);
        out = resolved;
    }
    out
}

/// Punctuation as CommonMark's flanking rules may count it: anything but letters, digits
/// and whitespace (Unicode symbols count in newer versions of the specification).
fn maybe_punctuation(c: char) -> bool {
    !c.is_alphanumeric() && !c.is_whitespace()
}

/// Appends `word` (no whitespace in it) with what Markdown would read as syntax escaped.
fn escape_into(word: &str, context: Context, out: &mut String) {
    const SPECIAL: &[char] = &['\\', '`', '*', '[', ']', '<', '~', '_', '&', '#', '|'];
    if !word.contains(SPECIAL) {
        out.push_str(word);
        return;
    }
    let mut before = None;
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        let after = chars.peek().copied();
        let escape = match c {
            '\\' | '`' | '*' | '[' | ']' | '<' | '~' => true,
            '_' => {
                !(before.is_some_and(char::is_alphanumeric)
                    && after.is_some_and(char::is_alphanumeric))
            }
            // Before what could make an entity, here or in the next text written.
            '&' => after.is_none_or(|next| next.is_ascii_alphanumeric() || next == '#'),
            '#' => context == Context::Heading,
            '|' => context == Context::Cell,
            _ => false,
        };
        if escape {
            out.push('\\');
        }
        out.push(c);
        before = Some(c);
    }
}
