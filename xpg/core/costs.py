"""The tuned thresholds that choose between two implementations of one answer: the cost table.

Each constant decides which of two paths computes an answer both compute alike (Python lists
or numpy, a depth-first pass or a vectorised one, a listing or SAT calls...): only the time
differs.  Modules read them at call time (``costs.MASK_EDGES`` inside the function), so that a
test forces either side by patching this module alone; :data:`COSTS` names, per constant,
the two paths and the module that reads it, and ``tests/core/test_costs.py`` checks that both
sides of every entry give the brute-force answers.  The compile budgets of the models
(``GRAPH_BUDGET``) are user-facing defaults, not route costs: they stay with their models.

Examples
--------
>>> MASK_EDGES, COSTS["MASK_EDGES"].paths
(20000, ('MARCO over graph traversals', 'every CXp as bit masks first, then dualization'))
>>> COSTS["MASK_EDGES"].reader
'xpg.explain.graph_oracle'
"""

from __future__ import annotations


class Cost:
    """One entry of the table: the two paths a threshold chooses between, and its reader.

    Attributes
    ----------
    paths : tuple of str
        The path taken with the threshold at its low extreme (0 or below: nothing counts as
        small, or every estimate is cheap), then the one taken at its high extreme.
    reader : str
        The module that reads the threshold.
    """

    # a plain class, not a NamedTuple: importing typing would cost a small graph's ``xpg
    # enum`` more than its enumeration
    __slots__ = ("paths", "reader")

    def __init__(self, paths: tuple[str, str], reader: str) -> None:
        self.paths = paths
        self.reader = reader

    def __repr__(self) -> str:
        return f"Cost(paths={self.paths!r}, reader={self.reader!r})"


# -- explanation graphs: storage and traversal structures (xpg.core.xpgraph) --------------------
#: graphs given as lists with fewer edges keep them (light: queries on lists while numpy is not
#: imported), others become numpy arrays.  Measured on a random 20,000-edge tree (CPU time,
#: loaded): the pure-Python reader takes 29 ms, the numpy one 17 ms, but importing numpy 37 ms
#: idle (74 ms loaded); past PYTHON_BUDGET visited nodes traversals use numpy anyway
LIGHT_EDGES = 20_000
#: below this many edges the traversal structures are lists built by a plain loop (numpy's
#: per-call overhead exceeds the work), above it numpy CSR arrays
SMALL_EDGES = 512
#: CSR arrays reach the node-by-node traversals as lists up to this many edges, as memoryviews
#: beyond (enumerating the OBDDs of 2,000 to 34,000 edges of bench/core_speed.py takes about
#: 20% longer through memoryviews; beyond, lists cost more memory)
LIST_EDGES = 200_000
#: queries without a threshold of their own (is_tree, the tree CXps' route) run on lists below
#: this many edges, with numpy above (ExplanationGraph.runs_on_lists)
LIST_QUERY_EDGES = 512
#: the tested variables: one set over the node list below this many edges, numpy's bincount above
TESTED_VARS_LIST_EDGES = 256
#: per-node children: plain lists below this many edges (the fastest to traverse), lazy slices
#: of the CSR arrays above (a million-edge graph does not pay for a million small lists)
ADJACENCY_LIST_EDGES = 200_000

# -- reachability (xpg.explain.reach) -----------------------------------------------------------
#: trees up to this many edges get their CXps by the level-wise search, which visits each node at
#: most once and stops at the minimal sets (a 10,000-edge tree: 2,659 distinct 0-path sets, 6
#: minimal ones, found in 3 ms), larger ones by the vectorised pass that collects them all first
LEVEL_EDGES = 20_000
#: node-by-node traversals that have visited this many nodes go on with vectorised frontier
#: passes (see bench/traversal_speed.py for the crossover)
PYTHON_BUDGET = 20_000
#: incremental searches build the 1-path shortcut (ExplanationGraph.ends_at_zero) once their
#: refused attempts, made and expected, explore more than max(SHORTCUT_MIN, n_nodes /
#: SHORTCUT_FRACTION) nodes (about what the shortcut's pointer doubling costs), else go without
SHORTCUT_MIN = 4096
SHORTCUT_FRACTION = 64

# -- AXps (xpg.explain.axp_cxp) -------------------------------------------------------------------
#: an AXp by deletion starts from every feature on graphs with this many nodes per feature or
#: more (freeing an untested feature costs nothing, finding which are tested costs a pass over
#: the nodes), from the tested features on smaller ones
EVERY_FEATURE_NODES_PER_VAR = 256

# -- families of bit masks (xpg.explain.mask_families) ------------------------------------------
#: below this many edges a tree's 0-path sets come from a Python depth-first pass, which beats
#: numpy's fixed costs there; above, from numpy's pointer jumping
DFS_EDGES = 4096
#: minimal_masks' work units (about a nanosecond) choosing among its subset tests (a direct
#: scan, every pair at once with numpy, per-variable bitsets), also charged against max_work:
#: the interpreter's cost of one bitset operation, in machine words
MASK_OP_COST = 128
#: the interpreter's cost of testing one kept mask directly, likewise
MASK_SCAN_COST = 32
#: numpy's cost of testing one (candidate, kept mask) pair, per word, likewise
MASK_PAIR_COST = 3
#: fixed cost of a vectorised test (numpy calls, conversions), likewise
MASK_CALL_COST = 20_000
#: peeling (keep the smallest mask, drop those containing it) stops after this many passes'
#: worth of masks, or once the passes remove fewer than PEEL_GAIN masks per mask kept; the
#: size groups take the rest
PEEL_PASSES = 8
PEEL_GAIN = 16
#: families this small are filtered by one sorted scan (the size groups, numpy and bitset
#: indexes cost more than they save there: zero_path_masks calls this once per DAG node)
SMALL_FAMILY = 256

# -- enumeration (xpg.explain.graph_oracle, xpg.explain.marco) ----------------------------------
#: graphs up to this many edges get all their CXps as bit masks (one pass) before an
#: enumeration starts; larger ones are enumerated by MARCO over graph traversals
MASK_EDGES = 20_000
#: work budget of the dualization of the CXps into AXps (units of minimal_hitting_masks, tens of
#: nanoseconds each, so a fraction of a second at most); beyond it the MARCO SAT loop takes over
DUAL_WORK = 2_000_000
#: the dualization's work per second left before a deadline (measured: 19,683 AXps in 0.1 s)
DUAL_WORK_PER_SECOND = 20_000_000

# -- feature classes (xpg.explain.relevance) ----------------------------------------------------
#: measured cost of the membership SAT encoding, charged to the queries up front so that the
#: portfolio runs enumeration first for about as long (scheduling only)
BUILD_SECONDS_PER_EDGE = 5e-6
#: measured cost of listing a tree's candidate CXps and filtering them (bench/membership/
#: classify_routes.py), the time deletions and enumeration get before the listing: numpy on
#: larger trees, 45-90 ns per edge; the depth-first pass of smaller trees (DFS_EDGES),
#: 0.5-1.8 microseconds per edge
LIST_SECONDS_PER_EDGE = 1e-7
DFS_LIST_SECONDS_PER_EDGE = 5e-7
#: on trees with fewer edges the CXps are listed at once (the cheapest there), on larger ones
#: deletions race the listing first
LIST_FIRST_EDGES = 64
#: up to this many edges the enumerator lists every CXp itself before its first answer, so it
#: cannot finish before the listing: enumeration joins the race only on larger trees
RACE_EDGES = MASK_EDGES

# -- membership (xpg.explain.membership) --------------------------------------------------------
#: budget of the tree route's superset filter, in work units of about a nanosecond, past which
#: the SAT route decides: building the SAT encoding costs 1-4 microseconds per edge (measured),
#: so the filter never costs much more than the SAT route it replaces
FILTER_WORK_PER_EDGE = 1000
FILTER_WORK_BASE = 2_000_000

# -- reading .xpg files (xpg.io.xpg_format) -----------------------------------------------------
#: files with fewer lines are parsed in pure Python while numpy is not imported (one line per
#: node and per edge: a tree of LIGHT_EDGES edges has about twice as many lines), with numpy
#: otherwise
LIGHT_LINES = 2 * LIGHT_EDGES + 64
#: files with fewer lines are always parsed in pure Python (faster than numpy there: 0.03 ms
#: against 0.17 ms for the 7-node examples, 1.6 ms against 1.0 ms at 3,700 lines)
SMALL_LINES = 1024

# -- compiling tree ensembles (xpg.models.ensemble_compile) -------------------------------------
#: the cost of an edge of the product diagram relative to one of a single tree's diagram (what
#: it takes in time), charged against the compile budget: within it the ensemble is explained
#: on its compiled graph, beyond it (GraphTooLargeError) on its SAT oracle
PRODUCT_EDGE_COST = 10

# -- the tree-ensemble oracle (xpg.explain.ensemble.oracle) -------------------------------------
#: free cell combinations evaluated exhaustively (with shortcuts) instead of the bound, the
#: greedy search, the branch and bound and the solver
EXHAUSTIVE_LIMIT = 256
#: nodes the branch and bound over the trees' leaves may visit per class (with shortcuts)
#: before the solver takes turns with it
BNB_NODES = 20000
#: nodes the branch and bound visits on one question before it asks the linear relaxation
#: (:mod:`xpg.explain.ensemble.linear_bound`; the root's program costs tens of nodes' time,
#: a node's, re-solved from the last basis, a few) for a bound at its root, and from then on
#: at the nodes its own bound keeps, while it prunes (100 against 1000: 20 to 35% less time
#: on the slowest rows of 100-tree forests on breast cancer and digits, bench/README.md)
LP_AFTER_NODES = 100

_XPGRAPH = "xpg.core.xpgraph"
_MASKS = "xpg.explain.mask_families"
_RELEVANCE = "xpg.explain.relevance"

#: Per threshold, the two paths it chooses between and the module that reads it.
COSTS: dict[str, Cost] = {
    "LIGHT_EDGES": Cost(("numpy arrays", "a light graph: the given lists kept"), _XPGRAPH),
    "SMALL_EDGES": Cost(("numpy CSR arrays", "traversal lists built by a loop"), _XPGRAPH),
    "LIST_EDGES": Cost(("CSR arrays as memoryviews", "CSR arrays as lists"), _XPGRAPH),
    "LIST_QUERY_EDGES": Cost(("numpy arrays", "Python lists"), _XPGRAPH),
    "TESTED_VARS_LIST_EDGES": Cost(("numpy bincount", "a set over the node list"), _XPGRAPH),
    "ADJACENCY_LIST_EDGES": Cost(("children as CSR slices", "children as lists"), _XPGRAPH),
    "LEVEL_EDGES": Cost(
        ("every 0-path set, then the minimal ones", "level-wise minimal tree CXps"),
        "xpg.explain.reach",
    ),
    "PYTHON_BUDGET": Cost(
        ("vectorised frontier passes", "node-by-node traversal"), "xpg.explain.reach"
    ),
    "SHORTCUT_MIN": Cost(("1-path shortcut built", "no shortcut"), "xpg.explain.reach"),
    "SHORTCUT_FRACTION": Cost(("no shortcut", "1-path shortcut built"), "xpg.explain.reach"),
    "EVERY_FEATURE_NODES_PER_VAR": Cost(
        ("deletion from every feature", "deletion from the tested features"),
        "xpg.explain.axp_cxp",
    ),
    "DFS_EDGES": Cost(("numpy pointer jumping", "depth-first 0-path sets"), _MASKS),
    "MASK_OP_COST": Cost(("per-variable bitsets", "numpy pairs or a scan"), _MASKS),
    "MASK_SCAN_COST": Cost(("a direct scan", "numpy pairs or bitsets"), _MASKS),
    "MASK_PAIR_COST": Cost(("numpy pairs", "per-variable bitsets"), _MASKS),
    "MASK_CALL_COST": Cost(("numpy pairs or bitsets", "a direct scan"), _MASKS),
    "PEEL_PASSES": Cost(("size groups", "peeling"), _MASKS),
    "PEEL_GAIN": Cost(("peeling", "size groups"), _MASKS),
    "SMALL_FAMILY": Cost(("peeling and size groups", "one sorted scan"), _MASKS),
    "MASK_EDGES": Cost(
        ("MARCO over graph traversals", "every CXp as bit masks first, then dualization"),
        "xpg.explain.graph_oracle",
    ),
    "DUAL_WORK": Cost(("MARCO SAT loop", "dualization of the CXps"), "xpg.explain.marco"),
    "DUAL_WORK_PER_SECOND": Cost(
        ("MARCO SAT loop", "dualization of the CXps"), "xpg.explain.marco"
    ),
    "BUILD_SECONDS_PER_EDGE": Cost(("membership queries first", "enumeration first"), _RELEVANCE),
    "LIST_SECONDS_PER_EDGE": Cost(("listing at once", "deletions and enumeration"), _RELEVANCE),
    "DFS_LIST_SECONDS_PER_EDGE": Cost(("listing at once", "deletions and enumeration"), _RELEVANCE),
    "LIST_FIRST_EDGES": Cost(("deletions race the listing", "listing at once"), _RELEVANCE),
    "RACE_EDGES": Cost(("enumeration races", "no enumeration"), _RELEVANCE),
    "FILTER_WORK_PER_EDGE": Cost(
        ("SAT route", "tree route (CXp filter)"), "xpg.explain.membership"
    ),
    "FILTER_WORK_BASE": Cost(("SAT route", "tree route (CXp filter)"), "xpg.explain.membership"),
    "LIGHT_LINES": Cost(("numpy reader", "pure-Python reader"), "xpg.io.xpg_format"),
    "SMALL_LINES": Cost(("numpy reader", "pure-Python reader"), "xpg.io.xpg_format"),
    "PRODUCT_EDGE_COST": Cost(
        ("compiled graph", "SAT oracle (over the budget)"), "xpg.models.ensemble_compile"
    ),
    "EXHAUSTIVE_LIMIT": Cost(
        ("bound, search and solver", "exhaustive evaluation"), "xpg.explain.ensemble.oracle"
    ),
    "BNB_NODES": Cost(
        ("solver (branch and bound undecided)", "branch and bound alone"),
        "xpg.explain.ensemble.oracle",
    ),
    "LP_AFTER_NODES": Cost(
        ("linear bounds from the first node", "the trees' own bounds only"),
        "xpg.explain.ensemble.leaf_search",
    ),
}

__all__ = ["COSTS", "Cost", *COSTS]
