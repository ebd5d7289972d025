"""Data in: one reader per file format (with its compiled parser), in-memory reading (io),
streaming training and scoring, and the bundled datasets."""
