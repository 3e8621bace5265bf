"""Issue 15's benchmarks: the paper's Table 2 (separation), Table 3 (DT, robust tree, risk-score
baseline and BBM-RS: IC, accuracy, exact ER) and Figure 1 (BBM-RS's IC and ER against tau).

Modules: :mod:`bench.risk.data` (the 11 datasets, normalised), :mod:`bench.risk.baselines`
(learners, the baselines' environment, compilation into xpg models), :mod:`bench.risk.table2`,
:mod:`bench.risk.table3`, :mod:`bench.risk.tradeoff`, :mod:`bench.risk.paper` (the paper's
figures).

References
----------
Moshkovitz, Yang, Chaudhuri. Connecting Interpretability and Robustness in Decision Trees
through Separation. ICML 2021, Sec. 6 and Appendices B-C.
"""
