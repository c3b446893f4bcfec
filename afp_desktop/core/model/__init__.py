"""The loaded run and its time: the Run, its one axis of events, stops placed on it, the chat bubble's model, the
replay (position, stops' spans, the moment every panel shows), and what the window shows of it that the loader
computes ahead (summary, graph layout, folded iterations)."""
