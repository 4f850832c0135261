//! `plot.svg`: per-task speedup over the serial CPU version, one bar per strategy, on a log axis;
//! tasks a strategy did not solve get a cross at the baseline. Written by hand: no plotting crate.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::records::Record;

const COLOURS: &[&str] = &[
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
];

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The SVG document for `records`.
pub fn svg(title: &str, records: &[Record]) -> String {
    let strategies: Vec<&str> = records
        .iter()
        .map(|r| r.strategy.as_str())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut by_task: BTreeMap<&str, BTreeMap<&str, &Record>> = BTreeMap::new();
    for r in records {
        by_task
            .entry(r.task.as_str())
            .or_default()
            .insert(r.strategy.as_str(), r);
    }
    let speedups: Vec<f64> = records
        .iter()
        .filter(|r| r.correct)
        .filter_map(|r| r.speedup_vs_serial)
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    // Decades shown: from below the smallest to above the largest, at least 0.1..100.
    let lo = speedups
        .iter()
        .fold(0.1f64, |a, &v| a.min(v))
        .log10()
        .floor() as i32;
    let hi = speedups
        .iter()
        .fold(100.0f64, |a, &v| a.max(v))
        .log10()
        .ceil() as i32;
    let (left, right, top, bottom) = (70.0, 20.0, 50.0, 150.0);
    let bar = 10.0;
    let group = bar * strategies.len().max(1) as f64 + 8.0;
    let width = (left + right + group * by_task.len().max(1) as f64).max(560.0);
    let height = 460.0;
    let plot_h = height - top - bottom;
    let y_of = |v: f64| top + plot_h * (1.0 - (v.log10() - lo as f64) / (hi - lo) as f64);

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(
        s,
        r#"<rect width="100%" height="100%" fill="white"/><text x="{left}" y="20" font-size="14">{}</text>"#,
        escape(title)
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate(18,{}) rotate(-90)" text-anchor="middle">speedup vs serial (log)</text>"#,
        top + plot_h / 2.0
    );
    for d in lo..=hi {
        let v = 10f64.powi(d);
        let y = y_of(v);
        let label = if d >= 0 {
            format!("{}×", 10u64.pow(d as u32))
        } else {
            format!("{v}×")
        };
        let _ = writeln!(
            s,
            r##"<line x1="{left}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" stroke="{}" /><text x="{:.1}" y="{:.1}" text-anchor="end">{label}</text>"##,
            width - right,
            if d == 0 { "#000" } else { "#ddd" },
            left - 4.0,
            y + 4.0
        );
    }
    let base = y_of(1.0);
    for (i, (task, per)) in by_task.iter().enumerate() {
        let x0 = left + 4.0 + group * i as f64;
        for (k, st) in strategies.iter().enumerate() {
            let x = x0 + bar * k as f64;
            let colour = COLOURS[k % COLOURS.len()];
            match per.get(st) {
                Some(r) if r.correct && r.speedup_vs_serial.is_some_and(|v| v > 0.0) => {
                    let y = y_of(r.speedup_vs_serial.unwrap_or(1.0));
                    let (y1, h) = if y < base {
                        (y, base - y)
                    } else {
                        (base, y - base)
                    };
                    let _ = writeln!(
                        s,
                        r#"<rect x="{x:.1}" y="{y1:.1}" width="{:.1}" height="{h:.1}" fill="{colour}"><title>{} {}: {:.2}×</title></rect>"#,
                        bar - 1.0,
                        escape(task),
                        escape(st),
                        r.speedup_vs_serial.unwrap_or(0.0)
                    );
                }
                Some(r) => {
                    let _ = writeln!(
                        s,
                        r#"<text x="{:.1}" y="{:.1}" fill="{colour}" text-anchor="middle">×<title>{} {}: {}</title></text>"#,
                        x + bar / 2.0,
                        base - 2.0,
                        escape(task),
                        escape(st),
                        escape(&r.verdict)
                    );
                }
                None => {}
            }
        }
        let _ = writeln!(
            s,
            r#"<text transform="translate({:.1},{:.1}) rotate(-60)" text-anchor="end">{}</text>"#,
            x0 + group / 2.0,
            top + plot_h + 12.0,
            escape(task)
        );
    }
    for (k, st) in strategies.iter().enumerate() {
        let x = left + 110.0 * k as f64 + 250.0;
        let _ = writeln!(
            s,
            r#"<rect x="{x:.1}" y="10" width="10" height="10" fill="{}"/><text x="{:.1}" y="19">{}</text>"#,
            COLOURS[k % COLOURS.len()],
            x + 14.0,
            escape(st)
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::records::tests::record;
    use crate::graph::tasks::Tier;

    #[test]
    fn one_bar_per_correct_record_and_a_cross_for_the_others() {
        let records = vec![
            record("a<b", Tier::Easy, "cot", Some(20.0), None, None),
            record("a<b", Tier::Easy, "mcgs", Some(0.5), None, None),
            record("c", Tier::Hard, "cot", None, None, None),
        ];
        let svg = svg("pareval", &records);
        assert!(svg.starts_with("<svg"));
        assert!(svg.trim_end().ends_with("</svg>"));
        assert_eq!(
            svg.matches("<rect x=").count(),
            2 + 2,
            "2 bars + 2 legend boxes"
        );
        assert!(svg.contains("a&lt;b cot: 20.00×"));
        assert!(svg.contains("c cot: wrong"));
        assert!(!svg.contains("a<b"), "names are escaped");
    }
}
