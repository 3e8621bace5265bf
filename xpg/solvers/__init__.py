"""Solver back-ends: SAT encodings of explanation graphs (python-sat), SMT encodings (pysmt)."""
