//! An SVG bar chart of an evaluation: one group of bars per index (F1, line F1, postings
//! reduction, title MRR) — per index and pages per site when sampled ("hybrid k=3") —, because bars
//! compare faster than columns of numbers.

use plotters::prelude::*;

use super::{EvalError, EvalReport};

const METRICS: [(&str, RGBColor); 4] = [
    ("micro F1", RGBColor(31, 119, 180)),
    ("line F1", RGBColor(148, 103, 189)),
    ("postings reduction vs none", RGBColor(255, 127, 14)),
    ("MRR@10, title queries", RGBColor(44, 160, 44)),
];

/// The chart of `report` as an SVG document.
pub fn chart_svg(report: &EvalReport) -> Result<String, EvalError> {
    let mut svg = String::new();
    draw_chart(
        report,
        SVGBackend::with_string(&mut svg, chart_size(report)),
    )?;
    Ok(svg)
}

fn chart_size(report: &EvalReport) -> (u32, u32) {
    (160 + 150 * report.rows.len().max(1) as u32, 420)
}

fn draw_chart(report: &EvalReport, backend: SVGBackend<'_>) -> Result<(), EvalError> {
    let chart_error = |error: String| EvalError::Io(std::io::Error::other(error));
    let groups = report.rows.len().max(1);
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(|e| chart_error(e.to_string()))?;
    let mut chart = ChartBuilder::on(&root)
        .caption("indexer eval", ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(0.0..groups as f64, 0.0..1.3)
        .map_err(|e| chart_error(e.to_string()))?;
    let names: Vec<String> = report.rows.iter().map(|row| row.label()).collect();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(groups * 2 + 1)
        .x_label_formatter(&|x| {
            let at = x.floor() as usize;
            if (x - at as f64 - 0.5).abs() < 0.01 {
                names.get(at).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_labels(7)
        .y_desc("share")
        .draw()
        .map_err(|e| chart_error(e.to_string()))?;

    for (metric, (label, color)) in METRICS.iter().enumerate() {
        let bars = report.rows.iter().enumerate().map(|(group, row)| {
            let value = match metric {
                0 => row.quality.micro.f1,
                1 => row.quality.lines.f1,
                2 => row.postings_reduction,
                _ => row.retrieval.title.mrr_at_10,
            }
            .clamp(0.0, 1.0);
            let left = group as f64 + 0.12 + 0.19 * metric as f64;
            Rectangle::new([(left, 0.0), (left + 0.16, value)], color.filled())
        });
        chart
            .draw_series(bars)
            .map_err(|e| chart_error(e.to_string()))?
            .label(*label)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperMiddle)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| chart_error(e.to_string()))?;
    root.present().map_err(|e| chart_error(e.to_string()))?;
    Ok(())
}
