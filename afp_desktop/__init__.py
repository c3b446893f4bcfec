"""afp-desktop: replay a saved agentfootprint run offline."""

__version__ = "0.1.0"
