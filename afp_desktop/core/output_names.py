"""A destination must not be a name an input's run would be read from, even while no file has that name yet.

Opening `<file>` reads `<file>.1` too when it exists (the file sink's rotated older half), and opening
`<file>.1` reads `<file>`: writing either partner name would make the input open as a pair with the written
file as one half. safe_write.check_destination compares files that exist; this compares names.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from afp_desktop.core.formats.source import rotation_partner
from afp_desktop.core.safe_write import UnsafeOutput

StrPath = str | os.PathLike


def _same_name(a: Path, b: Path) -> bool:
    """The same entry of the same folder (the folders compared as files: through links, `.` and `..`)."""
    if a.name != b.name:
        return False
    try:
        return os.path.samefile(a.parent, b.parent)
    except OSError:
        return False


def refuse_rotation_partner(destination: StrPath, inputs: Iterable[StrPath]) -> None:
    """UnsafeOutput when `destination` is the rotated partner's name of one of `inputs` (existing or not)."""
    target = Path(destination)
    for source in inputs:
        partner = rotation_partner(source)
        if _same_name(target, partner):
            half = "older" if partner.suffix == ".1" else "newer"
            raise UnsafeOutput(
                f"{os.fsdecode(target)}: refusing to write the rotated {half} half's name of the input "
                f"{os.fsdecode(source)} (opening it would then read this file as part of that run); choose "
                "another output name")
