"""__init__.pyi describes the package: every public name is in the stub,
every public method and its parameters match (editors read the stub)."""
import ast
import dataclasses
import inspect
import pathlib

import flopspack

STUB = pathlib.Path(flopspack.__file__).with_name("__init__.pyi")


def stub_tree():
    return ast.parse(STUB.read_text())


def stub_members():
    classes, functions, names = {}, {}, set()
    for node in stub_tree().body:
        if isinstance(node, ast.ClassDef):
            classes[node.name] = node
            names.add(node.name)
        elif isinstance(node, ast.FunctionDef):
            functions[node.name] = node
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
    return classes, functions, names


def params(fn_node):
    args = fn_node.args
    out = [a.arg for a in args.posonlyargs + args.args]
    if args.vararg:
        out.append("*" + args.vararg.arg)
    out += [a.arg for a in args.kwonlyargs]
    if args.kwarg:
        out.append("**" + args.kwarg.arg)
    return [p for p in out if p not in ("self", "cls")]


def runtime_params(fn):
    out = []
    for p in inspect.signature(fn).parameters.values():
        prefix = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        out.append(prefix + p.name)
    return [p for p in out if p not in ("self", "cls")]


def test_every_public_name_is_in_the_stub():
    _, _, names = stub_members()
    missing = set(flopspack.__all__) - names - {"__version__"}
    assert not missing, f"not in __init__.pyi: {sorted(missing)}"


def test_functions_and_methods_match():
    classes, functions, _ = stub_members()
    for name, node in functions.items():
        assert params(node) == runtime_params(getattr(flopspack, name)), name
    for cls_name, cls_node in classes.items():
        if cls_name.startswith("_") or not hasattr(flopspack, cls_name):
            continue
        cls = getattr(flopspack, cls_name)
        stub_methods = {n.name: n for n in cls_node.body if isinstance(n, ast.FunctionDef)}
        public = {
            n for n, v in vars(cls).items()
            if not n.startswith("_") and (callable(v) or isinstance(v, (property, classmethod)))
        }
        if issubclass(cls, tuple) or issubclass(cls, int):  # NamedTuple / enum helpers
            public = {n for n in public if n in stub_methods}
        assert public <= set(stub_methods), f"{cls_name}: {sorted(public - set(stub_methods))} not in the stub"
        for m, node in stub_methods.items():
            value = inspect.getattr_static(cls, m, None)
            if isinstance(value, property) or value is None or m.startswith("__") and m != "__init__":
                continue
            if m == "__init__" and dataclasses.is_dataclass(cls) is False and cls.__init__ is object.__init__:
                continue
            fn = value.__func__ if isinstance(value, (classmethod, staticmethod)) else value
            assert params(node) == runtime_params(fn), f"{cls_name}.{m}"


def test_dataclass_fields_match():
    classes, _, _ = stub_members()
    for name in ("TransformerConfig", "FitReport", "PlanMetrics", "StreamTotals", "StatsSummary",
                 "StatsTail", "StatsComparison", "SimulationSummary", "PredictionQuality",
                 "PolynomialCoefficients", "ModelQuality", "CostModelFile"):
        annotated = [n.target.id for n in classes[name].body if isinstance(n, ast.AnnAssign)]
        assert annotated == [f.name for f in dataclasses.fields(getattr(flopspack, name))], name


def test_dataclasses_mirror_the_c_structs():
    from flopspack import capi

    for swig, mirror in (
        (capi.flopspack_plan_metrics_data, flopspack.PlanMetrics),
        (capi.flopspack_fit_report, flopspack.FitReport),
        (capi.flopspack_stream_totals, flopspack.StreamTotals),
        (capi.flopspack_transformer_config, flopspack.TransformerConfig),
        (capi.flopspack_stats_summary, flopspack.StatsSummary),
        (capi.flopspack_stats_tail, flopspack.StatsTail),
        (capi.flopspack_stats_comparison, flopspack.StatsComparison),
        (capi.flopspack_simulate_summary, flopspack.SimulationSummary),
        (capi.flopspack_prediction_quality, flopspack.PredictionQuality),
        (capi.flopspack_polynomial_coefficients, flopspack.PolynomialCoefficients),
        (capi.flopspack_cp_metrics, flopspack.CpMetrics),
    ):
        c_fields = {n for n, v in vars(swig).items()
                    if isinstance(v, property) and n not in ("struct_size", "thisown")}
        if mirror is flopspack.StatsComparison:  # arrays read through level_at() etc.
            c_fields |= {"levels", "quantiles_a", "quantiles_b"}
        assert c_fields == {f.name for f in dataclasses.fields(mirror)}, mirror.__name__
