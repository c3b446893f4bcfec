"""The library's own projections, each readable beside a section of PROJECTIONS.md: conventions (§4),
typed → domain events (§2.5), the StepGraph (§3), stops (§5.4), status (§6), JavaScript strings."""
