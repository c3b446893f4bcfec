"""How much one search may do: the bounds the command line and the window share (no imports: the command line
reads them before it knows which subcommand runs)."""

DEFAULT_MAX_HITS = 10_000  # hits listed unless asked otherwise; the rest are counted as "more"
MAX_HITS_LIMIT = 1_000_000  # the most hits one search may be asked to list
DEFAULT_TIME_LIMIT_S = 5.0  # one search, all told (processor time): a regular expression still running then is stopped
