"""Chat-export importers: one module per format behind `base.Importer`, detected by content."""
