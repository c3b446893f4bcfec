"""What more than one panel or command needs from a run: summary, layout, search, comparison, the readable
inspector, bookmarks."""
