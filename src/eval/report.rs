//! Report: an [`EvalReport`] out as a markdown table (with per-site F1 on request) and its
//! known-item queries as JSON lines. A sampled evaluation has a row per size and index, each
//! saying its pages per site.

use serde::Serialize;

use super::{EvalReport, EvalRow, QueryOutcome};
use crate::run::PagesPerSite;

impl EvalRow {
    /// The row's name, with its pages per site when sampled: "hybrid" or "hybrid k=3".
    pub fn label(&self) -> String {
        match self.pages_per_site {
            Some(pages) => format!("{} k={pages}", self.name),
            None => self.name.clone(),
        }
    }
}

impl EvalReport {
    /// Every index's known-item queries as JSON lines: `index` (and `pages_per_site` when
    /// sampled), then the fields of [`QueryOutcome`].
    pub fn write_queries(&self, mut out: impl std::io::Write) -> std::io::Result<()> {
        #[derive(Serialize)]
        struct Line<'a> {
            index: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            pages_per_site: Option<PagesPerSite>,
            #[serde(flatten)]
            outcome: &'a QueryOutcome,
        }
        for row in &self.rows {
            for outcome in &row.queries {
                serde_json::to_writer(
                    &mut out,
                    &Line {
                        index: &row.name,
                        pages_per_site: row.pages_per_site,
                        outcome,
                    },
                )?;
                out.write_all(b"\n")?;
            }
        }
        out.flush()
    }

    /// Whether the rows are of sampled sites.
    fn sampled(&self) -> bool {
        self.rows.iter().any(|row| row.pages_per_site.is_some())
    }

    /// Whether a row pools several draws of its size.
    fn drawn(&self) -> bool {
        self.rows
            .iter()
            .any(|row| row.draws.is_some_and(|draws| draws > 1))
    }

    /// The header cells a sampled table starts with (after the index's name), and their
    /// alignment row.
    fn sample_headers(&self) -> (&'static str, &'static str) {
        match (self.sampled(), self.drawn()) {
            (true, true) => (
                " pages per site | draws | labelled pages |",
                "---:|---:|---:|",
            ),
            (true, false) => (" pages per site | labelled pages |", "---:|---:|"),
            _ => ("", ""),
        }
    }

    /// A row's cells under [`sample_headers`](Self::sample_headers): its pages per site (and
    /// draws) and the labelled `pages` it was scored on.
    fn sample_cells(&self, row: &EvalRow, pages: usize) -> String {
        match row.pages_per_site {
            Some(per_site) if self.drawn() => {
                format!(" {per_site} | {} | {pages} |", row.draws.unwrap_or(1))
            }
            Some(per_site) if self.sampled() => format!(" {per_site} | {pages} |"),
            _ => String::new(),
        }
    }

    /// The report as a markdown table (and per-site F1 with `sites`).
    pub fn to_markdown(&self, sites: bool) -> String {
        let mut out = String::new();
        out.push_str(&format!("Labelled pages: {}\n", self.labelled_pages));
        if self.snippet_pages > 0 {
            out.push_str(&format!("Snippet-labelled pages: {}\n", self.snippet_pages));
        }
        if self.labelled_pages_missing > 0 {
            out.push_str(&format!(
                "Labelled pages not in the input (scored as empty): {}\n",
                self.labelled_pages_missing
            ));
        }
        if let Some(seed) = self.sample_seed {
            out.push_str(&format!(
                "Each site sampled down to the pages per site of each row (seed {seed}); \
                 only the sampled pages are read and scored\n"
            ));
            if self.drawn() {
                out.push_str(
                    "A row's draws are disjoint samples of its size, each read as a crawl of \
                     its own, their pages scored together (index sizes summed)\n",
                );
            }
            if self.labelled_pages_unpredicted > 0 {
                out.push_str(&format!(
                    "Labelled pages left out of every row, the predictions holding no kept \
                     text of them at their size: {}\n",
                    self.labelled_pages_unpredicted
                ));
            }
        }
        out.push('\n');
        let (sample_header, sample_align) = self.sample_headers();
        if self.snippet_pages > 0 {
            out.push_str(&format!(
                "| index |{sample_header} snippet P | snippet R | snippet F1 | postings | reduction vs none |\n"
            ));
            out.push_str(&format!("|---|{sample_align}---:|---:|---:|---:|---:|\n"));
            for row in &self.rows {
                if let Some(snippets) = &row.snippets {
                    out.push_str(&format!(
                        "| {} |{} {:.3} | {:.3} | {:.3} | {} | {:.1}% |\n",
                        row.name,
                        self.sample_cells(row, snippets.pages),
                        snippets.precision,
                        snippets.recall,
                        snippets.f1,
                        row.index.postings,
                        100.0 * row.postings_reduction
                    ));
                }
            }
            out.push('\n');
            if self.labelled_pages == 0 {
                return out;
            }
        }
        out.push_str(&format!("| index |{sample_header} micro P | micro R | micro F1 | macro F1 | line P | line R | line F1 | template kept | postings | reduction vs none | share of oracle reduction | bytes | MRR@10 title | MRR@10 phrase | S@1 title | S@1 phrase |\n"));
        out.push_str(&format!(
            "|---|{sample_align}---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        ));
        for row in &self.rows {
            let q = &row.quality;
            let r = &row.retrieval;
            out.push_str(&format!(
                "| {} |{} {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {} | {:.1}% | {:.2} | {} | {:.3} | {:.3} | {:.3} | {:.3} |\n",
                row.name,
                self.sample_cells(row, q.pages),
                q.micro.precision,
                q.micro.recall,
                q.micro.f1,
                q.macro_average.f1,
                q.lines.precision,
                q.lines.recall,
                q.lines.f1,
                q.template_kept,
                row.index.postings,
                100.0 * row.postings_reduction,
                row.share_of_oracle_reduction,
                row.index.total_bytes,
                r.title.mrr_at_10,
                r.phrase.mrr_at_10,
                r.title.success_at_1,
                r.phrase.success_at_1,
            ));
        }
        if self.rows.iter().any(|row| row.code.blocks > 0) {
            self.write_code(&mut out);
        }
        if sites {
            self.write_sites(&mut out);
        }
        out
    }

    /// The code table: of the labelled content's `<pre>` blocks, the share each row kept
    /// whole in its text and in its Markdown.
    fn write_code(&self, out: &mut String) {
        let (sample_header, sample_align) = self.sample_headers();
        out.push_str(&format!(
            "\n| index |{sample_header} code blocks | whole in text | whole in Markdown |\n"
        ));
        out.push_str(&format!("|---|{sample_align}---:|---:|---:|\n"));
        for row in &self.rows {
            let code = &row.code;
            let markdown = match (code.whole_in_markdown, code.markdown_share()) {
                (Some(whole), Some(share)) => format!("{whole} ({:.1}%)", 100.0 * share),
                _ => "-".to_string(),
            };
            out.push_str(&format!(
                "| {} |{} {} | {} ({:.1}%) | {} |\n",
                row.name,
                self.sample_cells(row, row.quality.pages),
                code.blocks,
                code.whole_in_text,
                100.0 * code.text_share(),
                markdown
            ));
        }
    }

    /// The per-site table: a row per site, the F1 and line F1 of each row.
    fn write_sites(&self, out: &mut String) {
        out.push_str("\n| site |");
        for row in &self.rows {
            out.push_str(&format!(" {0} F1 | {0} line F1 |", row.label()));
        }
        out.push_str("\n|---|");
        out.push_str(&"---:|".repeat(2 * self.rows.len()));
        out.push('\n');
        let mut names: Vec<&String> = self
            .rows
            .iter()
            .flat_map(|row| row.quality.sites.keys())
            .collect();
        names.sort();
        names.dedup();
        for site in names {
            out.push_str(&format!("| {site} |"));
            for row in &self.rows {
                let f1 = row.quality.sites.get(site).map_or(0.0, |prf| prf.f1);
                let lines = row.quality.site_lines.get(site).map_or(0.0, |prf| prf.f1);
                out.push_str(&format!(" {f1:.3} | {lines:.3} |"));
            }
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{CodeScore, IndexStats, Prf, Quality, Retrieval};
    use super::*;

    fn row(name: &str, postings: u64, reduction: f64, share: f64) -> EvalRow {
        EvalRow {
            name: name.into(),
            pages_per_site: None,
            draws: None,
            quality: Quality::default(),
            code: CodeScore::default(),
            snippets: None,
            index: IndexStats {
                postings,
                ..IndexStats::default()
            },
            postings_reduction: reduction,
            share_of_oracle_reduction: share,
            retrieval: Retrieval::default(),
            queries: Vec::new(),
            build_seconds: 0.0,
        }
    }

    fn report(rows: Vec<EvalRow>, sample_seed: Option<u64>) -> EvalReport {
        EvalReport {
            labelled_pages: 2,
            snippet_pages: 0,
            labelled_pages_missing: 0,
            sample_seed,
            labelled_pages_unpredicted: 0,
            rows,
        }
    }

    fn f1(f1: f64) -> Prf {
        Prf {
            precision: 1.0,
            recall: 1.0 / 3.0,
            f1,
        }
    }

    #[test]
    fn the_markdown_table_shows_reductions_as_percentages_and_absent_sites_as_zero() {
        let mut bloom = row("bloom", 700, 0.3, 0.5);
        bloom.quality.sites.insert("s1".into(), f1(0.5));
        bloom.quality.site_lines.insert("s1".into(), f1(0.25));
        let table = report(vec![bloom, row("none", 1000, 0.0, 0.0)], None).to_markdown(true);
        // 0.3 → 30.0%, share 0.50.
        assert!(table.contains("| bloom | 0.000 |"), "{table}");
        assert!(table.contains("| 700 | 30.0% | 0.50 |"), "{table}");
        assert!(table.contains("| 1000 | 0.0% | 0.00 |"), "{table}");
        // none has no figures for s1: 0.
        assert!(
            table.contains("| s1 | 0.500 | 0.250 | 0.000 | 0.000 |"),
            "{table}"
        );
        assert!(!table.contains("pages per site"), "{table}");
    }

    #[test]
    fn a_sampled_table_says_each_row_s_pages_per_site_and_labelled_pages() {
        let mut rows = Vec::new();
        for (pages, scored, site_f1) in [
            (PagesPerSite::Pages(1), 2, 0.25),
            (PagesPerSite::All, 7, 0.75),
        ] {
            let mut hybrid = row("hybrid", 700, 0.3, 0.5);
            hybrid.pages_per_site = Some(pages);
            hybrid.quality.pages = scored;
            hybrid.quality.sites.insert("s1".into(), f1(site_f1));
            rows.push(hybrid);
        }
        // The site only the second row scored is still listed.
        rows[1].quality.sites.insert("s2".into(), f1(1.0));
        let table = report(rows, Some(4)).to_markdown(true);
        assert!(table.contains("(seed 4)"), "{table}");
        assert!(
            table.contains("| index | pages per site | labelled pages | micro P |"),
            "{table}"
        );
        assert!(table.contains("| hybrid | 1 | 2 | 0.000 |"), "{table}");
        assert!(table.contains("| hybrid | all | 7 | 0.000 |"), "{table}");
        assert!(
            table.contains(
                "| site | hybrid k=1 F1 | hybrid k=1 line F1 | hybrid k=all F1 | hybrid k=all line F1 |"
            ),
            "{table}"
        );
        assert!(
            table.contains("| s1 | 0.250 | 0.000 | 0.750 | 0.000 |"),
            "{table}"
        );
        assert!(
            table.contains("| s2 | 0.000 | 0.000 | 1.000 | 0.000 |"),
            "{table}"
        );
    }
}
