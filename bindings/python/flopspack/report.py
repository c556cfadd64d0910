"""Render a flopspack report: an HTML page with plots from `flopspack report`'s JSON.

    flopspack report DATA --out DIR          # the usual way: the CLI computes, this draws
    python3 -m flopspack.report DIR/report.json --out DIR
    python3 bindings/python/flopspack/report.py DIR/report.json --out DIR

The CLI computes every number through the C library and writes them to
DIR/report.json (schema flopspack-cli/1, command "report", docs/cli.md);
this module only draws. It depends on nothing but the standard library and
matplotlib (Debian's python3-matplotlib), not on the flopspack binding, so
it runs by path from a source tree or an install as well as from the
package. Sections whose data the JSON lacks are left out of the page.

Output in DIR: index.html, and one SVG per figure (histogram.svg,
balance.svg, step.svg, padding.svg) with the numbers behind each in the
page's tables.
"""
import argparse
import html
import json
import os
import sys

SCHEMA = "flopspack-cli/1"

# One colour per policy, stable across figures (Okabe-Ito, colour-blind safe).
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
           "#F0E442"]

CSS = """
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 2em auto;
       max-width: 1080px; color: #1a1a1a; line-height: 1.45; padding: 0 1em; }
h1 { font-size: 1.7em; margin-bottom: 0.1em; }
h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
.meta { color: #555; font-size: 0.92em; }
.decision { background: #eef6ee; border-left: 5px solid #2e7d32; padding: 0.8em 1.1em;
            margin: 1.2em 0; font-size: 1.08em; }
.cards { display: flex; flex-wrap: wrap; gap: 0.8em; margin: 1em 0; }
.card { border: 1px solid #ddd; border-radius: 6px; padding: 0.5em 0.9em; min-width: 9em; }
.card .v { font-size: 1.35em; font-weight: bold; }
.card .k { color: #555; font-size: 0.85em; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.92em; }
th, td { border-bottom: 1px solid #e3e3e3; padding: 0.25em 0.8em; text-align: right; }
th { background: #f5f5f5; }
td:first-child, th:first-child { text-align: left; }
figure { margin: 1em 0; }
figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { color: #444; font-size: 0.9em; }
.note { color: #555; font-size: 0.9em; }
footer { margin-top: 3em; color: #777; font-size: 0.85em; }
"""


def _fmt_int(value):
    return f"{int(value):,}"


def _fmt_pct(value, digits=1):
    return "-" if value is None else f"{100.0 * value:.{digits}f}%"


def _fmt_si(value):
    if value is None:
        return "-"
    for suffix, scale in (("E", 1e18), ("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6),
                          ("k", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{suffix}"
    return f"{value:.4g}"


def _fmt_len(tokens):
    tokens = int(tokens)
    if tokens >= 1024 and tokens % 1024 == 0:
        return f"{tokens // 1024}K"
    return _fmt_int(tokens)


def _table(header, rows):
    out = ["<table>", "<tr>" + "".join(f"<th>{html.escape(str(h))}</th>" for h in header) + "</tr>"]
    for row in rows:
        out.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({
        "font.family": "DejaVu Sans", "font.size": 10, "axes.spines.top": False,
        "axes.spines.right": False, "svg.hashsalt": "flopspack",  # reproducible SVG ids
        "svg.fonttype": "path",
    })
    return plt


def _save(fig, out_dir, name):
    path = os.path.join(out_dir, name)
    fig.savefig(path, format="svg", bbox_inches="tight", metadata={"Date": None})
    import matplotlib.pyplot as plt
    plt.close(fig)
    return name


def plot_histogram(plt, stats, unit, out_dir):
    """Length histogram on log2 bins: share of documents, tokens and cost per bin."""
    hist = stats["histogram"]
    edges = hist["upper_edges"]
    series = [("documents", hist["document_share"]), ("tokens", hist["token_share"])]
    if hist.get("cost_share") is not None:
        series.append((f"cost ({unit})", hist["cost_share"]))
    fig, ax = plt.subplots(figsize=(9, 4.2))
    n = len(series)
    width = 0.8 / n
    for i, (label, values) in enumerate(series):
        xs = [k + (i - (n - 1) / 2) * width for k in range(len(edges))]
        ax.bar(xs, [100 * v for v in values], width=width, label=f"share of {label}",
               color=PALETTE[i])
    labels = []
    for k, upper in enumerate(edges):
        lower = 1 if k == 0 else edges[k - 1] + 1
        labels.append(_fmt_len(upper) if lower == upper else f"≤{_fmt_len(upper)}")
    ax.set_xticks(range(len(edges)))
    ax.set_xticklabels(labels, rotation=45, ha="right")
    ax.set_xlabel("document length (tokens, log₂ bins)")
    ax.set_ylabel("share per bin (%)")
    ax.legend(frameon=False)
    ax.grid(axis="y", alpha=0.3)
    ax.set_title("Where the documents, the tokens and the compute are")
    return _save(fig, out_dir, "histogram.svg")


def plot_balance(plt, sweep, out_dir, gpus_per_rank=1):
    """Balance efficiency and relative throughput versus number of GPUs, per policy.
    With context parallelism (gpus_per_rank = --cp > 1) the axis counts
    data-parallel ranks, each a group of gpus_per_rank GPUs."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.4), sharey=True)
    ranks = sweep["ranks"]
    panels = (("balance_efficiency", "balance efficiency (%) = mean / max rank cost"),
              ("relative_throughput", "throughput (%) of a balanced, unpadded run"))
    for ax, (key, ylabel) in zip(axes, panels):
        for i, policy in enumerate(sweep["policies"]):
            ax.plot(ranks, [float("nan") if v is None else 100 * v for v in policy[key]],
                    marker="o", markersize=4,
                    color=PALETTE[i % len(PALETTE)], label=policy["label"])
        ax.set_xscale("log", base=2)
        ax.set_xticks(ranks)
        ax.set_xticklabels([_fmt_int(r) for r in ranks], rotation=45, ha="right")
        ax.minorticks_off()
        ax.set_xlabel("data-parallel ranks (GPUs)" if gpus_per_rank <= 1 else
                      f"data-parallel ranks (each {gpus_per_rank} GPUs: GPUs = ranks x "
                      f"{gpus_per_rank})")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
    axes[0].set_ylim(top=100.5)
    axes[1].legend(frameon=False, loc="lower left", fontsize=8.5)
    fig.suptitle("How much of each step the GPUs spend working, not waiting")
    return _save(fig, out_dir, "balance.svg")


def plot_step(plt, step, unit, out_dir):
    """Per-rank cost of one step under each policy, ranks sorted by cost."""
    fig, ax = plt.subplots(figsize=(9, 4.2))
    for i, policy in enumerate(step["policies"]):
        costs = sorted(policy["rank_costs"], reverse=True)
        ax.plot(range(len(costs)), costs, drawstyle="steps-mid", color=PALETTE[i % len(PALETTE)],
                label=f"{policy['label']} (max/mean {policy['max_over_mean']:.3f})")
        mean = sum(costs) / len(costs)
        ax.axhline(mean, color=PALETTE[i % len(PALETTE)], linestyle=":", linewidth=1)
    ax.set_xlabel(f"rank, sorted by its cost (of {step['ranks']})")
    ax.set_ylabel(f"cost of the rank's share of one step ({unit})")
    ax.grid(alpha=0.3)
    ax.legend(frameon=False)
    ax.set_title("One step: every rank waits for the costliest")
    return _save(fig, out_dir, "step.svg")


def plot_padding(plt, padding, out_dir):
    """Padding efficiency versus step diversity for the padded policies."""
    fig, ax = plt.subplots(figsize=(8, 4.8))
    points = padding["points"]
    xs = [p["diversity_distance"] for p in points]
    ys = [100 * p["padding_efficiency"] for p in points]
    ax.plot(xs, ys, color="#999999", linewidth=1, zorder=1)
    ax.scatter(xs, ys, s=50, color=PALETTE[0], zorder=3)
    for p, x, y in zip(points, xs, ys):
        ax.annotate(p.get("short_label", p["label"]), (x, y), textcoords="offset points",
                    xytext=(7, -3), fontsize=8.5)
    ax.set_xlabel("step diversity distance (KS to the dataset; 0 = every step a fair sample)")
    ax.set_ylabel("padding efficiency (%) = real / computed tokens")
    ax.set_xlim(left=-0.02, right=max(xs) * 1.15 + 0.02)
    ax.grid(alpha=0.3)
    ax.set_title("Padded batches: how much is padding, how well each step mixes lengths")
    return _save(fig, out_dir, "padding.svg")


def _sweep_cell(policy, i, key):
    """A sweep table cell: the value, "n/a: needs N documents", "interrupted",
    or the value with * when it ran on documents drawn with replacement."""
    status = policy.get("status", ["ok"] * len(policy[key]))[i]
    if status == "n/a":
        return f"n/a: needs {_fmt_int(policy['documents_needed'][i])} documents"
    if status == "interrupted" or policy[key][i] is None:
        return "interrupted" if status == "interrupted" else "-"
    return _fmt_pct(policy[key][i]) + ("*" if status == "resampled" else "")


def _figure(name, caption):
    return (f'<figure><img src="{html.escape(name)}" alt="{html.escape(caption)}">'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>")


QUALITY_TITLES = {
    "fitted": "fitted (per sequence + per document + linear + quadratic)",
    "flops": "FLOPs formula, scaled (a·FLOPs + b)",
    "tokens": "tokens, scaled (a·tokens + b)",
}


def _cost_model_section(model):
    """Which cost model every figure uses and, for a calibrated one, how well
    each model predicted the measured times (docs/cost-models.md)."""
    out = [f'<p>Every cost on this page is {html.escape(model["summary"])}.</p>']
    quality = model.get("quality") or []
    if not quality:
        out.append(
            '<p class="note">Not measured on your model and hardware: how well it predicts '
            "real step times is unknown. Calibrate with <code>flopspack.torch.calibrate</code> "
            "(or time packed sequences yourself and run <code>flopspack fit SAMPLES --save "
            "model.json</code>), then pass <code>--cost-file model.json</code>: this section "
            "then shows how well each cost model predicts your times.</p>")
        return out
    rows = []
    for row in quality:
        h = row.get("held_out")
        rows.append([QUALITY_TITLES.get(row["model"], row["model"]),
                     f'{row["train"]["r_squared"]:.3f}',
                     f'{h["r_squared"]:.3f}' if h else "-",
                     _fmt_pct(h["mean_relative_error"]) if h else "-",
                     _fmt_pct(h["max_relative_error"]) if h else "-"])
    out.append('<p class="note">How well each cost model predicted the calibration samples '
               "(held out: samples kept out of every fit).</p>")
    out.append(_table(["cost model", "R² train", "R² held out", "mean relative error held out",
                       "max relative error held out"], rows))
    return out


def render(doc, out_dir):
    """Writes index.html and the figures for report JSON `doc` into out_dir.

    Returns the path of index.html.
    """
    if doc.get("schema") != SCHEMA or doc.get("command") != "report":
        raise ValueError(f"not a flopspack report (schema {doc.get('schema')!r}, command "
                         f"{doc.get('command')!r}); expected {SCHEMA!r} / 'report'")
    os.makedirs(out_dir, exist_ok=True)
    plt = _pyplot()
    unit = doc["model"].get("unit", "cost")
    # GPUs per data-parallel rank (--cp; 1 without): GPU counts are ranks x this.
    gpr = int(doc.get("gpus_per_rank", 1) or 1)
    source = doc["input"]["source"]
    parts = []
    parts.append(f"<h1>flopspack report: {html.escape(os.path.basename(source))}</h1>")
    parts.append(
        f'<p class="meta">{_fmt_int(doc["input"]["count"])} documents, '
        f'{_fmt_int(doc["input"]["tokens"])} tokens from <code>{html.escape(source)}</code>; '
        f'cost model: {html.escape(doc["model"]["summary"])}; '
        f'flopspack {html.escape(doc["flopspack_version"])}.</p>')

    rec = doc.get("recommendation")
    if rec:
        if rec.get("headline") and rec.get("losses"):
            labels = {p["policy"]: p["label"] for p in (doc.get("sweep") or {}).get("policies", [])}
            losses = _table(
                ["throughput lost at"] +
                [f"{_fmt_int(c * gpr)} GPUs" for c in rec["decide_at"]],
                [[labels.get(x["policy"], x["policy"])] +
                 [_fmt_pct(v) if v is not None else "n/a" for v in x["throughput_lost"]]
                 for x in rec["losses"]])
            setting = html.escape(rec.get("setting", ""))
            if rec.get("change_needed"):
                setting = f"<code>{setting}</code>"
            if rec.get("python"):
                setting += "<br>Python: <code>" + html.escape(rec["python"]) + "</code>"
            parts.append(
                f'<div class="decision"><b>Recommendation:</b> {html.escape(rec["headline"])}'
                f'{losses}<p>{html.escape(rec.get("scale", ""))}</p>'
                f'<p>{html.escape(rec.get("assumed", ""))}</p>'
                f"<p><b>Setting:</b> {setting}</p></div>")
        else:
            parts.append(f'<div class="decision"><b>Recommendation:</b> '
                         f'{html.escape(rec["text"])}</div>')
        if doc.get("interrupted"):
            parts.append('<p class="note">Interrupted: the page holds the points finished; '
                         "the others read 'interrupted'.</p>")

    stats = doc.get("stats")
    if stats:
        s = stats["summary"]
        cards = [("documents", _fmt_int(s["count"])), ("tokens", _fmt_int(s["tokens"])),
                 ("mean length", f"{s['mean']:,.0f}"), ("median", _fmt_int(s["p50"])),
                 ("p99", _fmt_int(s["p99"])), ("p99.9", _fmt_int(s["p999"])),
                 ("longest", _fmt_int(s["max"]))]
        if s.get("total_cost"):
            cards.append((f"total cost ({unit})", _fmt_si(s["total_cost"])))
        parts.append('<div class="cards">' + "".join(
            f'<div class="card"><div class="v">{v}</div><div class="k">{k}</div></div>'
            for k, v in cards) + "</div>")
        # Which convention the cost figures use: documents costed whole, or as
        # trained (a document longer than the sequence length as its pieces).
        convention = stats.get("cost_convention", "whole documents")
        cost_note = f" Costs: {convention}." if s.get("total_cost") else ""
        parts.append("<h2>Length distribution</h2>")
        parts.append(_figure(plot_histogram(plt, stats, unit, out_dir),
                             "Share of documents, tokens and cost in each log2 length bin."
                             + cost_note))
        hist = stats["histogram"]
        rows = []
        for k, upper in enumerate(hist["upper_edges"]):
            lower = 1 if k == 0 else hist["upper_edges"][k - 1] + 1
            row = [f"{_fmt_int(lower)}–{_fmt_int(upper)}", _fmt_int(hist["counts"][k]),
                   _fmt_pct(hist["document_share"][k], 2), _fmt_pct(hist["token_share"][k], 2)]
            if hist.get("cost_share") is not None:
                row.append(_fmt_pct(hist["cost_share"][k], 2))
            rows.append(row)
        header = ["length", "documents", "% documents", "% tokens"] + (
            [f"% cost ({unit})"] if hist.get("cost_share") is not None else [])
        parts.append(_table(header, rows))
        parts.append("<h2>The tail</h2>")
        parts.append('<p class="note">Documents longer than each threshold and the share of '
                     f"the dataset they carry.{html.escape(cost_note)}</p>")
        parts.append(_table(
            ["longer than", "documents", "share of documents", "share of tokens",
             "share of cost"],
            [[_fmt_int(t["threshold"]), _fmt_int(t["documents"]), _fmt_pct(t["document_share"], 2),
              _fmt_pct(t["token_share"], 2),
              _fmt_pct(t["cost_share"], 2) if t.get("cost_share") is not None else "-"]
             for t in stats["tail"]]))

    sweep = doc.get("sweep")
    if sweep:
        parts.append("<h2>Balance versus number of GPUs</h2>")
        parts.append(_figure(plot_balance(plt, sweep, out_dir, gpr),
                             "Balance efficiency and throughput of each policy as the "
                             "data-parallel world grows (points marked * in the tables ran on "
                             "documents drawn with replacement from the file)."))
        if sweep.get("note"):
            parts.append(f'<p class="note">{html.escape(sweep["note"])}</p>')
        for key, title in (("balance_efficiency", "Balance efficiency"),
                           ("relative_throughput", "Throughput relative to a balanced, unpadded run")):
            parts.append(f"<p><b>{title}</b></p>")
            parts.append(_table(["policy"] + [_fmt_int(r) for r in sweep["ranks"]],
                                [[p["label"]] + [_sweep_cell(p, i, key)
                                                 for i in range(len(sweep["ranks"]))]
                                 for p in sweep["policies"]]))
        if any(s == "resampled" for p in sweep["policies"] for s in p.get("status", [])):
            parts.append('<p class="note">* The file holds fewer documents than one step at '
                         "these GPU counts needs: the points ran on documents drawn with "
                         "replacement from it (the question is about the length distribution, "
                         "not the file). <code>--noresample</code> shows them as n/a "
                         "instead.</p>")

    step = doc.get("step")
    if step:
        parts.append("<h2>One step, rank by rank</h2>")
        parts.append(_figure(plot_step(plt, step, unit, out_dir),
                             f"Cost of each of {step['ranks']} ranks in one step, sorted; dotted "
                             "lines are the means."))
        if step.get("note"):
            parts.append(f'<p class="note">{html.escape(step["note"])}</p>')
        parts.append(_table(
            ["policy", "memory (tokens per microbatch)", "this step: max / mean",
             f"balance efficiency (sweep, {_fmt_int(step['ranks'] * gpr)} GPUs)",
             f"throughput (sweep, {_fmt_int(step['ranks'] * gpr)} GPUs)"],
            [[p["label"], _fmt_int(p.get("max_tokens_per_microbatch", 0)),
              f"{p['max_over_mean']:.3f}", _fmt_pct(p.get("balance_efficiency")),
              _fmt_pct(p.get("relative_throughput"))] for p in step["policies"]]))

    padding = doc.get("padding")
    if padding and not padding.get("points"):
        parts.append("<h2>Padding versus mixing</h2>")
        parts.append(f'<p class="note">{html.escape(padding.get("note", "n/a"))}</p>')
    elif padding:
        parts.append("<h2>Padding versus mixing</h2>")
        parts.append(_figure(plot_padding(plt, padding, out_dir),
                             "Each padded policy: the share of computed tokens that are real, "
                             "against how far its steps' length mix is from the dataset's."))
        if padding.get("note"):
            parts.append(f'<p class="note">{html.escape(padding["note"])}</p>')
        parts.append(_table(["policy", "padding efficiency", "diversity distance (tokens)"],
                            [[p["label"], _fmt_pct(p["padding_efficiency"]),
                              f"{p['diversity_distance']:.3f}"] for p in padding["points"]]))

    if rec and rec.get("details"):
        parts.append("<h2>How the recommendation was made</h2>")
        parts.append(f'<p>{html.escape(rec["details"])}</p>')

    parts.append("<h2>The cost model</h2>")
    parts.extend(_cost_model_section(doc["model"]))

    parts.append('<footer>Made by <code>flopspack report</code>; the numbers are in '
                 '<a href="report.json">report.json</a> (schema '
                 f"{html.escape(SCHEMA)}, see docs/cli.md).</footer>")
    page = ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>flopspack report: {html.escape(os.path.basename(source))}</title>\n"
            f"<style>{CSS}</style>\n</head>\n<body>\n" + "\n".join(parts) + "\n</body>\n</html>\n")
    index = os.path.join(out_dir, "index.html")
    with open(index, "w", encoding="utf-8") as f:
        f.write(page)
    return index


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="flopspack.report", description="Render flopspack report JSON as an HTML page.")
    parser.add_argument("json", help="report JSON written by `flopspack report` (- for stdin)")
    parser.add_argument("--out", required=True, help="directory for index.html and the figures")
    args = parser.parse_args(argv)
    try:
        if args.json == "-":
            doc = json.load(sys.stdin)
        else:
            with open(args.json, encoding="utf-8") as f:
                doc = json.load(f)
        index = render(doc, args.out)
    except (OSError, ValueError, KeyError) as error:
        print(f"flopspack.report: {error}", file=sys.stderr)
        return 1
    except ImportError as error:
        print(f"flopspack.report: {error}: install matplotlib (Debian: apt-get install "
              "python3-matplotlib)", file=sys.stderr)
        return 1
    print(index)
    return 0


if __name__ == "__main__":
    sys.exit(main())
