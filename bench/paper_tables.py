"""The core paper's published Tables 1 and 2, typed in for side-by-side comparison.

Read from ``../shared/papers/huang-izza-ignatiev-marques-silva-2021-explaining-graph-based-
classifiers.txt`` (the text conversion splits Table 2 into three blocks of columns; the rows
were matched by position and checked against the "XPs = avg AXps + avg CXps" identity and the
text's remarks: the largest average runtime, 0.036 s, is dna's).  Runtimes are in seconds on
the authors' machine (MacBook Pro, Intel Core i7 2.6 GHz), model sizes are node counts.

Examples
--------
>>> TABLE2["dna"].runtime_avg
0.036
>>> TABLE1["spect"].size, TABLE1["spect"].accuracy
(284, 87)

References
----------
Huang, Izza, Ignatiev, Marques-Silva. On Efficiently Explaining Graph-Based Classifiers.
KR 2021, Tables 1 (OBDDs) and 2 (decision trees).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PaperRow:
    """One published row.  ``depth`` is ``None`` for OBDDs (Table 1 has no depth column)."""

    n_features: int
    n_tested: int
    depth: int | None
    size: int
    accuracy: int
    xps_avg: int
    axp_max: int
    axp_min: int
    axp_avg: int
    axp_len_pct: int
    cxp_max: int
    cxp_min: int
    cxp_avg: int
    cxp_len_pct: int
    runtime_total: float
    runtime_max: float
    runtime_min: float
    runtime_avg: float


def _rows(depth: bool, text: str) -> dict[str, PaperRow]:
    out = {}
    for line in text.strip().splitlines():
        name, *cells = line.split()
        numbers: list[float] = [float(c) for c in cells]
        if not depth:
            numbers.insert(2, -1)
        ints = [int(x) for x in numbers[:14]]
        out[name] = PaperRow(
            ints[0],
            ints[1],
            ints[2] if depth else None,
            *ints[3:14],
            *numbers[14:18],  # type: ignore[arg-type]
        )
    return out


# name  #F #TI  #N %A  XPs  AXp: Mx m avg %L  CXp: Mx m avg %L  RunTime: Tot Mx m avg
TABLE1: dict[str, PaperRow] = _rows(
    False,
    """
corral                      6   64   6 100  4   4 1 2 34   4 2 2 22  0.072 0.002 0.001 0.001
dbworld-bodies           4702   62   7  92  4   2 1 1  1   3 1 2  1  0.072 0.002 0.001 0.001
dbworld-bodies-stemmed   3721   62   6  84  3   3 1 1  1   4 1 2  1  0.056 0.001 0.000 0.001
dbworld-subjects          242   63  14  84  5   2 1 1  2   5 2 4  1  0.090 0.003 0.001 0.001
dbworld-subjects-stemmed  229   63  18  84  6   3 1 1  2   5 2 4  1  0.190 0.007 0.001 0.003
mofn_3_7_10                10  251  21  98 11  33 1 5 34  33 3 7 23  1.183 0.022 0.001 0.005
mux6                        6   64   9 100  5   4 1 2 51   4 3 3 24  0.103 0.004 0.001 0.002
parity5+5                  10  222  71  80  8  11 1 2 59  15 5 6 14  1.237 0.015 0.003 0.006
spect                      22   93 284  87 11  24 1 4 22  36 1 7 14  1.726 0.074 0.007 0.019
threeOf9                    9  205  33  95  8  16 1 3 39  18 3 5 21  0.921 0.017 0.002 0.004
xd6                         9  325  11 100  7  18 1 4 34  27 3 3 18  0.647 0.010 0.001 0.002
""",
)

# name  #F #TI  D #N %A  XPs  AXp: Mx m avg %L  CXp: Mx m avg %L  Runtime: Tot Mx m avg
TABLE2: dict[str, PaperRow] = _rows(
    True,
    """
adult                        12  1766 6  83  78  8  11 1 2 41  12 2 5 13   5.76 0.010 0.001 0.003
agaricus-lepiota             22  2437 6  37 100  6   6 1 3 17   7 2 4  7   5.30 0.006 0.001 0.002
anneal                       38   886 6  29  99  9   8 1 3 14  10 2 6  5   4.02 0.015 0.002 0.005
bank                         19 10837 6 113  88 18  38 1 9 33  21 4 9 12  87.11 0.032 0.002 0.008
cancer                        9   449 6  37  87  7   8 1 3 39   7 2 4 21   1.12 0.006 0.001 0.003
car                           6   519 6  43  96  4   4 1 2 39   6 1 2 24   0.71 0.004 0.001 0.001
chess                        36   959 6  33  97  7  10 1 3 12  10 1 5  5   2.99 0.012 0.001 0.003
churn                        20  1500 6  21  75  2   1 1 1  5   1 1 1  5   1.04 0.002 0.001 0.001
colic                        22   357 6  55  81 11  18 1 5 23  10 3 6  8   1.31 0.011 0.001 0.004
collins                      23   485 6  29  75  4   1 1 1 11   4 1 3  5   0.58 0.002 0.001 0.001
dermatology                  34   366 6  33  90  7   6 1 2 14  11 1 5  4   0.97 0.007 0.001 0.003
divorce                      54   150 5  15  90  6   8 1 3  7   4 1 3  3   0.73 0.010 0.002 0.005
dna                         180   901 6  61  90 10  28 1 4  3  12 2 5  2  32.15 0.097 0.010 0.036
hayes-roth                    4    84 6  23  78  3   3 1 1 54   3 1 2 27   0.06 0.001 0.000 0.001
hepatitis                    19   155 5  17  77  6  10 1 3 18   5 2 3 10   0.29 0.004 0.001 0.002
house-votes-84               16   298 6  49  91  9  30 1 5 25  10 2 4 13   0.93 0.016 0.001 0.003
iris                          4   149 5  23  90  5   3 1 2 58   4 2 3 39   0.16 0.003 0.001 0.001
irish                         5   470 4  13  97  3   2 1 1 33   2 1 2 23   0.27 0.001 0.000 0.001
kr-vs-kp                     36   959 6  49  96  7  23 1 4 12   8 2 4  5   3.03 0.014 0.001 0.003
lymphography                 18   148 6  61  76 11  15 1 5 28  12 3 6 10   0.54 0.009 0.001 0.004
molecular-biology-promoters  58   106 6  17  86  4   6 1 2  6   5 1 2  3   0.43 0.008 0.003 0.004
monk1                         6   124 4  17 100  3   2 1 1 38   3 1 2 18   0.11 0.002 0.000 0.001
monk2                         6   169 6  67  82  6   7 1 2 65   9 2 5 23   0.31 0.005 0.001 0.002
monk3                         6   122 6  35  80  4   6 1 2 45   4 2 3 23   0.15 0.004 0.001 0.001
mouse                         5    57 3   9  83  3   4 1 1 41   3 2 2 25   0.04 0.001 0.000 0.001
mushroom                     22  2438 6  39 100  6   5 1 2 18   7 2 4  7   5.43 0.007 0.001 0.002
new-thyroid                   5   215 3  11  95  4   2 1 1 54   3 2 3 21   0.12 0.001 0.000 0.001
pendigits                    16  3298 6 121  88  8  12 1 2 37  13 5 6  9  10.19 0.011 0.002 0.003
seismic-bumps                18   774 6  37  89  7  12 1 4 17   7 2 4 11   3.02 0.009 0.001 0.004
shuttle                       9 17400 6  63  99  4   4 1 1 34   6 2 3 13  33.67 0.005 0.001 0.002
soybean                      35   622 6  63  88  7   4 1 1 15   7 3 5  4   3.12 0.012 0.002 0.005
spambase                     57  1262 6  63  75 10  22 1 3 11  15 3 7  3   6.63 0.019 0.002 0.005
tic-tac-toe                   9   958 6  69  93  9  13 1 4 51  12 3 6 20   2.94 0.009 0.001 0.003
zoo                          16    59 6  23  91  5   2 1 1 24   6 2 4  9   0.12 0.003 0.001 0.002
""",
)
