import pytest

from calc import CalcError, evaluate


@pytest.mark.parametrize(
    "expr,value",
    [
        ("2 + 3 * 4", 14),
        ("(1 + 2) * 3", 9),
        ("2 ^ 3 ^ 2", 512),
        ("-3 + 5", 2),
        ("2 * -(1 + 1)", -4),
        ("7 % 4 + 1", 4),
        ("100 / 10 / 5", 2),
        ("-2 ^ 2", -4),
        ("((2))", 2),
    ],
    ids=["mul-before-add", "parens", "power-right-assoc", "unary-minus", "unary-minus-parens", "modulo", "div-left-assoc", "power-before-unary", "nested-parens"],
)
def test_values(expr, value):
    assert evaluate(expr) == value


@pytest.mark.parametrize("expr", ["(1", "1)", "1 2", "*", "()", "1 / 0", "1 % 0"], ids=["open", "close", "two-numbers", "lone-op", "empty-parens", "div-zero", "mod-zero"])
def test_errors(expr):
    with pytest.raises(CalcError):
        evaluate(expr)
