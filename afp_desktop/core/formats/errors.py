"""Load errors and warnings live in `afp_desktop.core.problems` (the Run uses them too); re-exported here."""

from afp_desktop.core.problems import LoadCancelled, LoadError, Problem, describe_type

__all__ = ["LoadCancelled", "LoadError", "Problem", "describe_type"]
