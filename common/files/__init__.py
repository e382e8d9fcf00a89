"""Files: atomic output, the results file and its calibration."""
