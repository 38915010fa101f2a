"""Load: result files, catalogs and evaluation/sweep files into one point table and their models."""
