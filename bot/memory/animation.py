"""Animated GIFs from board images drawn with the shared palette (`bot.render.common`).

Why GIF: Discord animates a GIF attachment inline on every client; animated WebP plays only in
recent desktop clients (a still image elsewhere). And the boards are palette images already (one
palette of at most 256 colours shared by every renderer), so a GIF holds them exactly, with no
quantization, no dithering and no per-frame colour table.

What keeps the file small: each frame after the first is only the rectangle that changed since the
frame before it, and inside that rectangle every pixel that did not change is transparent (long runs
of one index, which LZW packs well). A game with very many frames (the longest Numerical Card Games
have well over a thousand) would still pass `BUDGET`: then every frame is scaled down (a box filter
on the changed rectangle only, mapped back to the palette without dithering), never dropped. The
encoder writes frames as they come, so only the current and the previous frame are held in memory.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from PIL import GifImagePlugin, Image, ImageChops

from bot.render.colours import BACKGROUND
from bot.render.common import Canvas, colour_index

BUDGET = 6_500_000  # bytes an animation aims to stay under (Discord's upload limit is 8 MB)
LIMIT = 8_000_000  # bytes Discord takes at most in a bot's upload (never send more)
SCALES = (Fraction(1), Fraction(3, 4), Fraction(2, 3), Fraction(1, 2))  # tried in this order
PROBE = 60  # frames encoded before the size of the whole is projected from them
MARGIN = 1.05  # on the size projected from the first frames
BAND = 48  # rows: changes further apart than this are scaled apart

TRANSPARENT = 255  # the palette slot unchanged pixels take (used while the palette has fewer colours)
_UNCHANGED = [255] + [0] * 255  # a difference image's 0 (unchanged) as a mask
_FAR = bytes((255, 0, 255))


@dataclass(frozen=True)
class Animation:
    """An encoded animation and the facts about it."""

    data: bytes
    frames: int
    width: int
    height: int
    scale: Fraction  # of the boards' own size

    @property
    def size(self) -> int:
        return len(self.data)


def shared_palette() -> bytes:
    """The palette every board is drawn with, as it is now: 3 bytes per colour allocated so far.

    Read from a one-pixel canvas saved as the renderers save boards (the renderers own the palette
    and give it out only with an image)."""
    png = Image.open(io.BytesIO(Canvas(1, 1).png(frame=False)))
    return bytes(png.getpalette() or b"")


def encode(
    frames: Callable[[], Iterable[Image.Image]],
    durations: Sequence[int],
    *,
    budget: int = BUDGET,
    limit: int = LIMIT,
) -> Animation:
    """The GIF of ``frames()`` (palette images drawn with the shared palette, any sizes: each is put
    at the top left of a screen as large as the largest), frame ``k`` shown ``durations[k]`` ms.

    ``frames`` is called again when the first try proves too large: the frames are drawn again at a
    smaller scale, which is cheaper than holding them all. The result stays under ``limit`` unless
    even the smallest scale does not (the caller checks `Animation.size`).
    """
    count = len(durations)
    if count == 0:
        raise ValueError("an animation needs at least one frame")
    probe = min(count, PROBE)
    scales = list(SCALES)
    scale = scales.pop(0)
    while True:
        writer = _Writer(scale)
        restart = False
        for k, frame in enumerate(frames()):
            writer.add(frame, durations[k])
            if k + 1 == probe < count and scale == SCALES[0]:
                # Scaled boards pack less well than their area says (their anti-aliasing takes
                # more colours): the size goes about as the scale, not as its square.
                projected = writer.written * count / probe * MARGIN
                smaller = [s for s in scales if projected * s <= budget]
                if projected > budget:
                    # Jump straight to the largest scale projected to fit (or the smallest there is).
                    scale = smaller[0] if smaller else scales[-1]
                    scales = [s for s in scales if s < scale]
                    restart = True
                    break
        if restart:
            continue
        animation = writer.finish(shared_palette())
        if animation.frames != count:
            raise ValueError(f"{count} durations for {animation.frames} frames")
        if animation.size <= limit or not scales:
            return animation
        scale = scales.pop(0)


class _Writer:
    """One GIF being written: the frames so far as encoded blocks, the screen as it stands."""

    def __init__(self, scale: Fraction) -> None:
        self.scale = scale
        self.grid = scale.denominator  # source pixels per `scale.numerator` pixels of the GIF
        self.background = colour_index(BACKGROUND)
        self.blocks: list[bytes] = []
        self.written = 0
        self.first: Image.Image | None = None
        self.first_ms = 0
        self.source: Image.Image | None = None  # the last frame, at the boards' size
        self.screen: Image.Image | None = None  # the GIF's screen after the last frame (scaled)
        self.count = 0
        self._palette = Image.new("P", (1, 1))  # the shared palette as a target of `quantize`
        self._colours = b""
        self._known = 0  # colours in it

    # ---- sizes --------------------------------------------------------------------------------

    def _padded(self, image: Image.Image, width: int, height: int) -> Image.Image:
        if image.size == (width, height):
            return image
        out = Image.new("P", (width, height), self.background)
        out.paste(image, (0, 0))
        return out

    def _grid_size(self, width: int, height: int) -> tuple[int, int]:
        g = self.grid
        return -(-width // g) * g, -(-height // g) * g

    def _scaled(self, n: int) -> int:
        return n * self.scale.numerator // self.grid

    # ---- frames -------------------------------------------------------------------------------

    def add(self, frame: Image.Image, duration_ms: int) -> None:
        self.count += 1
        prev = self.source
        width, height = frame.size
        if prev is not None:
            width, height = max(width, prev.width), max(height, prev.height)
        width, height = self._grid_size(width, height)
        frame = self._padded(frame, width, height)
        if prev is None:
            self.first, self.first_ms, self.source = frame, duration_ms, frame
            return
        prev = self._padded(prev, width, height)
        self.source = frame
        delta = ImageChops.subtract_modulo(frame, prev)
        if self.scale == 1:
            box = delta.getbbox() or (0, 0, 1, 1)
            self._block(frame.crop(box), prev.crop(box), box[:2], duration_ms)
            return
        screen = self._screen(self._scaled(width), self._scaled(height))
        before = screen.copy()
        union: tuple[int, int, int, int] | None = None
        for left, top, right, bottom in self._changes(delta, 0, height):
            part = self._to_palette(frame.crop((left, top, right, bottom)))
            at = (self._scaled(left), self._scaled(top))
            screen.paste(part, at)
            box = (*at, at[0] + part.width, at[1] + part.height)
            union = box if union is None else _union(union, box)
        union = union or (0, 0, 1, 1)
        self._block(screen.crop(union), before.crop(union), union[:2], duration_ms)

    def _changes(self, delta: Image.Image, top: int, bottom: int) -> list[tuple[int, int, int, int]]:
        """The rectangles (on the scaling grid) where ``delta``, a difference image, is not zero
        between rows ``top`` and ``bottom``: halved until each is at most `BAND` rows high, so that
        changes far apart (a score at the top, a card at the bottom) are scaled apart, not with all
        that lies between them. A cell scales the same wherever it is cut out: each pixel of the GIF
        is the mean of its own cell alone (a box filter)."""
        box = delta.crop((0, top, delta.width, bottom)).getbbox()
        if box is None:
            return []
        g = self.grid
        top, bottom = top + box[1], top + box[3]
        if bottom - top <= BAND:
            return [(box[0] // g * g, top // g * g, -(-box[2] // g) * g, -(-bottom // g) * g)]
        middle = (top + bottom) // 2
        return self._changes(delta, top, middle) + self._changes(delta, middle, bottom)

    def _screen(self, width: int, height: int) -> Image.Image:
        if self.screen is None:
            assert self.first is not None
            self.screen = self._to_palette(self.first)
        if self.screen.size != (width, height):
            self.screen = self._padded(self.screen, width, height)
        return self.screen

    def _to_palette(self, part: Image.Image) -> Image.Image:
        """A part of a frame at the GIF's scale, in the shared palette's colours."""
        if _top_index(part) >= self._known:
            self._refresh_palette()
        part = part.copy()
        part.putpalette(self._colours)
        size = (self._scaled(part.width), self._scaled(part.height))
        rgb = part.convert("RGB").resize(size, Image.Resampling.BOX)
        return rgb.quantize(palette=self._palette, dither=Image.Dither.NONE)

    def _refresh_palette(self) -> None:
        self._colours = shared_palette()
        self._known = len(self._colours) // 3
        # The free slots get a colour far from every board's (and from any mean of them), so that no
        # pixel is mapped to one.
        self._palette.putpalette(self._colours + _FAR * (256 - self._known))

    def _block(
        self, patch: Image.Image, before: Image.Image, offset: tuple[int, int], duration_ms: int
    ) -> None:
        """Encode one frame: ``patch`` at ``offset``, its pixels equal to ``before`` transparent."""
        diff = ImageChops.subtract_modulo(patch, before)
        inner = diff.getbbox()
        if inner is not None and inner != (0, 0, *patch.size):
            patch, diff = patch.crop(inner), diff.crop(inner)
            offset = (offset[0] + inner[0], offset[1] + inner[1])
        params: dict[str, int] = {"duration": duration_ms, "disposal": 1}
        if _top_index(patch) < TRANSPARENT:
            patch = patch.copy()
            patch.paste(TRANSPARENT, mask=diff.point(_UNCHANGED, "1"))
            params["transparency"] = TRANSPARENT
        block = b"".join(GifImagePlugin.getdata(patch, offset, **params))
        self.blocks.append(block)
        self.written += len(block)

    def finish(self, palette: bytes) -> Animation:
        """The whole GIF: the screen's header with ``palette``, the first frame at full size, the
        changes after it."""
        assert self.first is not None and self.source is not None
        width, height = self.source.size
        first = self._padded(self.first, width, height)
        if self.scale != 1:
            first = self._to_palette(first)
        first = first.copy()
        first.putpalette(palette[:768].ljust(768, b"\0"))  # every slot, the transparent one too
        header, _ = GifImagePlugin.getheader(first, None, {"loop": 0, "background": self.background})
        body = GifImagePlugin.getdata(first, (0, 0), duration=self.first_ms, disposal=1)
        data = b"".join([*header, *body, *self.blocks, b";"])
        return Animation(
            data=data, frames=self.count, width=first.width, height=first.height, scale=self.scale
        )


def _union(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    return min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])


def _top_index(image: Image.Image) -> int:
    """The highest palette slot a palette image uses."""
    extrema: tuple[int, int] = image.getextrema()  # type: ignore[assignment]
    return extrema[1]
