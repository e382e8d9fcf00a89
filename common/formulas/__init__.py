"""Pure formulas (standard library only): the speed and capacity ledgers and their analysis."""
