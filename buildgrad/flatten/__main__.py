"""The command line: ``python -m buildgrad.flatten OUT.py [--folder DIR]``."""

import sys

from buildgrad.flatten import main

if __name__ == "__main__":
    sys.exit(main())
