"""What commands and panels ask of a run: search, comparison, the readable inspector, bookmarks, go to, the
template preview."""
