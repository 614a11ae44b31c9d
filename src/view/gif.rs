//! The GIF: every tick a frame, drawn by `raster.rs` in the fixed palette
//! and encoded by the `gif` crate. After the first frame only the rectangle
//! that changed is stored (the rest is kept from the frame before), so a
//! long game stays small. It loops, holding the last tick a moment longer.

use std::borrow::Cow;
use std::io::Write;

use gif::{DisposalMethod, Encoder, Frame, Repeat};

use crate::game::picture::Colour;
use crate::view::layout::Layout;
use crate::view::raster::Canvas;
use crate::view::{RenderOptions, TickView, ViewError};

/// The last frame is held at least this long (hundredths of a second).
const HOLD_LAST: u16 = 200;

/// A GIF being written, frame by frame.
pub(crate) struct GifMovie<'a> {
    out: Option<&'a mut dyn Write>,
    encoder: Option<Encoder<&'a mut dyn Write>>,
    layout: Option<Layout>,
    previous: Option<Canvas>,
    /// Hundredths of a second per frame.
    delay: u16,
    last_tick: u32,
}

impl<'a> GifMovie<'a> {
    pub(crate) fn new(options: &RenderOptions, out: &'a mut dyn Write) -> GifMovie<'a> {
        let delay = (100 / options.fps.max(1)).clamp(2, 1000) as u16;
        GifMovie { out: Some(out), encoder: None, layout: None, previous: None, delay, last_tick: options.range.to }
    }
}

fn encoding_error(error: gif::EncodingError) -> ViewError {
    match error {
        gif::EncodingError::Io(error) => ViewError::Io(error),
        other => ViewError::Io(std::io::Error::other(other.to_string())),
    }
}

impl super::Encoder for GifMovie<'_> {
    fn frame(&mut self, view: &TickView) -> Result<(), ViewError> {
        let Some(picture) = &view.picture else { return Ok(()) };
        let layout = *self.layout.get_or_insert_with(|| Layout::new(picture));
        if self.encoder.is_none() {
            let (width, height) = (layout.width, layout.height);
            let (Ok(gif_width), Ok(gif_height)) = (u16::try_from(width), u16::try_from(height)) else {
                return Err(ViewError::TooLarge { width, height });
            };
            let palette: Vec<u8> = Colour::ALL.iter().flat_map(|colour| colour.rgb()).collect();
            let out = self.out.take().expect("the writer is taken once");
            let mut encoder = Encoder::new(out, gif_width, gif_height, &palette).map_err(encoding_error)?;
            encoder.set_repeat(Repeat::Infinite).map_err(encoding_error)?;
            self.encoder = Some(encoder);
        }
        let canvas = Canvas::for_tick(&layout, view, self.last_tick);
        let (left, top, width, height) = match &self.previous {
            None => (0, 0, canvas.width, canvas.height),
            // An unchanged frame is still a frame (one pixel), so the GIF
            // has one frame per tick.
            Some(previous) => changed_rectangle(previous, &canvas).unwrap_or((0, 0, 1, 1)),
        };
        let mut buffer = Vec::with_capacity((width * height) as usize);
        for row in top..top + height {
            let start = (row * canvas.width + left) as usize;
            buffer.extend_from_slice(&canvas.pixels[start..start + width as usize]);
        }
        let frame = Frame {
            left: left as u16,
            top: top as u16,
            width: width as u16,
            height: height as u16,
            buffer: Cow::Owned(buffer),
            dispose: DisposalMethod::Keep,
            delay: if view.tick == self.last_tick { self.delay.max(HOLD_LAST) } else { self.delay },
            ..Frame::default()
        };
        let encoder = self.encoder.as_mut().expect("started above");
        encoder.write_frame(&frame).map_err(encoding_error)?;
        self.previous = Some(canvas);
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<(), ViewError> {
        if let Some(encoder) = self.encoder {
            let out = encoder.into_inner().map_err(encoding_error)?;
            out.flush()?;
        }
        Ok(())
    }
}

/// The smallest rectangle (left, top, width, height) holding every pixel
/// that differs, or `None` if none does.
fn changed_rectangle(before: &Canvas, after: &Canvas) -> Option<(u32, u32, u32, u32)> {
    let width = after.width;
    let (mut left, mut top, mut right, mut bottom) = (u32::MAX, u32::MAX, 0, 0);
    for (row, (old, new)) in before.pixels.chunks(width as usize).zip(after.pixels.chunks(width as usize)).enumerate() {
        if old == new {
            continue;
        }
        let first = old.iter().zip(new).position(|(a, b)| a != b).unwrap_or(0) as u32;
        let last = old.iter().zip(new).rposition(|(a, b)| a != b).unwrap_or(0) as u32;
        left = left.min(first);
        right = right.max(last + 1);
        top = top.min(row as u32);
        bottom = row as u32 + 1;
    }
    (top != u32::MAX).then(|| (left, top, right - left, bottom - top))
}
