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

    /// Whether `svg` is one `<svg>` element whose tags all close in order, with every `&`
    /// of its text starting an entity and no `<` in an attribute value.
    fn well_formed(svg: &str) -> Result<(), String> {
        let mut open: Vec<&str> = Vec::new();
        let mut rest = svg;
        while let Some(start) = rest.find('<') {
            let text = &rest[..start];
            let named = ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#"];
            for (amp, _) in text.match_indices('&') {
                if !named.iter().any(|name| text[amp..].starts_with(name)) {
                    return Err(format!("a bare & in {text:?}"));
                }
            }
            let tag_end = start + tag_length(&rest[start..]).ok_or("an unclosed tag")?;
            let tag = &rest[start + 1..tag_end - 1];
            if let Some(name) = tag.strip_prefix('/') {
                match open.pop() {
                    Some(opened) if opened == name.trim() => {}
                    other => return Err(format!("</{name}> closes {other:?}")),
                }
            } else if !tag.ends_with('/') {
                let name = tag.split_whitespace().next().unwrap_or_default();
                if open.is_empty() && name != "svg" {
                    return Err(format!("<{name}> outside the svg element"));
                }
                open.push(name);
            }
            rest = &rest[tag_end..];
            if open.is_empty() {
                break;
            }
        }
        match (open.is_empty(), rest.trim().is_empty()) {
            (true, true) => Ok(()),
            (false, _) => Err(format!("unclosed: {open:?}")),
            (true, false) => Err(format!("after the svg element: {rest:?}")),
        }
    }

    /// The length of the tag `text` starts with (through its `>`), quoted values skipped;
    /// `None` when it does not end or a value holds a `<`.
    fn tag_length(text: &str) -> Option<usize> {
        let mut quote = None;
        for (at, c) in text.char_indices().skip(1) {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), '<') => return None,
                (Some(_), _) => {}
                (None, '"' | '\'') => quote = Some(c),
                (None, '>') => return Some(at + 1),
                (None, '<') => return None,
                (None, _) => {}
            }
        }
        None
    }

    #[test]
    fn the_checker_finds_what_is_not_well_formed() {
        assert_eq!(
            well_formed("<svg a=\"1\"><g><rect/></g><text>a &amp; b</text></svg>"),
            Ok(())
        );
        for broken in [
            "<svg><g></svg>",
            "<svg><g>",
            "<svg><text>a &amp; b & c</text></svg>",
            "<svg a=\"<\"></svg>",
            "<svg></svg><svg></svg>",
            "<g></g>",
        ] {
            assert!(well_formed(broken).is_err(), "{broken}");
        }
    }

    fn sites(count: u64) -> Vec<SiteText> {
        (0..count)
            .map(|at| SiteText {
                site: format!("site{at}.example"),
                pages: at + 1,
                kept_text_bytes: 5000 * (count - at),
                dropped_text_bytes: 1000 + at,
            })
            .collect()
    }

    #[test]
    fn the_chart_is_well_formed_svg_of_the_twenty_largest_sites() {
        for count in [1, 3, 25] {
            let svg = site_chart(&sites(count));
            assert_eq!(well_formed(&svg), Ok(()), "{count} sites: {svg}");
            let drawn = (0..count).filter(|at| svg.contains(&format!("site{at}.example")));
            assert_eq!(
                drawn.count() as u64,
                count.min(MAX_SITES as u64),
                "{count} sites"
            );
        }
        let svg = site_chart(&sites(25));
        assert!(svg.contains("site19.example") && !svg.contains("site20.example"));
        assert!(svg.contains("text kept and dropped per site (MiB)"));
        let legend = |name: &str| svg.lines().any(|line| line.trim() == name);
        assert!(legend("kept") && legend("dropped"), "{svg}");
        // Two bars a site: a kept one and a dropped one.
        let rects = |count: u64| site_chart(&sites(count)).matches("<rect").count();
        assert_eq!(rects(25) - rects(3), 2 * (20 - 3));
    }

    #[test]
    fn sites_without_text_draw_no_chart() {
        let empty = SiteText {
            site: "empty.example".into(),
            pages: 3,
            kept_text_bytes: 0,
            dropped_text_bytes: 0,
        };
        assert_eq!(site_chart(&[empty.clone(), empty]), "");
    }

    #[test]
    fn site_names_are_escaped_in_the_chart() {
        let odd = SiteText {
            site: "a<b>&c.example".into(),
            pages: 1,
            kept_text_bytes: 100,
            dropped_text_bytes: 100,
        };
        let svg = site_chart(&[odd]);
        assert_eq!(well_formed(&svg), Ok(()), "{svg}");
        assert!(svg.contains("a&lt;b&gt;&amp;c.example"), "{svg}");
    }
}
