"""The model protocol: every kind keeps it, and a new kind needs one class and one registration.

(a) Each registered kind (and dd's OBDD, written as ``obdd`` nodes) on a small example: one
prediction, batch prediction, its compiled graph, its JSON round trip and its SMT encoding
agree on every point of a small grid of its domain.  (b) A kind defined only here (majority
of boolean votes) is registered, then saved, read, compiled, explained, verified and used
from the command line without any other module knowing it.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from xpg.cli.main import main
from xpg.compile.bdd import bdd_manager
from xpg.core.features import Feature, Literal
from xpg.core.graph import DecisionGraph, batch_matrix
from xpg.core.instances import instance_dict
from xpg.core.xpgraph import ExplanationGraph
from xpg.errors import InvalidModelError
from xpg.explain import enumerate_explanations
from xpg.io.model_json import (
    compile_model,
    load_model,
    model_to_dict,
    read_model,
    read_model_dict,
    save_model,
)
from xpg.models import (
    OBDD,
    OMDD,
    DecisionList,
    DecisionTree,
    Leaf,
    Model,
    Rule,
    Split,
    model_kind,
    model_kinds,
    register_model_kind,
    unregister_model_kind,
)
from xpg.models.risk_score import RiskScore, at_least
from xpg.solvers.smt import SmtModel
from xpg.verify.verifier import Verifier, encode_model, verify_axp, verify_cxp

REAL_POINTS = (-1.0, 0.5, 1.5, 2.0, 2.5, 3.0, 30.0, 45.0)


def grid(features: Sequence[Feature]) -> list[list[Any]]:
    """Every combination of the discrete values and of real points around the thresholds."""
    axes = []
    for f in features:
        if f.is_discrete:
            axes.append(list(f.values))
        elif f.kind == "integer":
            axes.append(list(range(int(max(f.low, -2)), int(min(f.high, 4)) + 1)))
        else:
            axes.append([v for v in REAL_POINTS if f.low <= v <= f.high])
    return [list(p) for p in itertools.product(*axes)]


def _graph() -> DecisionGraph:
    dg = DecisionGraph([Feature.real("x"), Feature.boolean("b")], ["no", "yes"])
    dg.add_node(0, "x")
    dg.add_node(1, "b")
    dg.add_terminal(2, "no")
    dg.add_terminal(3, "yes")
    dg.add_edge(0, 2, Literal.le("x", 1.5))
    dg.add_edge(0, 1, Literal.gt("x", 1.5))
    dg.add_edge(1, 2, Literal.eq("b", 0))
    dg.add_edge(1, 3, Literal.eq("b", 1))
    return dg


def _tree() -> DecisionTree:
    feats = [Feature.real("income", 0.0), Feature.categorical("job", ["a", "b", "c"])]
    return DecisionTree(
        feats,
        ["no", "yes"],
        Split(
            "income",
            [
                (Literal.le("income", 30.0), Leaf("no")),
                (
                    Literal.gt("income", 30.0),
                    Split(
                        "job",
                        [
                            (Literal.isin("job", ["a"]), Leaf("no")),
                            (Literal.isin("job", ["b", "c"]), Leaf("yes")),
                        ],
                    ),
                ),
            ],
        ),
    )


def _list() -> DecisionList:
    feats = [Feature.boolean("a"), Feature.integer("n", 0, 3), Feature.real("x")]
    rules = [
        Rule([Literal.eq("a", 1), Literal.isin("n", [2, 3])], 2),
        Rule([Literal.gt("x", 2.5)], 1),
    ]
    return DecisionList(feats, [0, 1, 2], rules, default=0)


def _omdd() -> OMDD:
    m = OMDD(
        [Feature.boolean("x1"), Feature.boolean("x2"), Feature.integer("x3", 0, 2)],
        classes=["R", "G", "B"],
    )
    for c in ("R", "G", "B"):
        m.add_terminal(c, c)
    m.add_node("n3", "x3", {0: "G", 1: "B", 2: "R"})
    m.add_node("n2", "x2", {0: "G", 1: "n3"})
    m.add_node("n1", "x1", {0: "n2", 1: "B"})
    return m


def _obdd() -> OBDD:
    bdd = bdd_manager(["p", "q", "r"])
    u = bdd.apply("or", bdd.apply("and", bdd.var("p"), ~bdd.var("q")), bdd.var("r"))
    return OBDD(~u, classes=["yes", "no"])


def _risk_score() -> RiskScore:
    feats = [Feature.real("x"), Feature.boolean("b"), Feature.integer("n", 0, 3)]
    conditions = [
        (at_least("x", 1.5), 2),
        (Literal.eq("b", 1), 1),
        (Literal.gt("n", 1), -1),
        (at_least("x", 3.0), 1),
    ]
    return RiskScore(feats, ["low", "high"], conditions, bias=-2)


def _stumps(feature: int, cut: float, left: list[list[float]], right: list[list[float]]) -> Any:
    from xpg.models.ensemble_tree import EnsembleTree

    return EnsembleTree(
        np.array([feature, 2, -1, -1, -1]),
        np.array([cut, 0.5, 0.0, 0.0, 0.0]),
        np.array([1, 3, -1, -1, -1]),
        np.array([2, 4, -1, -1, -1]),
        np.array([[0.0] * len(left[0])] * 2 + [right[0], *left]),
    )


def _forest() -> Any:
    from xpg.models.ensemble import Forest

    feats = [Feature.real("x"), Feature.integer("n", 0, 3), Feature.boolean("b")]
    trees = [
        _stumps(0, 1.5, [[1.0, 0.0], [0.25, 0.75]], [[0.0, 1.0]]),
        _stumps(1, 1.5, [[0.5, 0.5], [1.0, 0.0]], [[0.0, 1.0]]),
    ]
    return Forest(feats, ["no", "yes"], trees, [0.0, 0.0], 0.5)


def _boosted() -> Any:
    from xpg.models.ensemble import BoostedTrees

    feats = [Feature.real("x"), Feature.integer("n", 0, 3), Feature.boolean("b")]
    trees = [
        _stumps(0, 2.5, [[1.0, 0, 0], [0, 0, 0.5]], [[0, 2.0, 0]]),
        _stumps(1, 0.5, [[0, 0, -1.0], [0, 1.0, 0]], [[0, 0, 3.0]]),
    ]
    return BoostedTrees(feats, [0, 1, 2], trees, [0.1, 0.0, -0.2], 0.3)


def _gbdt() -> Any:
    """XGBoost-like: float32 sums, softmax-argmax, a node that sends missing values left."""
    from xpg.models.gbdt import GBDT

    feats = [Feature.real("x"), Feature.integer("n", 0, 3), Feature.boolean("b")]
    first = _stumps(0, 2.5, [[1.0, 0, 0], [0, 0, 0.5]], [[0, 2.0, 0]])
    trees = [
        first._replace(missing_left=np.array([True, False, False, False, False])),
        _stumps(1, 0.5, [[0, 0, -1.0], [0, 1.0, 0]], [[0, 0, 3.0]]),
    ]
    return GBDT(
        feats, [0, 1, 2], trees, [0.25, 0.0, -0.5], precision="float32", decision="softmax-argmax"
    )


def _boolean_omdd() -> OMDD:
    return _obdd().to_omdd()  # written as an "obdd" document, read back as an OMDD


EXAMPLES = {
    "decision-graph": _graph,
    "decision-tree": _tree,
    "decision-list": _list,
    "omdd": _omdd,
    "obdd": _boolean_omdd,
    "risk-score": _risk_score,
    "forest": _forest,
    "boosted-trees": _boosted,
    "gbdt": _gbdt,
    "dd-obdd": _obdd,
}


def test_every_registered_kind_has_an_example() -> None:
    assert set(model_kinds()) == {
        "decision-graph",
        "decision-tree",
        "decision-list",
        "obdd",
        "omdd",
        "risk-score",
        "forest",
        "boosted-trees",
        "gbdt",
    }
    for name, cls in model_kinds().items():
        model = EXAMPLES[name]()
        assert type(model) is cls and model.to_json_body()["type"] == name


def _smt_class(enc: SmtModel, point: Mapping[str, Any]) -> Any:
    """The class the SMT encoding gives ``point`` (every variable fixed to its value)."""
    with enc.solver() as s:
        assert s.solve([enc.is_value(name, v) for name, v in point.items()])
        return enc.label(s.get_value(enc.class_term).constant_value())


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_kind_keeps_the_protocol(name: str) -> None:
    model = EXAMPLES[name]()
    assert isinstance(model, Model)
    model.validate()
    points = grid(model.features)
    names = [f.name for f in model.features]
    expected = [model.predict(p) for p in points]
    assert len(set(map(repr, expected))) > 1  # the example is not constant
    assert [model.predict(dict(zip(names, p, strict=True))) for p in points] == expected
    assert model.predict_batch(np.array(points, dtype=object)).tolist() == expected
    if all(not isinstance(v, str) for p in points for v in p):
        assert model.predict_batch(np.array(points, dtype=float)).tolist() == expected
    dg = model.to_decision_graph()
    dg.validate()
    assert [dg.predict(p) for p in points] == expected
    body = json.loads(json.dumps(model.to_json_body()))
    for cls in (type(model), model_kind(body["type"])):
        again = cls.from_json_body(body, model.features, model.classes)
        assert [again.predict(p) for p in points] == expected
    enc = model.smt_encoding()
    assert [_smt_class(enc, dict(zip(names, p, strict=True))) for p in points] == expected


def test_batch_prediction_refuses_a_wrong_shape() -> None:
    for make in EXAMPLES.values():
        model = make()
        with pytest.raises(ValueError, match=f"{len(model.features)} columns"):
            model.predict_batch(np.zeros((2, len(model.features) + 1)))


# -- (b) a new model kind, defined and registered here only --------------------------------------
class Majority:
    """``classes[1]`` when more than half of the boolean features are 1, else ``classes[0]``."""

    json_type: ClassVar[str] = "majority"

    def __init__(self, features: Sequence[Feature], classes: Sequence[Any] = (0, 1)) -> None:
        self.features = list(features)
        self.classes = list(classes)
        not_bool = [f.name for f in self.features if f.kind != "boolean"]
        if not_bool or len(self.classes) != 2:
            raise InvalidModelError(
                f"majority: expected boolean features and two classes, found {not_bool} and "
                f"{self.classes!r}"
            )

    def predict(self, instance: Mapping[str, Any] | Sequence[Any]) -> Any:
        ones = sum(instance_dict(self.features, instance).values())
        return self.classes[int(2 * ones > len(self.features))]

    def predict_batch(self, X: Any) -> np.ndarray:
        ones = batch_matrix(self.features, X).astype(float).sum(axis=1)
        return np.asarray(self.classes)[(2 * ones > len(self.features)).astype(int)]

    def validate(self) -> None:
        """Always defined."""

    def to_decision_graph(self) -> DecisionGraph:
        """Node ``(i, k)``: feature ``i`` is tested after ``k`` ones among the first ``i``."""
        n = len(self.features)
        dg = DecisionGraph(self.features, self.classes, root=(0, 0))
        for c in self.classes:
            dg.add_terminal(("class", c), c)
        for i, f in enumerate(self.features):
            for k in range(i + 1):
                dg.add_node((i, k), f.name)
        for i, f in enumerate(self.features):
            for k in range(i + 1):
                for bit in (0, 1):
                    ones = k + bit
                    child = (
                        (i + 1, ones) if i + 1 < n else ("class", self.classes[int(2 * ones > n)])
                    )
                    dg.add_edge((i, k), child, Literal.eq(f.name, bit))
        dg.validate()
        return dg

    def to_json_body(self) -> dict[str, Any]:
        return {"type": self.json_type}

    @classmethod
    def from_json_body(
        cls, body: Mapping[str, Any], features: list[Feature], classes: list[Any]
    ) -> Majority:
        return cls(features, classes)

    def smt_encoding(self) -> SmtModel:
        enc = SmtModel(self.features, self.classes, self.predict)
        m = enc.mgr
        ones = m.Plus([m.Ite(enc.is_value(f.name, 1), m.Int(1), m.Int(0)) for f in self.features])
        majority = m.GT(m.Times(m.Int(2), ones), m.Int(len(self.features)))
        enc.class_term = m.Ite(majority, m.Int(1), m.Int(0))
        return enc


VOTERS = [Feature.boolean(f"v{i}") for i in range(5)]


@pytest.fixture
def majority_kind() -> Iterator[type[Majority]]:
    register_model_kind(Majority)
    yield Majority
    unregister_model_kind(Majority.json_type)


def _expected_axps(point: Sequence[int]) -> set[tuple[str, ...]]:
    """Fixing three equal votes (the predicted side) decides a majority of five, no fewer."""
    side = int(sum(point) > 2)
    same = [f.name for f, v in zip(VOTERS, point, strict=True) if v == side]
    return set(itertools.combinations(same, 3))


@pytest.mark.slow
def test_a_new_kind_works_everywhere_once_registered(
    majority_kind: type[Majority], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = majority_kind(VOTERS, ["no", "yes"])
    assert isinstance(model, Model)
    path = tmp_path / "majority.json"
    save_model(model, path)
    again = read_model(path)
    assert type(again) is Majority and model_to_dict(again) == json.loads(path.read_text())
    dg = load_model(path)
    points = grid(VOTERS)
    assert [dg.predict(p) for p in points] == [model.predict(p) for p in points]
    assert model.predict_batch(np.array(points)).tolist() == [model.predict(p) for p in points]
    for point in ([1, 1, 0, 1, 0], [0, 0, 1, 0, 0], [1, 1, 1, 1, 1]):
        result = enumerate_explanations(ExplanationGraph.from_decision_graph(dg, point))
        assert result.complete and set(result.axps) == _expected_axps(point)
        for axp in result.axps:
            assert verify_axp(again, point, axp).holds
        for cxp in result.cxps:
            assert verify_cxp(again, point, cxp).holds
        assert not verify_axp(again, point, list(result.axps[0])[:2]).holds
    instance = "v0=1,v1=1,v2=0,v3=1,v4=0"
    assert main(["axp", str(path), "--instance", instance, "--json"]) == 0
    assert tuple(json.loads(capsys.readouterr().out)["features"]) == ("v0", "v1", "v3")
    assert main(["verify", str(path), "--instance", instance, "--axp", "v0,v1,v3"]) == 0


def test_an_unregistered_kind_is_refused(majority_kind: type[Majority]) -> None:
    doc = model_to_dict(majority_kind(VOTERS))
    with pytest.raises(InvalidModelError, match="already registered"):
        register_model_kind(OMDD, "majority")
    unregister_model_kind("majority")
    try:
        with pytest.raises(InvalidModelError, match="model.type: expected one of .*'majority'"):
            read_model_dict(doc)
    finally:
        register_model_kind(majority_kind)  # the fixture unregisters it
    assert type(read_model_dict(doc)) is Majority


def test_registration_checks_the_members() -> None:
    class Incomplete:
        json_type = "incomplete"

    with pytest.raises(InvalidModelError, match="missing .*predict"):
        register_model_kind(Incomplete)  # type: ignore[type-var]
    assert "incomplete" not in model_kinds()
    with pytest.raises(InvalidModelError, match="no model kind"):
        unregister_model_kind("incomplete")


def test_objects_of_no_kind_are_refused() -> None:
    for call in (compile_model, model_to_dict, encode_model, Verifier):
        with pytest.raises(InvalidModelError, match="model kind"):
            call(object())
