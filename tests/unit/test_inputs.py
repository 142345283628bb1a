"""Strict input: every parser of what people type refuses look-alike digits, huge numbers, huge or
empty text with a short sentence that says what to type, and still reads what it read before."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot import deadlines, inputs
from bot.deadlines import SUGGESTIONS, parse_timeout, timeout_choices
from bot.errors import BadInput, NotANumber, OutOfRange
from bot.i18n import LANGUAGES, Msg, language
from bot.inputs import ID_MAX, binary_number, excerpt, is_ascii_digits, not_allowed, parse_id, whole_number
from cogs.divisors import rules as divisors
from cogs.dots import rules as dots
from cogs.numbers import rules as numbers
from cogs.updown import rules as updown

DISCORD_LIMIT = 2000
HUGE = "7" * 5000  # beyond Python's 4,300-digit int conversion limit
BIG_ID = str(2**63)  # 19 digits, one more than the largest signed 64-bit integer
DOT_NAME = "C" + "4" * 1989  # 1,990 characters
PREDICTION = "UDSX" * 997 + "UD"  # 3,990 characters

REFUSED = {
    "superscript two": "²",
    "arabic-indic three": "٣",
    "fullwidth three": "３",
    "digits then superscript": "1²",
    "19-digit id over 2^63-1": BIG_ID,
    "5000 digits": HUGE,
    "1990-character dot name": DOT_NAME,
    "3990-character prediction": PREDICTION,
    "up, down": "up, down",
    "empty": "",
    "whitespace only": " \t\n ",
}

PARSERS: dict[str, Callable[[str], object]] = {
    "numbers.parse_number": lambda text: numbers.parse_number(text, 6),
    "updown.parse_rank": updown.parse_rank,
    "updown prediction": lambda text: updown.apply(updown.new_game(2, {}, 0), 0, updown.Predict(text)),
    "divisors.parse_card": lambda text: divisors.parse_card(text, 12),
    "dots.parse_dot": lambda text: dots.parse_dot(text, 5),
    "deadlines.parse_timeout": parse_timeout,
    "inputs.parse_id": parse_id,
    "inputs.whole_number": lambda text: whole_number(text, 1, 13),
}

DIRECTIONS = ("Type", "type", "Write", "write", "Pick", "pick", "Use", "use", "Name")


def refusal(parse: Callable[[str], object], text: str) -> str:
    with pytest.raises(BadInput) as info:
        parse(text)
    message = info.value.text()
    assert message == str(info.value) == info.value.message
    assert len(message) < DISCORD_LIMIT
    assert len(message) < 400  # quoting at most an excerpt keeps every refusal short
    assert any(word in message for word in DIRECTIONS), message
    assert "\n" not in message
    return message


@pytest.mark.parametrize("parser", sorted(PARSERS))
@pytest.mark.parametrize("case", sorted(REFUSED))
def test_every_parser_refuses_with_a_short_sentence_saying_what_to_do(parser: str, case: str) -> None:
    refusal(PARSERS[parser], REFUSED[case])


def test_valid_input_still_parses() -> None:
    assert numbers.parse_number(" 42 ", 6) == 42
    assert numbers.parse_number("0b101", 6) == 5
    assert numbers.parse_number("1_0", 6) == 10
    assert numbers.parse_number("+7", 6) == 7
    assert updown.parse_rank(" q ") == 12 and updown.parse_rank("10") == 10 and updown.parse_rank("ten") == 10
    assert updown.parse_letters("u d s") == "UDS"
    assert divisors.parse_card("card 7", 12) == 7 and divisors.parse_card("#12", 12) == 12
    assert divisors.parse_card(" 3 ", 12) == 3
    assert dots.parse_dot(" c4 ", 5) == (2, 3) and dots.parse_dot("B 2", 5) == (1, 1)
    assert parse_timeout("90m") == 5400 and parse_timeout("1d 12h") == 36 * 3600
    assert parse_timeout("3 days") == 3 * 86400 and parse_timeout("45") == 45 * 60
    assert parse_timeout(None) == 86400
    assert parse_id("1234567890123456789") == 1234567890123456789
    assert parse_id(str(ID_MAX)) == ID_MAX
    assert whole_number("13", 1, 13) == 13
    assert whole_number("-3", -5, 5, signed=True) == -3
    assert binary_number("0b1111", 1, 15) == 15


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("2 Stunden", 2 * 3600),
        ("1 Tag und 12 Std.", 36 * 3600),
        ("1 jour et 12 h", 36 * 3600),
        ("3\xa0jours", 3 * 86400),
        ("1 día y 2 horas", 26 * 3600),
        ("2 horas e 30 minutos", 9000),
        ("1 semana", 7 * 86400),
        ("3 дня", 3 * 86400),
        ("90 мин", 5400),
        ("1 нед.", 7 * 86400),
        ("2h, 30m", 9000),
    ],
)
def test_a_timeout_is_read_in_each_language_the_bot_speaks(text: str, seconds: int) -> None:
    assert parse_timeout(text) == seconds


def test_no_unit_word_means_two_units() -> None:
    words = [(w, size) for size, groups in deadlines._UNIT_WORDS.items() for g in groups for w in g.split()]
    meaning: dict[str, set[int]] = {}
    for word, size in words:
        meaning.setdefault(word, set()).add(size)
    assert {w: s for w, s in meaning.items() if len(s) > 1} == {}


@pytest.mark.parametrize("code", sorted(LANGUAGES))
def test_each_duration_the_bot_writes_reads_back(code: str) -> None:
    lang = language(code)
    for seconds in (*SUGGESTIONS, 90 * 60, 36 * 3600, 6 * 86400 + 2 * 3600):
        assert parse_timeout(lang.duration(seconds)) == seconds, lang.duration(seconds)
        label, value = timeout_choices(lang.duration(seconds), lang)[0]
        assert value == lang.duration(seconds) and label == lang.duration(seconds)
    for text in ("2 hamsters", "Stunden", "1 Tag oder 2"):
        with pytest.raises(BadInput):
            parse_timeout(text)


@pytest.mark.parametrize("text", ["²", "٣", "３", "١٢", "1٣", "𝟙"])
def test_look_alike_digits_are_not_digits(text: str) -> None:
    assert not is_ascii_digits(text)
    with pytest.raises(NotANumber):
        whole_number(text, 1, 13)


def test_ascii_digits() -> None:
    assert is_ascii_digits("0123456789")
    assert not is_ascii_digits("")
    assert not is_ascii_digits("-1")
    assert not is_ascii_digits("1 2")


def test_huge_numbers_are_out_of_range_and_quoted_short() -> None:
    for text in (HUGE, "-" + HUGE, "0" * 5000 + "1"):
        with pytest.raises(OutOfRange) as info:
            whole_number(text, 1, 13, signed=True)
        assert info.value.shown.endswith("…") and len(info.value.shown) <= 40
        assert str(info.value).endswith("is out of range: pick from 1 to 13.")
    with pytest.raises(OutOfRange):
        binary_number("0b" + "1" * 20_000, 1, 15)  # its decimal form would be too long to print


def test_out_of_range_names_the_range() -> None:
    with pytest.raises(OutOfRange, match=r"^14 is out of range: pick from 1 to 13\.$"):
        whole_number("14", 1, 13)
    with pytest.raises(OutOfRange, match=r"^-3 is out of range"):
        whole_number("-3", 1, 13, signed=True)
    with pytest.raises(NotANumber):  # no sign unless asked for
        whole_number("-3", 1, 13)
    with pytest.raises(NotANumber):
        whole_number("+", 1, 13, signed=True)
    # A caller's own sentence, with the fields the error fills in and its own.
    sentence = Msg("{shown} is out of range: in this game (m = {m}) pick from {low} to {high}.", m=3)
    with pytest.raises(OutOfRange) as info:
        whole_number("9", 1, 7, out_of_range=sentence)
    assert str(info.value) == "9 is out of range: in this game (m = 3) pick from 1 to 7."
    assert (info.value.shown, info.value.low, info.value.high) == ("9", 1, 7)


def test_ids_fit_64_bits() -> None:
    for text in (BIG_ID, "9" * 19, "1" * 20, "0", "00", "-1", "1e9", "0x10", HUGE, "", " "):
        with pytest.raises(BadInput, match="Use a whole number of at most 19 digits"):
            parse_id(text)
    assert parse_id(" 42 ") == 42
    with pytest.raises(BadInput, match=r"^'x' is not a valid id\. Use"):
        parse_id("x")


def test_excerpt() -> None:
    assert excerpt("C4") == "C4"
    assert excerpt("  a\n\nb\tc  ") == "a b c"
    assert excerpt("a\x00b\u200bc\u202ed") == "abcd"  # control and invisible formatting characters
    long = excerpt("x" * 3000)
    assert len(long) == 40 and long.endswith("…")
    assert len(excerpt("word " * 100, limit=10)) <= 10
    assert excerpt("") == excerpt(" \n ") == ""
    assert "\n" not in excerpt("line\r\nline\u2028line")


def test_characters_are_named_readably() -> None:
    assert not_allowed("P") == "P is not allowed"
    assert not_allowed("P,WN") == "P, W, N and commas are not allowed"
    assert not_allowed(" ") == "spaces are not allowed"
    assert not_allowed("é") == "'é' is not allowed"
    assert not_allowed("\u200b") == "U+200B is not allowed"
    assert not_allowed("ABCDEFGH") == "A, B, C, D, E and 3 more characters are not allowed"
    assert not_allowed("ABCDEF", limit=4) == "A, B, C, D and 2 more characters are not allowed"


def test_a_prediction_typed_as_words_says_what_to_type() -> None:
    message = refusal(updown.parse_letters, "up, down")
    assert message == (
        "A prediction uses only U (up), D (down) and S (same); P, O, W, N and commas are "
        "not allowed. To predict up, down, type UD."
    )
    assert "To predict up, down, same, type UDS." in refusal(updown.parse_letters, "Up Down Same")
    assert "X is not allowed. Type one letter per change" in refusal(updown.parse_letters, "UXD")
    assert "'ß' is not allowed" in refusal(updown.parse_letters, "ß")  # "ß".upper() would be "SS"
    assert "is not allowed" in refusal(updown.parse_letters, "ſ")  # "ſ".upper() would be "S"


def test_a_huge_timeout_does_not_crash() -> None:
    for text in (HUGE, HUGE + "m", "1." + HUGE + "d", "1d " * 2000, "9" * 13 + "w"):
        assert "10 minutes to 7 days" in refusal(parse_timeout, text)
    assert "could not read" in refusal(parse_timeout, "３h")


def test_module_constants() -> None:
    assert inputs.MAX_DIGITS < 4300 and inputs.ID_MAX_DIGITS == 19
