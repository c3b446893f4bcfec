"""The engine: reads and prepares runs, with no Qt. In-process (`service.Engine`: the command line, tests) or in
a process of its own that the window talks to (`process.py`), so a crash while reading leaves the window up."""
