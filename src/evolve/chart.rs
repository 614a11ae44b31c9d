//! The results step's chart as an SVG document (drawn with `plotters`'
//! SVG backend, which needs no system fonts: text is left to the viewer).
//! Left: the final winner's win rate against each generation's best, worst
//! and whole population on that generation's draft. Right: the learning
//! curve, each generation's best against ClosetAI and Icebox on fresh
//! drafts. Win rates are drawn in percent, one line per series, in the
//! order the legends list them. Generations are whole numbers and labelled
//! as such, and each legend sits below its plot, never over the lines.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use thiserror::Error;

use super::eval::EvalRow;

/// Plotting failed (the SVG backend writes to memory, so this is rare).
#[derive(Debug, Error)]
#[error("drawing the chart: {0}")]
pub struct ChartError(String);

/// The chart's size in pixels.
pub(crate) const CHART_SIZE: (u32, u32) = (1100, 500);

/// The height of one legend row. Every panel keeps room for three rows
/// (the most series a panel has) under its plot, so both plots have the
/// same height and a legend can cover no line, whatever the win rates.
const LEGEND_ROW: u32 = 18;
const LEGEND_ROWS: u32 = 3;

/// The plot's margin and the width of its win-rate label area: the legend
/// starts where the plot does.
const MARGIN: u32 = 12;
const Y_LABEL_AREA: u32 = 44;

/// The series of the left panel, then of the right one, as drawn.
pub(crate) const SERIES: [&str; 5] = [
    "W vs generation's best",
    "W vs generation's worst",
    "W vs whole generation",
    "best vs ClosetAI",
    "best vs Icebox",
];

/// The value of series `index` (see [`SERIES`]) in a row, in percent.
pub(crate) fn series_value(row: &EvalRow, index: usize) -> f64 {
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
    let first = rows.first().map_or(0, |row| row.generation);
    let last = rows.last().map_or(1, |row| row.generation).max(first + 1);
    let colors =
        [RGBColor(200, 30, 30), RGBColor(30, 90, 200), RGBColor(40, 140, 40), RGBColor(0, 0, 0), RGBColor(220, 130, 0)];
    let panels =
        [(&left, "Final winner W on each generation's draft", 0..3), (&right, "Learning curve on fresh drafts", 3..5)];
    let legend_height = LEGEND_ROWS * LEGEND_ROW + MARGIN;
    for (area, caption, series) in panels {
        let (plot_area, legend_area) = area.split_vertically(area.dim_in_pixel().1 - legend_height);
        // Generations on an integer axis, so that its labels are "10", not
        // "10.0"; win rates labelled as whole percents.
        let mut chart = ChartBuilder::on(&plot_area)
            .caption(caption, ("sans-serif", 15))
            .margin(MARGIN)
            .x_label_area_size(32)
            .y_label_area_size(Y_LABEL_AREA)
            .build_cartesian_2d(first..last, 0.0..100.0)?;
        chart
            .configure_mesh()
            .x_desc("generation")
            .y_desc("win rate (%)")
            .y_label_formatter(&|percent| format!("{percent:.0}"))
            .light_line_style(WHITE)
            .draw()?;
        let legend_style = TextStyle::from(("sans-serif", 13)).pos(Pos::new(HPos::Left, VPos::Center));
        let legend_left = (MARGIN + Y_LABEL_AREA) as i32;
        for (legend_row, index) in series.enumerate() {
            let color = colors[index];
            chart.draw_series(LineSeries::new(
                rows.iter().map(|row| (row.generation, series_value(row, index))),
                color.stroke_width(2),
            ))?;
            let y = (legend_row as u32 * LEGEND_ROW + LEGEND_ROW / 2) as i32;
            legend_area
                .draw(&PathElement::new(vec![(legend_left, y), (legend_left + 18, y)], color.stroke_width(2)))?;
            legend_area.draw(&Text::new(SERIES[index], (legend_left + 26, y), legend_style.clone()))?;
        }
    }
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(generation: u64) -> EvalRow {
        let rate = generation as f64 / 100.0;
        EvalRow {
            generation,
            vs_best: rate,
            vs_worst: 1.0 - rate,
            vs_population: 0.5,
            best_vs_closetai: rate,
            best_vs_icebox: 1.0 - rate,
            games: 10,
        }
    }

    /// The text of every `<text>` element of an SVG document, in order.
    fn texts(svg: &str) -> Vec<String> {
        svg.split("<text")
            .skip(1)
            .map(|part| part[part.find('>').unwrap() + 1..part.find("</text>").unwrap()].trim().to_string())
            .collect()
    }

    #[test]
    fn generations_and_win_rates_are_labelled_as_integers() {
        for generations in [4, 100, 300] {
            let rows: Vec<EvalRow> = (1..=generations).map(row).collect();
            let svg = eval_chart(&rows, "test").unwrap();
            let numbers: Vec<String> = texts(&svg).into_iter().filter(|text| text.parse::<f64>().is_ok()).collect();
            assert!(numbers.len() >= 8, "{generations} generations: too few axis labels: {numbers:?}");
            let fractional: Vec<&String> = numbers.iter().filter(|text| text.parse::<u64>().is_err()).collect();
            assert!(fractional.is_empty(), "{generations} generations: labels that are not integers: {fractional:?}");
            assert!(numbers.contains(&generations.to_string()), "{generations} generations: the last one is labelled");
        }
    }

    #[test]
    fn every_series_is_in_a_legend_below_the_plots() {
        let rows: Vec<EvalRow> = (1..=10).map(row).collect();
        let svg = eval_chart(&rows, "test").unwrap();
        let lowest_axis_label = svg
            .split("<text")
            .skip(1)
            .filter(|part| texts(&format!("<text{part}"))[0] == "generation")
            .map(|part| attribute(part, "y"))
            .fold(0.0, f64::max);
        for name in SERIES {
            let escaped = name.replace('\'', "&apos;");
            let part = svg.split("<text").find(|part| part.contains(&escaped)).expect("a legend entry per series");
            assert!(attribute(part, "y") > lowest_axis_label, "{name}: its legend entry is not below the plot");
        }
    }

    /// The numeric value of `name="..."` in the start of an element.
    fn attribute(element: &str, name: &str) -> f64 {
        let start = element.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        element[start..start + element[start..].find('"').unwrap()].parse().unwrap()
    }
}
