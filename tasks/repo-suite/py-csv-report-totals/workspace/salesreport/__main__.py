import sys

from . import load_rows, render

print(render(load_rows(open(sys.argv[1]))))
