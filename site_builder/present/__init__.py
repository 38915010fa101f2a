"""Present: the computed numbers as the page's schema, words, tables and chart data."""
