"""Pure computation: frontiers, interpolation, matched-interactivity metrics. No I/O here."""
