"""Checks of claimed explanations against the original model, through :mod:`xpg.solvers.smt`."""

from xpg.verify.verifier import Verdict, Verifier, verify_axp, verify_cxp

__all__ = ["Verdict", "Verifier", "verify_axp", "verify_cxp"]
