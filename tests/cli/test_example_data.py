"""The committed example dataset is exactly what its documented, seeded
generator writes, and it has the long tail the docs describe."""
import os
import subprocess
import sys

SOURCE = os.environ.get("FLOPSPACK_SOURCE_DIR",
                        os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
SCRIPT = os.path.join(SOURCE, "scripts", "make_example_dataset.py")
DATA = os.path.join(SOURCE, "examples", "data", "example_lengths.txt")


def generate(*args):
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS")}
    return subprocess.run([sys.executable, SCRIPT, "--out", "-", *args], check=True,
                          capture_output=True, env=env).stdout


def lengths(text):
    return [int(line) for line in text.decode().splitlines() if not line.startswith("#")]


def test_committed_file_is_the_generators_output():
    with open(DATA, "rb") as f:
        assert f.read() == generate()


def test_same_seed_same_bytes_other_seed_other_bytes():
    assert generate("--count", "500", "--seed", "7") == generate("--count", "500", "--seed", "7")
    assert generate("--count", "500", "--seed", "7") != generate("--count", "500", "--seed", "8")


def test_mixture_shape():
    values = lengths(generate("--count", "20000"))
    values.sort()
    n = len(values)
    assert values[0] >= 8 and values[-1] <= 131072
    # Median near the chat/web mix, a tail two orders of magnitude longer.
    assert 200 < values[n // 2] < 800
    assert values[int(n * 0.999)] > 50 * values[n // 2]
    tokens = sum(values)
    long_tokens = sum(v for v in values if v > 8192)
    long_docs = sum(1 for v in values if v > 8192)
    assert long_docs / n < 0.06 and 0.3 < long_tokens / tokens < 0.75
    # No long-context documents: no documents over the web clip.
    assert max(lengths(generate("--count", "5000", "--long-share", "0"))) <= 32768
