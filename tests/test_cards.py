"""Card notation (RULES.md "Card notation")."""

import pytest

from service.cards import DECK, CardError, colour, parse_card, parse_cards, rank_value


@pytest.mark.parametrize(
    "code, canonical",
    [
        ("10H", "10H"),
        ("TH", "10H"),
        ("th", "10H"),
        ("Th", "10H"),
        ("as", "AS"),
        ("JK", "JK"),
        ("jk", "JK"),
        ("QD", "QD"),
        ("2c", "2C"),
    ],
)
def test_parse_card_accepts_both_tens_and_any_case(code, canonical):
    assert parse_card(code) == canonical


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "1H",
        "11H",
        "ZZ",
        "10X",
        "J",
        "JKK",
        "TT",
        " AS",
        "AS ",
        "2S\n",
        "10 H",
        10,
        None,
        ["AS"],
    ],
)
def test_parse_card_rejects_and_names_the_code(bad):
    with pytest.raises(CardError) as info:
        parse_card(bad)
    assert info.value.code == bad
    if isinstance(bad, str):
        assert repr(bad) in str(info.value)
    else:
        assert "is a string such as '10H'" in str(info.value)


def test_parse_cards_stops_at_first_bad_code():
    with pytest.raises(CardError) as info:
        parse_cards(["AS", "XX", "YY"])
    assert info.value.code == "XX"


def test_rank_values_and_colours():
    assert [rank_value(c) for c in ("AS", "10H", "JD", "QC", "KS")] == [1, 10, 11, 12, 13]
    assert colour("QH") == colour("2D") == "red"
    assert colour("AS") == colour("7C") == "black"
    assert len(DECK) == len(set(DECK)) == 52
