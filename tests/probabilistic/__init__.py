"""Tests of xpg.probabilistic (a package, so module names cannot collide with other folders)."""
