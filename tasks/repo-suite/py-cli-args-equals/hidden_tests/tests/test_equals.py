import pytest

from miniargs import Parser, UsageError


def make():
    p = Parser()
    p.option("--output", default="-")
    p.option("--log-level", default="info")
    p.flag("--verbose")
    return p


def test_option_equals_value():
    args = make().parse(["--output=out.txt", "in.csv"])
    assert args.output == "out.txt"
    assert args.positionals == ["in.csv"]


def test_equals_keeps_later_equals_signs():
    assert make().parse(["--log-level=a=b"]).log_level == "a=b"


def test_flag_with_value_is_an_error():
    with pytest.raises(UsageError, match="takes no value"):
        make().parse(["--verbose=1"])


def test_flags_still_work():
    assert make().parse(["--verbose"]).verbose is True
