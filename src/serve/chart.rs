//! The index view's chart: per site, the text kept and the text dropped as two stacked
//! horizontal bars, as an SVG string (plotters, as `eval --chart`).

use plotters::prelude::*;

use super::catalog::SiteText;

/// Sites drawn, at most (the largest by text).
const MAX_SITES: usize = 20;
const KEPT: RGBColor = RGBColor(22, 163, 74);
const DROPPED: RGBColor = RGBColor(190, 190, 190);

/// The chart of `sites` (most text first), or an empty string when there is nothing to draw.
pub fn site_chart(sites: &[SiteText]) -> String {
    let sites = &sites[..sites.len().min(MAX_SITES)];
    let most = sites
        .iter()
        .map(|site| site.kept_text_bytes + site.dropped_text_bytes)
        .max()
        .unwrap_or(0);
    if most == 0 {
        return String::new();
    }
    let mut svg = String::new();
    let height = 70 + 26 * sites.len() as u32;
    if draw(sites, most, height, &mut svg).is_err() {
        return String::new();
    }
    // plotters writes an XML declaration first; inside HTML the <svg> element is enough.
    match svg.find("<svg") {
        Some(start) => svg[start..].to_string(),
        None => String::new(),
    }
}

fn draw<'a>(
    sites: &[SiteText],
    most: u64,
    height: u32,
    svg: &'a mut String,
) -> Result<(), Box<dyn std::error::Error + 'a>> {
    let root = SVGBackend::with_string(svg, (760, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let megabytes = |bytes: u64| bytes as f64 / (1024.0 * 1024.0);
    let rows = sites.len();
    let mut chart = ChartBuilder::on(&root)
        .caption("text kept and dropped per site (MiB)", ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(25)
        .y_label_area_size(230)
        .build_cartesian_2d(0.0..megabytes(most) * 1.05, 0.0..rows as f64)?;
    let names: Vec<String> = sites.iter().map(|site| site.site.clone()).collect();
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(rows * 2 + 1)
        .y_label_formatter(&|y| {
            let slot = y.floor() as usize;
            if (y - slot as f64 - 0.5).abs() < 0.01 && slot < rows {
                names[rows - 1 - slot].clone()
            } else {
                String::new()
            }
        })
        .draw()?;
    let bar = |at: usize, from: f64, to: f64, color: RGBColor| {
        let y = (rows - 1 - at) as f64;
        Rectangle::new([(from, y + 0.15), (to, y + 0.85)], color.filled())
    };
    chart
        .draw_series(
            sites
                .iter()
                .enumerate()
                .map(|(at, site)| bar(at, 0.0, megabytes(site.kept_text_bytes), KEPT)),
        )?
        .label("kept")
        .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], KEPT.filled()));
    chart
        .draw_series(sites.iter().enumerate().map(|(at, site)| {
            let kept = megabytes(site.kept_text_bytes);
            bar(at, kept, kept + megabytes(site.dropped_text_bytes), DROPPED)
        }))?
        .label("dropped")
        .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], DROPPED.filled()));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_has_a_bar_per_site_and_nothing_for_no_text() {
        let sites: Vec<SiteText> = (0..3)
            .map(|at| SiteText {
                site: format!("site{at}.example"),
                pages: 1,
                kept_text_bytes: 1000 * (at + 1),
                dropped_text_bytes: 500,
            })
            .collect();
        let svg = site_chart(&sites);
        assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(80)]);
        assert!(svg.contains("site2.example"));
        assert_eq!(site_chart(&[]), "");
    }
}
