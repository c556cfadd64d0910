"""`flopspack report` on the bundled example dataset: the page builds, every
file it references exists, and headless Chromium renders it with its
figures (a screenshot test).

Needs FLOPSPACK_CLI and FLOPSPACK_SOURCE_DIR; the screenshot needs Debian's
chromium (FLOPSPACK_CHROMIUM names the binary).
"""
import html.parser
import json
import os
import shutil
import subprocess
import tempfile

import pytest

CLI = os.environ["FLOPSPACK_CLI"]
SOURCE = os.environ["FLOPSPACK_SOURCE_DIR"]
DATA = os.path.join(SOURCE, "examples", "data", "example_lengths.txt")
CHROMIUM = os.environ.get("FLOPSPACK_CHROMIUM") or shutil.which("chromium")


class References(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs = []
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("src", "href") and value:
                self.refs.append(value)


def child_env():
    """Processes the tests start get no sanitizer preload (CMakeLists.txt)."""
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS")}
    if "FLOPSPACK_CHILD_ASAN_OPTIONS" in os.environ:
        env["ASAN_OPTIONS"] = os.environ["FLOPSPACK_CHILD_ASAN_OPTIONS"]
    return env


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    # Three optimizer steps per point instead of the default 30: every check
    # below is about the page (files, schema, figures drawn), none about the
    # sweep's precision, and the default ranks keep the figures' full
    # 8-point shape and the resampled large points. The default 30 steps cost
    # ~97 CPU s here (GCC RelWithDebInfo), 3 steps ~20 (~2.9 CPU s a step).
    # A sanitizer build also sweeps fewer ranks.
    quick = ["--report-steps=3"]
    if "FLOPSPACK_CHILD_ASAN_OPTIONS" in os.environ:
        quick.append("--ranks=64,512")
    result = subprocess.run([CLI, "report", DATA, "--out", str(out), *quick], capture_output=True,
                            text=True, timeout=900, env=child_env())
    assert result.returncode == 0, result.stderr
    return out, result


def test_prints_where_the_report_is(report):
    out, result = report
    lines = result.stdout.splitlines()
    assert lines[-1] == "report: " + os.path.join(str(out), "index.html")
    assert lines[0].startswith(("recommendation: Use ", "recommendation: No change needed"))
    assert "Assumed:" in lines[0] and "Setting:" in lines[0]


def test_html_references_only_existing_files(report):
    out, _ = report
    parser = References()
    with open(out / "index.html", encoding="utf-8") as f:
        parser.feed(f.read())
    assert parser.refs, "the page references no files"
    images = [r for r in parser.refs if r.endswith((".svg", ".png"))]
    assert len(images) >= 2
    for ref in parser.refs:
        assert "://" not in ref and not ref.startswith("/"), f"non-local reference {ref}"
        path = out / ref
        assert path.is_file() and path.stat().st_size > 0, f"missing {ref}"
    for image in images:
        text = (out / image).read_text(encoding="utf-8")
        assert text.lstrip().startswith("<?xml") and "<svg" in text


def test_json_is_the_report_schema_and_matches_the_input(report):
    out, _ = report
    with open(out / "report.json", encoding="utf-8") as f:
        doc = json.load(f)
    assert (doc["schema"], doc["command"]) == ("flopspack-cli/1", "report")
    with open(DATA) as f:
        lengths = [int(line) for line in f if not line.startswith("#")]
    assert doc["input"]["count"] == len(lengths)
    assert doc["input"]["tokens"] == sum(lengths)
    for section in ("stats", "sweep", "step", "padding", "recommendation"):
        assert section in doc, section
    hist = doc["stats"]["histogram"]
    assert sum(hist["document_share"]) == pytest.approx(1.0)
    assert sum(hist["token_share"]) == pytest.approx(1.0)
    assert sum(hist["counts"]) == len(lengths)
    # Costs as trained at the report's capacity (16,384 by default), and
    # the report says so.
    assert doc["stats"]["cost_capacity"] == 16384
    assert doc["stats"]["cost_convention"] == "as trained: cut into pieces of 16,384 tokens"


def _pixels(png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.image
    return matplotlib.image.imread(str(png))


def _has_colour(pixels, rgb, tolerance=0.03, minimum=200):
    import numpy
    target = numpy.array(rgb, dtype=float) / 255.0
    close = (abs(pixels[:, :, :3] - target) < tolerance).all(axis=2)
    return int(close.sum()) >= minimum


SECTIONS = ("Recommendation:", "Length distribution", "The tail", "Balance versus number of GPUs",
            "One step, rank by rank", "Padding versus mixing", "How the recommendation was made")


@pytest.fixture(scope="module")
def chromium_page(report):
    """One headless Chromium launch on the example page: its screenshot and
    the DOM it built (--screenshot and --dump-dom together; a launch is
    ~3 CPU s and 5-15 s of wall time on the 2-core CI machine)."""
    if CHROMIUM is None:
        pytest.skip("chromium is not installed")
    out, _ = report
    shot = out / "screenshot.png"
    with tempfile.TemporaryDirectory() as profile:
        result = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={profile}", "--hide-scrollbars",
             "--window-size=1280,3000", f"--screenshot={shot}", "--dump-dom",
             "file://" + str(out / "index.html")],
            capture_output=True, text=True, timeout=180, env=child_env())
    assert result.returncode == 0 and shot.is_file(), result.stderr[-2000:]
    return shot, result.stdout


def test_screenshot_in_headless_chromium(chromium_page):
    shot, _ = chromium_page
    pixels = _pixels(shot)
    assert pixels.shape[0] == 3000 and pixels.shape[1] == 1280
    ink = (pixels[:, :, :3] < 0.9).any(axis=2).mean()
    assert ink > 0.02, f"page looks blank ({ink:.3%} non-white)"
    # The figures' first two series colours (Okabe-Ito blue and vermilion)
    # appear only inside the SVG plots: the images loaded and were drawn.
    assert _has_colour(pixels, (0x00, 0x72, 0xB2)), "no plot colour: figures not rendered?"
    assert _has_colour(pixels, (0xD5, 0x5E, 0x00)), "no second series colour"


def test_page_in_headless_chromium_has_every_section(chromium_page):
    _, dom = chromium_page
    for heading in SECTIONS:
        assert heading in dom, heading
    assert "error" not in dom.lower()


# ---- a 5,000-document sample at 8,192 GPUs (issue 17) -------------------------

def _sample(path):
    import random
    rng = random.Random(17)
    path.write_text("".join(f"{min(200000, int(64 * rng.paretovariate(1.3)))}\n"
                            for _ in range(5000)))
    return path


def _sample_report(tmp_path_factory, *extra):
    out = tmp_path_factory.mktemp("sample_report")
    data = _sample(out / "sample.txt")
    result = subprocess.run([CLI, "report", str(data), "--out", str(out / "page"),
                             "--report-steps=1", "--capacity=256", "--microbatches=1",
                             "--ranks=64,8192", "--decide-at=64,8192", *extra],
                            capture_output=True, text=True, timeout=300, env=child_env())
    assert result.returncode == 0, result.stderr
    with open(out / "page" / "report.json", encoding="utf-8") as f:
        return out / "page", json.load(f), result


@pytest.fixture(scope="module")
def sample_report(tmp_path_factory):
    return _sample_report(tmp_path_factory)


def test_sample_report_resamples_and_never_fails(sample_report):
    _, doc, result = sample_report
    for p in doc["sweep"]["policies"]:
        assert p["status"] == ["ok", "resampled"], p["policy"]
        assert all(v is not None and 0 < v <= 1 for v in p["relative_throughput"])
    assert "drawn with replacement" in doc["sweep"]["note"]
    rec = doc["recommendation"]
    assert rec["decide_at"] == [64, 8192]
    assert len(rec["losses"]) == 4 and all(len(x["throughput_lost"]) == 2 for x in rec["losses"])
    assert "Assumed:" in rec["text"] and "same memory, 256 tokens" in rec["text"]
    assert result.stdout.startswith("recommendation: ")


def test_step_section_agrees_with_the_sweep_table(sample_report):
    _, doc, _ = sample_report
    sweep = {p["policy"]: p for p in doc["sweep"]["policies"]}
    column = doc["sweep"]["ranks"].index(doc["step"]["ranks"])
    for p in doc["step"]["policies"]:
        s = sweep[p["sweep_policy"]]
        assert p["balance_efficiency"] == s["balance_efficiency"][column]
        assert p["relative_throughput"] == s["relative_throughput"][column]
    # Same memory: random dealing cuts at --capacity, so its fill is not
    # diluted by the planner's slack.
    assert {p["max_tokens_per_microbatch"] for p in doc["step"]["policies"]} == {256}


def test_padding_section_uses_the_report_setup(sample_report):
    _, doc, _ = sample_report
    settings = doc["padding"]["settings"]
    assert settings["max_padded_tokens"] == 256 and settings["num_ranks"] == 64
    assert "--capacity" in doc["padding"]["note"]


def test_noresample_report_shows_na(tmp_path_factory):
    page, doc, _ = _sample_report(tmp_path_factory, "--noresample")
    for p in doc["sweep"]["policies"]:
        assert p["status"] == ["ok", "n/a"]
    text = (page / "index.html").read_text(encoding="utf-8")
    assert "n/a: needs" in text


def test_no_change_needed_below_the_threshold(tmp_path_factory):
    _, doc, _ = _sample_report(tmp_path_factory, "--min-gain=99")
    assert doc["recommendation"]["change_needed"] is False
    assert doc["recommendation"]["text"].startswith("No change needed")


def test_sample_page_has_every_section(sample_report):
    """The resampled page has every section. Its HTML holds no script, so the
    DOM Chromium builds from it is this text: Chromium's own rendering and
    DOM are checked on the example page (test_page_in_headless_chromium_*),
    one launch for both instead of one per page."""
    page, _, _ = sample_report
    text = (page / "index.html").read_text(encoding="utf-8")
    assert "<script" not in text.lower()
    for heading in SECTIONS:
        assert heading in text, heading
    assert "error" not in text.lower()


def test_interrupted_report_keeps_the_finished_points(tmp_path):
    data = _sample(tmp_path / "sample.txt")
    env = child_env()
    env["FLOPSPACK_CLI_INTERRUPT_AFTER"] = "2"  # random dealing's sweep, then Ctrl-C
    result = subprocess.run([CLI, "report", str(data), "--out", str(tmp_path / "page"),
                             "--report-steps=1", "--capacity=256", "--microbatches=1",
                             "--ranks=64", "--decide-at=64"],
                            capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 130, result.stderr
    with open(tmp_path / "page" / "report.json", encoding="utf-8") as f:
        doc = json.load(f)
    assert doc["interrupted"] is True
    statuses = [p["status"][0] for p in doc["sweep"]["policies"]]
    assert statuses[0] == "ok" and "interrupted" in statuses
    assert (tmp_path / "page" / "index.html").is_file()


def test_cp_report_counts_every_gpu(tmp_path_factory, sample_report):
    """With --cp C a data-parallel rank is C GPUs: the recommendation and the
    page print ranks x C GPUs, and report.json says gpus_per_rank = C."""
    page, doc, _ = _sample_report(tmp_path_factory, "--cp=4")
    assert doc["gpus_per_rank"] == 4
    assert doc["recommendation"]["decide_at"] == [64, 8192]  # still data-parallel ranks
    text = doc["recommendation"]["text"]
    assert "At 256 GPUs" in text and "At 32,768 GPUs" in text, text
    assert "GPU counts are data-parallel ranks (--ranks, --decide-at) x 4 (--cp)" in text
    html_text = (page / "index.html").read_text(encoding="utf-8")
    assert "32,768 GPUs" in html_text
    _, plain, _ = sample_report  # the same command without --cp
    assert plain["gpus_per_rank"] == 1
    assert "At 8,192 GPUs" in plain["recommendation"]["text"]


def test_extra_costs_reach_the_sweep(tmp_path_factory, sample_report):
    """--extra-costs FILE: one image-heavy document in ten makes every
    policy's sweep throughput differ from the run without them."""
    out = tmp_path_factory.mktemp("extra")
    data = _sample(out / "sample.txt")
    count = sum(1 for line in open(data) if line.strip() and not line.startswith("#"))
    extra = out / "extra.txt"
    extra.write_text("".join("%g\n" % (1e13 if i % 10 == 0 else 0) for i in range(count)))
    _, plain, _ = sample_report  # the same command without --extra-costs
    _, heavy, _ = _sample_report(tmp_path_factory, "--extra-costs", str(extra))
    assert heavy["input"]["extra_costs"] == str(extra)
    for a, b in zip(plain["sweep"]["policies"], heavy["sweep"]["policies"]):
        assert a["relative_throughput"] != b["relative_throughput"], a["policy"]
