"""afp-desktop: replay a saved agentfootprint run offline."""

import os as _os

# numpy's OpenBLAS starts a thread per core that spins for a while after the import, for matrix products this
# program never asks for: on a machine with few cores that is the window's or the loader's core taken while a
# file opens. Set before anything imports numpy; a value the user chose is kept.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
    _os.environ.setdefault(_name, "1")

__version__ = "0.1.0"
