"""What every renderer shares: fonts from assets/, a fast palette canvas, PNG encoding, people's names
cut to fit. The colours are `bot.render.colours`.

Speed: an RGB PNG of a tall board costs 20+ ms to encode; a palette ("P") image of the same size costs
a fraction of that. So every board is drawn on a `Canvas` in palette mode. Colours get palette slots
on first use; text is drawn once per (text, size, colour, background) into a cached sprite whose
anti-aliasing is a short ramp of palette slots between its background and ink, then pasted.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from bot.i18n.lang import ENGLISH, Lang
from bot.render.colours import BACKGROUND, BORDER, INK, RGB, ink_on, player_colour, seat_letter

Box = tuple[int, int, int, int]  # left, top, right, bottom, as Pillow takes them

MIN_WIDTH = 400  # no board is narrower (Discord shows smaller images too small to read)
BADGE = 20  # a seat's letter badge: its side, in pixels


def _assets_dir() -> Path:
    """assets/ beside the source tree, or the copy packaged as ``bot.assets`` by ``pip install .``."""
    source = Path(__file__).resolve().parents[2] / "assets"
    if (source / "fonts").is_dir():
        return source
    return Path(str(resources.files("bot.assets")))


ASSETS = _assets_dir()

FONT_FILES = {
    "sans": "DejaVuSans.ttf",
    "bold": "DejaVuSans-Bold.ttf",
    "mono": "DejaVuSansMono.ttf",
    "monobold": "DejaVuSansMono-Bold.ttf",
}


@lru_cache(maxsize=64)
def font(size: int, face: str = "sans") -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(ASSETS / "fonts" / FONT_FILES[face]), size)


NAME_MAX = 18  # characters of a name shown, where a board has no narrower room for it


def seat_name(names: Sequence[str], seat: int, limit: int = NAME_MAX, lang: Lang = ENGLISH) -> str:
    """The seat's player's name, cut to ``limit`` characters with "…"; "Player B" (in ``lang``) when
    it is unknown."""
    if seat < len(names) and names[seat]:
        name = names[seat]
    else:
        name = lang.t("Player {letter}", letter=seat_letter(seat))
    return name if len(name) <= limit else name[: limit - 1] + "…"


def line_height(size: int, face: str = "sans") -> int:
    ascent, descent = font(size, face).getmetrics()
    return int(ascent + descent)


def text_width(text: str, size: int, face: str = "sans") -> int:
    return _text_sprite(text, size, INK, BACKGROUND, face)[0].width


# ---- the shared palette --------------------------------------------------------------------------

_RAMP = 8  # anti-aliasing levels per (ink, background) pair
_lock = threading.Lock()  # renders run in worker threads (asyncio.to_thread)
_slots: dict[RGB, int] = {}
_palette: list[int] = []


def colour_index(rgb: RGB) -> int:
    """The palette slot of ``rgb``, allocated on first use (256 at most, shared by all renderers)."""
    idx = _slots.get(rgb)
    if idx is not None:
        return idx
    with _lock:
        idx = _slots.get(rgb)
        if idx is None:
            idx = len(_slots)
            if idx >= 256:
                raise RuntimeError("render palette exhausted: use fewer distinct colours")
            _palette.extend(rgb)
            _slots[rgb] = idx
        return idx


def _index(rgb: RGB | None) -> int | None:
    return None if rgb is None else colour_index(rgb)


def _blend(bg: RGB, fg: RGB, t: float) -> RGB:
    return (
        round(bg[0] + (fg[0] - bg[0]) * t),
        round(bg[1] + (fg[1] - bg[1]) * t),
        round(bg[2] + (fg[2] - bg[2]) * t),
    )


@lru_cache(maxsize=256)
def _ramp_lut(fg: RGB, bg: RGB) -> tuple[int, ...]:
    ramp = [colour_index(_blend(bg, fg, k / (_RAMP - 1))) for k in range(_RAMP)]
    return tuple(ramp[(v * (_RAMP - 1) + 127) // 255] for v in range(256))


_MASK_LUT = [0] + [255] * 255


@lru_cache(maxsize=8192)
def _text_sprite(text: str, size: int, fg: RGB, bg: RGB, face: str) -> tuple[Image.Image, Image.Image]:
    f = font(size, face)
    left, _top, right, _bottom = f.getbbox(text)
    ascent, descent = f.getmetrics()
    w = max(1, int(right - min(left, 0)))
    h = int(ascent + descent)
    cover = Image.new("L", (w, h), 0)
    ImageDraw.Draw(cover).text((-min(left, 0), 0), text, font=f, fill=255)
    indices = cover.point(list(_ramp_lut(fg, bg)))
    sprite = Image.frombytes("P", (w, h), indices.tobytes())
    return sprite, cover.point(_MASK_LUT)


class Canvas:
    """A palette-mode image with the few drawing operations the boards need."""

    def __init__(self, width: int, height: int, background: RGB = BACKGROUND) -> None:
        self.img = Image.new("P", (width, height), colour_index(background))
        self.draw = ImageDraw.Draw(self.img)

    @property
    def width(self) -> int:
        return self.img.width

    @property
    def height(self) -> int:
        return self.img.height

    def rect(
        self, box: Box, fill: RGB | None = None, outline: RGB | None = None, width: int = 1, radius: int = 0
    ) -> None:
        f, o = _index(fill), _index(outline)
        if radius:
            self.draw.rounded_rectangle(box, radius=radius, fill=f, outline=o, width=width)
        else:
            self.draw.rectangle(box, fill=f, outline=o, width=width)

    def line(self, points: list[tuple[int, int]], colour: RGB, width: int = 1) -> None:
        self.draw.line(points, fill=colour_index(colour), width=width)

    def ellipse(self, box: Box, fill: RGB | None = None, outline: RGB | None = None, width: int = 1) -> None:
        self.draw.ellipse(box, fill=_index(fill), outline=_index(outline), width=width)

    def text(
        self,
        xy: tuple[int, int],
        text: str,
        size: int,
        colour: RGB = INK,
        face: str = "sans",
        anchor: str = "l",
        background: RGB = BACKGROUND,
    ) -> int:
        """Draw ``text`` with its line box's top at y; ``anchor`` l/c/r places x. ``background`` is
        the colour under the text (for anti-aliasing). Returns the text's width."""
        sprite, mask = _text_sprite(text, size, colour, background, face)
        x, y = xy
        if anchor == "c":
            x -= sprite.width // 2
        elif anchor == "r":
            x -= sprite.width
        self._paste(sprite, (x, y), mask)
        return sprite.width

    def paste(self, other: Canvas | Image.Image, xy: tuple[int, int]) -> None:
        """Paste another palette image (e.g. a cached card sprite) drawn with this palette."""
        src = other.img if isinstance(other, Canvas) else other
        self._paste(src, xy, None)

    def _paste(self, src: Image.Image, xy: tuple[int, int], mask: Image.Image | None) -> None:
        # Image.paste spends ~10 us per call in Python-level checks; boards paste hundreds of
        # sprites, so go straight to the core when the sprite lies inside the canvas.
        x, y = xy
        w, h = src.size
        if x < 0 or y < 0 or x + w > self.img.width or y + h > self.img.height:
            self.img.paste(src, xy, mask)
            return
        box = (x, y, x + w, y + h)
        if mask is None:
            self.img.im.paste(src.im, box)
        else:
            self.img.im.paste(src.im, box, mask.im)

    def badge(self, xy: tuple[int, int], seat: int, size: int = BADGE, background: RGB = BACKGROUND) -> None:
        """The seat's letter on a square of its colour (the mark that never relies on colour alone)."""
        self._paste(_badge(seat, size, background).img, xy, None)

    def png(self, frame: bool = True) -> bytes:
        """The PNG; a board (``frame``) gets its thin border, which reads on both Discord themes."""
        if frame:
            self.draw.rectangle(
                (0, 0, self.width - 1, self.height - 1), outline=colour_index(BORDER), width=2
            )
        self.img.putpalette(_palette)
        buf = io.BytesIO()
        self.img.save(buf, format="PNG", compress_level=1)
        return buf.getvalue()


@lru_cache(maxsize=256)
def _badge(seat: int, size: int, background: RGB) -> Canvas:
    c = Canvas(size, size, background)
    fill = player_colour(seat)
    c.rect((0, 0, size - 1, size - 1), fill=fill, radius=4)
    letter_size = size - 5
    top = (size - line_height(letter_size, "bold")) // 2 + 1
    c.text((size // 2, top), seat_letter(seat), letter_size, ink_on(fill), "bold", "c", background=fill)
    return c
