import csv
from decimal import Decimal


def load_rows(lines):
    return [(r["region"], Decimal(r["amount"])) for r in csv.DictReader(lines)]
