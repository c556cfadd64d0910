import os
import pathlib

import pytest


@pytest.fixture(scope="session")
def golden_dir() -> pathlib.Path:
    default = pathlib.Path(__file__).resolve().parents[3] / "tests" / "golden"
    return pathlib.Path(os.environ.get("FLOPSPACK_GOLDEN_DIR", default))
