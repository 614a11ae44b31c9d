//! Progress bars on stderr for long work, drawn through the tracing
//! subscriber so that log lines go above them.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use indicatif::ProgressStyle;
use tracing_indicatif::span_ext::IndicatifSpanExt;

use tickbot::progress::Progress;

/// A progress bar on stderr for long work counted in `progress`, redrawn
/// ten times a second until the returned guard is dropped. Nothing is drawn
/// when stderr is not a terminal; log lines go above the bar.
pub(crate) fn progress_bar(message: &str, progress: &Progress) -> ProgressGuard {
    progress_bar_with(message, progress, String::new)
}

/// A [`progress_bar`] whose message is `message` followed by what `status`
/// says at each redraw (a sequential test's LLR between its bounds).
pub(crate) fn progress_bar_with(
    message: &str,
    progress: &Progress,
    status: impl Fn() -> String + Send + 'static,
) -> ProgressGuard {
    let span = tracing::trace_span!("progress", indicatif.pb_show = tracing::field::Empty);
    let template = if progress.total() > 0 {
        "{msg} [{bar:30}] {human_pos}/{human_len} ({percent}%, {per_sec}, {eta} left)"
    } else {
        "{spinner} {msg} {pos} ({per_sec}, {elapsed})"
    };
    span.pb_set_style(&ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()));
    span.pb_set_message(message);
    span.pb_set_length(progress.total());
    span.pb_start();
    let done = Arc::new(AtomicBool::new(false));
    let ticker = {
        let (span, done, progress, message) = (span.clone(), Arc::clone(&done), progress.clone(), message.to_string());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                let status = status();
                if !status.is_empty() {
                    span.pb_set_message(&format!("{message} {status}"));
                }
                span.pb_set_length(progress.total().max(progress.done()));
                span.pb_set_position(progress.done());
                // Parked, not asleep: the guard's drop wakes it, so that the
                // work does not wait up to a tenth of a second for its bar.
                std::thread::park_timeout(Duration::from_millis(100));
            }
        })
    };
    ProgressGuard { span, done, ticker: Some(ticker) }
}

/// Keeps a [`progress_bar`] drawn; removes it when dropped.
#[derive(Debug)]
pub(crate) struct ProgressGuard {
    pub(super) span: tracing::Span,
    pub(super) done: Arc<AtomicBool>,
    ticker: Option<std::thread::JoinHandle<()>>,
}

impl Drop for ProgressGuard {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(ticker) = self.ticker.take() {
            ticker.thread().unpark();
            let _ = ticker.join();
        }
    }
}
