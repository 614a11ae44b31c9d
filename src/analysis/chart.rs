//! `tickbot stats --plot`: the main figures of a report as an SVG document
//! (drawn with `plotters`' SVG backend, which needs no system fonts). Left:
//! each group's win rate with its 95% Wilson interval. Right: each group's
//! planner time per game, p50 to p99 as a bar with marks at p50, p90 and
//! p99 and a cross at the maximum, on a logarithmic scale.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::GroupReport;

/// Plotting failed (the SVG backend writes to memory, so this is rare).
#[derive(Debug, thiserror::Error)]
#[error("drawing the chart: {0}")]
pub struct ChartError(String);

/// The chart's size in pixels.
pub(crate) const CHART_SIZE: (u32, u32) = (1100, 480);

/// The SVG text of the chart of `groups`, in their order.
pub fn stats_chart(groups: &[GroupReport], title: &str) -> Result<String, ChartError> {
    let mut svg = String::new();
    draw(&mut svg, groups, title).map_err(|error| ChartError(error.to_string()))?;
    Ok(svg)
}

fn draw(svg: &mut String, groups: &[GroupReport], title: &str) -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
    let root = SVGBackend::with_string(svg, CHART_SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(title, ("sans-serif", 18))?;
    let (left, right) = root.split_horizontally(CHART_SIZE.0 / 2);
    let count = groups.len().max(1) as i32;
    let blue = RGBColor(30, 90, 200);
    // A tick and grid line at every integer of the axis (-1 to count):
    // asked for fewer, plotters steps over some groups.
    let axis_labels = groups.len() + 2;
    // Names read downwards from just below their tick, drawn as elements
    // (the mesh centres rotated labels on the axis, through it).
    let label_style = TextStyle::from(("sans-serif", 11).into_font().transform(FontTransform::Rotate90))
        .pos(Pos::new(HPos::Left, VPos::Center));
    let names_below = |bottom: f64| {
        let style = label_style.clone();
        groups.iter().enumerate().map(move |(index, group)| {
            EmptyElement::at((index as i32, bottom)) + Text::new(short(&group.name), (0, 8), style.clone())
        })
    };

    let mut rates = ChartBuilder::on(&left)
        .caption("win rate, 95% Wilson interval", ("sans-serif", 14))
        .margin(10)
        .x_label_area_size(90)
        .y_label_area_size(45)
        .build_cartesian_2d(-1i32..count, 0f64..100f64)?;
    rates.configure_mesh().x_labels(axis_labels).x_label_formatter(&|_| String::new()).y_desc("won, %").draw()?;
    rates.draw_series(names_below(0.0))?;
    rates.draw_series(groups.iter().enumerate().map(|(index, group)| {
        ErrorBar::new_vertical(
            index as i32,
            100.0 * group.win_interval.0,
            100.0 * group.win_rate,
            100.0 * group.win_interval.1,
            blue.filled(),
            10,
        )
    }))?;

    let top = groups.iter().map(|group| group.planner_us.max).max().unwrap_or(1).max(10) as f64 * 2.0;
    let mut times = ChartBuilder::on(&right)
        .caption("planner time per game, µs: p50-p99 bar, p90 mark, max cross", ("sans-serif", 14))
        .margin(10)
        .x_label_area_size(90)
        .y_label_area_size(60)
        .build_cartesian_2d(-1i32..count, (1f64..top).log_scale())?;
    times.configure_mesh().x_labels(axis_labels).x_label_formatter(&|_| String::new()).y_desc("µs (log)").draw()?;
    times.draw_series(names_below(1.0))?;
    let at_least_one = |value: u64| (value as f64).max(1.0);
    times.draw_series(groups.iter().enumerate().map(|(index, group)| {
        let times = group.planner_us;
        ErrorBar::new_vertical(
            index as i32,
            at_least_one(times.p50),
            at_least_one(times.p90),
            at_least_one(times.p99),
            RGBColor(200, 30, 30).filled(),
            10,
        )
    }))?;
    times.draw_series(
        groups
            .iter()
            .enumerate()
            .map(|(index, group)| Cross::new((index as i32, at_least_one(group.planner_us.max)), 4, BLACK)),
    )?;
    root.present()?;
    Ok(())
}

/// A group name short enough for an axis label.
fn short(name: &str) -> String {
    const LONGEST: usize = 28;
    if name.chars().count() <= LONGEST {
        return name.to_string();
    }
    let kept: String = name.chars().rev().take(LONGEST - 1).collect::<Vec<_>>().into_iter().rev().collect();
    format!("…{kept}")
}
