"""Files: where the course writes, atomic output, the results file and its calibration."""
