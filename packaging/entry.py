"""PyInstaller's entry script: the same main() as the `afp-desktop` console script and `python -m afp_desktop`."""

import sys

from afp_desktop.cli import main

if __name__ == "__main__":
    sys.exit(main())
