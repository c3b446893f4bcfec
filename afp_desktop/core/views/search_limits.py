"""How much one search may do: the bounds the command line and the window share (no imports: the command line
reads them before it knows which subcommand runs)."""

DEFAULT_MAX_HITS = 10_000  # hits listed unless asked otherwise; the rest are counted as "more"
MAX_HITS_LIMIT = 1_000_000  # the most hits one search may be asked to list
# One search, all told: checked between ranges of texts, and inside a regular expression's scan by the regex module,
# which counts processor time (on a machine shared with other work, the wait can be longer than this).
DEFAULT_TIME_LIMIT_S = 5.0
