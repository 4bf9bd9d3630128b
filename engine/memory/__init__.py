"""Memory building: topics → embedded documents → hnswlib indexes → score calibration."""
