//! The results step's chart as an SVG document (drawn with `plotters`'
//! SVG backend, which needs no system fonts: text is left to the viewer).
//! Left: the final winner's win rate against each generation's best, worst
//! and whole population on that generation's draft. Right: the learning
//! curve, each generation's best against ClosetAI and Icebox on fresh
//! drafts. Win rates are drawn in percent, one line per series, in the
//! order the legends list them.

use plotters::prelude::*;
use thiserror::Error;

use super::eval::EvalRow;

/// Plotting failed (the SVG backend writes to memory, so this is rare).
#[derive(Debug, Error)]
#[error("drawing the chart: {0}")]
pub struct ChartError(String);

/// The chart's size in pixels.
pub const CHART_SIZE: (u32, u32) = (1100, 440);

/// The series of the left panel, then of the right one, as drawn.
pub const SERIES: [&str; 5] = [
    "W vs generation's best",
    "W vs generation's worst",
    "W vs whole generation",
    "best vs ClosetAI",
    "best vs Icebox",
];

/// The value of series `index` (see [`SERIES`]) in a row, in percent.
pub fn series_value(row: &EvalRow, index: usize) -> f64 {
    100.0
        * match index {
            0 => row.vs_best,
            1 => row.vs_worst,
            2 => row.vs_population,
            3 => row.best_vs_closetai,
            _ => row.best_vs_icebox,
        }
}

/// The SVG text of the chart of `rows` (in generation order).
pub fn eval_chart(rows: &[EvalRow], title: &str) -> Result<String, ChartError> {
    let mut svg = String::new();
    draw(&mut svg, rows, title).map_err(|error| ChartError(error.to_string()))?;
    Ok(svg)
}

fn draw(svg: &mut String, rows: &[EvalRow], title: &str) -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
    let root = SVGBackend::with_string(svg, CHART_SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(title, ("sans-serif", 18))?;
    let (left, right) = root.split_horizontally(CHART_SIZE.0 / 2);
    let first = rows.first().map_or(0, |row| row.generation) as f64;
    let last = rows.last().map_or(1, |row| row.generation).max(first as u64 + 1) as f64;
    let colors =
        [RGBColor(200, 30, 30), RGBColor(30, 90, 200), RGBColor(40, 140, 40), RGBColor(0, 0, 0), RGBColor(220, 130, 0)];
    let panels =
        [(&left, "Final winner W on each generation's draft", 0..3), (&right, "Learning curve on fresh drafts", 3..5)];
    for (area, caption, series) in panels {
        let mut chart = ChartBuilder::on(area)
            .caption(caption, ("sans-serif", 15))
            .margin(12)
            .x_label_area_size(32)
            .y_label_area_size(44)
            .build_cartesian_2d(first..last, 0.0..100.0)?;
        chart.configure_mesh().x_desc("generation").y_desc("win rate (%)").light_line_style(WHITE).draw()?;
        for index in series {
            let color = colors[index];
            chart
                .draw_series(LineSeries::new(
                    rows.iter().map(|row| (row.generation as f64, series_value(row, index))),
                    color.stroke_width(2),
                ))?
                .label(SERIES[index])
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2)));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(())
}
