"""The loaded run and its time: the Run, its one axis of events, stops placed on it, the chat bubble's
model, and the replay (position, stops' spans, the moment every panel shows)."""
