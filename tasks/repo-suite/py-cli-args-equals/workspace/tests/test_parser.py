import pytest

from miniargs import Parser, UsageError


def make():
    p = Parser()
    p.option("--output", default="-")
    p.flag("--verbose")
    return p


def test_option_with_separate_value():
    args = make().parse(["--output", "out.txt", "in.csv"])
    assert args.output == "out.txt"
    assert args.positionals == ["in.csv"]


def test_defaults():
    args = make().parse([])
    assert args.output == "-" and args.verbose is False


def test_unknown_option():
    with pytest.raises(UsageError):
        make().parse(["--nope"])


def test_double_dash_ends_options():
    assert make().parse(["--", "--verbose"]).positionals == ["--verbose"]
