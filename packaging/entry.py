"""PyInstaller's entry script: the same main() as the `afp-desktop` console script and `python -m afp_desktop`."""

import multiprocessing
import sys

from afp_desktop.cli import main

if __name__ == "__main__":
    multiprocessing.freeze_support()  # (the engine process is spawned from this executable: it starts here)
    sys.exit(main())
